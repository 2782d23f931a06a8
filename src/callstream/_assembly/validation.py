"""Boundary checks for what callers hand the assembler: chunk fields and signal arguments.

Cheap ``type``/``isinstance`` checks only (this runs once per chunk on the hot path); a
wrong type raises :class:`~callstream.ChunkValidationError` naming the field and value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from callstream._errors import ChunkValidationError

__all__ = ("args_text", "check_index", "check_str", "read_chunk")

_REPR_LIMIT = 60


def _show(value: object) -> str:
    """A short repr of ``value`` and its type name, for error messages."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = "<unprintable>"
    if len(text) > _REPR_LIMIT:
        text = text[: _REPR_LIMIT - 3] + "..."
    return f"{text} ({type(value).__name__})"


def check_index(value: object, where: str = "") -> int | None:
    """Return ``value`` as a provider index: an int, a string of ASCII digits, or None.

    ``True``/``False`` are rejected (they are ints in Python, never indexes on the wire).

    Raises:
        ChunkValidationError: any other type or string.
    """
    if value is None or type(value) is int:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value.isascii() and value.isdecimal():
        return int(value)
    raise ChunkValidationError(
        f"{where}field 'index' must be an int or a string of digits, got {_show(value)}"
    )


def check_str(field: str, value: object, where: str = "") -> str | None:
    """Return ``value`` if it is a str or None.

    Raises:
        ChunkValidationError: any other type.
    """
    if value is None or isinstance(value, str):
        return value
    raise ChunkValidationError(f"{where}field {field!r} must be a str or None, got {_show(value)}")


def args_text(value: object, where: str = "") -> tuple[str | None, bool]:
    """Return ``(text, whole)`` for an ``args`` value: a text fragment as it is, or a
    mapping serialized with ``json.dumps`` (``whole=True``: the complete arguments).

    Cost: O(1) for text; O(size) for a mapping.

    Raises:
        ChunkValidationError: neither str, mapping nor None, or a mapping that is not
            JSON-serializable.
    """
    if value is None or type(value) is str:
        return value, False
    if isinstance(value, str):
        return str.__str__(value), False
    if isinstance(value, Mapping):
        try:
            obj = value if type(value) is dict else dict(value)
            return json.dumps(obj, ensure_ascii=False), True
        except (TypeError, ValueError) as exc:
            raise ChunkValidationError(
                f"{where}field 'args' is a mapping that is not JSON-serializable: {exc}"
            ) from None
    raise ChunkValidationError(
        f"{where}field 'args' must be a str (JSON text), a dict or None, got {_show(value)}"
    )


def read_chunk(
    chunk: object, where: str = ""
) -> tuple[int | None, str | None, str | None, str | None, bool]:
    """Check one tool-call chunk and return ``(index, id, name, args_text, whole)``.

    Missing keys read as None; unknown keys (``type``, ...) are ignored. ``where``
    prefixes error messages (``"chunk 2: "``).

    Cost: O(1) plus the serialization of an ``args`` mapping.

    Raises:
        ChunkValidationError: ``chunk`` is not a mapping, or a field has a wrong type.
    """
    if type(chunk) is not dict and not isinstance(chunk, Mapping):
        raise ChunkValidationError(
            f"{where}a tool call chunk must be a mapping, got {_show(chunk)}"
        )
    get = chunk.get
    index = get("index")
    id_ = get("id")
    name = get("name")
    args = get("args")
    if index is not None and type(index) is not int:
        index = check_index(index, where)
    if id_ is not None and type(id_) is not str:
        id_ = check_str("id", id_, where)
    if name is not None and type(name) is not str:
        name = check_str("name", name, where)
    if args is None or type(args) is str:
        return index, id_, name, args, False
    text, whole = args_text(args, where)
    return index, id_, name, text, whole
