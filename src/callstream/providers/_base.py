"""The translator protocol and duck-typing accessors shared by every provider format.

A payload reaches a translator as a plain ``dict`` (decoded JSON), an SDK object (a
pydantic model, a dataclass, any object with attributes) or something odd. The helpers
here read a field from any of these the same way, never import an SDK, and never raise:
a missing or wrongly typed field reads as ``None`` (or the default), so a translator can
be written as if every payload were a well-formed dict.

Field names are looked up as written and then in the other naming style (``functionCall``
and ``function_call``), because SDKs expose wire fields in snake case while the wire and
``model_dump(by_alias=True)`` use camel case.

Cost: one dict lookup or ``getattr`` per field, plus one more when the first misses; the
name conversions are cached. Plain dicts (decoded JSON, the common case) are read inline,
without the generic ``Mapping`` / attribute path.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import re
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from callstream._assembly.types import Signal, ToolCallChunk

__all__ = (
    "Translator",
    "alternate_key",
    "get",
    "get_int",
    "get_list",
    "get_str",
    "is_record",
    "path",
    "to_plain",
)

_MISSING: Any = object()


@runtime_checkable
class Translator(Protocol):
    """A stateful, sans-I/O translator from one provider format to assembler signals.

    One instance serves one stream (it may remember which calls it has seen). ``translate``
    takes one decoded payload and returns the signals it carries, in order: tool-call chunks
    (``ToolCallChunk`` dicts), ``CallEnd``, ``CallFailure`` and ``StreamEnd``. Unknown event
    types and odd payloads give ``[]``; a translator never raises on provider data.
    """

    name: str

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one payload (cost: O(size of the payload))."""
        ...


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=512)
def alternate_key(key: str) -> str | None:
    """Return ``key`` in the other naming style (camel <-> snake), or None if the same.

    ``"functionCall"`` -> ``"function_call"``; ``"tool_use_id"`` -> ``"toolUseId"``.
    """
    if "_" in key.strip("_"):
        head, *rest = key.split("_")
        other = head + "".join(part[:1].upper() + part[1:] for part in rest)
    else:
        other = _CAMEL_BOUNDARY.sub("_", key).lower()
    return other if other != key else None


def _lookup(obj: Any, key: str) -> Any:
    if type(obj) is dict:  # the common case, without the ABC check below
        return obj.get(key, _MISSING)
    if isinstance(obj, Mapping):
        try:
            return obj.get(key, _MISSING)
        except Exception:  # an exotic Mapping whose get fails is treated as lacking the key
            return _MISSING
    if obj is None or isinstance(obj, (str, bytes, bytearray, int, float, list, tuple)):
        return _MISSING
    try:
        value = getattr(obj, key, _MISSING)
    except Exception:  # a property that raises reads as absent
        return _MISSING
    if value is not _MISSING and callable(value) and inspect.isroutine(value):
        return _MISSING  # a method, not a field
    return value


def get(obj: Any, key: str, default: Any = None) -> Any:
    """Read field ``key`` of a dict, mapping, pydantic model, dataclass or plain object.

    Tries ``key`` and then its other naming style (see :func:`alternate_key`). A missing
    field, a method of that name, or a ``None`` value give ``default``. Never raises.
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
    if value is _MISSING or value is None:
        other = alternate_key(key)
        if other is not None:
            value = _lookup(obj, other)
    if value is _MISSING or value is None:
        return default
    return value


def path(obj: Any, *keys: str | int) -> Any:
    """Follow a chain of fields (``str``) and list positions (``int``); None if any is absent.

    ``path(payload, "choices", 0, "delta")`` reads ``payload["choices"][0]["delta"]``.
    """
    current = obj
    for key in keys:
        if isinstance(key, int):
            if not isinstance(current, (list, tuple)) or not -len(current) <= key < len(current):
                return None
            current = current[key]
        else:
            current = get(current, key)
        if current is None:
            return None
    return current


def get_str(obj: Any, key: str) -> str | None:
    """Read a text field; an enum member reads as its value (or name), other types as None."""
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is str:
            return value
        if value is None and alternate_key(key) is None:
            return None  # missing, and no other spelling to try
    value = get(obj, key)
    if value is None or type(value) is str:
        return value
    if isinstance(value, enum.Enum):
        value = value.value if isinstance(value.value, str) else value.name
    return value if isinstance(value, str) else None


def get_int(obj: Any, key: str) -> int | None:
    """Read an integer field; a decimal string (``"2"``) is accepted, anything else is None."""
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is int:
            return value
    value = get(obj, key)
    if value is None or type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        try:
            return int(value)
        except ValueError:
            return None
    return None


def get_list(obj: Any, key: str) -> list[Any]:
    """Read a list field; a tuple becomes a list, a single mapping or object a one-item list.

    None, a missing field, a string or a number give ``[]``.
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is list:
            return value
    value = get(obj, key)
    if isinstance(value, list):
        return value
    if value is None:
        return []
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, (str, bytes, bytearray, int, float)):
        return []
    return [value]


def is_record(obj: Any) -> bool:
    """True for things whose fields :func:`get` can read: mappings and non-scalar objects."""
    if type(obj) is dict:
        return True
    if obj is None:
        return False
    if isinstance(obj, Mapping):
        return True
    return not isinstance(obj, (str, bytes, bytearray, int, float, list, tuple, set))


def _plain_container(obj: Any) -> Any:
    """One level of conversion: a model/dataclass/mapping to a dict, a sequence to a list."""
    if isinstance(obj, Mapping):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and not isinstance(obj, type):
        try:
            dumped = dump()
        except Exception:
            return obj
        return dumped if isinstance(dumped, dict) else obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
    return obj


def to_plain(value: Any) -> Any:
    """Convert a value to plain JSON-like data (dicts, lists, scalars) without recursion.

    Pydantic models are dumped, dataclasses become dicts, tuples become lists, mapping keys
    become strings; other objects are kept as they are. Cost: O(size); iterative, so a
    deeply nested value cannot raise ``RecursionError``.
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, slot, item = stack.pop()
        if item is None or isinstance(item, (str, int, float, bool)):
            parent[slot] = item
            continue
        item = _plain_container(item)
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            parent[slot] = out
            for key, child in item.items():
                name = key if isinstance(key, str) else str(key)
                out[name] = None
                stack.append((out, name, child))
        elif isinstance(item, (list, tuple)):
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            for position, child in enumerate(item):
                stack.append((seq, position, child))
        else:
            parent[slot] = item
    return root[0]


def tool_chunk(
    index: int | None, id_: str | None, name: str | None, args: str | dict[str, Any] | None
) -> ToolCallChunk:
    """A ``ToolCallChunk`` dict (LangChain's keys), the signal every translator emits."""
    return {"name": name, "args": args, "id": id_, "index": index, "type": "tool_call_chunk"}
