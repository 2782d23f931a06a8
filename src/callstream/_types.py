"""Shared aliases, sentinels and the record base (standard library only)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, ClassVar, Final, Literal, TypeAlias, TypeVar

__all__ = ("MISSING", "JSONPath", "Missing", "Record", "ValueKind", "mypyc_attr")

_T = TypeVar("_T")
_R = TypeVar("_R", bound="Record")

try:  # mypy's own helper: mypyc reads the decorator at compile time
    from mypy_extensions import mypyc_attr
except ImportError:  # not installed at run time: the decorator then changes nothing

    def mypyc_attr(*_args: str, **_flags: bool) -> Callable[[_T], _T]:  # type: ignore[misc]
        """Stand-in for ``mypy_extensions.mypyc_attr`` (a no-op outside mypyc)."""
        return lambda cls: cls


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


class Record:
    """Base of callstream's value classes: the signals translators send (``CallChunk``,
    ``TextDelta``, ``CallEnd`` ...), the assembler's events (``CallStarted``,
    ``ArgumentsDelta`` ...), the parser's four changes and :class:`~callstream.StreamUpdate`.

    A subclass is ``@final`` and declares its fields once, in order, in
    ``__match_args__`` (``__slots__`` is that tuple, or derived from it); its ``__init__``
    takes them in that order, by position or keyword, and sets each once
    (``self.name: Final = value``). From that it gets ``==`` and ``hash`` over the fields
    (or the ones in :attr:`_compared`), a ``repr`` of every field, ``match`` by position
    or keyword, pickling and ``copy`` (rebuilt by the constructor, by position) and
    ``__replace__`` (``copy.replace`` on Python >= 3.13: a copy with some fields given
    anew, through the constructor and its checks). ``dataclasses.fields`` / ``replace``
    do not apply: these are not dataclasses.

    Immutable for type checkers (the fields are ``Final``); the compiled build also
    refuses an assignment at run time (``AttributeError``), pure Python does not check it,
    so that building one costs a plain call (why records: ``docs/design.md``, "Compiled build").
    Cost: O(number of fields) for ``==``, ``hash``, ``repr``, pickling.
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    """The fields ``==`` and ``hash`` compare, when not all of them (empty: all)."""

    def _values(self, names: tuple[str, ...]) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in names])

    def __repr__(self) -> str:
        fields = ", ".join([f"{name}={getattr(self, name)!r}" for name in self.__match_args__])
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        names = self._compared or self.__match_args__
        return self._values(names) == other._values(names)

    def __hash__(self) -> int:
        return hash(self._values(self._compared or self.__match_args__))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values(self.__match_args__))

    def __replace__(self: _R, /, **changes: Any) -> _R:
        """A copy with the fields in ``changes`` replaced (``copy.replace``), built and
        checked by the constructor.

        Raises:
            TypeError: a name that is not a field.
        """
        fields = dict(zip(self.__match_args__, self._values(self.__match_args__), strict=True))
        fields.update(changes)
        return type(self)(**fields)
