"""Ollama's native ``/api/generate`` NDJSON stream -> assembler signals.

The raw completion endpoint of Ollama (``ollama.generate(..., stream=True)``, and the
endpoint to use with ``raw: true`` and a prompt rendered by your own chat template): text
only, no tool calls of its own (calls written in the text are read by a tool parser,
``tool_parser=``). Wire facts:

- one JSON object per line: ``{"model", "created_at", "response", "done": false}``;
  ``response`` is the next piece of text (the first line of a stream often has
  ``""``), and thinking models (``think: true``) stream their reasoning in a
  ``thinking`` field beside it (``response`` then ``""``): read as reasoning, before the
  line's text;
- the last line has ``"done": true``, a ``done_reason`` (``stop``; ``length`` for the
  ``num_predict`` cut, read as ``"length"``; ``load`` / ``unload`` for requests that
  generate nothing), the token counts and durations (``prompt_eval_count``,
  ``eval_count``, ``total_duration`` ...) and, unless ``raw``, the ``context`` tokens;
  none of those is read;
- an ``{"error": "..."}`` line reports a failure: it ends the stream with reason
  ``"error"`` and its text as ``provider_error``.

A line of ``/api/chat`` (it has a ``message``) is not of this format: it gives nothing,
so the pipeline's foreign-payload rule refuses a chat stream read as ``ollama-generate``.
Detection: a boolean ``done`` beside a ``response`` string and no ``message``.
Cost: O(size of the payload).
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import Signal, StreamEnd
from callstream.providers._base import error_text, finish, finish_with_error, unreadable
from callstream.providers._fields import get, get_str
from callstream.providers._text import add_text

__all__ = ("OllamaGenerateTranslator", "detect", "recognizes")


def detect(payload: Any) -> bool:
    """True for an ``/api/generate`` line (see the module docstring). Cost: O(1)."""
    return (
        type(get(payload, "done")) is bool
        and get_str(payload, "response") is not None
        and get(payload, "message") is None
    )


def recognizes(payload: Any) -> bool:
    """True for a generate line or an error line (the fields of this format, for the
    pipeline's foreign-payload rule). Cost: O(1)."""
    if detect(payload):
        return True
    return get(payload, "error") is not None and get(payload, "message") is None


class OllamaGenerateTranslator:
    """Translate ``/api/generate`` lines (dicts or ``ollama`` SDK ``GenerateResponse``
    objects)."""

    name = "ollama-generate"

    def translate(self, payload: Any) -> list[Signal]:
        """The line's reasoning and text, then the end it states (``done: true`` or an
        ``error``)."""
        try:
            if get(payload, "message") is not None:
                return []  # an /api/chat line: not of this format
            signals: list[Signal] = []
            add_text(signals, get(payload, "thinking"), True)
            add_text(signals, get(payload, "response"), False)
            if get(payload, "done") is True:
                reason = get_str(payload, "done_reason")
                end = finish(reason)
                signals.append(StreamEnd(reason=end.reason, provider_reason=reason))
            elif get(payload, "error") is not None:
                said = error_text(get(payload, "error"), "Ollama stream error")
                signals.extend(finish_with_error((), said))
            return signals
        except Exception as exc:  # never raise: callstream.providers._base
            return unreadable(self.name, "line", exc)
