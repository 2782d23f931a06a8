"""What a parse session reads: the kinds of input item, and finished results as events.

A session reads assembly events (from ``ToolCallAssembler.feed`` or a ``StreamUpdate``)
or raw provider signals (``ToolCallChunk`` dicts, ``CallEnd`` ...), never both in one
stream; :data:`SIGNAL_TYPES` is the one list of the signal classes it accepts raw.
:func:`finished_events` turns a finished result (a list of call dicts, a
``StreamResult``, a finished assembler, an ``AIMessage``) into the events a session
applies, so ``parse()`` goes through the same code as a stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import (
    ArgumentsDelta,
    CallChunk,
    CallDone,
    CallEnd,
    CallExtras,
    CallFailure,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
    ServerToolUse,
    StreamEnd,
    StreamFinished,
    TextDelta,
    ToolCall,
)
from callstream._errors import UsageError
from callstream.parsers._call_state import ServerMark, is_server_id

__all__ = (
    "CHUNK_KEYS",
    "EVENT_TYPES",
    "RAW_TYPES",
    "SIGNAL_TYPES",
    "finished_events",
    "server_marks_of",
    "unknown_chunk_keys",
)

EVENT_TYPES = (CallStarted, ArgumentsDelta, CallDone, CallInvalid, StreamFinished)
"""The assembly events a session reads."""

SIGNAL_TYPES = (
    CallChunk,
    CallEnd,
    CallFailure,
    StreamEnd,
    ServerToolUse,
    CallExtras,
    TextDelta,
)
"""The provider signals (besides ``ToolCallChunk`` dicts) a session assembles itself (a
``TextDelta`` passes through its assembler: it carries no call)."""

RAW_TYPES = (Mapping, *SIGNAL_TYPES)
"""What a session assembles itself: ``ToolCallChunk`` dicts and the signals above."""

CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})


def unknown_chunk_keys(signals: Sequence[Any]) -> str | None:
    """The first few keys of the first dict in ``signals`` that is not a
    ``ToolCallChunk`` (a provider payload fed raw), or None. O(signals)."""
    for signal in signals:
        if isinstance(signal, Mapping) and not CHUNK_KEYS.issuperset(signal):
            return ", ".join(repr(k) for k in list(signal)[:6])
    return None


def server_marks_of(item: Any) -> tuple[ServerMark, ...]:
    """Server-side markers carried by a ``StreamUpdate`` (its ``server_tool_calls`` ids)."""
    if isinstance(item, Mapping):
        return ()
    listed = getattr(item, "server_tool_calls", None)
    if not isinstance(listed, list) or not listed:
        return ()
    marks = []
    for entry in listed:
        id_ = entry.get("id") if isinstance(entry, Mapping) else None
        if isinstance(id_, str) and id_:
            marks.append(ServerMark(None, id_))
    return tuple(marks)


def finished_events(result: Any) -> list[Any]:
    """The events of a finished result: each call started and done (or invalid), in
    order (see ``ToolsParser.parse``), server-side calls marked, then ``StreamFinished``.

    Raises:
        UsageError: ``result`` is not a finished result.
    """
    events: list[Any] = []
    for number, call in enumerate(_finished_calls(result)):
        if "error" in call:
            bad: InvalidToolCall = call  # type: ignore[assignment]
            events.append(CallInvalid(index=number, invalid_tool_call=bad))
            continue
        good: ToolCall = call  # type: ignore[assignment]
        events.append(CallStarted(index=number, key=number, id=good.get("id"), name=good["name"]))
        if call.get("type") == "server_tool_call" or is_server_id(call.get("id")):
            events.append(ServerMark(number, None))
        events.append(CallDone(index=number, tool_call=good))
    said = getattr(result, "provider_error", None)  # a StreamResult's, a RunResult's
    said = said if isinstance(said, str) else None
    events.append(StreamFinished(reason=None, provider_error=said))
    return events


def _finished_calls(result: Any) -> list[Mapping[str, Any]]:
    """The call dicts of a finished result, in order (see ``ToolsParser.parse``)."""
    if isinstance(result, (list, tuple)):
        return _checked_calls(result)
    valid, invalid = _finished_lists(result)
    calls = [*valid, *invalid]
    server = getattr(result, "server_tool_calls", None)
    if isinstance(server, list):
        calls.extend(c for c in server if isinstance(c, Mapping) and "name" in c and "args" in c)
    if calls and all(type(c.get("index")) is int for c in calls):
        calls.sort(key=_index_of)
    return calls


def _index_of(call: Mapping[str, Any]) -> int:
    index: int = call["index"]
    return index


def _finished_lists(result: Any) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The valid and invalid call dicts of a finished result object."""
    if isinstance(result, ToolCallAssembler) and not result.finished:
        raise UsageError("the assembler has not finished: call finish() before parse()")
    valid = getattr(result, "tool_calls", None)
    invalid = getattr(result, "invalid_tool_calls", None)
    if not isinstance(valid, list):
        raise UsageError(
            f"cannot parse a {type(result).__name__}: expected a list of ToolCall dicts or an "
            "object with tool_calls (StreamResult, finished ToolCallAssembler, AIMessage)"
        )
    invalid_list = _checked_calls(invalid) if isinstance(invalid, list) else []
    return _checked_calls(valid), [{**c, "error": c.get("error")} for c in invalid_list]


def _checked_calls(calls: Sequence[Any]) -> list[Mapping[str, Any]]:
    for call in calls:
        if not (isinstance(call, Mapping) and "name" in call and "args" in call):
            raise UsageError(
                f"parse() takes ToolCall / InvalidToolCall dicts (name, args, id), got {call!r:.80}"
            )
    return list(calls)
