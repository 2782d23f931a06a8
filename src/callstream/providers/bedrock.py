"""AWS Bedrock ConverseStream events -> assembler signals.

Wire facts (from real recordings, in the shape boto3's ``converse_stream`` yields: one
single-key dict per event, ``{"<event type>": {...}}``):

- ``contentBlockStart`` opens a tool block: ``start.toolUse`` has ``name``, ``toolUseId``
  and sometimes ``type``. ``"server_tool_use"`` marks a tool Bedrock runs itself (a
  ``systemTool`` such as ``nova_code_interpreter`` or ``nova_grounding``; its result
  follows in the same message as a ``start.toolResult`` block); ``"tool_use"`` or no type
  is a call for the client. Text blocks have no start event at all; ``start.toolResult``
  blocks are results, not calls.
- ``contentBlockDelta.delta.toolUse.input`` is a string fragment of the JSON arguments
  (often the whole input in one fragment).
- ``contentBlockStop`` ends the block; ``messageStop.stopReason`` (``tool_use``,
  ``end_turn``, ``max_tokens``, ...) ends the message; ``metadata`` carries usage.
- Every event may carry a ``p`` padding field; it means nothing.
- Text: ``contentBlockDelta.delta.text`` is the assistant's text and
  ``delta.reasoningContent.text`` reasoning (its ``signature`` and ``redactedContent``
  carry none); each becomes a :class:`~callstream.TextDelta`, whatever the block index.
- Errors arrive as ``internalServerException``, ``modelStreamErrorException``,
  ``throttlingException``, ``validationException`` or ``serviceUnavailableException``
  events when the client does not raise them.
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import (
    CallChunk,
    CallEnd,
    CallFailure,
    ServerToolUse,
    Signal,
)
from callstream.providers._arguments import read_arguments
from callstream.providers._bad_index import BadIndexCalls, get_block_index, get_index
from callstream.providers._base import (
    Handler,
    field_kind,
    finish,
    finish_with_error,
    ignore,
    unreadable,
)
from callstream.providers._fields import get, get_str
from callstream.providers._text import add_text

__all__ = ("BedrockTranslator", "detect")

_ERROR_EVENTS = (
    "internalServerException",
    "modelStreamErrorException",
    "throttlingException",
    "validationException",
    "serviceUnavailableException",
)

#: ``toolUse.type`` values of tools the provider runs itself (``mcp_tool_use``: the same
#: shape in Bedrock AgentCore streams).
SERVER_TOOL_TYPES = frozenset({"server_tool_use", "mcp_tool_use"})


def detect(payload: Any) -> bool:
    """Return True if ``payload`` looks like one ConverseStream event (``{"messageStart":
    ...}``, ``{"contentBlockDelta": ...}``, ...: a key of the handler table). Exception
    events and ``metadata`` alone are too generic. Cost: O(1)."""
    return field_kind(payload, _HANDLERS) not in (None, *_ERROR_EVENTS)


class BedrockTranslator:
    """Translate Bedrock ConverseStream events into tool-call chunks and end signals.

    Mapping (``contentBlockIndex`` is the chunk ``index``):

    - ``contentBlockStart`` with ``start.toolUse`` -> a chunk with ``name`` and ``id``
      (``toolUseId``); when ``toolUse.type`` is ``"server_tool_use"`` it is preceded by
      ``ServerToolUse(index=..., id=...)``, so the call is a server call from its first
      event on, reported in ``server_tool_calls`` and never in ``tool_calls``;
    - ``contentBlockDelta`` with ``delta.toolUse.input`` -> a chunk with that text (only
      for a block that started as a tool block). An input handed
      over already decoded is serialized to JSON text, iteratively (see
      :func:`~callstream.providers._arguments.read_arguments`); one that cannot be (deeper
      than ``DEFAULT_MAX_DEPTH``, cyclic, not JSON data) fails the call with the reason;
    - ``contentBlockDelta`` with ``delta.text`` or ``delta.reasoningContent.text`` ->
      :class:`~callstream.TextDelta` (``reasoning=True`` for the latter);
    - ``contentBlockStop`` of a tool block -> ``CallEnd``;
    - ``messageStop`` -> ``StreamEnd`` with the ``stopReason`` (``max_tokens`` and
      ``model_context_window_exceeded`` become ``"length"``);
    - an exception event -> ``CallFailure`` for every open tool block and
      ``StreamEnd("error")`` with its message as ``provider_error``.

    An absent or unusable ``contentBlockIndex``: :mod:`~callstream.providers._bad_index` (a
    tool block started with one fails at once; deltas and stops with one carry nothing).

    Cost: O(size of the payload); state is the set of open tool-block indexes.
    """

    name = "bedrock"

    def __init__(self) -> None:
        self._open: set[int] = set()
        self._bad = BadIndexCalls()

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one ConverseStream event."""
        kind: str | None = None  # dispatch, never raise: callstream.providers._base
        try:
            kind = field_kind(payload, _HANDLERS)  # the first key present names the event
            return _HANDLERS.get(kind, ignore)(self, payload)
        except Exception as exc:
            return unreadable(self.name, kind, exc)

    def _message_start(self, payload: Any) -> list[Signal]:
        self._open.clear()
        self._bad.clear()
        return []

    def _message_stop(self, payload: Any) -> list[Signal]:
        return [finish(get_str(get(payload, "messageStop"), "stopReason"))]

    def _start(self, payload: Any) -> list[Signal]:
        event = get(payload, "contentBlockStart")
        tool = get(get(event, "start"), "toolUse")
        if tool is None:
            return []
        index = get_block_index(event, "contentBlockIndex")
        server = get_str(tool, "type") in SERVER_TOOL_TYPES
        id_ = get_str(tool, "toolUseId")
        name = get_str(tool, "name")
        if not isinstance(index, int):
            return self._bad.refuse(index, "contentBlockIndex", id_, name, server=server)
        self._open.add(index)
        chunk = CallChunk(index, id_, name, None)
        if server:  # marked first: the call is a server call from its first event
            return [ServerToolUse(index=index, id=id_ or None), chunk]
        return [chunk]

    def _delta(self, payload: Any) -> list[Signal]:
        event = get(payload, "contentBlockDelta")
        delta = get(event, "delta")
        tool = get(delta, "toolUse")
        if tool is None:
            return _delta_text(delta)
        index = get_index(event, "contentBlockIndex")
        if not isinstance(index, int) or index not in self._open:
            return []
        # text, or an input some clients hand over already decoded (as its JSON text)
        text, error = read_arguments(get(tool, "input"), as_text=True)
        if error is not None:
            self._open.discard(index)
            return [CallFailure(error=error, index=index)]
        if not text:
            return []
        chunk = CallChunk(index, None, None, text)
        return [chunk]

    def _stop(self, payload: Any) -> list[Signal]:
        index = get_index(get(payload, "contentBlockStop"), "contentBlockIndex")
        if not isinstance(index, int) or index not in self._open:
            return []
        self._open.discard(index)
        return [CallEnd(index=index)]

    def _error(self, payload: Any) -> list[Signal]:
        """An exception event: every open tool block fails, the stream ends."""
        key = field_kind(payload, _ERROR_EVENTS)
        message = get_str(get(payload, key or ""), "message")
        error = f"Bedrock stream error ({key}): {message}" if message else f"Bedrock {key}"
        out = finish_with_error(self._open, error)
        self._open.clear()
        return out


def _delta_text(delta: Any) -> list[Signal]:
    """The text of a delta that is no tool input: ``text``, or reasoning."""
    out: list[Signal] = []
    add_text(out, get(delta, "text"), False)
    reasoning = get(delta, "reasoningContent")
    if reasoning is not None:
        add_text(out, get(reasoning, "text"), True)
    return out


#: Event key -> its handler, in the order the keys are looked for.
_HANDLERS: dict[str | None, Handler] = {
    "contentBlockDelta": BedrockTranslator._delta,
    "contentBlockStart": BedrockTranslator._start,
    "contentBlockStop": BedrockTranslator._stop,
    "messageStop": BedrockTranslator._message_stop,
    "messageStart": BedrockTranslator._message_start,
    **dict.fromkeys(_ERROR_EVENTS, BedrockTranslator._error),
}
