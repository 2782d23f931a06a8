"""Helpers and hypothesis strategies for assembler tests.

- :func:`run` feeds a stream of signals (chunk dicts, CallEnd, CallFailure, StreamEnd)
  and returns the assembler and the events;
- :func:`resplit` cuts every chunk's text arguments into more chunks (the first keeps
  the chunk's id and name, the rest carry only its index), which must not change the
  result; :func:`ways` gives the standard variants (as given, one character per chunk,
  the whole stream as one list);
- :func:`outcome` is the comparable result of a run; :func:`apply_changes` rebuilds an
  arguments value from ArgumentsDelta changes, as a UI would;
- :func:`one_call` runs one named call every way and checks they agree; :func:`error_of`
  is the error of its one invalid call;
- :func:`tool_call_streams` draws random calls and a stream that encodes them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from callstream._assembly import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    StreamFinished,
    ToolCallAssembler,
)
from callstream._json.changes import Change, ScalarSet, StringExtended, ValueStarted
from tests.support.strategies import json_objects, serializations, splits

# --- running streams --------------------------------------------------------------------


def chunk(
    index: Any = None, id: Any = None, name: Any = None, args: Any = None, **extra: Any
) -> dict[str, Any]:
    """A tool call chunk dict with LangChain's keys (all present, None when not given)."""
    return {
        "name": name,
        "args": args,
        "id": id,
        "index": index,
        "type": "tool_call_chunk",
        **extra,
    }


def run(
    stream: Iterable[Any],
    *,
    finish: bool = True,
    reason: str | None = None,
    as_list: bool = False,
    **options: Any,
) -> tuple[ToolCallAssembler, list[AssemblyEvent]]:
    """Feed ``stream`` signal by signal (or all chunks in one ``feed`` call) and finish."""
    asm = ToolCallAssembler(**options)
    events: list[AssemblyEvent] = []
    stream = list(stream)
    if as_list:
        events.extend(asm.feed(stream))
    else:
        for signal in stream:
            events.extend(asm.apply(signal))
    if finish and not asm.finished:
        events.extend(asm.finish(reason))
    return asm, events


def resplit(stream: Iterable[Any], cut: Callable[[str], Sequence[str]]) -> list[Any]:
    """Cut the text ``args`` of every chunk with ``cut``; other signals pass through."""
    out: list[Any] = []
    for signal in stream:
        if not isinstance(signal, dict) or not isinstance(signal.get("args"), str):
            out.append(signal)
            continue
        pieces = list(cut(signal["args"])) or [""]
        out.append({**signal, "args": pieces[0]})
        out.extend(chunk(index=signal.get("index"), args=piece) for piece in pieces[1:])
    return out


def by_char(text: str) -> list[str]:
    return list(text) or [""]


def ways(stream: Sequence[Any]) -> dict[str, tuple[list[Any], bool]]:
    """Standard variants of a stream: ``name -> (signals, feed as one list)``."""
    variants = {
        "as given": (list(stream), False),
        "char by char": (resplit(stream, by_char), False),
    }
    if all(isinstance(s, dict) for s in stream):
        variants["one list"] = (list(stream), True)
        variants["one list, char by char"] = (resplit(stream, by_char), True)
    return variants


@dataclass(frozen=True)
class Outcome:
    """What a run must produce whatever the splits: final views and event skeleton."""

    tool_calls: list[dict[str, Any]]
    invalid: list[tuple[str | None, str | None, str | None, str | None]]
    chunks: list[dict[str, Any]]
    skeleton: list[tuple[Any, ...]]


def outcome(asm: ToolCallAssembler, events: Sequence[AssemblyEvent]) -> Outcome:
    """The split-independent result of a run (consecutive deltas of a call are merged)."""
    skeleton: list[tuple[Any, ...]] = []
    for event in events:
        if isinstance(event, ArgumentsDelta):
            last = skeleton[-1] if skeleton else None
            if last is not None and last[0] == "delta" and last[1] == event.index:
                skeleton[-1] = ("delta", event.index, last[2] + event.text)
            else:
                skeleton.append(("delta", event.index, event.text))
        elif isinstance(event, CallStarted):
            skeleton.append(("started", event.index, event.key, event.id, event.name))
        elif isinstance(event, CallDone):
            skeleton.append(("done", event.index, event.tool_call))
        elif isinstance(event, CallInvalid):
            skeleton.append(("invalid", event.index, event.invalid_tool_call["error"]))
        else:
            assert isinstance(event, StreamFinished)
            skeleton.append(("finished", event.reason))
    invalid = [(c["name"], c["id"], c["args"], c["error"]) for c in asm.invalid_tool_calls]
    return Outcome(list(asm.tool_calls), invalid, list(asm.tool_call_chunks), skeleton)


def calls(asm: ToolCallAssembler) -> list[tuple[str, str | None, dict[str, Any]]]:
    """``(name, id, args)`` of the valid tool calls."""
    return [(c["name"], c["id"], c["args"]) for c in asm.tool_calls]


def invalid(asm: ToolCallAssembler) -> list[tuple[str | None, str | None]]:
    """``(name, id)`` of the invalid tool calls."""
    return [(c["name"], c["id"]) for c in asm.invalid_tool_calls]


def one_call(args: Any, reason: str | None = None, **options: Any) -> ToolCallAssembler:
    """Run one named call with ``args`` (fed as given and char by char; same verdict)."""
    results = []
    for signals, as_list in ways([chunk(index=0, id="c", name="f", args=args)]).values():
        asm, events = run(signals, reason=reason, as_list=as_list, **options)
        check_event_order(events)
        results.append((list(asm.tool_calls), list(asm.invalid_tool_calls)))
    assert all(r == results[0] for r in results)
    return asm


def error_of(asm: ToolCallAssembler) -> str:
    [bad] = asm.invalid_tool_calls
    assert bad["error"] is not None
    return bad["error"]


def check_event_order(events: Sequence[AssemblyEvent]) -> None:
    """Per call: [CallStarted, ArgumentsDelta*], then exactly one CallDone/CallInvalid,
    and StreamFinished last (when present)."""
    stage: dict[int, str] = {}
    for pos, event in enumerate(events):
        if isinstance(event, StreamFinished):
            assert pos == len(events) - 1, "StreamFinished must be the last event"
            assert all(s == "final" for s in stage.values()), stage
            continue
        index = event.index
        now = stage.get(index)
        if isinstance(event, CallStarted):
            assert now is None, f"call {index}: CallStarted after {now}"
            stage[index] = "started"
        elif isinstance(event, ArgumentsDelta):
            assert now == "started", f"call {index}: delta while {now}"
        elif isinstance(event, CallDone):
            assert now == "started", f"call {index}: CallDone while {now}"
            stage[index] = "final"
        else:
            assert isinstance(event, CallInvalid)
            assert now in (None, "started"), f"call {index}: CallInvalid while {now}"
            stage[index] = "final"


def apply_changes(changes: Iterable[Change]) -> Any:
    """Rebuild a JSON value from parser changes, as a UI applying them would."""
    holder: list[Any] = [None]

    def parent(path: tuple[Any, ...]) -> tuple[Any, Any]:
        node: Any = holder
        slot: Any = 0
        for part in path:
            node = node[slot]
            slot = part
        return node, slot

    def put(path: tuple[Any, ...], value: Any) -> None:
        node, slot = parent(path)
        if isinstance(node, list) and node is not holder and slot == len(node):
            node.append(value)
        else:
            node[slot] = value

    for change in changes:
        if isinstance(change, ValueStarted):
            put(change.path, {"object": {}, "array": [], "string": ""}[change.kind])
        elif isinstance(change, StringExtended):
            node, slot = parent(change.path)
            node[slot] += change.text
        elif isinstance(change, ScalarSet):
            put(change.path, change.value)
    return holder[0]


def deltas_by_call(events: Iterable[AssemblyEvent]) -> dict[int, tuple[str, list[Change]]]:
    """Per call number: all delta text joined, and all changes in order."""
    out: dict[int, tuple[str, list[Change]]] = {}
    for event in events:
        if isinstance(event, ArgumentsDelta):
            text, changes = out.get(event.index, ("", []))
            out[event.index] = (text + event.text, [*changes, *event.changes])
    return out


def consistent(partial: Any, final: Any) -> bool:
    """Whether a preview value is consistent with the final one (strings are prefixes,
    object keys a subset, arrays no longer, scalars equal), recursively."""
    if isinstance(final, dict):
        return isinstance(partial, dict) and all(
            k in final and consistent(v, final[k]) for k, v in partial.items()
        )
    if isinstance(final, list):
        return (
            isinstance(partial, list)
            and len(partial) <= len(final)
            and all(consistent(p, f) for p, f in zip(partial, final))
        )
    if isinstance(final, str):
        return isinstance(partial, str) and final.startswith(partial)
    return type(partial) is type(final) and partial == final


# --- strategies -------------------------------------------------------------------------

names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
ids = st.from_regex(r"call_[A-Za-z0-9]{1,10}", fullmatch=True)


@dataclass(frozen=True)
class CallSpec:
    """One tool call to encode: its name, id, argument text and the value it means."""

    name: str
    id: str
    text: str
    args: dict[str, Any]


@st.composite
def call_specs(draw: st.DrawFn, min_size: int = 1, max_size: int = 3) -> list[CallSpec]:
    """Random tool calls with unique ids and JSON-object arguments serialized any way."""
    ident = draw(st.lists(ids, min_size=min_size, max_size=max_size, unique=True))
    specs = []
    for call_id in ident:
        text = draw(serializations(json_objects(max_leaves=6)))
        specs.append(CallSpec(draw(names), call_id, text, json.loads(text)))
    return specs


NOISE_FIELDS = (None, "", "same")


@st.composite
def call_chunks(
    draw: st.DrawFn, spec: CallSpec, key: int | None, mode: str, noise: bool
) -> list[dict[str, Any]]:
    """The chunks of one call: the first names it; continuations carry argument text.

    ``mode``: ``"index"`` (every chunk has ``key``), ``"id"`` (no index; the first chunk
    has the id; continuations may repeat it). With ``noise``, continuations resend or
    blank the id and name at random, and empty chunks are sprinkled in.
    """
    pieces = draw(splits(spec.text, max_cuts=8))
    out = []
    for pos, piece in enumerate(pieces):
        if pos == 0:
            call_id, name = spec.id, spec.name
        elif noise:
            call_id = draw(st.sampled_from(NOISE_FIELDS))
            name = draw(st.sampled_from(NOISE_FIELDS))
            call_id = spec.id if call_id == "same" else call_id
            name = spec.name if name == "same" else name
        else:
            call_id = name = None
        out.append(chunk(index=key, id=call_id, name=name, args=piece))
        if noise and pos > 0 and draw(st.integers(0, 4)) == 0:
            out.append(chunk(index=key, id="" if mode == "index" else None, args=""))
    return out


@st.composite
def tool_call_streams(
    draw: st.DrawFn, mode: str = "index", noise: bool = False, max_calls: int = 3
) -> tuple[list[CallSpec], list[dict[str, Any]]]:
    """Random calls and a chunk stream encoding them.

    Modes: ``"index"``: each call on its own index, chunks of different calls
    interleaved at random (order within a call kept; the specs are returned in order
    of each call's first chunk); ``"same-index"``: calls one after
    the other, all on index 0, each with its own id; ``"id"``: no index, calls one after
    the other, keyed by their ids. Calls appear in the stream in spec order.
    """
    specs = draw(call_specs(max_size=max_calls))
    if mode == "index":
        per_call = [draw(call_chunks(s, k, "index", noise)) for k, s in enumerate(specs)]
        order = draw(st.permutations([k for k, cs in enumerate(per_call) for _ in cs]))
        queues = [iter(cs) for cs in per_call]
        stream = [next(queues[k]) for k in order]
        started = list(dict.fromkeys(order))  # calls in order of their first chunk
        return [specs[k] for k in started], stream
    if mode == "same-index":
        stream = [c for s in specs for c in draw(call_chunks(s, 0, "index", noise))]
    else:
        stream = [c for s in specs for c in draw(call_chunks(s, None, "id", noise))]
    return specs, stream
