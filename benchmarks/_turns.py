"""The turns ``bench_runner.py`` replays: the tools (``async def``, typed, each sleeping its
seeded time and recording its span), the scenarios (wire format, seal rule, calls), and
their pacing.

A turn's stream is written by ``_streams.write_turn`` in one of four wire formats
(Anthropic Messages, OpenAI Responses, Bedrock ConverseStream, OpenAI Chat), its text
cut into seeded pieces of 8-24 characters (:func:`pieces`). :func:`schedule` gives each
payload its send time (a seeded time to first byte, then 20-40 ms apart; 1-3 ms after the
stream's end marker), and :class:`PacedSource` replays the payloads on that schedule,
pinned to an origin on anyio's clock, so the same turn is sent at the same instants
whatever its consumer does.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from _streams import WireTurn, long_text
from callstream.runner import Seal

PIECE_CHARS = (8, 24)
"""Characters of argument text per payload, drawn uniformly (2-6 tokens)."""
GAP_S, TAIL_GAP_S, FIRST_BYTE_S = (0.020, 0.040), (0.001, 0.003), (0.15, 0.35)
"""Seconds between payloads, between those after the end marker, before the first."""

DURATION_S = {"get_weather": (0.3, 0.6), "write_file": (0.3, 0.6), "read_file": (0.3, 0.8)}
DURATION_S |= {"send_email": (0.4, 1.0), "query_db": (0.5, 1.5), "fetch_url": (0.5, 1.5)}
DURATION_S |= {"search_docs": (0.6, 1.5), "run_tests": (1.2, 2.0)}
"""Seconds each tool takes, drawn uniformly per call (seeded): all within 0.3-2 s, a local
write faster than a web fetch, a test run slowest."""


# --- the tools ------------------------------------------------------------------------------


@dataclass
class TurnClock:
    """The tool durations of the turn being run and the spans the tools took (internal)."""

    durations: dict[str, float]
    origin: float
    spans: dict[str, tuple[float, float]] = field(default_factory=dict)


ACTIVE: list[TurnClock] = []  # the turn being run (one at a time: the runs are sequential)


async def _work(name: str, output: str) -> str:
    """Take the tool's planned time (``anyio.sleep``), record its span, return ``output``."""
    turn = ACTIVE[-1]
    start = anyio.current_time()
    await anyio.sleep(turn.durations[name])
    turn.spans[name] = (start - turn.origin, anyio.current_time() - turn.origin)
    return output


async def read_file(path: str, max_bytes: int = 65536) -> str:
    """Read a text file of the workspace (at most ``max_bytes``)."""
    return await _work("read_file", f"read {path} (<= {max_bytes} B)")


async def write_file(path: str, content: str) -> str:
    """Write a text file of the workspace (replacing it with ``content``)."""
    return await _work("write_file", f"wrote {len(content)} chars to {path}")


async def search_docs(query: str, top_k: int = 5, sections: list[str] | None = None) -> str:
    """Search the documentation (``top_k`` passages, in ``sections`` if given)."""
    return await _work("search_docs", f"{top_k} passages for {query!r} in {sections}")


async def get_weather(location: str, unit: str, days: int) -> str:
    """The forecast for a place, ``days`` ahead, in celsius or fahrenheit."""
    return await _work("get_weather", f"{days} days in {location} ({unit})")


async def query_db(sql: str, limit: int = 100) -> str:
    """Run a read-only SQL query (at most ``limit`` rows)."""
    return await _work("query_db", f"{limit} rows for {len(sql)} chars of SQL")


async def run_tests(paths: list[str], verbose: bool = False) -> str:
    """Run the test suite on some paths."""
    return await _work("run_tests", f"ran {len(paths)} paths (verbose={verbose})")


async def fetch_url(url: str, headers: dict[str, str] | None = None) -> str:
    """Fetch a web page (with extra request ``headers``)."""
    return await _work("fetch_url", f"fetched {url} with {len(headers or {})} headers")


async def send_email(to: list[str], subject: str, body: str) -> str:
    """Send an email."""
    return await _work("send_email", f"sent {subject!r} ({len(body)} chars) to {len(to)}")


TOOLS: dict[str, Callable[..., Awaitable[str]]] = {
    f.__name__: f
    for f in (read_file, write_file, search_docs, get_weather, query_db, run_tests, fetch_url)
}
TOOLS["send_email"] = send_email


# --- the turns ------------------------------------------------------------------------------


def _file(path: str, size: int) -> dict[str, Any]:
    return {"path": path, "content": long_text(size)}


_SQL = (
    "SELECT o.id, o.created_at, c.name, SUM(l.qty * l.price) AS total FROM orders o "
    "JOIN customers c ON c.id = o.customer_id JOIN lines l ON l.order_id = o.id "
    "WHERE o.created_at >= '2026-11-01' GROUP BY o.id, o.created_at, c.name "
    "ORDER BY total DESC"
)

_EMAIL = (
    "Hi team,\n\nthe nightly build failed on the integration stage again: the payments "
    "fixture times out after 30 s when the sandbox is slow. I pushed a retry with backoff "
    "and raised the timeout to 60 s; the logs of the last three runs are attached. Please "
    "review before the 14:00 release call — if it stays red we move the release to "
    "Thursday.\n\nThanks,\nRenée"
)


@dataclass(frozen=True)
class Scenario:
    """One turn: its label, wire format, seal rule, calls (tool, arguments), seed."""

    label: str
    fmt: str
    seal: Seal
    calls: tuple[tuple[str, dict[str, Any]], ...]
    seed: int
    preamble: str = ""
    time_scale: float = 1.0
    """The factor on the turn's times, pacing and tool durations (below 1: ``--tiny``)."""


_ANTHROPIC_EDIT = (
    ("read_file", {"path": "src/app/config.py"}),
    ("search_docs", {"query": "retry policy for the payments client", "top_k": 3}),
    ("write_file", _file("src/app/retry.py", 900)),
)
_CHAT_FOUR = (
    ("run_tests", {"paths": ["tests/test_cache.py"], "verbose": True}),
    ("search_docs", {"query": "how to configure the cache", "sections": ["guide", "api"]}),
    ("read_file", {"path": "README.md", "max_bytes": 20000}),
    ("write_file", _file("docs/cache.md", 700)),
)

_EMAIL_ARGS = {"to": ["dev@example.com", "ops@example.com"], "subject": "Nightly build"}
SCENARIOS: tuple[Scenario, ...] = (
    Scenario("A1", "anthropic", "end", _ANTHROPIC_EDIT, 101),
    Scenario("A2", "anthropic", "end", (
        ("run_tests", {"paths": ["tests/unit", "tests/test_orders.py"]}),
        ("get_weather", {"location": "Zürich, CH", "unit": "celsius", "days": 3}),
        ("query_db", {"sql": _SQL, "limit": 20}),
        ("fetch_url", {"url": "https://status.example.com/api/v2/summary.json"}),
    ), 102, preamble="I'll check these four things in parallel."),
    Scenario("R1", "openai-responses", "end", (
        ("search_docs", {"query": "rate limits per organization", "top_k": 8}),
        ("fetch_url", {"url": "https://example.com/pricing", "headers": {"Accept": "text/html"}}),
    ), 201),
    Scenario("R2", "openai-responses", "end", (
        ("write_file", _file("src/app/models.py", 800)),
        ("read_file", {"path": "src/app/views.py"}),
        ("run_tests", {"paths": ["tests/test_models.py", "tests/test_views.py"]}),
    ), 202),
    Scenario("B1", "bedrock", "end", (
        ("query_db", {"sql": _SQL, "limit": 50}),
        ("send_email", {**_EMAIL_ARGS, "body": _EMAIL}),
        ("get_weather", {"location": "Osaka, JP", "unit": "celsius", "days": 1}),
    ), 301),
    Scenario("B2", "bedrock", "end", (
        ("run_tests", {"paths": ["tests/"], "verbose": False}),
        ("write_file", _file("CHANGELOG.md", 600)),
    ), 302, preamble="Running the tests while I update the changelog."),
    Scenario("C1", "openai-chat", "end", _CHAT_FOUR, 401),
    Scenario("C1n", "openai-chat", "next-call", _CHAT_FOUR, 401),
)  # fmt: skip
"""The full run's turns (C1 and C1n: the same stream and durations, two seal rules)."""

QUICK = ("A1", "R2", "C1n")
"""The turns of ``--quick``."""

TINY = "R1"
TINY_SCALE = 0.1
"""``--tiny`` runs turn R1 with every time (pacing, tool durations) a tenth of its own:
the machinery whole in a second, its eager / floor ratio shown but not judged (the fixed
costs weigh ten times more there)."""


def ids(fmt: str, n: int, seed: int) -> list[str]:
    rng = random.Random(f"{seed}-ids")
    prefix = {"anthropic": "toolu_01", "bedrock": "tooluse_"}.get(fmt, "call_")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return [prefix + "".join(rng.choice(alphabet) for _ in range(22)) for _ in range(n)]


def durations(scenario: Scenario) -> dict[str, float]:
    """The seeded time (s) of each call's tool (tool names are distinct within a turn)."""
    rng = random.Random(f"{scenario.seed}-durations")
    return {
        name: round(rng.uniform(*DURATION_S[name]), 2) * scenario.time_scale
        for name, _ in scenario.calls
    }


# --- pacing ---------------------------------------------------------------------------------


def pieces(text: str, rng: random.Random) -> list[str]:
    """``text`` cut into pieces of :data:`PIECE_CHARS` characters (seeded sizes)."""
    out, i = [], 0
    while i < len(text):
        size = rng.randint(*PIECE_CHARS)
        out.append(text[i : i + size])
        i += size
    return out


def schedule(turn: WireTurn, rng: random.Random) -> list[float]:
    """Send times (seconds from the request) of the turn's payloads; strictly increasing."""
    times = [rng.uniform(*FIRST_BYTE_S)]
    for k in range(1, len(turn.payloads)):
        times.append(times[-1] + rng.uniform(*(TAIL_GAP_S if k > turn.finish_at else GAP_S)))
    return times


class PacedSource:
    """Replays payloads at ``origin + times[k]`` on anyio's clock (an async iterator).

    ``delivered`` gets, per payload, the seconds from ``origin`` at which it was handed
    to the reader: its send time, or later when the reader came late. One pass only.
    """

    def __init__(self, payloads: Sequence[Any], times: Sequence[float], origin: float) -> None:
        self._payloads, self._times, self._origin = payloads, times, origin
        self.delivered: list[float] = []

    def __aiter__(self) -> PacedSource:
        return self

    async def __anext__(self) -> dict[str, Any]:
        k = len(self.delivered)
        if k >= len(self._payloads):
            raise StopAsyncIteration
        wait = self._origin + self._times[k] - anyio.current_time()
        if wait > 0:
            await anyio.sleep(wait)
        self.delivered.append(anyio.current_time() - self._origin)
        return self._payloads[k]
