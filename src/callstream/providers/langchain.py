"""LangChain message chunks and plain tool-call chunk dicts -> assembler signals.

Accepts, by duck typing (LangChain is never imported):

- ``AIMessageChunk`` objects (or their dict dumps): their ``tool_call_chunks`` are passed
  on. The end of the stream is read from ``response_metadata`` (``finish_reason`` from
  OpenAI-style models, ``stop_reason`` from Anthropic, ``done_reason`` from Ollama) or,
  failing that, from ``chunk_position == "last"``.
- plain ``ToolCallChunk`` dicts (``{"name", "args", "id", "index"}``), one per payload or a
  list of them.

Chunks written by users are checked with a pydantic ``TypeAdapter`` at this boundary; a
wrong type raises :class:`~callstream.ChunkValidationError` naming the field and the
value (``index='lc_0'``, ``args=5``, ``name=7``), since that is a bug in the calling code,
not provider data. ``index`` may be a string of digits (``"0"``). Cost: one validation
per chunk, O(size of the chunk).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError
from typing_extensions import NotRequired, TypedDict

from callstream._assembly.types import Signal, StreamEnd, ToolCallChunk
from callstream._errors import ChunkValidationError
from callstream.providers._base import get, get_str, is_record, to_plain

__all__ = ("LangChainTranslator", "detect", "validate_chunk")

_CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})


class _ChunkFields(TypedDict):
    name: NotRequired[str | None]
    args: NotRequired[str | dict[str, Any] | None]
    id: NotRequired[str | None]
    index: NotRequired[int | None]
    type: NotRequired[Literal["tool_call_chunk"]]


_ADAPTER: TypeAdapter[_ChunkFields] = TypeAdapter(_ChunkFields)


def validate_chunk(chunk: Any) -> ToolCallChunk:
    """Check one user-supplied tool-call chunk and return it as a ``ToolCallChunk``.

    Missing keys read as None; unknown keys are dropped.

    Raises:
        ChunkValidationError: a field has the wrong type (the message names the field,
            the value and what was expected).
    """
    if not isinstance(chunk, Mapping):
        chunk = to_plain(chunk)
        if not isinstance(chunk, Mapping):
            raise ChunkValidationError(
                f"a tool call chunk must be a mapping, got {type(chunk).__name__}"
            )
    fields = {k: v for k, v in chunk.items() if k in _CHUNK_KEYS and k != "type"}
    if isinstance(fields.get("index"), bool):
        raise ChunkValidationError(
            f"invalid tool call chunk: index must be {_EXPECTED['index']}, got {fields['index']!r}"
        )
    try:
        valid = _ADAPTER.validate_python(fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{field} must be {_EXPECTED.get(str(field), 'valid')}, got {err['input']!r}"
            f" ({err['msg']})"
            for field, err in _first_per_field(exc)
        )
        raise ChunkValidationError(f"invalid tool call chunk: {problems}") from None
    return {
        "name": valid.get("name"),
        "args": valid.get("args"),
        "id": valid.get("id"),
        "index": valid.get("index"),
        "type": "tool_call_chunk",
    }


_EXPECTED = {
    "index": "an int, a string of digits or None",
    "args": "a str (JSON text), a dict or None",
    "name": "a str or None",
    "id": "a str or None",
}


def _first_per_field(exc: ValidationError) -> list[tuple[object, Any]]:
    """One error per field (a union reports one error per member; keep the first)."""
    seen: set[object] = set()
    errors: list[tuple[object, Any]] = []
    for err in exc.errors(include_url=False):
        field = err["loc"][0] if err["loc"] else "chunk"
        if field in seen:
            continue
        seen.add(field)
        errors.append((field, err))
    return errors


def _is_chunk_dict(payload: Any) -> bool:
    if not isinstance(payload, Mapping) or not payload:
        return False
    kind = payload.get("type")
    if kind is not None:
        return bool(kind == "tool_call_chunk")
    return all(isinstance(k, str) and k in _CHUNK_KEYS for k in payload)


def detect(payload: Any) -> bool:
    """True for an ``AIMessageChunk`` (anything with ``tool_call_chunks``) or chunk dicts."""
    if isinstance(get(payload, "tool_call_chunks"), (list, tuple)):
        return True
    if isinstance(payload, (list, tuple)):
        return bool(payload) and all(_is_chunk_dict(item) for item in payload)
    return _is_chunk_dict(payload)


class LangChainTranslator:
    """Translate ``AIMessageChunk`` objects and plain ``ToolCallChunk`` dicts.

    State: whether the end of the stream was already reported.
    """

    name = "langchain"

    def __init__(self) -> None:
        self._ended = False

    def translate(self, payload: Any) -> list[Signal]:
        """Return the validated chunks of one payload, then the end of stream if stated.

        Raises:
            ChunkValidationError: a chunk has a field of the wrong type.
        """
        chunks = get(payload, "tool_call_chunks")
        if isinstance(chunks, (list, tuple)):
            signals: list[Signal] = [validate_chunk(chunk) for chunk in chunks]
            if not self._ended:
                end = self._end_of(payload)
                if end is not None:
                    self._ended = True
                    signals.append(end)
            return signals
        if isinstance(payload, (list, tuple)):
            return [validate_chunk(chunk) for chunk in payload]
        if _is_chunk_dict(payload):
            return [validate_chunk(payload)]
        return []

    @staticmethod
    def _end_of(message: Any) -> StreamEnd | None:
        metadata = get(message, "response_metadata")
        if is_record(metadata):
            for key in ("finish_reason", "stop_reason", "done_reason"):
                reason = get_str(metadata, key)
                if reason:
                    return StreamEnd(reason=reason)
        if get_str(message, "chunk_position") == "last":
            return StreamEnd(reason=None)
        return None
