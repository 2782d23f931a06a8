"""Shared aliases, sentinels, the record base and the fast-constructor generator (standard
library only)."""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, Literal, TypeAlias, TypeVar

__all__ = (
    "MISSING",
    "JSONPath",
    "Missing",
    "Record",
    "ValueKind",
    "assign_field",
    "delete_field",
    "fast_constructor",
    "is_native",
    "mypyc_attr",
    "use_slot_builders",
)

_T = TypeVar("_T")

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
    """Base of the immutable values built on the hot path, once or more per chunk
    (:class:`~callstream.StreamUpdate`, :class:`~callstream.CallChunk`,
    :class:`~callstream.TextDelta`, :class:`~callstream.ArgumentsDelta` and the four
    parser changes).

    They behave as frozen dataclasses did -- keyword-only construction, ``==``
    and ``hash`` over the fields in :attr:`_compared`, a ``repr`` of every field, ``match``
    by position (``__match_args__`` lists the fields in order) or keyword, pickling and
    ``copy``, and assignment or deletion raising :class:`dataclasses.FrozenInstanceError`
    -- but they are plain classes, so that mypyc compiles their ``__init__`` (a compiled
    dataclass keeps an interpreted ``__init__``: 20 times the cost of a native one).

    A subclass is ``@final``, lists its fields in ``__match_args__`` and what it stores
    for them, in the same order, in ``__slots__`` (a stored name may differ: the changes
    keep ``path`` as ``_at`` and read it through a property), names the compared ones in
    ``_compared``, sets each once in ``__init__`` (``self.name: Final = value``), and
    defines its own ``__setattr__`` / ``__delattr__`` calling :func:`assign_field` /
    :func:`delete_field` (in the class itself: compiled, ``__init__``'s stores then skip
    them; inherited, they would not).
    Cost: O(number of fields) for ``==``, ``hash``, ``repr``; construction is the
    subclass's ``__init__`` (or a :func:`fast_constructor` factory in pure Python).
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    """The fields ``==`` and ``hash`` compare (each subclass lists them)."""

    def _values(self, names: tuple[str, ...]) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in names])

    def __repr__(self) -> str:
        fields = ", ".join(
            [f"{name}={getattr(self, name)!r}" for name in self.__match_args__]
        )
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values(self._compared) == other._values(self._compared)

    def __hash__(self) -> int:
        return hash(self._values(self._compared))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._values(self.__match_args__)))


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """A pickled / copied :class:`Record`, built again by its keyword-only constructor."""
    return cls(**dict(zip(cls.__match_args__, values, strict=True)))


def assign_field(obj: Record, name: str, value: object) -> None:
    """``__setattr__`` of a :class:`Record`: refuse, as a frozen dataclass does.

    Interpreted, a record's ``__init__`` assigns through ``__setattr__``: the first
    assignment of each field (the one in ``__init__``) goes through. Compiled with mypyc,
    ``__init__`` stores directly and this only ever refuses.

    Raises:
        dataclasses.FrozenInstanceError: ``name`` is set already, or is not a field.
    """
    if name in getattr(type(obj), "__slots__", ()) and not hasattr(obj, name):
        object.__setattr__(obj, name, value)
        return
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def delete_field(obj: Record, name: str) -> None:
    """``__delattr__`` of a :class:`Record`: always refuse.

    Raises:
        dataclasses.FrozenInstanceError: always.
    """
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def is_native(cls: type) -> bool:
    """True when mypyc compiled ``cls`` (its ``__init__`` is not a Python function)."""
    return not isinstance(cls.__dict__.get("__init__"), types.FunctionType)


def use_slot_builders(namespace: dict[str, Any], builders: Mapping[str, type[Record]]) -> None:
    """Interpreted, make each builder function of ``namespace`` (a module's ``globals()``)
    the :func:`fast_constructor` factory of its record; compiled, leave it.

    A hot path builds records through module functions (``new_update(...)``, positional)
    whose body calls the constructor: compiled, that is a native call of a native
    ``__init__``, the fastest way. Interpreted, ``__init__`` assigns through the frozen
    ``__setattr__`` (1-7 us), so the name is rebound to a factory that sets the slots,
    without the function call in between. Call it at the end of the module, before
    another module imports the names. Cost: one generation per record, at import.
    """
    for name, cls in builders.items():
        if not is_native(cls):
            namespace[name] = fast_constructor(cls, unchecked=True)


_FACTORY_SOURCE: Final = """\
def {name}({params}):
{body}"""


def fast_constructor(
    cls: type[_T],
    *,
    unchecked: bool = False,
) -> Callable[..., _T]:
    """A generated positional factory for the slotted dataclass or interpreted
    :class:`Record` ``cls``: ``f(*values)``.

    ``f(a, b, ...)`` returns an object equal to ``cls(a=a, b=b, ...)`` (same type, fields,
    ``==``, ``hash``, ``repr``, ``match``; still frozen if ``cls`` is), built the way a hot
    path wants it: ``object.__new__(cls)``, then each field's slot set through its
    descriptor's ``__set__``. The frozen constructor instead goes through the keyword
    call machinery and ``object.__setattr__`` by name: 2 to 2.6 times the cost
    (``benchmarks/bench_construct.py``).

    Like :mod:`dataclasses`, the factory is generated from ``dataclasses.fields(cls)``
    (source text, ``exec``): one required positional parameter per ``init`` field, in field
    order (defaults are not applied: a hot path passes every field, and testing for a
    left-out argument would cost on every call), and fields with ``init=False`` set from
    their default or ``default_factory``. So it follows the class: a field added to the
    class is a parameter of the next generated factory; nothing is kept in step by hand.
    A :class:`Record`'s fields are its ``__match_args__``, all required. A record compiled
    by mypyc has no slot descriptors to set: call the class itself (its native ``__init__``
    is the fast way, see :func:`is_native`).

    ``unchecked=True`` accepts a class whose ``__post_init__`` (or a record's ``__init__``)
    only checks and normalizes the fields the caller passes (:class:`~callstream.CallChunk`):
    the factory skips it, for callers whose values already have the checked types (the
    translators). It is required for every :class:`Record`.

    Cost: generation is O(number of fields), once per call of this function (call it at
    import time); the factory costs one Python call plus one C call per field.

    Raises:
        TypeError: ``cls`` is not a dataclass with ``slots=True`` nor a slotted
            :class:`Record` (or is a compiled one), has a ``__post_init__`` or is a
            record (the factory would skip the checks) without ``unchecked=True``.
    """
    record = isinstance(cls, type) and issubclass(cls, Record)
    if record and is_native(cls):
        raise TypeError(f"{cls.__name__} is compiled: call it (its __init__ is native)")
    if "__slots__" not in cls.__dict__ or not (record or dataclasses.is_dataclass(cls)):
        raise TypeError(f"fast_constructor needs a slotted dataclass or Record, got {cls!r}")
    if (record or hasattr(cls, "__post_init__")) and not unchecked:
        checks = "__init__" if record else "__post_init__"
        raise TypeError(f"fast_constructor cannot run {cls.__name__}.{checks}")
    names: dict[str, Any] = {"__cls__": cls, "__new__": object.__new__}
    params: list[str] = []
    body: list[str] = ["__obj__ = __new__(__cls__)"]
    for number, item in enumerate(_fields(cls, record)):
        setter = f"__set{number}__"
        names[setter] = _slot_descriptor(cls, item.name).__set__
        value: str | None = item.name
        if item.init:
            params.append(item.name)
        elif item.default is not dataclasses.MISSING:
            names[f"__default{number}__"] = item.default
            value = f"__default{number}__"
        elif item.default_factory is not dataclasses.MISSING:
            names[f"__factory{number}__"] = item.default_factory
            value = f"__factory{number}__()"
        else:
            value = None
        if value is None:
            continue  # init=False without a default: left unset, as the constructor does
        body.append(f"{setter}(__obj__, {value})")
    body.append("return __obj__")
    name = f"new_{cls.__name__}"
    source = _FACTORY_SOURCE.format(
        name=name, params=", ".join(params), body="".join(f"    {line}\n" for line in body)
    )
    # The names the factory uses are the globals of its own namespace (not closure cells:
    # a closure copies its cells into every call's frame, about 2% per object here).
    exec(source, names)  # generated from the fields above, as dataclasses does
    factory: Callable[..., _T] = names[name]
    factory.__qualname__ = f"{cls.__qualname__}.{name}"
    factory.__module__ = cls.__module__
    factory.__doc__ = f"``{cls.__name__}(...)`` built through its slots (see fast_constructor)."
    return factory


def _fields(cls: Any, record: bool) -> tuple[dataclasses.Field[Any], ...]:
    """The dataclass fields of ``cls``; for a :class:`Record`, one required ``init`` field
    per name in its ``__match_args__``."""
    if not record:
        return dataclasses.fields(cls)
    fields = []
    for name in cls.__slots__:  # the stored fields, in the order of __match_args__
        item: dataclasses.Field[Any] = dataclasses.field()
        item.name = name
        fields.append(item)
    return tuple(fields)


def _slot_descriptor(cls: type, name: str) -> Any:
    """The slot (member) descriptor of field ``name``: in ``cls`` or a dataclass base."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            if type(found) is not types.MemberDescriptorType:
                break
            return found
    raise TypeError(f"{cls.__name__}.{name} is not a slot")
