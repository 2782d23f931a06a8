"""OpenAI legacy Completions streams (``/v1/completions``) -> assembler signals.

Spoken by OpenAI's legacy endpoint, vLLM, llama.cpp's server, TGI, LM Studio and
llama-cpp-python's ``create_completion(stream=True)``: the raw text a model writes for
a prompt, with no chat structure and no tool calls of its own (calls written in the text
are read by a tool parser, ``tool_parser=``). Wire facts:

- SSE ``data:`` lines, ending with ``data: [DONE]``. Each chunk is ``{"id", "object":
  "text_completion", "created", "model", "choices": [{"index", "text", "logprobs",
  "finish_reason"}]}``; ``choices[].text`` is the next piece of text (read as the
  assistant's text, verbatim); ``finish_reason`` is null until the last chunk of a
  choice, then ``stop`` (an end-of-sequence token or a stop string), ``length`` (the
  ``max_tokens`` cut) or a server's own word (vLLM's ``abort``); vLLM adds
  ``stop_reason`` (the stop string or token id), not read. TGI's ``eos_token`` reads as
  ``stop`` and ``max_tokens`` as ``length``, as for Chat Completions.
- With ``stream_options: {"include_usage": true}`` a last chunk carries ``usage`` and
  ``choices: []``: nothing to read.
- An error mid-stream is a chunk ``{"error": {"message", "type", "code", "param"}}``
  (vLLM, llama.cpp's OpenAI-compatible routes), or in older vLLM the error object itself
  (``{"object": "error", "message", "type", "code"}``); it ends the stream with reason
  ``"error"`` and its message as ``provider_error``.

Only choice ``choice`` (default 0) is read (``n > 1`` and batched prompts give several).
A chunk of Chat Completions (``object: "chat.completion.chunk"``, or a choice holding
``delta`` / ``message``) is not of this format: it gives nothing, so the pipeline's
foreign-payload rule refuses a chat stream read as completions. Detection: ``object``
``"text_completion"``, or a ``choices`` list whose first choice has a ``text`` string and
neither ``delta`` nor ``message``; checked before Chat Completions, which claims any
``choices`` list. Cost: O(size of the payload) per chunk.
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import Signal, StreamEnd
from callstream.providers._base import (
    error_text,
    finish,
    finish_with_error,
    normalize_finish_reason,
    unreadable,
)
from callstream.providers._fields import get, get_list, get_str, is_sequence, path
from callstream.providers._text import add_text

__all__ = ("OpenAICompletionsTranslator", "detect", "recognizes")


def _is_text_choice(choice: Any) -> bool:
    """A completion choice: a ``text`` string, no chat ``delta`` or ``message``."""
    return (
        get_str(choice, "text") is not None
        and get(choice, "delta") is None
        and get(choice, "message") is None
    )


def detect(payload: Any) -> bool:
    """True for a Completions chunk (see the module docstring). Cost: O(1)."""
    kind = get_str(payload, "object")
    if kind is not None:
        return kind == "text_completion"
    choices = get(payload, "choices")
    return is_sequence(choices) and _is_text_choice(path(choices, 0))


def recognizes(payload: Any) -> bool:
    """True for a Completions chunk or an error payload (the fields of this format, for
    the pipeline's foreign-payload rule). Cost: O(1)."""
    return detect(payload) or _is_error(payload)


def _is_error(payload: Any) -> bool:
    return get(payload, "error") is not None or get_str(payload, "object") == "error"


class OpenAICompletionsTranslator:
    """Translate Completions chunks (dicts, or the openai SDK's ``Completion`` objects)."""

    name = "openai-completions"

    def __init__(self, *, choice: int = 0) -> None:
        """Read choice number ``choice`` (``n`` and batched prompts make several)."""
        self._choice = choice

    def translate(self, payload: Any) -> list[Signal]:
        """The text of the chosen choice, then its finish (or the error's end)."""
        try:
            if _is_error(payload):
                error = get(payload, "error")
                said = error_text(
                    payload if error is None else error, "the server reported an error"
                )
                return finish_with_error((), said)
            kind = get_str(payload, "object")
            if kind is not None and kind != "text_completion":
                return []  # a chat chunk (or another object): not of this format
            signals: list[Signal] = []
            for choice in get_list(payload, "choices"):
                number = get(choice, "index")
                if number is None:
                    number = 0
                if type(number) is not int or number != self._choice:
                    continue
                if not _is_text_choice(choice):
                    continue
                add_text(signals, get(choice, "text"), False)
                reason = get_str(choice, "finish_reason")
                if reason:
                    end = finish(normalize_finish_reason(reason))
                    signals.append(StreamEnd(reason=end.reason, provider_reason=reason))
            return signals
        except Exception as exc:  # never raise: callstream.providers._base
            return unreadable(self.name, "chunk", exc)
