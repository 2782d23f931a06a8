"""Shared aliases and sentinels (no dependencies)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Final, Literal, TypeAlias

__all__ = ("MISSING", "JSONPath", "Missing", "ValueKind", "slot_setter")


class Missing(enum.Enum):
    """Type of :data:`MISSING`."""

    MISSING = "MISSING"

    def __repr__(self) -> str:
        return "callstream.MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = Missing.MISSING
"""Sentinel: no value has begun yet (distinct from JSON ``null``, which is ``None``)."""

JSONPath: TypeAlias = tuple[str | int, ...]
"""Location of a value inside a JSON document: object keys and array indexes from the root."""

ValueKind: TypeAlias = Literal["object", "array", "string", "number", "true", "false", "null"]
"""The JSON kind of a value."""


def slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """The ``__set__`` of slot ``name`` of a slotted (frozen) dataclass ``cls``.

    Hot paths build frozen dataclasses with ``object.__new__(cls)`` and these setters, at
    about a third of the constructor's cost (the constructor sets each field through
    ``object.__setattr__`` by name). The result equals the constructor's (tested).
    """
    setter: Callable[[Any, Any], None] = cls.__dict__[name].__set__
    return setter
