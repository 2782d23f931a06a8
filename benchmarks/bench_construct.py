"""Building the hot paths' records: the constructor vs the builder the hot paths call.

For each value the hot paths build once or more per chunk (the four changes,
``CallChunk``, ``TextDelta``, ``ArgumentsDelta``, ``StreamUpdate``: records, see
``callstream._types.Record``) times, in one run, interleaved (round-robin over the
variants, best of several repeats, so machine noise hits every variant alike):

- ``constructor``: ``Cls(field=..., ...)`` (keywords, what user code writes);
- ``builder``: the positional function the hot paths call (``string_extended``,
  ``new_call_chunk``, ``new_update``, ...). Compiled (mypyc), it calls the native
  constructor; interpreted, a ``fast_constructor`` factory that sets the slots (the
  constructor goes through the frozen ``__setattr__``).

Run it in both builds: ``python benchmarks/bench_construct.py`` (compiled when
installed) and ``CALLSTREAM_PURE=1 python benchmarks/bench_construct.py``. Prints the
build and a table of ns per object.

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
from callstream._assembly.records import new_arguments_delta, new_call_chunk, new_text_delta
from callstream._build import REASON
from callstream._json import changes
from callstream._json.changes import PathNode
from callstream._update import new_update

# --- the cases --------------------------------------------------------------------------

PATH = ("items", 0, "name")
NODE = PathNode(PATH, "deep")
CHANGES = (ValueStarted(path=(), kind="object"),)
CALLS: list[Any] = [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]

ENV: dict[str, Any] = {
    **globals(),
    **{name: getattr(callstream, name) for name in callstream.__all__},
    "new_value_started": changes.value_started,
    "new_string_extended": changes.string_extended,
    "new_scalar_set": changes.scalar_set,
    "new_value_closed": changes.value_closed,
    "new_delta": new_arguments_delta,
    "new_call_chunk": new_call_chunk,
    "new_text_delta": new_text_delta,
    "new_update": new_update,
}

# class -> [(variant, statement)]
CASES: dict[str, list[tuple[str, str]]] = {
    "ValueStarted": [
        ("constructor", "ValueStarted(path=PATH, kind='string')"),
        ("builder", "new_value_started(PATH, 'string')"),
    ],
    "ValueStarted (PathNode)": [
        ("constructor", "ValueStarted(path=NODE, kind='string')"),
        ("builder", "new_value_started(NODE, 'string')"),
    ],
    "StringExtended": [
        ("constructor", "StringExtended(path=PATH, text='abcd')"),
        ("builder", "new_string_extended(PATH, 'abcd')"),
    ],
    "ScalarSet": [
        ("constructor", "ScalarSet(path=PATH, value=12)"),
        ("builder", "new_scalar_set(PATH, 12)"),
    ],
    "ValueClosed": [
        ("constructor", "ValueClosed(path=PATH)"),
        ("builder", "new_value_closed(PATH)"),
    ],
    "CallChunk": [
        ("constructor", "CallChunk(index=0, id=None, name=None, args='ab')"),
        ("builder", "new_call_chunk(0, None, None, 'ab')"),
    ],
    "TextDelta": [
        ("constructor", "TextDelta(text='ab', reasoning=False)"),
        ("builder", "new_text_delta('ab', False)"),
    ],
    "ArgumentsDelta": [
        ("constructor", "ArgumentsDelta(index=2, text='ab', changes=CHANGES)"),
        ("builder", "new_delta(2, 'ab', CHANGES)"),
    ],
    "StreamUpdate": [
        (
            "constructor",
            "StreamUpdate(events=(), tool_calls=CALLS, invalid_tool_calls=CALLS,"
            " finish_reason=None, payload=CALLS, server_tool_calls=CALLS, text='', reasoning='')",
        ),
        ("builder", "new_update((), CALLS, CALLS, None, CALLS, CALLS, '', '')"),
    ],
}


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
    columns = ["constructor", "builder"]
    lines = [
        "| class | " + " | ".join(f"{c} (ns)" for c in columns) + " | builder / constructor |",
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    for name, row in table.items():
        cells = [f"{row[c]:.0f}" for c in columns]
        ratio = row["builder"] / row["constructor"]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    return "\n".join(lines)


def check_equal() -> None:
    """Every variant builds the same object (a benchmark of wrong code proves nothing)."""
    for variants in CASES.values():
        built = []
        for _variant, statement in variants:
            scope = dict(ENV)
            exec(f"d = {statement}", scope)
            built.append(scope["d"])
        assert all(obj == built[0] and type(obj) is type(built[0]) for obj in built), variants


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
