"""Run every growth check (``bench_growth_*.py``) into one table and ``results/growth.md``.

    python benchmarks/growth.py                      # full sizes, every script
    python benchmarks/growth.py --quick              # smaller sizes
    python benchmarks/growth.py --tiny               # every check at n = 3: a smoke run
    python benchmarks/growth.py --only json cli      # scripts by topic, or checks whose
                                                     # name contains a word ("deep")

Each ``bench_growth_<topic>.py`` found next to this file is imported; one that exposes
``checks(quick) -> list[Check]`` (the shared harness, ``_growth.py``) has its checks run
here, in this process, one after another. A script without that interface is run as a
subprocess (``python script [--quick]``) and reported as one row, passed or failed by
its exit code, with its own output quoted in the report.

The machine may be shared and noisy: a check (or a whole subprocess script) that fails
is run again, up to ``--retries`` more times (2 by default), and the verdict says how
many tries it took. The load average is printed before and after, and recorded.

Writes ``results/growth.md`` (machine, command, the table: script, check, measure, n, 2n,
value at n, value at 2n, ratio, verdict). Exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _growth import (  # noqa: E402
    HEADERS,
    LIMIT,
    Result,
    header,
    line,
    load_line,
    run_checks,
    steady_allocator,
    tiny,
)
from _report import (  # noqa: E402
    RESULTS,
    TINY_HELP,
    load_average,
    machine,
    machine_markdown,
    markdown_table,
    write_text,
)

PREFIX = "bench_growth_"


def scripts() -> list[Path]:
    """The growth scripts next to this file, by name."""
    return sorted(BENCH.glob(f"{PREFIX}*.py"))


def topic(script: Path) -> str:
    """``bench_growth_json.py`` -> ``json``."""
    return script.stem.removeprefix(PREFIX)


def load(script: Path) -> ModuleType:
    """Import a growth script as a module (registered, so its dataclasses resolve)."""
    name = f"_growth_script_{topic(script)}"
    spec = importlib.util.spec_from_file_location(name, script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class ScriptRun:
    """A script run whole in a subprocess (it has no ``checks(quick)``)."""

    script: str
    returncodes: list[int]
    output: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.returncodes[-1] == 0

    def cells(self) -> list[str]:
        tries = len(self.returncodes)
        codes = ", ".join(str(c) for c in self.returncodes)
        if self.ok:
            verdict = "ok (exit 0)" if tries == 1 else f"ok (try {tries}; exit codes {codes})"
        else:
            verdict = f"OVER ({tries} tries, exit codes {codes}; see its output below)"
        return [
            self.script,
            "whole script (subprocess, own harness)",
            "—",
            "—",
            "—",
            "—",
            "—",
            "—",
            verdict,
        ]


def run_script(
    script: Path, *, quick: bool, retries: int, size: Sequence[str] | None = None
) -> ScriptRun:
    """Run ``script`` as a subprocess until it exits 0 or ``retries`` re-runs are spent
    (``size``: its options, ``--quick`` or ``--tiny``; by default ``--quick`` if ``quick``)."""
    started = time.perf_counter()
    codes: list[int] = []
    output = ""
    flags = list(size) if size is not None else ["--quick"] if quick else []
    while True:
        argv = [sys.executable, str(script), *flags]
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=3600)
        codes.append(done.returncode)
        output = done.stdout + done.stderr
        if done.returncode == 0 or len(codes) > retries:
            break
    return ScriptRun(script.stem, codes, output, time.perf_counter() - started)


def names_script(words: Sequence[str], script: Path) -> bool:
    """One of ``words`` is the script's topic or file name (``json``, ``bench_growth_json``)."""
    return any(w.lower() in (topic(script), script.stem, script.name) for w in words)


def report(
    rows: Sequence[Result | ScriptRun], command: str, info: dict[str, object], seconds: float
) -> str:
    """The markdown report."""
    failed = [r for r in rows if not r.ok]
    cells = [[c.replace("|", "\\|") for c in r.cells()] for r in rows]
    parts = [
        "# Growth checks: cost at n and at 2n\n",
        machine_markdown(info, command),
        f"\nEach check measures one cost at size n and 2n: CPU time (`time.process_time`, "
        "best of several runs, garbage collector collected then paused around the clock, "
        "inputs built before the clock) or peak memory (`tracemalloc`, or a subprocess's "
        f"own `tracemalloc` peak). The ratio (2n over n) must stay at or below {LIMIT}: a "
        "linear cost gives about 2, a bounded one about 1, a quadratic one about 4. A "
        "failing check is measured again up to two more times (the machine is shared); "
        "the verdict says how many tries it took. glibc's malloc thresholds are fixed "
        "for the run so that a large block is not page-faulted afresh at 2n only. "
        "Harness: `benchmarks/_growth.py`.\n",
        f"\n{len(rows)} checks, {len(failed)} failed; {seconds:,.0f} s in all.\n\n",
        markdown_table(HEADERS, cells),
    ]
    for row in rows:
        if isinstance(row, ScriptRun):
            parts.append(f"\n## Output of `{row.script}.py` (last try)\n\n```\n")
            parts.append(row.output.rstrip() + "\n```\n")
    return "".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the growth scripts' checks; print and write the table; 1 if a check failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--tiny", action="store_true", help=f"{TINY_HELP} (n = 3)")
    parser.add_argument(
        "--only", nargs="+", default=(), help="scripts (topic) or checks (word in name)"
    )
    parser.add_argument("--retries", type=int, default=2, help="re-runs of a failing check")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    ns = parser.parse_args(argv)
    retries = 0 if ns.tiny else ns.retries
    steady_allocator()
    info = machine()
    started = time.perf_counter()
    print(load_line())
    print(header())
    rows: list[Result | ScriptRun] = []
    for script in scripts():
        module = load(script)
        checks = getattr(module, "checks", None)
        whole = not ns.only or names_script(ns.only, script)
        if callable(checks):
            rows += run_checks(
                [tiny(c) for c in checks(True)] if ns.tiny else checks(ns.quick),
                script=script.stem,
                retries=retries,
                only=() if whole else ns.only,
            )
        elif whole:
            size = ["--tiny"] if ns.tiny else ["--quick"] if ns.quick else []
            run = run_script(script, quick=ns.quick, retries=retries, size=size)
            rows.append(run)
            print(line(run.cells()))
    seconds = time.perf_counter() - started
    info["load_average_1m_end"] = load_average()
    failed = [r for r in rows if not r.ok]
    print(f"{len(rows)} checks, {len(failed)} failed, {seconds:,.0f} s; {load_line()}")
    given = list(argv if argv is not None else sys.argv[1:])
    if "--out" in given:  # where the report went is not part of how to make it
        del given[given.index("--out") : given.index("--out") + 2]
    command = "python benchmarks/growth.py" + "".join(f" {a}" for a in given)
    path = write_text(ns.out / "growth.md", report(rows, command, info, seconds))
    print(f"wrote {path}")
    return 1 if failed and not ns.tiny else 0


if __name__ == "__main__":
    raise SystemExit(main())
