"""Cohere v2 chat streaming events -> assembler signals.

Wire facts (from real recordings of ``/v2/chat`` with ``stream: true``):

- Events are typed by a hyphenated ``type``: ``message-start``, ``tool-plan-delta``,
  ``tool-call-start``, ``tool-call-delta``, ``tool-call-end``, ``content-*``,
  ``citation-*``, ``message-end``.
- Tool-call events carry the call key as the event's ``index``.
- In ``tool-call-start`` ``delta.message.tool_calls`` is ONE OBJECT, not a list, with
  ``id``, ``function.name`` and ``function.arguments`` (often ``""``).
- ``tool-call-delta`` carries ``delta.message.tool_calls.function.arguments`` text.
- ``tool-call-end`` ends the call; ``message-end`` has ``delta.finish_reason``
  (``TOOL_CALL``, ``COMPLETE``, ``MAX_TOKENS``, ``STOP_SEQUENCE``, ``ERROR``,
  ``TIMEOUT``) and possibly ``delta.error``.
- Text: ``content-delta`` carries ``delta.message.content.text`` (the assistant's text)
  or, from reasoning models, ``delta.message.content.thinking`` (reasoning); each becomes
  a :class:`~callstream.TextDelta`. ``tool-plan-delta`` (the model's plan before its
  calls) is not read.
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import CallChunk, CallEnd, CallFailure, Signal, StreamEnd
from callstream.providers._arguments import read_arguments
from callstream.providers._bad_index import BadIndex, BadIndexCalls, get_index
from callstream.providers._base import Handler, ignore, unreadable
from callstream.providers._fields import get, get_list, get_str
from callstream.providers._text import add_text

__all__ = ("CohereTranslator", "detect")

_EVENT_TYPES = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    }
)

_LENGTH_REASONS = frozenset({"MAX_TOKENS", "max_tokens"})
_FAILURE_REASONS = frozenset({"ERROR", "TIMEOUT", "ERROR_TOXIC", "ERROR_LIMIT"})


def detect(payload: Any) -> bool:
    """Return True if ``payload`` looks like a Cohere v2 chat streaming event (its
    hyphenated ``type`` names the format). Cost: O(1)."""
    return get_str(payload, "type") in _EVENT_TYPES


class CohereTranslator:
    """Translate Cohere v2 chat stream events into tool-call chunks and end signals.

    Mapping (the event ``index`` is the chunk ``index``):

    - ``tool-call-start`` -> a chunk with ``id``, ``function.name`` and any non-empty
      ``function.arguments`` text (the ``tool_calls`` field is an object; a list is read
      too, one chunk per item);
    - ``tool-call-delta`` -> a chunk with the ``function.arguments`` text;
    - ``tool-call-end`` -> ``CallEnd``;
    - ``content-delta`` -> :class:`~callstream.TextDelta` for its ``text`` and its
      ``thinking`` (``reasoning=True``);
    - ``message-end`` -> ``StreamEnd`` with ``finish_reason`` (``MAX_TOKENS`` becomes
      ``"length"``, the failure reasons and a ``delta.error`` become ``"error"``, the
      word as sent is kept as ``provider_reason``); with ``ERROR`` / ``TIMEOUT`` or a
      ``delta.error`` text, every call still open first gets a ``CallFailure`` with
      that text, which is also the ``StreamEnd``'s ``provider_error``.

    An unusable event ``index``: :mod:`~callstream.providers._bad_index` (its call fails
    at its ``tool-call-end`` or at ``message-end``; when its first event is a
    ``tool-call-delta``, the call streamed last fails too: it may be missing that piece).

    Cost: O(size of the payload); state is the set of open call indexes and the calls
    of unusable indexes.
    """

    name = "cohere"

    def __init__(self) -> None:
        self._open: set[int | None] = set()
        self._bad = BadIndexCalls()  # calls whose event index was unusable
        self._last: int | None = None  # the index of the last tool-call event

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one streaming event (dict or SDK object)."""
        kind: str | None = None  # dispatch, never raise: callstream.providers._base
        try:
            kind = get_str(payload, "type")
            return _HANDLERS.get(kind, ignore)(self, payload)
        except Exception as exc:
            return unreadable(self.name, kind, exc)

    def _message_start(self, payload: Any) -> list[Signal]:
        self._open.clear()
        return []

    def _content_delta(self, payload: Any) -> list[Signal]:
        return _content_text(get(get(get(payload, "delta"), "message"), "content"))

    def _call_end(self, payload: Any) -> list[Signal]:
        index = get_index(payload, "index")
        if isinstance(index, BadIndex):
            return self._bad.fail(index)
        if index is None and None not in self._open:
            return []
        self._open.discard(index)
        return [CallEnd(index=index)]

    def _calls(self, payload: Any) -> list[Signal]:
        """``tool-call-start`` (a call's id, name and any text) or ``tool-call-delta``."""
        start = get_str(payload, "type") == "tool-call-start"
        index = get_index(payload, "index")
        message = get(get(payload, "delta"), "message")
        out: list[Signal] = []
        for call in get_list(message, "tool_calls"):
            function = get(call, "function")
            args, failure = read_arguments(get(function, "arguments"))
            id_ = get_str(call, "id") if start else None
            name = get_str(function, "name") if start else None
            if isinstance(index, BadIndex):
                if start or args or failure:
                    fresh = not self._bad.is_open(index)
                    out.append(self._bad.chunk(index, "index", id_, name, args))
                    if failure is not None:
                        out.extend(self._bad.fail(index))
                    if fresh and not start and self._last in self._open:
                        # a continuation of an unknown call: the call being streamed
                        # may be missing it, so it cannot be trusted either
                        self._open.discard(self._last)
                        out.append(
                            CallFailure(
                                index=self._last,
                                error=f"a tool-call-delta had an unusable index {index.text}"
                                ", so this call's arguments may be incomplete",
                            )
                        )
                continue
            self._last = index
            if start:
                self._open.add(index)
                chunk = CallChunk(index, id_, name, args)
            elif args:
                chunk = CallChunk(index, None, None, args)
            elif failure is None:
                continue
            else:
                chunk = CallChunk(index, None, None, None)
            out.append(chunk)
            if failure is not None:
                self._open.discard(index)
                out.append(CallFailure(index=index, error=failure))
        return out

    def _message_end(self, payload: Any) -> list[Signal]:
        delta = get(payload, "delta")
        reason = get_str(delta, "finish_reason")
        error = get_str(delta, "error")
        out: list[Signal] = []
        text: str | None = None  # the provider's error, when it ended the stream with one
        if error or reason in _FAILURE_REASONS:
            text = f"Cohere stream ended with {reason or 'an error'}"
            if error:
                text = f"{text}: {error}"
            out.extend(
                CallFailure(error=text, index=index)
                for index in sorted(self._open, key=lambda i: -1 if i is None else i)
            )
            self._open.clear()
        out.extend(self._bad.fail_all())
        normalized = reason
        if reason in _LENGTH_REASONS:
            normalized = "length"
            text = None
        elif text is not None:
            normalized = "error"
        out.append(StreamEnd(reason=normalized, provider_reason=reason, provider_error=text))
        return out


#: Event type -> its handler (any other type carries no call: ``citation-*``, ...).
_HANDLERS: dict[str | None, Handler] = {
    "tool-call-delta": CohereTranslator._calls,
    "tool-call-start": CohereTranslator._calls,
    "tool-call-end": CohereTranslator._call_end,
    "content-delta": CohereTranslator._content_delta,
    "message-end": CohereTranslator._message_end,
    "message-start": CohereTranslator._message_start,
}


def _content_text(content: Any) -> list[Signal]:
    """The text of a ``content-delta``'s ``content`` (an object; a list is read too, item
    by item): ``thinking`` as reasoning, ``text`` as the assistant's text."""
    out: list[Signal] = []
    for item in get_list({"content": content}, "content"):
        add_text(out, get(item, "thinking"), True)
        add_text(out, get(item, "text"), False)
    return out
