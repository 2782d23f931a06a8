"""Shared aliases and sentinels (no dependencies)."""

from __future__ import annotations

import enum
from typing import Final, Literal, TypeAlias

__all__ = ("MISSING", "JSONPath", "Missing", "ValueKind")


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
