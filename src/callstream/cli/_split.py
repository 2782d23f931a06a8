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

The payloads are made one at a time, as the replay takes them: memory is one payload and
the fragment being made, whatever the size (a 1 MB argument cut into 1-character
fragments does not become a million payloads held at once). Cost: O(size of the
payloads) plus one copy of the payload's structure (not of its text) per new payload.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from callstream._errors import OptionTypeError, OptionValueError
from callstream.providers._formats import REGISTRY

__all__ = ("SPLIT_FORMATS", "resplit")

_CHAT_CUT = frozenset(entry.name for entry in REGISTRY if entry.recut == "chat")
SPLIT_FORMATS = frozenset(entry.name for entry in REGISTRY if entry.recut is not None)
"""Formats whose argument text ``--split`` re-cuts (their registry entry's ``recut``)."""


def _pieces(text: str, size: int) -> Iterator[str]:
    """``text`` in ``size``-character pieces, made as they are taken."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _text_slot(payload: Any, wire_format: str) -> tuple[dict[str, Any], str] | None:
    """The dict and key holding the argument text of a one-fragment event, if any."""
    event = _dict(payload)
    if event is None:
        return None
    find = _SLOT_FINDERS.get(wire_format)
    slot = find(event) if find is not None else None
    if slot is None or not isinstance(slot[0].get(slot[1]), str):
        return None
    return slot


def _anthropic_slot(event: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    delta = _dict(event.get("delta"))
    if event.get("type") != "content_block_delta" or delta is None:
        return None
    return (delta, "partial_json") if delta.get("type") == "input_json_delta" else None


def _openai_responses_slot(event: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    if event.get("type") == "response.function_call_arguments.delta":
        return event, "delta"
    return None


def _bedrock_slot(event: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    block = _dict(event.get("contentBlockDelta"))
    if block is None and "delta" in event and "contentBlockIndex" in event:
        block = event  # the flattened shape, without the event-type wrapper
    delta = _dict(block.get("delta")) if block is not None else None
    tool_use = _dict(delta.get("toolUse")) if delta is not None else None
    return (tool_use, "input") if tool_use is not None else None


def _cohere_slot(event: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    if event.get("type") != "tool-call-delta":
        return None
    message = _dict((_dict(event.get("delta")) or {}).get("message"))
    calls = message.get("tool_calls") if message is not None else None
    if isinstance(calls, list) and len(calls) == 1:
        calls = calls[0]
    function = _dict((_dict(calls) or {}).get("function"))
    return (function, "arguments") if function is not None else None


_SLOT_FINDERS: dict[str, Callable[[dict[str, Any]], tuple[dict[str, Any], str] | None]] = {
    # keyed by the formats whose registry entry says recut="slot" (tests/providers/test_formats.py)
    "anthropic": _anthropic_slot,
    "openai-responses": _openai_responses_slot,
    "bedrock": _bedrock_slot,
    "cohere": _cohere_slot,
}
"""Per one-fragment format: where an event holds its argument text (dict and key)."""


def _split_one_fragment(payload: Any, wire_format: str, size: int) -> Iterator[Any]:
    slot = _text_slot(payload, wire_format)
    if slot is None or len(slot[0][slot[1]]) <= size:
        yield payload
        return
    holder, key = slot
    original = holder[key]
    for piece in _pieces(original, size):
        holder[key] = piece
        try:
            fragment = copy.deepcopy(payload)
        finally:
            holder[key] = original  # the payload given is as it was whenever one is yielded
        yield fragment


# (choice position, entry position, tool-call entry) of an over-long OpenAI Chat fragment
_LongEntry = tuple[int, int, dict[str, Any]]


def _split_openai_chat(payload: Any, size: int) -> Iterator[Any]:
    chunk = _dict(payload)
    choices = chunk.get("choices") if chunk is not None else None
    if chunk is None or not isinstance(choices, list):
        yield payload
        return
    long_entries = _long_entries(choices, size)
    if not long_entries:
        yield payload
        return
    first = copy.deepcopy(chunk)
    shell = {k: v for k, v in chunk.items() if k not in ("choices", "usage")}
    finishes = _take_finishes(first, choices, long_entries)
    for position, entry_position, entry in long_entries:
        first_delta = first["choices"][position]["delta"]
        first_delta["tool_calls"][entry_position]["function"]["arguments"] = entry["function"][
            "arguments"
        ][:size]
    usage = chunk.get("usage")
    if usage is not None:
        first["usage"] = None
    yield first
    del first
    for position, _entry_position, entry in long_entries:
        choice_index = choices[position].get("index", position)
        pieces = _pieces(entry["function"]["arguments"], size)
        next(pieces)  # the first piece went with ``first``
        for piece in pieces:
            yield _continuation(shell, choice_index, entry, piece)
    if finishes or usage is not None:
        last: dict[str, Any] = {**copy.deepcopy(shell), "choices": finishes}
        if usage is not None:
            last["usage"] = copy.deepcopy(usage)
        yield last


def _long_entries(choices: list[Any], size: int) -> list[_LongEntry]:
    """The tool-call entries whose argument text is longer than ``size``, in order."""
    long_entries: list[_LongEntry] = []
    for position, choice in enumerate(choices):
        delta = _dict((_dict(choice) or {}).get("delta"))
        entries = delta.get("tool_calls") if delta is not None else None
        for entry_position, entry in enumerate(entries if isinstance(entries, list) else ()):
            function = _dict((_dict(entry) or {}).get("function"))
            text = function.get("arguments") if function is not None else None
            if isinstance(text, str) and len(text) > size:
                long_entries.append((position, entry_position, entry))
    return long_entries


def _take_finishes(
    first: dict[str, Any], choices: list[Any], long_entries: list[_LongEntry]
) -> list[dict[str, Any]]:
    """Move the finish reasons of the choices being cut out of ``first``; the finish choices."""
    cut = {position for position, _, _ in long_entries}
    finishes: list[dict[str, Any]] = []
    for position, choice in enumerate(choices):
        reason = (_dict(choice) or {}).get("finish_reason")
        if reason is not None and position in cut:
            first["choices"][position]["finish_reason"] = None
            finishes.append(
                {"index": choice.get("index", position), "delta": {}, "finish_reason": reason}
            )
    return finishes


def _continuation(
    shell: dict[str, Any], choice_index: Any, entry: dict[str, Any], piece: str
) -> dict[str, Any]:
    """A payload carrying the next ``piece`` of ``entry``'s argument text, keyed like it."""
    fragment: dict[str, Any] = {"function": {"arguments": piece}}
    if entry.get("index") is not None:
        fragment = {"index": entry["index"], **fragment}
    elif entry.get("id") is not None:
        fragment = {"id": entry["id"], **fragment}
    return {
        **copy.deepcopy(shell),
        "choices": [
            {"index": choice_index, "delta": {"tool_calls": [fragment]}, "finish_reason": None}
        ],
    }


def resplit(payloads: Iterable[Any], wire_format: str | None, size: int) -> Iterator[Any]:
    """The payloads with argument text re-cut into ``size``-character fragments, made one
    at a time as the iterator is read (the size is checked at once).

    ``wire_format`` is the stream's format name; payloads of formats outside
    :data:`SPLIT_FORMATS` (or of an unknown format) are passed on unchanged.

    Raises:
        OptionTypeError: ``size`` is not an int.
        OptionValueError: ``size`` is below 1 (the command line refuses it before).
    """
    if isinstance(size, bool) or not isinstance(size, int):
        raise OptionTypeError(f"the split size must be an int, got {size!r}")
    if size < 1:
        raise OptionValueError(f"the split size must be at least 1, got {size}")
    if wire_format not in SPLIT_FORMATS:
        return iter(payloads)
    return _recut(payloads, wire_format, size)


def _recut(payloads: Iterable[Any], wire_format: str, size: int) -> Iterator[Any]:
    for payload in payloads:
        if wire_format in _CHAT_CUT:
            yield from _split_openai_chat(payload, size)
        else:
            yield from _split_one_fragment(payload, wire_format, size)
