"""Boundary checks for what callers hand the assembler: chunk fields and signal arguments.

Cheap ``type``/``isinstance`` checks only (this runs once per chunk); a
wrong type raises :class:`~callstream.ChunkValidationError` naming the field and value.
Arguments given as a decoded object are serialized with
:func:`~callstream._json.dump.dumps_bounded` (no recursion): an object nested deeper than
the assembler's ``max_depth`` is not an error of the caller but of the data, so it comes
back as a :class:`~callstream.JSONLimitError` *value*, beside the text (which is then
None), and the assembler turns that call invalid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from callstream._errors import ChunkValidationError, JSONLimitError
from callstream._json.dump import dumps_bounded

__all__ = (
    "MAX_INDEX_DIGITS",
    "args_text",
    "check_args",
    "check_extras",
    "check_index",
    "check_str",
    "chunk_fields",
    "read_chunk",
)

_REPR_LIMIT: Final = 60

MAX_INDEX_DIGITS: Final = 18
"""Longest digit string accepted as an ``index`` (beyond it ``int()`` would be slow or
refuse the string; no provider numbers its calls past 10**18)."""


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
        return int.__int__(value)  # the plain value; a subclass's own __int__ is not trusted
    if (
        isinstance(value, str)
        and value.isascii()
        and value.isdecimal()
        and len(value) <= MAX_INDEX_DIGITS
    ):
        return int(str.__str__(value))
    raise ChunkValidationError(
        f"{where}field 'index' must be an int or a string of digits, got {_show(value)}"
    )


def check_str(field: str, value: object, where: str = "") -> str | None:
    """Return ``value`` if it is a str or None (a str subclass as a plain str, so that its
    own ``__hash__`` / ``__eq__`` never take part in routing).

    Raises:
        ChunkValidationError: any other type.
    """
    if value is None or type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    raise ChunkValidationError(f"{where}field {field!r} must be a str or None, got {_show(value)}")


def check_args(value: object, where: str = "") -> str | dict[str, object] | None:
    """Return ``value`` as an ``args`` field: None, a plain str, or a dict (a mapping
    copied into one). Whether the dict is JSON data is checked when it is serialized
    (:func:`args_text`). Cost: O(1) for text, O(keys) for a mapping that is not a dict.

    Raises:
        ChunkValidationError: neither str, mapping nor None.
    """
    if value is None or type(value) is str or type(value) is dict:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise ChunkValidationError(
        f"{where}field 'args' must be a str (JSON text), a dict or None, got {_show(value)}"
    )


def check_extras(value: object, where: str = "", max_depth: int = 1000) -> dict[str, object]:
    """Return ``value`` as a call's extras: a plain dict copy of a mapping with str keys
    whose values are JSON data nested at most ``max_depth`` levels (what a UI writes out
    as JSON). Cost: O(size).

    Raises:
        ChunkValidationError: not a mapping, a key not a str, or a value JSON cannot hold.
    """
    if type(value) is not dict and not isinstance(value, Mapping):
        raise ChunkValidationError(f"{where}extras must be a mapping, got {_show(value)}")
    checked: dict[str, object] = {}
    for key, item in value.items():
        if type(key) is not str:
            raise ChunkValidationError(f"{where}extras keys must be str, got {_show(key)}")
        checked[key] = item
    try:
        dumps_bounded(checked, max_depth=max_depth)
    except (JSONLimitError, TypeError, ValueError) as exc:
        raise ChunkValidationError(f"{where}extras are not JSON data: {exc}") from None
    return checked


def args_text(
    value: object, where: str = "", max_depth: int = 1000
) -> tuple[str | None, bool, JSONLimitError | None]:
    """Return ``(text, whole, too_deep)`` for an ``args`` value: a text fragment as it is,
    or a mapping serialized as ``json.dumps`` would (``whole=True``: the complete
    arguments); ``too_deep`` is None.

    A mapping nested deeper than ``max_depth`` (or cyclic) gives ``(None, True, error)``:
    no text, and the :class:`JSONLimitError` as ``too_deep``, bad data for the assembler
    to report as an invalid call.

    Cost: O(1) for text; O(size) for a mapping (iterative: never ``RecursionError``).

    Raises:
        ChunkValidationError: neither str, mapping nor None, or a mapping that is not
            JSON-serializable.
    """
    if value is None or type(value) is str:
        return value, False, None
    checked = check_args(value, where)
    if checked is None or type(checked) is str:
        return checked, False, None
    try:
        return dumps_bounded(checked, max_depth=max_depth, ensure_ascii=False), True, None
    except JSONLimitError as exc:
        return None, True, exc
    except (TypeError, ValueError) as exc:
        raise ChunkValidationError(
            f"{where}field 'args' is a mapping that is not JSON-serializable: {exc}"
        ) from None


def chunk_fields(
    chunk: Mapping[str, object], where: str = ""
) -> tuple[int | None, str | None, str | None, str | dict[str, object] | None]:
    """Check the fields of one tool-call chunk mapping and return ``(index, id, name,
    args)``: an ``index`` of digits as an int, ``str`` subclasses as plain ``str``, an
    ``args`` mapping as a dict (not serialized). Missing keys read as None; unknown keys
    (``type``, ...) are ignored. The one place a chunk written by a user is checked:
    :func:`read_chunk` (the assembler's ``feed``) and the LangChain translator use it.

    Raises:
        ChunkValidationError: a field has a wrong type.
    """
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
    if args is not None and type(args) is not str:
        args = check_args(args, where)
    return index, id_, name, args


def read_chunk(
    chunk: object, where: str = "", max_depth: int = 1000
) -> tuple[int | None, str | None, str | None, str | None, bool, JSONLimitError | None]:
    """Check one tool-call chunk and return ``(index, id, name, text, whole, too_deep)``
    (``text``, ``whole`` and ``too_deep`` as :func:`args_text` gives them).

    The fields are checked by :func:`chunk_fields`; ``where`` prefixes error messages
    (``"chunk 2: "``).

    Cost: O(1) plus the serialization of an ``args`` mapping (see :func:`args_text`;
    ``max_depth`` bounds its nesting).

    Raises:
        ChunkValidationError: ``chunk`` is not a mapping, or a field has a wrong type.
    """
    if type(chunk) is not dict and not isinstance(chunk, Mapping):
        raise ChunkValidationError(
            f"{where}a tool call chunk must be a mapping, got {_show(chunk)}"
        )
    index, id_, name, args = chunk_fields(chunk, where)
    if args is None or type(args) is str:
        return index, id_, name, args, False, None
    text, whole, too_deep = args_text(args, where, max_depth)
    return index, id_, name, text, whole, too_deep
