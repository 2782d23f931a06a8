"""Field accessors that read any provider payload the same way and never raise.

A payload reaches a translator as a plain ``dict`` (decoded JSON), an SDK object (a
pydantic model, a dataclass, any object with attributes) or something odd. The helpers
here read a field from any of these the same way, never import an SDK, and never raise:
a missing or wrongly typed field reads as ``None`` (or the default), so a translator can
be written as if every payload were a well-formed dict.

Field names are looked up as written and then in the other naming style (``functionCall``
and ``function_call``), because SDKs expose wire fields in snake case while the wire and
``model_dump(by_alias=True)`` use camel case.

"Never raises" holds for hostile objects too (properties, ``__getattr__``, ``__class__``,
``keys`` or ``model_dump`` that raise, ``str`` / ``int`` subclasses with odd methods): the
helpers decide by an object's real type (``type(obj)``), read subclass values with the
base type's own methods, and treat any exception from the object as "no such field".

Cost: one dict lookup or ``getattr`` per field, plus one more when the first misses; the
name conversions are cached. Plain dicts (decoded JSON, the common case) are read inline,
without the generic ``Mapping`` / attribute path.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = (
    "alternate_key",
    "get",
    "get_int",
    "get_list",
    "get_str",
    "int_value",
    "is_record",
    "is_sequence",
    "path",
    "sequence_items",
)

_MISSING: Final[Any] = object()

_CAMEL_BOUNDARY: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


_ALTERNATES: Final[dict[str, str | None]] = {}
""":func:`alternate_key`'s answers so far (the keys are this package's field names: a few
dozen, bounded by ``_MAX_ALTERNATES`` against a caller passing data as keys)."""
_MAX_ALTERNATES: Final = 512


def alternate_key(key: str) -> str | None:
    """Return ``key`` in the other naming style (camel <-> snake), or None if the same.

    ``"functionCall"`` -> ``"function_call"``; ``"tool_use_id"`` -> ``"toolUseId"``.
    Cost: one dict lookup once a key was seen (read for every absent field of every
    payload, so cheaper than a cache wrapper's call), O(len(key)) the first time.
    """
    other = _ALTERNATES.get(key, key)
    if other is not key:
        return other
    other = _other_style(key)
    if len(_ALTERNATES) < _MAX_ALTERNATES:
        _ALTERNATES[key] = other
    return other


def _other_style(key: str) -> str | None:
    """:func:`alternate_key`, computed."""
    if "_" in key.strip("_"):
        head, *rest = key.split("_")
        other = head + "".join(part[:1].upper() + part[1:] for part in rest)
    else:
        other = _CAMEL_BOUNDARY.sub("_", key).lower()
    return other if other != key else None


_NONE_ATTRIBUTE: Final[Any] = object()
"""What :func:`_lookup` gives for an object's attribute that exists and is None."""


def _lookup(obj: Any, key: str) -> Any:
    """Field ``key`` of ``obj`` as written: its value, ``_MISSING``, or ``_NONE_ATTRIBUTE``."""
    if type(obj) is dict:  # the common case, without the ABC check below
        return obj.get(key, _MISSING)
    try:  # anything below may meet a hostile object (a raising __class__, property, get)
        if isinstance(obj, Mapping):
            return obj.get(key, _MISSING)
        if obj is None or isinstance(obj, (str, bytes, bytearray, int, float, list, tuple)):
            return _MISSING
        value = getattr(obj, key, _MISSING)
    except Exception:  # an exotic object whose field cannot be read lacks it
        return _MISSING
    return _attribute(value)


def _attribute(value: Any) -> Any:
    """An attribute's value as :func:`_lookup` gives it: ``_NONE_ATTRIBUTE`` for None,
    ``_MISSING`` for a method (not a field) or a value that cannot be inspected."""
    if value is None:
        return _NONE_ATTRIBUTE
    try:
        if value is not _MISSING and callable(value) and inspect.isroutine(value):
            return _MISSING  # a method, not a field
    except Exception:  # a hostile value: not a field we can read
        return _MISSING
    return value


def get(obj: Any, key: str, default: Any = None) -> Any:
    """Read field ``key`` of a dict, mapping, pydantic model, dataclass or plain object.

    Tries ``key`` and then its other naming style (see :func:`alternate_key`); an object
    (not a mapping) whose attribute ``key`` exists and is None is not read in the other
    style (one object has one naming style, and a pydantic model's ``__getattr__`` raising
    for the other is costly). A missing field, a method of that name, a field
    whose reading raises, or a ``None`` value give ``default``. Never raises.
    """
    if type(obj) is dict:  # the common case, inline (one lookup when the field is there)
        value = obj.get(key)
        if value is None:
            other = alternate_key(key)
            if other is not None:
                value = obj.get(other)
            if value is None:
                return default
        return value
    value = _lookup(obj, key)
    if value is _NONE_ATTRIBUTE:  # an object with this field: not of the other naming style
        return default
    if value is _MISSING or value is None:
        other = alternate_key(key)
        if other is not None:
            value = _lookup(obj, other)
    if value is _MISSING or value is None or value is _NONE_ATTRIBUTE:
        return default
    return value


def path(obj: Any, *keys: str | int) -> Any:
    """Follow a chain of fields (``str``) and list positions (``int``); None if any is absent.

    ``path(payload, "choices", 0, "delta")`` reads ``payload["choices"][0]["delta"]``.
    Never raises.
    """
    current = obj
    for key in keys:
        if isinstance(key, int):
            if type(current) is not list and type(current) is not tuple:
                current = sequence_items(current)
                if current is None:
                    return None
            if not -len(current) <= key < len(current):
                return None
            current = current[key]
        else:
            current = get(current, key)
        if current is None:
            return None
    return current


def get_str(obj: Any, key: str) -> str | None:
    """Read a text field; an enum member reads as its value (or name), other types as None.

    A ``str`` subclass reads as a plain ``str`` (its own methods are never called).
    Never raises.
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is str:
            return value
        if value is None and alternate_key(key) is None:
            return None  # missing, and no other spelling to try
    value = get(obj, key)
    if value is None or type(value) is str:
        return value
    return _as_str(value)


def _as_str(value: Any) -> str | None:
    """A non-``str`` field value as text: enum members and ``str`` subclasses, else None."""
    kind = type(value)
    try:
        if issubclass(kind, enum.Enum):
            value = value.value if type(value.value) is str else value.name
            kind = type(value)
        if issubclass(kind, str):
            return str.__str__(value)  # the characters, not a custom __str__
    except Exception:  # a hostile enum or subclass: no text
        return None
    return None


def get_int(obj: Any, key: str) -> int | None:
    """Read an integer field; a decimal string (``"2"``) is accepted, anything else is None.

    Never raises. (Use :func:`get_index` where a present but unusable value matters.)
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is int:
            return value
    value = get(obj, key)
    if value is None or type(value) is int:
        return value
    return int_value(value)


def int_value(value: Any) -> int | None:
    """A field value as an exact ``int``: an ``int`` (subclass) read with ``int``'s own
    method, or a decimal string (``"2"``, ``"-3"``); None for anything else (a boolean
    too). Never raises."""
    kind = type(value)
    try:
        if kind is bool:
            return None
        if issubclass(kind, int):
            return int.__int__(value)  # the number, not a custom __int__
        if issubclass(kind, str):
            text = str.__str__(value).strip()
            if text.lstrip("-").isdigit() and text.isascii():
                return int(text)
    except Exception:  # a hostile subclass, or a number too long to convert
        return None
    return None


def get_list(obj: Any, key: str) -> list[Any]:
    """Read a list field; a tuple becomes a list, a single mapping or object a one-item list.

    None, a missing field, a string or a number give ``[]``. Never raises.
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is list:
            return value
    value = get(obj, key)
    if type(value) is list:
        return value
    if value is None:
        return []
    items = sequence_items(value)  # a tuple, or a list or tuple subclass
    if items is not None:
        return items
    return [] if _is_scalar(value) else [value]


def _is_scalar(value: Any) -> bool:
    """True for text, bytes and numbers (by the real type), and for a value whose type
    cannot be checked."""
    try:
        return issubclass(type(value), (str, bytes, bytearray, int, float))
    except Exception:
        return True


def is_record(obj: Any) -> bool:
    """True for things whose fields :func:`get` can read: mappings and non-scalar objects.

    Decided by the object's real type (``type(obj)``), so it never raises.
    """
    kind = type(obj)
    if kind is dict:
        return True
    if obj is None:
        return False
    try:
        if issubclass(kind, Mapping):
            return True
        return not issubclass(kind, (str, bytes, bytearray, int, float, list, tuple, set))
    except Exception:  # a type whose subclass check fails: not something we can read
        return False


def is_sequence(obj: Any) -> bool:
    """True for a list or tuple (by the real type, so a hostile object cannot make it
    raise)."""
    kind = type(obj)
    if kind is list or kind is tuple:
        return True
    try:
        return issubclass(kind, (list, tuple))
    except Exception:
        return False


def sequence_items(obj: Any) -> list[Any] | None:
    """The items of a list or tuple subclass instance (read with the base type's own
    methods), None for anything else."""
    kind = type(obj)
    try:
        if issubclass(kind, list):
            return list.copy(obj)
        if issubclass(kind, tuple):
            return list(tuple.__getitem__(obj, slice(None)))
    except Exception:
        return None
    return None
