"""Models for the structured-output tests, documents that fit them, and the check that a
preview is consistent with a later value (prefix rules)."""

from __future__ import annotations

import copy
import json
from enum import Enum
from typing import Annotated, Any, Literal

from hypothesis import strategies as st
from pydantic import BaseModel, Field

__all__ = (
    "Cat",
    "Color",
    "Doc",
    "Dog",
    "Item",
    "consistent",
    "documents",
    "snapshot",
    "splits",
)


class Color(str, Enum):
    RED = "red"
    GREEN = "green"


class Item(BaseModel):
    name: str
    qty: int = 1
    price: float | None = None
    color: Color = Color.RED
    tags: list[str] = []


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


class Doc(BaseModel):
    title: str
    items: list[Item]
    meta: dict[str, int] = {}
    pet: Annotated[Cat | Dog, Field(discriminator="kind")] | None = None
    note: str | None = None
    mode: Literal["fast", "slow"] = "fast"
    extra: Any = None


text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(['"', "\\", "\n", "\t", "\x00", " ", "é", "😀", "\u2028"]),
    ),
    max_size=12,
)
json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=False, allow_infinity=False), text
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=8,
)

item = st.fixed_dictionaries(
    {"name": text},
    optional={
        "qty": st.integers(-1000, 10**12),
        "price": st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
        "color": st.sampled_from(["red", "green"]),
        "tags": st.lists(text, max_size=3),
    },
)
pet = st.one_of(
    st.none(),
    st.fixed_dictionaries({"kind": st.just("cat"), "lives": st.integers(0, 9)}),
    st.fixed_dictionaries({"name": text, "kind": st.just("dog")}),  # tag last
)
doc = st.fixed_dictionaries(
    {"title": text, "items": st.lists(item, max_size=4)},
    optional={
        "meta": st.dictionaries(text, st.integers(-5, 5), max_size=3),
        "pet": pet,
        "note": st.one_of(st.none(), text),
        "mode": st.sampled_from(["fast", "slow"]),
        "extra": json_value,
    },
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """The JSON text of a valid :class:`Doc`, with random layout."""
    value = draw(doc)
    indent = draw(st.sampled_from([None, None, 2]))
    separators = draw(st.sampled_from([None, (",", ":")]))
    ensure_ascii = draw(st.booleans())
    body = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ensure_ascii)
    return draw(st.sampled_from(["", " ", "\n"])) + body + draw(st.sampled_from(["", "\n"]))


@st.composite
def splits(draw: st.DrawFn, whole: str, max_cuts: int = 25) -> list[str]:
    """``whole`` cut into random pieces (``"".join`` gives it back)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(whole)), max_size=max_cuts)))
    bounds = [0, *cuts, len(whole)]
    return [whole[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def snapshot(value: Any) -> Any:
    """A copy of a (live) partial object that later fragments cannot change."""
    return copy.deepcopy(value)


def consistent(shown: Any, later: Any, path: str = "$") -> None:
    """Assert that ``shown`` (a preview) is consistent with ``later`` (a later preview or
    the final value): every value it shows is there later, a string as a prefix, a list as
    a prefix, a model's set fields and a dict's keys with consistent values."""
    if shown is None:
        return
    if isinstance(shown, str) and not isinstance(shown, Enum):
        assert isinstance(later, str), f"{path}: {shown!r} became {later!r}"
        assert later.startswith(shown), f"{path}: {shown!r} is no prefix of {later!r}"
    elif isinstance(shown, BaseModel):
        assert isinstance(later, BaseModel), f"{path}: {shown!r} became {later!r}"
        assert isinstance(shown, type(later)) or isinstance(later, type(shown)), path
        for name in shown.model_fields_set:
            consistent(getattr(shown, name), getattr(later, name), f"{path}.{name}")
    elif isinstance(shown, list):
        assert isinstance(later, list), f"{path}: {shown!r} became {later!r}"
        assert len(shown) <= len(later), f"{path}: {shown!r} shrank to {later!r}"
        for i, (a, b) in enumerate(zip(shown, later, strict=False)):
            consistent(a, b, f"{path}[{i}]")
    elif isinstance(shown, dict):
        assert isinstance(later, dict), f"{path}: {shown!r} became {later!r}"
        for key, value in shown.items():
            assert key in later, f"{path}: key {key!r} went away"
            consistent(value, later[key], f"{path}.{key}")
    else:
        assert shown == later and type(shown) is type(later), f"{path}: {shown!r} -> {later!r}"
