"""Ollama's native ``/api/chat`` NDJSON stream -> assembler signals.

Wire facts: each line is ``{"model", "created_at", "message": {"role", "content",
"tool_calls"?}, "done"}``. A ``tool_calls`` entry is a whole call, ``{"function": {"name",
"arguments": {...}}}`` with the arguments as an object; older servers send neither ``id``
nor ``function.index``, newer ones add both. The last line has ``"done": true`` and a
``done_reason`` (``stop``, ``length``); an ``{"error": "..."}`` line reports a failure
(its text is the ``provider_error``).
``message.content`` is the assistant's text and ``message.thinking`` reasoning (thinking
models); each becomes a :class:`~callstream.TextDelta`, before the line's calls.

Every call gets its own key (a running count, since the server's index, when present,
is not reliable across lines, so an odd ``index`` value cannot misroute anything) and is
ended at once: it arrived whole. Arguments that are not JSON data, cyclic or nested
deeper than ``DEFAULT_MAX_DEPTH`` make that call invalid with the reason. Ollama's
OpenAI-compatible ``/v1`` endpoint is handled by the OpenAI Chat translator, and
``/api/generate`` by ``ollama-generate``: a line with a ``response`` and no ``message`` is
none of this format's (it gives nothing, so a generate stream read as chat is refused).
Cost: O(size of the payload).
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import CallChunk, CallEnd, CallFailure, Signal, StreamEnd
from callstream.providers._arguments import read_arguments
from callstream.providers._base import Handler, field_kind, ignore, unreadable
from callstream.providers._fields import get, get_list, get_str, is_record
from callstream.providers._text import add_text

__all__ = ("OllamaTranslator", "detect")


def detect(payload: Any) -> bool:
    """True for a native Ollama chat line: a boolean ``done`` next to a ``message``."""
    return type(get(payload, "done")) is bool and is_record(get(payload, "message"))


class OllamaTranslator:
    """Translate native Ollama chat lines (dicts or ``ollama`` SDK ``ChatResponse`` objects)."""

    name = "ollama"

    def __init__(self) -> None:
        self._count = 0

    def translate(self, payload: Any) -> list[Signal]:
        """Return the line's text, one chunk and one end marker per whole call, then the
        stream end."""
        kind: str | None = None  # dispatch, never raise: callstream.providers._base
        try:
            kind = field_kind(payload, _HANDLERS)
            return _HANDLERS.get(kind, ignore)(self, payload)
        except Exception as exc:
            return unreadable(self.name, kind, exc)

    def _line(self, payload: Any) -> list[Signal]:
        """A chat line: its text and whole calls, then the end of the stream it states
        (``done: true``, else an ``error``)."""
        signals: list[Signal] = []
        message = get(payload, "message")
        if message is None and get(payload, "response") is not None:
            return signals  # an /api/generate line: not this format (ollama-generate)
        add_text(signals, get(message, "thinking"), True)
        add_text(signals, get(message, "content"), False)
        for call in get_list(message, "tool_calls"):
            if not is_record(call):
                continue
            function = get(call, "function")
            key = self._count
            self._count += 1
            args, failure = read_arguments(get(function, "arguments"))
            chunk = CallChunk(key, get_str(call, "id"), get_str(function, "name"), args)
            signals.append(chunk)
            if failure is not None:
                signals.append(CallFailure(index=key, error=failure))
            else:
                signals.append(CallEnd(index=key))
        if get(payload, "done") is True:
            reason = get_str(payload, "done_reason")
            signals.append(StreamEnd(reason=reason, provider_reason=reason))
        elif get(payload, "error") is not None:
            error = get(payload, "error")
            said = get_str(payload, "error") or get_str(error, "message") or "Ollama stream error"
            signals.append(StreamEnd(reason="error", provider_error=said))
        return signals


#: Field -> its handler: every line is read whole (text, calls, the end it states), so
#: each field that makes a line Ollama's has the one handler.
_HANDLERS: dict[str | None, Handler] = dict.fromkeys(
    ("message", "done", "error"), OllamaTranslator._line
)
