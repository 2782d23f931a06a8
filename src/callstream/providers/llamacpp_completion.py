"""llama.cpp server's native ``/completion`` stream -> assembler signals.

The raw completion endpoint of ``llama-server`` (not its OpenAI-compatible
``/v1/completions``, which is ``openai-completions``): text only, no tool calls of its
own (calls written in the text are read by a tool parser, ``tool_parser=``). Wire facts
(from the server's result types and its own tests):

- SSE ``data:`` lines without a ``[DONE]``. A partial result is ``{"index", "content",
  "tokens", "stop": false, "id_slot", "tokens_predicted", "tokens_evaluated"}`` (plus
  ``stop_type: "none"`` and ``timings`` in some builds); ``content`` is the next piece of
  text. ``index`` tells the prompts of a batched request apart; ``id_slot`` (``slot_id``
  in older builds and llamafile) names the server slot, not read.
- The last result has ``"stop": true`` and says why: ``stop_type`` ``"eos"`` (the
  end-of-sequence token) or ``"word"`` (a stop string, in ``stopping_word``), both read
  as ``"stop"``; ``"limit"`` (``n_predict`` reached), read as ``"length"``; older builds
  send the flags ``stopped_eos`` / ``stopped_word`` / ``stopped_limit`` instead, read the
  same way. Its ``content`` is ``""`` or the last piece (the pieces joined are the whole
  text); ``timings``, ``generation_settings``, ``prompt`` and ``truncated`` (the *prompt*
  was cut to fit the context, not the output) are not read.
- An error is ``{"error": {"code", "message", "type"}}`` as SSE data: it ends the stream
  with reason ``"error"`` and the message as ``provider_error``. Older builds wrote it on
  an ``error:`` line, which is no SSE field: the transport drops it, and the stream ends
  without its stop result (finish reason None).

Only prompt ``index`` (default 0) is read. Detection: a boolean ``stop`` beside a
``content`` string. Cost: O(size of the payload).
"""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.types import Signal, StreamEnd, TextDelta
from callstream.providers._base import error_text, finish, finish_with_error, unreadable
from callstream.providers._fields import get, get_str

__all__ = ("LlamaCppCompletionTranslator", "detect", "recognizes")

#: ``stop_type`` -> the finish reason (llama.cpp's own OpenAI mapping); other words as sent.
_REASONS: Final = {"eos": "stop", "word": "stop", "limit": "length"}
#: The older builds' stop flags, in the order they are checked.
_FLAGS: Final = (("stopped_limit", "limit"), ("stopped_word", "word"), ("stopped_eos", "eos"))


def detect(payload: Any) -> bool:
    """True for a ``/completion`` result (see the module docstring). Cost: O(1)."""
    return type(get(payload, "stop")) is bool and get_str(payload, "content") is not None


def recognizes(payload: Any) -> bool:
    """True for a result or an error payload (the fields of this format, for the
    pipeline's foreign-payload rule). Cost: O(1)."""
    return detect(payload) or get(payload, "error") is not None


def _stop_word(payload: Any) -> str | None:
    """The server's word for why it stopped (``stop_type``, else the older flags)."""
    word = get_str(payload, "stop_type")
    if word and word != "none":
        return word
    for flag, name in _FLAGS:
        if get(payload, flag) is True:
            return name
    return None


class LlamaCppCompletionTranslator:
    """Translate llama.cpp ``/completion`` results (decoded SSE data)."""

    name = "llamacpp-completion"

    def __init__(self, *, index: int = 0) -> None:
        """Read the results of prompt ``index`` (a batched request has several)."""
        self._index = index

    def translate(self, payload: Any) -> list[Signal]:
        """The result's text, then its stop (or the error's end)."""
        try:
            error = get(payload, "error")
            if error is not None:
                return finish_with_error((), error_text(error, "llama.cpp server error"))
            stop = get(payload, "stop")
            if type(stop) is not bool:
                return []  # no result of this format
            number = get(payload, "index")
            if number is not None and (type(number) is not int or number != self._index):
                return []
            if number is None and self._index:
                return []
            signals: list[Signal] = []
            content = get_str(payload, "content")
            if content:
                signals.append(TextDelta(content))
            if stop:
                word = _stop_word(payload)
                end = finish(_REASONS.get(word, word) if word else None)
                signals.append(StreamEnd(reason=end.reason, provider_reason=word))
            return signals
        except Exception as exc:  # never raise: callstream.providers._base
            return unreadable(self.name, "result", exc)
