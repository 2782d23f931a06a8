"""OpenAI Chat Completions chunks (and the many servers that speak it) -> assembler signals.

Covers OpenAI, Azure OpenAI, Groq, DeepSeek, xAI, Alibaba DashScope, Mistral, TGI, vLLM,
llama.cpp, LM Studio and Ollama's ``/v1`` endpoint. Wire facts (from real recordings):

- A chunk is ``{"choices": [{"index", "delta": {"tool_calls": [...]}, "finish_reason"}]}``.
  Each ``tool_calls`` entry has ``index`` (the call key), ``id``, ``function.name`` and a
  fragment of ``function.arguments``. Servers differ in what they repeat: TGI resends
  ``id: "0"`` on every chunk, Alibaba sends ``id: ""``, GLM behind a Mistral endpoint sends
  ``name: ""``; the assembler ignores repeats and blanks, so entries are passed on as they are.
- Mistral sends whole calls without ``index`` (and without ``type``), in the same chunk as
  ``finish_reason``; they are keyed by their ``id``. A non-standard ``delta.index`` is
  ignored. Some llama.cpp builds send ``arguments`` as an object: taken as the whole
  arguments. A non-object, non-string value is passed as JSON text so the assembler can
  report it ("arguments must be a JSON object").
- ``finish_reason``: ``tool_calls``, ``stop`` (also for a forced named tool), ``length``;
  TGI's ``eos_token`` reads as ``stop``. Usage-only chunks have ``choices: []``. Some
  streams have no finish chunk at all (the driver finishes them at the end).
- Groq reports a rejected tool call mid-stream as an SSE ``event: error`` whose data is
  ``{"error": {"message", "code": "tool_use_failed", "failed_generation": "..."}}``; it
  becomes a :class:`CallFailure` (an invalid tool call) with the name and arguments read
  from ``failed_generation`` where possible, followed by ``StreamEnd("error")``. Any other
  error payload ends the stream with reason ``"error"``.
- The legacy ``delta.function_call`` (single function call) is read as call 0. A
  non-streamed ``ChatCompletion`` (``message`` instead of ``delta``) works as one payload.

Only choice ``choice`` (default 0) is read; other choices of an ``n > 1`` request are
ignored. Cost: O(size of the payload) per chunk.
"""

from __future__ import annotations

import json
import re
from typing import Any

from callstream._assembly.types import CallFailure, Signal, StreamEnd
from callstream.providers._base import (
    get,
    get_int,
    get_list,
    get_str,
    is_record,
    to_plain,
    tool_chunk,
)

__all__ = ("OpenAIChatTranslator", "detect", "failed_generation_calls", "normalize_finish_reason")

_FINISH_REASONS = {"eos_token": "stop", "eos": "stop", "max_tokens": "length"}


def normalize_finish_reason(reason: str) -> str:
    """Map server-specific finish reasons onto OpenAI's (``eos_token`` -> ``stop``, ...)."""
    return _FINISH_REASONS.get(reason.lower(), reason)


def detect(payload: Any) -> bool:
    """True if ``payload`` looks like a Chat Completions chunk (or a Groq tool error)."""
    obj = get_str(payload, "object")
    if obj is not None and obj.startswith("chat.completion"):
        return True
    if isinstance(get(payload, "choices"), (list, tuple)):
        return True
    error = get(payload, "error")
    return is_record(error) and get(error, "failed_generation") is not None


def args_value(value: Any) -> str | dict[str, Any] | None:
    """An ``arguments`` field as the assembler takes it: text, a whole object, or None.

    Text passes through; a mapping or SDK object becomes a dict (the whole arguments);
    any other JSON value becomes its JSON text, so the assembler can reject it precisely.
    """
    if value is None or isinstance(value, str):
        return value
    plain = to_plain(value)
    if isinstance(plain, dict):
        return plain
    try:
        return json.dumps(plain)
    except (TypeError, ValueError):
        return str(plain)


# Llama-style text a model may emit instead of a structured call:
# <function=f>{"a": 1}</function> or <function=f{"a": 1}</function>
_FUNCTION_TAG = re.compile(r"<function=([^>{\s]+)>?\s*(.*?)\s*</function>", re.DOTALL)


def failed_generation_calls(text: str) -> list[tuple[str | None, str]]:
    """Read ``(name, arguments text)`` pairs out of a provider's failed generation.

    Understands ``{"name", "arguments"|"parameters"}`` objects (or a list of them) and
    ``<function=name>{...}</function>`` tags; otherwise the whole text is the arguments
    of one call without a name. Arguments given as an object are re-serialized as JSON.
    """
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        parsed = None
    items = parsed if isinstance(parsed, list) else [parsed]
    calls: list[tuple[str | None, str]] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            calls = []
            break
        arguments = item.get("arguments", item.get("parameters"))
        if arguments is None:
            args_text = ""
        elif isinstance(arguments, str):
            args_text = arguments
        else:
            args_text = json.dumps(arguments, ensure_ascii=False)
        calls.append((item["name"], args_text))
    if calls:
        return calls
    tags: list[tuple[str | None, str]] = [
        (m.group(1), m.group(2)) for m in _FUNCTION_TAG.finditer(text)
    ]
    return tags or [(None, text)]


class OpenAIChatTranslator:
    """Translate Chat Completions chunks (dicts or SDK ``ChatCompletionChunk`` objects).

    Stateless apart from the chosen choice; the assembler does all merging.
    """

    name = "openai-chat"

    def __init__(self, *, choice: int = 0) -> None:
        """Read choice number ``choice`` (the ``n`` parameter makes several)."""
        self._choice = choice

    def translate(self, payload: Any) -> list[Signal]:
        """Return the chunks and the finish signal carried by one payload."""
        if type(payload) is not dict and get_str(payload, "type") == "chunk":
            payload = get(payload, "chunk")  # the openai SDK stream helper's ChunkEvent
        choices = get_list(payload, "choices")
        if not choices:
            error = get(payload, "error")
            return self._error(error) if error is not None else []
        signals: list[Signal] = []
        for choice in choices:
            if (get_int(choice, "index") or 0) != self._choice:
                continue
            delta = get(choice, "delta")
            if delta is None:
                delta = get(choice, "message")  # a non-streamed ChatCompletion
            for entry in get_list(delta, "tool_calls"):
                if not is_record(entry):
                    continue
                function = get(entry, "function")
                if function is None and get(entry, "custom") is not None:
                    continue  # custom (free-form text) tools have no JSON arguments
                signals.append(
                    tool_chunk(
                        get_int(entry, "index"),
                        get_str(entry, "id"),
                        get_str(function, "name"),
                        args_value(get(function, "arguments")),
                    )
                )
            legacy = get(delta, "function_call")
            if is_record(legacy):
                signals.append(
                    tool_chunk(
                        0, None, get_str(legacy, "name"), args_value(get(legacy, "arguments"))
                    )
                )
            reason = get_str(choice, "finish_reason")
            if reason:
                signals.append(StreamEnd(reason=normalize_finish_reason(reason)))
        return signals

    def _error(self, error: Any) -> list[Signal]:
        """An error payload: a failed tool call becomes invalid; the stream ends."""
        signals: list[Signal] = []
        message = get_str(error, "message") or (error if isinstance(error, str) else None)
        code = get_str(error, "code")
        failed = get(error, "failed_generation")
        if failed is not None or code == "tool_use_failed":
            reason = message or code or "the provider rejected the tool call"
            text = failed if isinstance(failed, str) else ""
            if failed is not None and not isinstance(failed, str):
                try:
                    text = json.dumps(to_plain(failed), ensure_ascii=False)
                except (TypeError, ValueError):
                    text = str(failed)
            for name, args in failed_generation_calls(text):
                signals.append(CallFailure(error=reason, name=name, args=args))
        signals.append(StreamEnd(reason="error"))
        return signals
