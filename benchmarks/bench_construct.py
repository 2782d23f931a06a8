"""Building the records the hot paths make once or more per chunk: by position vs by keyword.

For each value built per chunk (the four changes, ``CallChunk``, ``TextDelta``,
``ArgumentsDelta``, ``StreamUpdate``: records, see ``callstream._types.Record``) times, in
one run, interleaved (round-robin over the variants, best of several repeats, so machine
noise hits every variant alike):

- ``position``: ``Cls(a, b, ...)``, what the hot paths write;
- ``keyword``: ``Cls(a=..., b=...)``, what user code usually writes;
- for ``CallChunk`` and ``StreamUpdate``, ``frozen``: the same class written the other way
  the records could be immutable at run time (h11's: one ``__init__`` storing through
  ``object.__setattr__``, a ``__setattr__`` that refuses), defined here, interpreted
  only, for the record of that choice (the records are ``Final`` for type checkers).

Run it in both builds: ``python benchmarks/bench_construct.py`` (compiled when
installed) and ``CALLSTREAM_PURE=1 python benchmarks/bench_construct.py``. Prints the
build and a table of ns per object (called from interpreted code: in the compiled build,
compiled callers skip the wrapper and cost less).

    python benchmarks/bench_construct.py [--repeat 7] [--number 200000]
    python benchmarks/bench_construct.py --tiny    # smoke run: 1 x 1,000
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import callstream
from _report import TINY_HELP
from callstream import ValueStarted
from callstream._build import REASON
from callstream._json.changes import PathNode

# --- the cases --------------------------------------------------------------------------

PATH = ("items", 0, "name")
NODE = PathNode(PATH, "deep")
CHANGES = (ValueStarted(path=(), kind="object"),)
CALLS: list[Any] = [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]


class FrozenChunk:
    """``CallChunk`` immutable at run time, h11's way (the same checks)."""

    __slots__ = ("args", "id", "index", "name")

    def __init__(self, index: Any = None, id: Any = None, name: Any = None, args: Any = None):
        if index is not None and type(index) is not int:
            raise TypeError(index)
        if id is not None and type(id) is not str:
            raise TypeError(id)
        if name is not None and type(name) is not str:
            raise TypeError(name)
        if args is not None and type(args) is not str:
            raise TypeError(args)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "args", args)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(name)


class FrozenUpdate:
    """``StreamUpdate`` immutable at run time, h11's way."""

    __slots__ = callstream.StreamUpdate.__match_args__

    def __init__(self, *values: Any) -> None:  # the eight fields, by position
        events, calls, invalid, reason, payload, server, text, reasoning = values
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "tool_calls", calls)
        object.__setattr__(self, "invalid_tool_calls", invalid)
        object.__setattr__(self, "finish_reason", reason)
        object.__setattr__(self, "payload", payload)
        object.__setattr__(self, "server_tool_calls", server)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "reasoning", reasoning)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(name)


ENV: dict[str, Any] = {
    **globals(),
    **{name: getattr(callstream, name) for name in callstream.__all__},
}

_UPDATE = "(), CALLS, CALLS, None, CALLS, CALLS, '', ''"
_UPDATE_KW = (
    "events=(), tool_calls=CALLS, invalid_tool_calls=CALLS, finish_reason=None,"
    " payload=CALLS, server_tool_calls=CALLS, text='', reasoning=''"
)

# class -> [(variant, statement)]
CASES: dict[str, list[tuple[str, str]]] = {
    "ValueStarted": [("position", "ValueStarted(PATH, 'string')"),
                     ("keyword", "ValueStarted(path=PATH, kind='string')")],
    "ValueStarted (PathNode)": [("position", "ValueStarted(NODE, 'string')"),
                                ("keyword", "ValueStarted(path=NODE, kind='string')")],
    "StringExtended": [("position", "StringExtended(PATH, 'abcd')"),
                       ("keyword", "StringExtended(path=PATH, text='abcd')")],
    "ScalarSet": [("position", "ScalarSet(PATH, 12)"),
                  ("keyword", "ScalarSet(path=PATH, value=12)")],
    "ValueClosed": [("position", "ValueClosed(PATH)"), ("keyword", "ValueClosed(path=PATH)")],
    "CallChunk": [("position", "CallChunk(0, None, None, 'ab')"),
                  ("keyword", "CallChunk(index=0, id=None, name=None, args='ab')"),
                  ("frozen", "FrozenChunk(0, None, None, 'ab')")],
    "TextDelta": [("position", "TextDelta('ab', False)"),
                  ("keyword", "TextDelta(text='ab', reasoning=False)")],
    "ArgumentsDelta": [("position", "ArgumentsDelta(2, 'ab', CHANGES)"),
                       ("keyword", "ArgumentsDelta(index=2, text='ab', changes=CHANGES)")],
    "StreamUpdate": [("position", f"StreamUpdate({_UPDATE})"),
                     ("keyword", f"StreamUpdate({_UPDATE_KW})"),
                     ("frozen", f"FrozenUpdate({_UPDATE})")],
}  # fmt: skip
COLUMNS = ("position", "keyword", "frozen")


def run(repeat: int, number: int) -> dict[str, dict[str, float]]:
    """Best ns per object for every (class, variant), the variants interleaved."""
    timers = {
        (name, variant): timeit.Timer(statement, globals=ENV)
        for name, variants in CASES.items()
        for variant, statement in variants
    }
    best: dict[tuple[str, str], float] = {}
    for _ in range(repeat):
        for key, timer in timers.items():
            ns = timer.timeit(number) / number * 1e9
            best[key] = min(best.get(key, ns), ns)
    table: dict[str, dict[str, float]] = {}
    for (name, variant), ns in best.items():
        table.setdefault(name, {})[variant] = ns
    return table


def render(table: dict[str, dict[str, float]]) -> str:
    lines = [
        "| class | " + " | ".join(f"{c} (ns)" for c in COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for name, row in table.items():
        cells = [f"{row[c]:.0f}" if c in row else "" for c in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check_equal() -> None:
    """Every variant builds the same fields (a benchmark of wrong code proves nothing)."""
    for variants in CASES.values():
        built = []
        for _variant, statement in variants:
            scope = dict(ENV)
            exec(f"d = {statement}", scope)
            built.append(scope["d"])
        names = type(built[0]).__match_args__
        fields = [tuple(getattr(obj, name) for name in names) for obj in built]
        assert all(values == fields[0] for values in fields), variants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=None, help="best of (7)")
    parser.add_argument("--number", type=int, default=None, help="objects per timing (200,000)")
    parser.add_argument("--tiny", action="store_true", help=f"{TINY_HELP} (1 x 1,000)")
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (1 if args.tiny else 7)
    args.number = args.number or (1_000 if args.tiny else 200_000)
    check_equal()
    print(
        f"Python {sys.version.split()[0]}, callstream {REASON}; "
        f"best of {args.repeat} x {args.number:,}, interleaved"
    )
    print(render(run(args.repeat, args.number)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
