"""``fast_constructor``: the generated positional factories equal the constructors.

For every class the hot paths build (the four changes, ``ArgumentsDelta``,
``StreamUpdate``) the factory's object must be indistinguishable from the constructor's:
same type, ``==``, ``repr``, ``hash`` (or the same refusal to hash), still frozen, and
``match`` sees the same fields. The factory is generated from ``dataclasses.fields``, so a
field added to a class shows up in a newly generated factory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from callstream import (
    ArgumentsDelta,
    ScalarSet,
    StreamUpdate,
    StringExtended,
    ValueClosed,
    ValueStarted,
)
from callstream._assembly.types import new_arguments_delta
from callstream._json import changes
from callstream._json.changes import EAGER_DEPTH, PathNode
from callstream._types import fast_constructor
from callstream._update import new_update
from tests.record_fields import as_dict, field_names

_CALL = {"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}

# (factory, positional arguments, the constructor's keyword arguments)
CASES: list[tuple[Callable[..., Any], type, tuple[Any, ...]]] = [
    (changes.value_started, ValueStarted, (("a", 0), "string")),
    (changes.string_extended, StringExtended, (("a",), "xy")),
    (changes.scalar_set, ScalarSet, ((0,), 1.5)),
    (changes.value_closed, ValueClosed, ((),)),
    (new_arguments_delta, ArgumentsDelta, (2, '{"a"', (ValueStarted(path=(), kind="object"),))),
    (new_update, StreamUpdate, ((), [_CALL], [], "stop", {"p": 1}, [], "hi", "")),
]


def keywords(cls: type, args: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(field_names(cls), args, strict=True))


def hash_or_error(obj: object) -> object:
    try:
        return hash(obj)
    except TypeError as exc:
        return str(exc)


@pytest.mark.parametrize(
    ("factory", "cls", "args"), CASES, ids=lambda v: getattr(v, "__name__", "")
)
def test_factory_equals_constructor(
    factory: Callable[..., Any], cls: type, args: tuple[Any, ...]
) -> None:
    fast = factory(*args)
    slow = cls(**keywords(cls, args))
    assert type(fast) is cls
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert hash_or_error(fast) == hash_or_error(slow)
    assert as_dict(fast) == as_dict(slow)
    for name in field_names(cls):
        assert getattr(fast, name) is getattr(slow, name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(fast, name, None)
    assert not hasattr(fast, "__dict__")
    pattern = dict(keywords(cls, args))
    match fast:
        case ValueStarted(path=path, kind=kind):
            assert (path, kind) == (pattern["path"], pattern["kind"])
        case StringExtended(path=path, text=text):
            assert (path, text) == (pattern["path"], pattern["text"])
        case ScalarSet(path=path, value=value):
            assert (path, value) == (pattern["path"], pattern["value"])
        case ValueClosed(path=path):
            assert path == pattern["path"]
        case ArgumentsDelta(index=index, text=text, changes=found):
            assert (index, text, found) == (pattern["index"], pattern["text"], pattern["changes"])
        case StreamUpdate(events=events, finish_reason=reason, payload=payload):
            assert (events, reason, payload) == ((), "stop", {"p": 1})
        case _:
            pytest.fail(f"match did not see a {cls.__name__}")


def test_hashable_changes_hash_alike() -> None:
    for factory, cls, args in CASES[:5]:
        assert hash(factory(*args)) == hash(cls(**keywords(cls, args)))


@pytest.mark.parametrize("factory", [c[0] for c in CASES[:4]])
def test_a_path_node_is_kept_and_built_on_read(factory: Callable[..., Any]) -> None:
    deep: tuple[str | int, ...] = tuple(range(EAGER_DEPTH))
    node = PathNode(PathNode(deep, "k"), 3)
    extra = list(next(c[2] for c in CASES if c[0] is factory)[1:])
    fast = factory(node, *extra)
    cls = type(fast)
    slow = cls(**keywords(cls, (deep + ("k", 3), *extra)))
    assert fast == slow
    assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
    assert fast.path == deep + ("k", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.path = ()


def test_the_factory_follows_the_fields() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Two:
        x: int
        y: str

    @dataclasses.dataclass(frozen=True, slots=True)
    class Three:
        x: int
        y: str
        z: list[int] = dataclasses.field(default_factory=list)

    new_two = fast_constructor(Two)
    assert new_two(1, "a") == Two(1, "a")
    with pytest.raises(TypeError):
        new_two(1, "a", [2])
    new_three = fast_constructor(Three)
    assert new_three(1, "a", [2]) == Three(1, "a", [2])
    with pytest.raises(TypeError):
        new_three(1, "a")  # every init field is a required positional parameter
    # made at run time: a field added to the spec is a parameter of the new factory
    spec: list[Any] = [("p", int)]
    for extra in ("q", "r"):
        spec.append((extra, int))
        cls = dataclasses.make_dataclass("Grown", spec, frozen=True, slots=True)
        values = list(range(len(spec)))
        assert fast_constructor(cls)(*values) == cls(*values)


def test_fields_outside_init_get_their_defaults() -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Mixed:
        a: int
        obj: str = "b"  # the factory's own names do not collide with fields
        c: tuple[int, ...] = dataclasses.field(default=(), compare=False)
        d: int = dataclasses.field(default=7, init=False)
        e: list[int] = dataclasses.field(default_factory=list, init=False)

    new = fast_constructor(Mixed)
    fast = new(1, "x", (2,))
    slow = Mixed(a=1, obj="x", c=(2,))
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert (fast.c, fast.d, fast.e) == (slow.c, slow.d, slow.e)
    assert new(1, "x", ()).e is not fast.e  # a fresh default_factory value each time


def test_refused_classes() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class PostInit:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class Plain:
        x: int

    with pytest.raises(TypeError, match="slotted dataclass"):
        fast_constructor(NoSlots)
    with pytest.raises(TypeError, match="__post_init__"):
        fast_constructor(PostInit)
    with pytest.raises(TypeError, match="slotted dataclass"):
        fast_constructor(int)
