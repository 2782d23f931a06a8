"""The report of ``bench_builds.py``: the passes pooled, five tables, the issue's targets.

Rendered from the measurements alone (``bench_builds.py --render`` rewrites ``builds.md``
from ``builds.json``): each cell pooled over every pass of every round (CPU time, best
and median µs per input), tables of callstream's two builds beside each peer, and the
targets of the issue with the values measured.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from _peers import AnthropicAccumulate, LangChainAdd, OpenAIStreamState, PydanticAIParts
from _report import fmt_bytes, machine_markdown, markdown_table, write_text
from _streams import FORMATS, FRAGMENT

BUILDS = ("compiled", "pure")
"""The two callstream builds, each measured in its own subprocess."""
PEERS_WORKER = "peers"

OPENAI = "openai-chat"
ANTHROPIC = "anthropic"
STREAM = "stream()"
PARSER = "PartialJSONParser.feed"
JSON_LOADS = "json.loads"


@dataclass(frozen=True)
class Plan:
    """Sizes (bytes of arguments / of the parsed document) and rounds of one run.

    ``sizes`` are the roles 200 B, 10 KB, 100 KB and 1 MB of the issue (smaller in the
    quick run, where the roles keep their places).
    """

    sizes: tuple[int, int, int, int]
    rounds: int

    @property
    def large(self) -> int:
        """The 100 KB role: the parser's size compared with one ``json.loads``."""
        return self.sizes[2]

    @property
    def parser_sizes(self) -> tuple[int, ...]:
        return self.sizes[1:]


@dataclass
class Stat:
    """One cell pooled over every pass of every round (CPU time)."""

    inputs: int
    cpu_s: list[float]
    wall_s: list[float]
    note: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.cpu_s)

    @property
    def best_s(self) -> float:
        return min(self.cpu_s) if self.cpu_s else math.nan

    @property
    def median_s(self) -> float:
        return statistics.median(self.cpu_s) if self.cpu_s else math.nan

    @property
    def best_us(self) -> float:
        """Best pass, µs per input."""
        return self.best_s * 1e6 / self.inputs

    @property
    def median_us(self) -> float:
        """Median pass, µs per input."""
        return self.median_s * 1e6 / self.inputs

    def as_json(self) -> dict[str, Any]:
        wall = statistics.median(self.wall_s) if self.wall_s else None
        out = {"inputs": self.inputs, "passes": len(self.cpu_s)}
        out |= {"cpu_best_us_per_input": _num(self.best_us)}
        out |= {"cpu_median_us_per_input": _num(self.median_us)}
        out |= {"cpu_best_s": _num(self.best_s), "cpu_median_s": _num(self.median_s)}
        return out | {"wall_median_s": wall, "note": self.note}


Key = tuple[str, str, str, int]
"""(worker, label, format, size) of a cell."""


def pool(runs: Sequence[dict[str, Any]]) -> dict[Key, Stat]:
    """Every worker's cells by key, the passes of all rounds together."""
    out: dict[Key, Stat] = {}
    for run in runs:
        for cell in run["cells"]:
            key = (run["build"], cell["label"], cell["format"], cell["size"])
            stat = out.setdefault(key, Stat(cell["inputs"], [], [], cell.get("note", "")))
            stat.cpu_s.extend(cell["cpu_s"])
            stat.wall_s.extend(cell["wall_s"])
    return out


def _ratio(a: float, b: float) -> float:
    """``a / b`` (NaN when either is missing)."""
    if math.isnan(a) or math.isnan(b) or b <= 0:
        return math.nan
    return a / b


def _x(r: float) -> str:
    return "—" if math.isnan(r) else (f"{r:,.0f}" if r >= 100 else f"{r:.3g}")


def _us(us: float) -> str:
    return "—" if math.isnan(us) else f"{us:.3g}"


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def _secs(s: float) -> str:
    return "—" if math.isnan(s) else f"{s:.3g}"


_MISSING = Stat(1, [], [])


class Results:
    """The pooled cells, with the lookups the report makes."""

    def __init__(self, stats: dict[Key, Stat]) -> None:
        self.stats = stats

    def get(self, worker: str, label: str, fmt: str, size: int) -> Stat:
        return self.stats.get((worker, label, fmt, size), _MISSING)

    def stream(self, build: str, fmt: str, size: int) -> Stat:
        return self.get(build, STREAM, fmt, size)

    def parser(self, build: str, size: int) -> Stat:
        return self.get(build, PARSER, "structured", size)

    def peer(self, label: str, fmt: str, size: int) -> Stat:
        return self.get(PEERS_WORKER, label, fmt, size)


BUILD_HEADERS = ["compiled best", "compiled median", "pure best", "pure median", "pure / compiled"]
PEER_HEADERS = ["stream", "chunks", *BUILD_HEADERS, "peer", "peer best", "peer median"]
PEER_HEADERS += ["peer / compiled", "peer / pure"]


def _builds(res: Results, fmt: str, size: int, per: str = "us") -> list[str]:
    """The five build cells (best, median of each build; pure / compiled) of a stream, per
    chunk in µs (``per="us"``) or per stream in seconds (``"s"``)."""
    comp, pure = res.stream("compiled", fmt, size), res.stream("pure", fmt, size)
    if per == "s":
        cells = [_secs(x) for x in (comp.best_s, comp.median_s, pure.best_s, pure.median_s)]
        return [*cells, _x(_ratio(pure.median_s, comp.median_s))]
    cells = [_us(x) for x in (comp.best_us, comp.median_us, pure.best_us, pure.median_us)]
    return [*cells, _x(_ratio(pure.median_us, comp.median_us))]


def peer_rows(res: Results, comparisons: Sequence[tuple[str, int, str]]) -> list[list[str]]:
    """Table rows (µs per chunk, CPU) of callstream's two builds vs a peer, per
    ``(format, size, peer label)``."""
    rows = []
    for fmt, size, label in comparisons:
        comp, pure = res.stream("compiled", fmt, size), res.stream("pure", fmt, size)
        peer = res.peer(label, fmt, size)
        peer_cells = [_us(peer.best_us), _us(peer.median_us)]
        if not peer.ok:
            peer_cells = [peer.note or "n/a", "—"]
        ratios = [_x(_ratio(peer.median_us, x.median_us)) for x in (comp, pure)]
        stream = f"{fmt}, 1 call, {fmt_bytes(size)}"
        rows.append(
            [stream, str(comp.inputs), *_builds(res, fmt, size), label, *peer_cells, *ratios]
        )
    return rows


@dataclass(frozen=True)
class Target:
    """One target of the issue, measured: ``value`` compared with ``bound``."""

    name: str
    value: float
    bound: float
    at_most: bool
    """True: met when value <= bound (a cost); False: met when value >= bound (a speed-up)."""
    unit: str
    detail: str = ""
    best: float = math.nan
    """The same figure from the best passes (not judged: shows how much noise moves it)."""

    @property
    def met(self) -> bool | None:
        if math.isnan(self.value):
            return None
        return self.value <= self.bound if self.at_most else self.value >= self.bound

    def cells(self) -> list[str]:
        verdict = {True: "met", False: "NOT met", None: "not measured"}[self.met]
        sign = "≤" if self.at_most else "≥"
        value, best = (
            "—" if math.isnan(v) else f"{v:.3g}{self.unit}" for v in (self.value, self.best)
        )
        return [self.name, f"{sign} {self.bound:g}{self.unit}", value, verdict, best, self.detail]


FLAT_BOUND = 1.5
"""Per-fragment cost of the parser at the largest size over that at the smallest: "flat"."""


def targets(res: Results, plan: Plan) -> list[Target]:
    """The issue's targets with the values measured (CPU medians; the best passes' value
    beside each)."""
    best = _targets(res, plan, best=True)
    return [replace(t, best=b.value) for t, b in zip(_targets(res, plan), best, strict=True)]


def _targets(res: Results, plan: Plan, *, best: bool = False) -> list[Target]:
    s, m, lg, h = plan.sizes

    def us(stat: Stat) -> float:
        return stat.best_us if best else stat.median_us

    def secs(stat: Stat) -> float:
        return stat.best_s if best else stat.median_s

    def cost(name: str, value: float, bound: float, unit: str = "x") -> Target:
        return Target(name, value, bound, True, unit)

    def ahead(name: str, value: float, bound: float, detail: str = "") -> Target:
        return Target(name, value, bound, False, "x", detail)

    def speedup(label: str, fmt: str, size: int, build: str = "compiled") -> float:
        """Peer / callstream ``build``, µs per chunk."""
        return _ratio(us(res.peer(label, fmt, size)), us(res.stream(build, fmt, size)))

    out = [
        cost(
            f"stream() {OPENAI} {fmt_bytes(s)}, {build}",
            us(res.stream(build, OPENAI, s)),
            bound,
            " µs/chunk",
        )
        for build, bound in (("compiled", 2.0), ("pure", 5.5))
    ]
    name = f"vs openai ChatCompletionStreamState at {fmt_bytes(s)} (compiled)"
    out.append(ahead(name, speedup(OpenAIStreamState.label, OPENAI, s), 40.0))
    out += [
        ahead(
            f"vs anthropic accumulate_event at {fmt_bytes(size)} (compiled)",
            speedup(AnthropicAccumulate.label, ANTHROPIC, size),
            bound,
        )
        for size, bound in ((s, 2.0), (m, 6.0), (lg, 20.0))
    ]
    for fmt in FORMATS:
        ratios = {size: speedup(PydanticAIParts.label, fmt, size) for size in plan.sizes}
        pure = {size: speedup(PydanticAIParts.label, fmt, size, "pure") for size in plan.sizes}
        worst = min(ratios.values(), key=lambda r: -math.inf if math.isnan(r) else r)
        detail = "compiled: " + ", ".join(f"{fmt_bytes(k)} {_x(v)}x" for k, v in ratios.items())
        detail += "; pure: " + ", ".join(f"{fmt_bytes(k)} {_x(v)}x" for k, v in pure.items())
        name = f"ahead of pydantic-ai at every size, {fmt} (compiled; lowest ratio)"
        out.append(ahead(name, worst, 1.0, detail))
    out += [
        cost(
            f"{fmt_bytes(h)} argument, preview every chunk, {fmt}, {build}",
            secs(res.stream(build, fmt, h)),
            bound,
            " s",
        )
        for fmt in FORMATS
        for build, bound in (("compiled", 0.5), ("pure", 1.2))
    ]
    loads = secs(res.get("compiled", JSON_LOADS, "structured", lg))
    name = f"parser {fmt_bytes(lg)} vs one json.loads (compiled)"
    out.append(cost(name, _ratio(secs(res.parser("compiled", lg)), loads), 25.0))
    lo, hi = plan.parser_sizes[0], plan.parser_sizes[-1]
    out += [
        cost(
            f"parser per fragment flat {fmt_bytes(lo)} → {fmt_bytes(hi)}, {build} "
            f"(µs/fragment at {fmt_bytes(hi)} / at {fmt_bytes(lo)})",
            _ratio(us(res.parser(build, hi)), us(res.parser(build, lo))),
            FLAT_BOUND,
        )
        for build in BUILDS
    ]
    return out


def report(
    res: Results,
    plan: Plan,
    info: dict[str, Any],
    builds: dict[str, Any],
    command: str,
    quick: bool,
) -> str:
    """The markdown report: method, the five tables, the targets, the machine."""
    s, m, lg, h = plan.sizes
    lines = [
        "# callstream compiled vs pure Python vs the peers, one run\n",
        "Each callstream build runs in its own subprocess of the same Python (compiled: "
        "`CALLSTREAM_PURE` unset; pure: `CALLSTREAM_PURE=1`; each checks "
        "`callstream.COMPILED`), alternated compiled then pure for "
        f"{plan.rounds} rounds; the peers run once, in a third subprocess after the first "
        "round. A pass is one whole stream (or document) timed whole; figures are the "
        "worker's **CPU time** (other processes' time left out) in **µs per chunk** (the "
        "pass over its chunks / fragments), *best* and *median* over every pass of every "
        "round; ratios are of the medians (peer / callstream above 1: callstream is "
        "faster). Argument text is cut into "
        f"{FRAGMENT}-character fragments. `stream()` is "
        "`for update in stream(payloads, provider=fmt)` reading `update.tool_calls` after "
        "every chunk; each peer reads its parsed preview after every chunk (column *peer*, "
        "what it reads: `_peers.py`). Every pass's final calls equal the originals "
        "(asserted). Method: the docstring of `benchmarks/bench_builds.py`.\n",
    ]
    if quick:
        lines.append(
            "**Quick run**: sizes reduced (the 10 KB / 100 KB / 1 MB roles are "
            f"{fmt_bytes(m)} / {fmt_bytes(lg)} / {fmt_bytes(h)}) and few passes: the "
            "verdicts below are not the issue's.\n"
        )
    lines.append(
        "".join(
            f"- {b}: callstream `{builds[b].get('file')}`, COMPILED={builds[b]['compiled']} "
            f"({builds[b]['reason']})\n"
            for b in BUILDS
        )
    )
    lines.append(f"## 1. stream() on one {fmt_bytes(s)} OpenAI Chat call (µs per chunk)\n")
    lines.append(
        markdown_table(
            PEER_HEADERS,
            peer_rows(res, [(OPENAI, s, OpenAIStreamState.label), (OPENAI, s, LangChainAdd.label)]),
        )
    )
    lines.append("## 2. Anthropic format: stream() vs anthropic accumulate_event (µs per event)\n")
    comparisons = [(ANTHROPIC, size, AnthropicAccumulate.label) for size in (s, m, lg)]
    comparisons.append((ANTHROPIC, s, LangChainAdd.label))
    lines.append(markdown_table(PEER_HEADERS, peer_rows(res, comparisons)))
    lines.append(
        "## 3. pydantic-ai parts manager at every size (µs per chunk; it parses nothing "
        "while streaming)\n"
    )
    comparisons = [(fmt, size, PydanticAIParts.label) for fmt in FORMATS for size in plan.sizes]
    lines.append(markdown_table(PEER_HEADERS, peer_rows(res, comparisons)))
    lines.append(
        f"## 4. One {fmt_bytes(h)} argument, `update.tool_calls` read every chunk "
        "(seconds per stream, CPU)\n"
    )
    rows = []
    for fmt in FORMATS:
        comp, pure = res.stream("compiled", fmt, h), res.stream("pure", fmt, h)
        passes = f"{len(comp.cpu_s)} / {len(pure.cpu_s)}"
        rows.append([fmt, str(comp.inputs), *_builds(res, fmt, h, per="s"), passes])
    lines.append(markdown_table(["format", "chunks", *BUILD_HEADERS, "passes"], rows))
    lines.append(
        f"## 5. Parser alone: PartialJSONParser().feed over a structured document in "
        f"{FRAGMENT}-character fragments\n"
    )
    rows = []
    for build in BUILDS:
        big = res.parser(build, lg)
        loads = res.get(build, JSON_LOADS, "structured", lg)
        per = [res.parser(build, size) for size in plan.parser_sizes]
        ms = [_secs(big.median_s * 1e3), _secs(loads.median_s * 1e3)]
        cells = [f"{_us(p.best_us)} / {_us(p.median_us)}" for p in per]
        flat = _x(_ratio(per[-1].median_us, per[0].median_us))
        rows.append([build, *ms, _x(_ratio(big.median_s, loads.median_s)), *cells, flat])
    headers = ["build", f"feed {fmt_bytes(lg)} (ms)", f"json.loads {fmt_bytes(lg)} (ms)"]
    headers.append("feed / json.loads")
    headers += [f"µs/fragment {fmt_bytes(size)} (best / median)" for size in plan.parser_sizes]
    headers.append(f"{fmt_bytes(plan.parser_sizes[-1])} / {fmt_bytes(plan.parser_sizes[0])}")
    lines.append(markdown_table(headers, rows))
    comp, pure = res.parser("compiled", lg), res.parser("pure", lg)
    lines.append(
        f"pure / compiled at {fmt_bytes(lg)}: {_x(_ratio(pure.median_s, comp.median_s))}; "
        "medians of the passes; json.loads is timed in the same worker.\n"
    )
    lines.append("## Targets (the issue's; CPU medians)\n")
    lines.append(
        markdown_table(
            ["target", "bound", "measured (median)", "verdict", "best passes", "detail"],
            [t.cells() for t in targets(res, plan)],
        )
    )
    lines.append(machine_markdown(info, command))
    return "\n".join(lines)


def write(out: Path, data: dict[str, Any]) -> int:
    """Pool the runs in ``data``, write builds.md and builds.json (``data`` plus the pooled
    cells and the targets), print the report."""
    sizes = data["sizes"]
    plan = Plan((sizes[0], sizes[1], sizes[2], sizes[3]), data["rounds"])
    res = Results(pool(data["runs"]))
    info = data["machine"]
    text = report(res, plan, info, data["builds"], info["command"], data["quick"])
    write_text(out / "builds.md", text)
    data["cells"] = [
        {"worker": k[0], "label": k[1], "format": k[2], "size": k[3], **st.as_json()}
        for k, st in res.stats.items()
    ]
    data["targets"] = [
        {"name": t.name, "bound": t.bound, "at_most": t.at_most, "value": _num(t.value)}
        | {"best": _num(t.best), "unit": t.unit.strip(), "met": t.met, "detail": t.detail}
        for t in targets(res, plan)
    ]
    text_json = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    # each pass's time is a number in a list: one line per list, not per number
    text_json = re.sub(
        r"\[\s+([-+.0-9e,\s]+?)\s+\]", lambda m: "[" + " ".join(m[1].split()) + "]", text_json
    )
    write_text(out / "builds.json", text_json + "\n")
    print(text)
    return 0
