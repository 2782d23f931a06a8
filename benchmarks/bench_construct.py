"""Building the hot paths' frozen dataclasses: constructor vs hand-written vs generated.

For each class the hot paths build (the four changes, ``ArgumentsDelta``, ``StreamUpdate``)
times, in one run, interleaved (round-robin over the variants, best of several
repeats, so machine noise hits every variant alike):

- ``constructor``: ``Cls(path=..., ...)`` (the frozen dataclass ``__init__``);
- ``hand-written``: the factories callstream had before ``fast_constructor`` (a module
  function per class: ``object.__new__`` and one ``slot_setter`` global per field,
  rebuilt here as they were); for ``ArgumentsDelta`` also the copy written out inline
  in the assembler's per-fragment path;
- ``generated``: :func:`callstream._types.fast_constructor`'s factory (what the hot
  paths now call).

Prints a table of ns per object. The generated factory should match the hand-written
within noise.

    python benchmarks/bench_construct.py [--repeat 7] [--number 200000]
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from callstream import (
    ArgumentsDelta,
    ScalarSet,
    StreamUpdate,
    StringExtended,
    ValueClosed,
    ValueStarted,
)
from callstream._assembly.types import new_arguments_delta
from callstream._json import changes
from callstream._json.changes import PathNode
from callstream._update import new_update

# --- the hand-written factories as they were (baseline) ---------------------------------

_new = object.__new__


def _setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    setter: Callable[[Any, Any], None] = cls.__dict__[name].__set__
    return setter


_set_node = _setter(changes._LazyPath, "_node")
_vs_path = _setter(ValueStarted, "path")
_vs_kind = _setter(ValueStarted, "kind")
_se_path = _setter(StringExtended, "path")
_se_text = _setter(StringExtended, "text")
_ss_path = _setter(ScalarSet, "path")
_ss_value = _setter(ScalarSet, "value")
_vc_path = _setter(ValueClosed, "path")
_set_index = _setter(ArgumentsDelta, "index")
_set_text = _setter(ArgumentsDelta, "text")
_set_changes = _setter(ArgumentsDelta, "changes")
_set_events = _setter(StreamUpdate, "events")
_set_tool_calls = _setter(StreamUpdate, "tool_calls")
_set_invalid = _setter(StreamUpdate, "invalid_tool_calls")
_set_finish_reason = _setter(StreamUpdate, "finish_reason")
_set_payload = _setter(StreamUpdate, "payload")
_set_server = _setter(StreamUpdate, "server_tool_calls")
_set_update_text = _setter(StreamUpdate, "text")
_set_update_reasoning = _setter(StreamUpdate, "reasoning")


def old_value_started(path: Any, kind: Any) -> ValueStarted:
    change: ValueStarted = _new(ValueStarted)
    if type(path) is tuple:
        _vs_path(change, path)
    else:
        _set_node(change, path)
    _vs_kind(change, kind)
    return change


def old_string_extended(path: Any, text: str) -> StringExtended:
    change: StringExtended = _new(StringExtended)
    if type(path) is tuple:
        _se_path(change, path)
    else:
        _set_node(change, path)
    _se_text(change, text)
    return change


def old_scalar_set(path: Any, value: Any) -> ScalarSet:
    change: ScalarSet = _new(ScalarSet)
    if type(path) is tuple:
        _ss_path(change, path)
    else:
        _set_node(change, path)
    _ss_value(change, value)
    return change


def old_value_closed(path: Any) -> ValueClosed:
    change: ValueClosed = _new(ValueClosed)
    if type(path) is tuple:
        _vc_path(change, path)
    else:
        _set_node(change, path)
    return change


def old_delta(number: int, text: str, found: tuple[Any, ...]) -> ArgumentsDelta:
    delta: ArgumentsDelta = _new(ArgumentsDelta)
    _set_index(delta, number)
    _set_text(delta, text)
    _set_changes(delta, found)
    return delta


def old_update(
    events: Any,
    calls: Any,
    invalid: Any,
    reason: Any,
    payload: Any,
    server: Any,
    text: str,
    reasoning: str,
) -> StreamUpdate:
    update: StreamUpdate = _new(StreamUpdate)
    _set_events(update, events)
    _set_tool_calls(update, calls)
    _set_invalid(update, invalid)
    _set_finish_reason(update, reason)
    _set_payload(update, payload)
    _set_server(update, server)
    _set_update_text(update, text)
    _set_update_reasoning(update, reasoning)
    return update


# --- the cases --------------------------------------------------------------------------

PATH = ("items", 0, "name")
NODE = PathNode(PATH, "deep")
CHANGES = (ValueStarted(path=(), kind="object"),)
CALLS: list[Any] = [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]

ENV: dict[str, Any] = {
    **globals(),
    "new_value_started": changes.value_started,
    "new_string_extended": changes.string_extended,
    "new_scalar_set": changes.scalar_set,
    "new_value_closed": changes.value_closed,
    "new_delta": new_arguments_delta,
    "new_update": new_update,
}

INLINE_DELTA = (
    "d = _new(ArgumentsDelta); _set_index(d, 2); _set_text(d, 'ab'); _set_changes(d, CHANGES)"
)

# class -> [(variant, statement)]
CASES: dict[str, list[tuple[str, str]]] = {
    "ValueStarted": [
        ("constructor", "ValueStarted(path=PATH, kind='string')"),
        ("hand-written", "old_value_started(PATH, 'string')"),
        ("generated", "new_value_started(PATH, 'string')"),
    ],
    "ValueStarted (PathNode)": [
        ("hand-written", "old_value_started(NODE, 'string')"),
        ("generated", "new_value_started(NODE, 'string')"),
    ],
    "StringExtended": [
        ("constructor", "StringExtended(path=PATH, text='abcd')"),
        ("hand-written", "old_string_extended(PATH, 'abcd')"),
        ("generated", "new_string_extended(PATH, 'abcd')"),
    ],
    "ScalarSet": [
        ("constructor", "ScalarSet(path=PATH, value=12)"),
        ("hand-written", "old_scalar_set(PATH, 12)"),
        ("generated", "new_scalar_set(PATH, 12)"),
    ],
    "ValueClosed": [
        ("constructor", "ValueClosed(path=PATH)"),
        ("hand-written", "old_value_closed(PATH)"),
        ("generated", "new_value_closed(PATH)"),
    ],
    "ArgumentsDelta": [
        ("constructor", "ArgumentsDelta(index=2, text='ab', changes=CHANGES)"),
        ("hand-written", "old_delta(2, 'ab', CHANGES)"),
        ("hand-written inline", INLINE_DELTA),
        ("generated", "new_delta(2, 'ab', CHANGES)"),
    ],
    "StreamUpdate": [
        (
            "constructor",
            "StreamUpdate(events=(), tool_calls=CALLS, invalid_tool_calls=CALLS,"
            " finish_reason=None, payload=CALLS, server_tool_calls=CALLS, text='', reasoning='')",
        ),
        ("hand-written", "old_update((), CALLS, CALLS, None, CALLS, CALLS, '', '')"),
        ("generated", "new_update((), CALLS, CALLS, None, CALLS, CALLS, '', '')"),
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
    columns = ["constructor", "hand-written", "hand-written inline", "generated"]
    lines = [
        "| class | " + " | ".join(f"{c} (ns)" for c in columns) + " | generated / hand-written |",
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    for name, row in table.items():
        cells = [f"{row[c]:.0f}" if c in row else "" for c in columns]
        ratio = row["generated"] / row["hand-written"]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    return "\n".join(lines)


def check_equal() -> None:
    """Every variant builds the same object (a benchmark of wrong code proves nothing)."""
    for variants in CASES.values():
        built = []
        for _variant, statement in variants:
            scope = dict(ENV)
            exec(statement if statement.startswith("d = ") else f"d = {statement}", scope)
            built.append(scope["d"])
        assert all(obj == built[0] and type(obj) is type(built[0]) for obj in built), variants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=200_000)
    args = parser.parse_args(argv)
    check_equal()
    print(f"Python {sys.version.split()[0]}; best of {args.repeat} x {args.number:,}, interleaved")
    print(render(run(args.repeat, args.number)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
