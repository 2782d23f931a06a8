"""Shared aliases, sentinels and the fast-constructor generator (standard library only)."""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypeAlias, TypeVar

__all__ = ("MISSING", "JSONPath", "Missing", "ValueKind", "fast_constructor")

_T = TypeVar("_T")


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


_FACTORY_SOURCE = """\
def {name}({params}):
{body}"""


def fast_constructor(
    cls: type[_T],
    *,
    routes: Mapping[str, tuple[type, Callable[[Any, Any], None]]] | None = None,
    unchecked: bool = False,
) -> Callable[..., _T]:
    """A generated positional factory for the slotted dataclass ``cls``: ``f(*values)``.

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

    ``routes`` is the one hook: ``{"path": (tuple, set_node)}`` stores the ``path``
    argument with the class's own slot when its type is exactly ``tuple``, and with
    ``set_node(obj, value)`` otherwise (one ``type(x) is T`` test, inside the same call:
    the changes' shared ``PathNode`` paths use it).

    ``unchecked=True`` accepts a class whose ``__post_init__`` only checks and normalizes
    the fields the caller passes (:class:`~callstream.CallChunk`): the factory skips it,
    for callers whose values already have the checked types (the translators).

    Cost: generation is O(number of fields), once per call of this function (call it at
    import time); the factory costs one Python call plus one C call per field.

    Raises:
        TypeError: ``cls`` is not a dataclass with ``slots=True``, has a
            ``__post_init__`` (the factory would skip it) without ``unchecked=True``, or
            ``routes`` names a field that is not an ``init`` field.
    """
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"fast_constructor needs a slotted dataclass, got {cls!r}")
    if hasattr(cls, "__post_init__") and not unchecked:
        raise TypeError(f"fast_constructor cannot run {cls.__name__}.__post_init__")
    routes = dict(routes or {})
    names: dict[str, Any] = {"__cls__": cls, "__new__": object.__new__}
    params: list[str] = []
    body: list[str] = ["__obj__ = __new__(__cls__)"]
    for number, item in enumerate(dataclasses.fields(cls)):
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
        route = routes.pop(item.name, None) if item.init else None
        if route is None:
            body.append(f"{setter}(__obj__, {value})")
        else:
            names[f"__type{number}__"], names[f"__other{number}__"] = route
            body.append(f"if type({value}) is __type{number}__: {setter}(__obj__, {value})")
            body.append(f"else: __other{number}__(__obj__, {value})")
    if routes:
        raise TypeError(f"routes name no init field of {cls.__name__}: {sorted(routes)}")
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


def _slot_descriptor(cls: type, name: str) -> Any:
    """The slot (member) descriptor of field ``name``: in ``cls`` or a dataclass base."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            if type(found) is not types.MemberDescriptorType:
                break
            return found
    raise TypeError(f"{cls.__name__}.{name} is not a slot")
