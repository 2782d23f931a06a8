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

from callstream._types import JSONPath, slot_setter

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


# --- fast construction (the parser's hot path) ----------------------------------------
#
# A frozen dataclass's __init__ sets each field through object.__setattr__ by name,
# after the keyword-argument call machinery: about 0.4 us per change. The factories below
# build the same objects (equal, frozen, slotted) by calling the slot descriptors'
# __set__ directly, at about a third of the cost. Keep them in step with the fields above.

_new = object.__new__


_vs_path = slot_setter(ValueStarted, "path")
_vs_kind = slot_setter(ValueStarted, "kind")
_se_path = slot_setter(StringExtended, "path")
_se_text = slot_setter(StringExtended, "text")
_ss_path = slot_setter(ScalarSet, "path")
_ss_value = slot_setter(ScalarSet, "value")
_vc_path = slot_setter(ValueClosed, "path")


def value_started(path: JSONPath, kind: Literal["object", "array", "string"]) -> ValueStarted:
    """``ValueStarted(path=path, kind=kind)``, built directly (see above)."""
    change: ValueStarted = _new(ValueStarted)
    _vs_path(change, path)
    _vs_kind(change, kind)
    return change


def string_extended(path: JSONPath, text: str) -> StringExtended:
    """``StringExtended(path=path, text=text)``, built directly (see above)."""
    change: StringExtended = _new(StringExtended)
    _se_path(change, path)
    _se_text(change, text)
    return change


def scalar_set(path: JSONPath, value: Any) -> ScalarSet:
    """``ScalarSet(path=path, value=value)``, built directly (see above)."""
    change: ScalarSet = _new(ScalarSet)
    _ss_path(change, path)
    _ss_value(change, value)
    return change


def value_closed(path: JSONPath) -> ValueClosed:
    """``ValueClosed(path=path)``, built directly (see above)."""
    change: ValueClosed = _new(ValueClosed)
    _vc_path(change, path)
    return change


def to_json_pointer(path: JSONPath) -> str:
    """Render ``path`` as an RFC 6901 JSON Pointer (``("a/b", 0)`` -> ``"/a~1b/0"``).

    Cost: O(total length of the keys).
    """
    return "".join(
        "/" + (str(part) if isinstance(part, int) else part.replace("~", "~0").replace("/", "~1"))
        for part in path
    )
