"""``--split N``: re-cut the argument text of a stream into N-character fragments.

The cut happens at the payload level, before callstream sees the stream: each payload
that carries an argument text fragment longer than N characters is replaced by several
payloads of the same format, each carrying the next N characters (the first one keeps
everything else the payload had). So the replay goes through exactly the code a real
stream goes through (transport, translator, assembler), only with smaller fragments.
Cuts fall anywhere: inside a key, an escape (``\\u00e9``), a number or a literal.

Formats whose arguments are text fragments are re-cut: ``openai-chat``,
``openai-responses``, ``anthropic``, ``bedrock`` and ``cohere``. Formats that send whole
argument objects (``gemini``, ``ollama``) or arbitrary objects (``langchain``) are
replayed unchanged. ``openai-chat`` continuation payloads carry only the call's
``index`` (or its ``id`` when the server sent no index) and the text; a
``finish_reason`` and ``usage`` move to one final payload after the fragments, as real
streams send them.

Cost: O(size of the payloads) plus one shallow-ish copy per new payload.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

__all__ = ("SPLIT_FORMATS", "resplit")

SPLIT_FORMATS = frozenset({"openai-chat", "openai-responses", "anthropic", "bedrock", "cohere"})
"""Formats whose argument text ``--split`` re-cuts."""


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [text]


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _text_slot(payload: Any, fmt: str) -> tuple[dict[str, Any], str] | None:
    """The dict and key holding the argument text of a one-fragment event, if any."""
    p = _dict(payload)
    if p is None:
        return None
    holder: dict[str, Any] | None = None
    key = ""
    if fmt == "anthropic":
        delta = _dict(p.get("delta"))
        if p.get("type") == "content_block_delta" and delta is not None:
            if delta.get("type") == "input_json_delta":
                holder, key = delta, "partial_json"
    elif fmt == "openai-responses":
        if p.get("type") == "response.function_call_arguments.delta":
            holder, key = p, "delta"
    elif fmt == "bedrock":
        block = _dict(p.get("contentBlockDelta"))
        if block is None and "delta" in p and "contentBlockIndex" in p:
            block = p  # the flattened shape, without the event-type wrapper
        delta = _dict(block.get("delta")) if block is not None else None
        holder, key = (_dict(delta.get("toolUse")) if delta is not None else None), "input"
    elif fmt == "cohere":
        if p.get("type") == "tool-call-delta":
            message = _dict((_dict(p.get("delta")) or {}).get("message"))
            calls = message.get("tool_calls") if message is not None else None
            if isinstance(calls, list) and len(calls) == 1:
                calls = calls[0]
            function = _dict((_dict(calls) or {}).get("function"))
            holder, key = function, "arguments"
    if holder is None or not isinstance(holder.get(key), str):
        return None
    return holder, key


def _split_one_fragment(payload: Any, fmt: str, size: int) -> list[Any]:
    slot = _text_slot(payload, fmt)
    if slot is None or len(slot[0][slot[1]]) <= size:
        return [payload]
    holder, key = slot
    out: list[Any] = []
    original = holder[key]
    for piece in _pieces(original, size):
        holder[key] = piece
        out.append(copy.deepcopy(payload))
    holder[key] = original
    return out


def _split_openai_chat(payload: Any, size: int) -> list[Any]:
    p = _dict(payload)
    choices = p.get("choices") if p is not None else None
    if p is None or not isinstance(choices, list):
        return [payload]
    # (choice position, entry position, tool-call entry) of every over-long fragment
    long_entries: list[tuple[int, int, dict[str, Any]]] = []
    for position, choice in enumerate(choices):
        delta = _dict((_dict(choice) or {}).get("delta"))
        entries = delta.get("tool_calls") if delta is not None else None
        for entry_position, entry in enumerate(entries if isinstance(entries, list) else ()):
            function = _dict((_dict(entry) or {}).get("function"))
            text = function.get("arguments") if function is not None else None
            if isinstance(text, str) and len(text) > size:
                long_entries.append((position, entry_position, entry))
    if not long_entries:
        return [payload]

    first = copy.deepcopy(p)
    shell = {k: v for k, v in p.items() if k not in ("choices", "usage")}
    continuations: list[Any] = []
    finishes: list[dict[str, Any]] = []
    for position, choice in enumerate(choices):
        reason = (_dict(choice) or {}).get("finish_reason")
        if reason is not None and any(pos == position for pos, _, _ in long_entries):
            first["choices"][position]["finish_reason"] = None
            finishes.append(
                {"index": choice.get("index", position), "delta": {}, "finish_reason": reason}
            )
    for position, entry_position, entry in long_entries:
        choice_index = choices[position].get("index", position)
        pieces = _pieces(entry["function"]["arguments"], size)
        first["choices"][position]["delta"]["tool_calls"][entry_position]["function"][
            "arguments"
        ] = pieces[0]
        for piece in pieces[1:]:
            fragment: dict[str, Any] = {"function": {"arguments": piece}}
            if entry.get("index") is not None:
                fragment = {"index": entry["index"], **fragment}
            elif entry.get("id") is not None:
                fragment = {"id": entry["id"], **fragment}
            continuations.append(
                {
                    **copy.deepcopy(shell),
                    "choices": [
                        {
                            "index": choice_index,
                            "delta": {"tool_calls": [fragment]},
                            "finish_reason": None,
                        }
                    ],
                }
            )
    out = [first, *continuations]
    usage = p.get("usage")
    if finishes or usage is not None:
        if usage is not None:
            first["usage"] = None
        last: dict[str, Any] = {**copy.deepcopy(shell), "choices": finishes}
        if usage is not None:
            last["usage"] = copy.deepcopy(usage)
        out.append(last)
    return out


def resplit(payloads: Iterable[Any], fmt: str | None, size: int) -> list[Any]:
    """Return the payloads with argument text re-cut into ``size``-character fragments.

    ``fmt`` is the stream's format name; payloads of formats outside
    :data:`SPLIT_FORMATS` (or of an unknown format) are returned unchanged.
    """
    if size < 1:
        raise ValueError("the split size must be at least 1")
    if fmt not in SPLIT_FORMATS:
        return list(payloads)
    out: list[Any] = []
    for payload in payloads:
        if fmt == "openai-chat":
            out.extend(_split_openai_chat(payload, size))
        else:
            out.extend(_split_one_fragment(payload, fmt, size))
    return out
