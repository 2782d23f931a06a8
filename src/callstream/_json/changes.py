"""Changes: what one fragment of JSON text did to the value being parsed.

A UI applies changes in order to keep a rendered tree in step with the stream in
O(size of the fragment), without reading whole snapshots:

- :class:`ValueStarted` — an object, array or string began at ``path`` (for an object
  member, this is when its key becomes visible);
- :class:`StringExtended` — the string at ``path`` grew by ``text`` (escapes decoded);
- :class:`ScalarSet` — a number, ``true``, ``false`` or ``null`` is complete at ``path``;
- :class:`ValueClosed` — the object, array or string at ``path`` is complete.

Numbers and literals are only ever reported complete, so a change never has to be
taken back (no ``1`` then ``12``); a number is complete when a character after it
arrives, so a top-level number (not valid tool arguments anyway) is only confirmed by
``close()``. Changes ignore the parser's ``allow`` flags, which
only shape previews. With a duplicate object key, the later value starts again at the
same path and replaces the earlier one, as in ``json.loads``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from callstream._types import JSONPath

__all__ = (
    "Change",
    "ScalarSet",
    "StringExtended",
    "ValueClosed",
    "ValueStarted",
    "to_json_pointer",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueStarted:
    """An object, array or string began at ``path``."""

    path: JSONPath
    kind: Literal["object", "array", "string"]


@dataclass(frozen=True, slots=True, kw_only=True)
class StringExtended:
    """The string at ``path`` grew by ``text`` (escapes already decoded)."""

    path: JSONPath
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ScalarSet:
    """A complete number, boolean or null was set at ``path``."""

    path: JSONPath
    value: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueClosed:
    """The object, array or string at ``path`` is complete."""

    path: JSONPath


Change: TypeAlias = ValueStarted | StringExtended | ScalarSet | ValueClosed
"""Any of the four change types."""


def to_json_pointer(path: JSONPath) -> str:
    """Render ``path`` as an RFC 6901 JSON Pointer (``("a/b", 0)`` -> ``"/a~1b/0"``).

    Cost: O(total length of the keys).
    """
    return "".join(
        "/" + (str(part) if isinstance(part, int) else part.replace("~", "~0").replace("/", "~1"))
        for part in path
    )
