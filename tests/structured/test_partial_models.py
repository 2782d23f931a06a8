"""Partial models (issue 27 item 2): nested models, lists, dicts, optionals, discriminated
unions, defaults; validators run when the value they cover closes, then strictly once at
the end; a validation error mid-stream is "not valid yet" for that subtree."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_validator,
    model_validator,
)
from typing_extensions import TypedDict

import callstream
from callstream import StructuredOutputError, StructuredParser
from callstream.partial import partial_class
from tests.structured.models import Cat, Color, Doc, Dog, Item, consistent, snapshot


def feed_chars(parser: StructuredParser, text: str) -> list[Any]:
    """Feed ``text`` one character at a time; the value's snapshot after each."""
    seen = []
    for char in text:
        parser.feed(char)
        seen.append(snapshot(parser.value))
    return seen


def after(parser: StructuredParser, text: str) -> Any:
    parser.feed(text)
    return parser.value


def test_a_field_is_none_until_its_value_arrives_and_strings_grow() -> None:
    parser = StructuredParser(Doc)
    assert parser.value is None
    value = after(parser, '{"title": "Sho')
    assert isinstance(value, Doc) and type(value) is partial_class(Doc)
    assert value.title == "Sho" and value.items is None and value.meta is None
    assert value.model_fields_set == {"title"}
    assert after(parser, 'pping"').title == "Shopping"
    assert parser.value is value  # a live view, filled in place


def test_numbers_literals_and_enums_appear_only_complete() -> None:
    parser = StructuredParser(Doc)
    text = '{"title": "t", "mode": "slow", "items": [{"name": "n", "qty": 1234, "color": "green"}]}'
    seen = feed_chars(parser, text)
    modes = [v.mode for v in seen if v is not None]
    assert set(modes) == {None, "slow"}  # never "s", "sl" ...
    qtys = {v.items[0].qty for v in seen if v is not None and v.items}
    assert qtys == {None, 1234}  # never 1, 12, 123
    colors = {v.items[0].color for v in seen if v is not None and v.items}
    assert colors == {None, Color.GREEN}
    for before, later in zip(seen, seen[1:], strict=False):
        consistent(before, later)


def test_closed_nested_models_are_real_instances_and_the_open_one_is_partial() -> None:
    parser = StructuredParser(Doc)
    value = after(parser, '{"title": "t", "items": [{"name": "a", "qty": 2}, {"name": "b')
    first, second = value.items
    assert type(first) is Item and first == Item(name="a", qty=2)
    assert first.color is Color.RED  # defaults once the object closed: the real model
    assert type(second) is partial_class(Item) and second.name == "b"
    assert second.qty is None  # no default guessed while it streams
    assert after(parser, '"}]').items[1] == Item(name="b")


def test_dicts_and_optionals() -> None:
    parser = StructuredParser(Doc)
    value = after(parser, '{"title": "t", "items": [], "meta": {"a": 1, "b": 2')
    assert value.meta == {"a": 1}  # 2 may still grow
    value = after(parser, ', "c": 3}, "note": nu')
    assert value.meta == {"a": 1, "b": 2, "c": 3} and value.note is None
    value = after(parser, 'll, "extra": {"free": ["form", {"x": "y')
    assert value.extra == {"free": ["form", {"x": "y"}]}  # plain JSON grows as the parser shows
    parser.feed('"}]}}')
    assert parser.close().extra == {"free": ["form", {"x": "y"}]}


def test_a_discriminated_union_shows_the_member_once_its_tag_arrived() -> None:
    parser = StructuredParser(Doc)
    value = after(parser, '{"title": "t", "items": [], "pet": {"name": "Rex", "kind": "do')
    assert value.pet is None  # no tag yet: which model is unknown
    value = after(parser, 'g"')
    assert type(value.pet) is partial_class(Dog) and value.pet.name == "Rex"
    value = after(parser, "}")
    assert type(value.pet) is Dog
    parser = StructuredParser(Doc)
    value = after(parser, '{"title": "t", "items": [], "pet": {"kind": "cat", "lives": 7')
    assert type(value.pet) is partial_class(Cat) and value.pet.lives is None
    assert type(after(parser, "}").pet) is Cat


def test_an_unknown_tag_shows_nothing_and_fails_at_the_end() -> None:
    parser = StructuredParser(Doc)
    value = after(parser, '{"title": "t", "items": [], "pet": {"kind": "bird", "wings": 2}}')
    assert value.pet is None
    with pytest.raises(StructuredOutputError) as caught:
        parser.close()
    assert caught.value.reason == "validation" and "pet" in str(caught.value)


class Counted(BaseModel):
    """A model whose validators count their runs."""

    runs: dict[str, int] = Field(default_factory=dict, exclude=True)  # unused slot
    name: str
    qty: int

    @field_validator("name")
    @classmethod
    def name_is_upper(cls, value: str) -> str:
        CALLS.append(("field", value))
        return value.upper()

    @model_validator(mode="after")
    def qty_positive(self) -> Counted:
        CALLS.append(("model", self.name))
        if self.qty < 0:
            raise ValueError("qty must not be negative")
        return self


class Order(BaseModel):
    lines: list[Counted]


CALLS: list[tuple[str, Any]] = []


def test_validators_run_when_their_object_closes_then_once_at_the_end() -> None:
    CALLS.clear()
    text = '{"lines": [{"name": "apple", "qty": 3}, {"name": "pear", "qty": 1}]}'
    parser = StructuredParser(Order)
    seen = feed_chars(parser, text)  # 70 fragments
    # once per object, when it closed (never per fragment, never on a part of it) ...
    assert CALLS == [("field", "apple"), ("model", "APPLE"), ("field", "pear"), ("model", "PEAR")]
    assert [line.name for line in seen[-1].lines] == ["APPLE", "PEAR"]
    CALLS.clear()
    final = parser.close()
    # ... then once more, strictly, on the whole document
    assert CALLS == [("field", "apple"), ("model", "APPLE"), ("field", "pear"), ("model", "PEAR")]
    assert final == Order.model_validate_json(text)


def test_a_validation_error_mid_stream_is_not_valid_yet_for_that_subtree() -> None:
    CALLS.clear()
    text = '{"lines": [{"name": "bad", "qty": -1}, {"name": "good", "qty": 2}]}'
    parser = StructuredParser(Order)
    value = after(parser, text[:38])  # the first line closed, invalid
    assert value.lines == []  # not shown: not valid (yet)
    value = after(parser, text[38:-2])
    assert [line.name for line in value.lines] == ["GOOD"]
    value = after(parser, "]")  # the list closed, and is not valid: not shown
    assert value.lines is None
    parser.feed("}")
    with pytest.raises(StructuredOutputError) as caught:
        parser.close()
    error = caught.value
    assert error.reason == "validation" and "qty must not be negative" in str(error)
    assert error.text == text and error.errors and error.errors[0]["loc"] == ("lines", 0)
    assert error.value.model_fields_set == set()  # the partial object stays readable


class Bounded(BaseModel):
    size: int = Field(gt=0)
    label: str = Field(max_length=3)
    when: datetime.date


def test_a_field_that_breaks_its_constraint_stays_none_and_the_end_says_why() -> None:
    parser = StructuredParser(Bounded)
    value = after(parser, '{"size": 0, "label": "abcdef", "when": "2024-02-30"')
    assert value.size is None and value.when is None
    assert value.label is None  # the closed string breaks max_length
    with pytest.raises(StructuredOutputError) as caught:
        parser.close()
    assert caught.value.reason == "incomplete"
    parser = StructuredParser(Bounded)
    value = after(parser, '{"size": 2, "label": "ab", "when": "2024-02-03"}')
    assert (value.size, value.label, value.when) == (2, "ab", datetime.date(2024, 2, 3))


class Strict(BaseModel):
    model_config = ConfigDict(strict=True)
    when: datetime.datetime
    count: int


def test_strict_models_validate_as_json_mode_does() -> None:
    text = '{"when": "2024-01-02T03:04:05Z", "count": 3}'
    parser = StructuredParser(Strict)
    value = after(parser, text[:-12])
    assert value.when == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    parser.feed(text[-12:])
    assert parser.close() == Strict.model_validate_json(text)


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    full_name: str = Field(alias="fullName")


def test_aliases_are_the_json_keys() -> None:
    parser = StructuredParser(Aliased)
    assert after(parser, '{"fullName": "Ada L').full_name == "Ada L"
    parser.feed('"}')
    assert parser.close() == Aliased(fullName="Ada L")


class Movie(TypedDict):
    title: str
    year: int


def test_typed_dicts_lists_and_type_adapters() -> None:
    parser = StructuredParser(list[Movie])
    assert after(parser, '[{"title": "Alien", "year": 1979}, {"title": "Ali') == [
        {"title": "Alien", "year": 1979},
        {"title": "Ali"},
    ]
    parser.feed('ens", "year": 1986}]')
    assert parser.close() == [{"title": "Alien", "year": 1979}, {"title": "Aliens", "year": 1986}]
    adapter = TypeAdapter(dict[str, Item])
    parser = StructuredParser(adapter)
    assert after(parser, '{"x": {"name": "a"}, "y": {"na').keys() == {"x", "y"}
    parser.feed('me": "b"}}')
    assert parser.close() == {"x": Item(name="a"), "y": Item(name="b")}


def test_a_json_schema_dict_gives_plain_data_without_validation() -> None:
    schema = Doc.model_json_schema()
    parser = StructuredParser(schema)
    text = '{"title": 5, "unexpected": [1, 2]}'
    parser.feed(text)
    assert parser.close() == json.loads(text)  # not validated


def test_a_union_without_discriminator_is_shown_once_closed() -> None:
    class Either(BaseModel):
        value: Item | list[int]

    parser = StructuredParser(Either)
    assert after(parser, '{"value": {"name": "x"').value is None
    assert after(parser, "}").value == Item(name="x")


def test_a_container_of_the_wrong_kind_is_not_shown() -> None:
    parser = StructuredParser(Doc)
    value = after(parser, '{"title": "t", "items": {"name": "a"}')
    assert value.items is None
    with pytest.raises(StructuredOutputError):
        parser.feed("}")
        parser.close()


class Recursive(BaseModel):
    name: str
    children: list[Recursive] = []


def test_recursive_models() -> None:
    text = '{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}'
    parser = StructuredParser(Recursive)
    seen = feed_chars(parser, text)
    final = parser.close()
    assert final == Recursive.model_validate_json(text)
    for before in seen:
        consistent(before, final)


class WithDefaults(BaseModel):
    kind: Literal["a", "b"] = "a"
    items: Annotated[list[int], Field(min_length=2)] = [1, 2]


def test_defaults_appear_with_the_real_model_and_constrained_lists_are_checked() -> None:
    parser = StructuredParser(WithDefaults)
    value = after(parser, '{"items": [1, ')
    assert value.kind is None and value.items == [1]  # open: its items so far
    parser = StructuredParser(WithDefaults)
    value = after(parser, '{"items": [1], "kind": "b"')
    assert value.items is None  # closed, too short: not valid
    parser = StructuredParser(WithDefaults)
    parser.feed("{}")
    assert parser.close() == WithDefaults()


class Letter(BaseModel):
    body: str


def test_a_long_string_is_shown_growing_with_linear_copying() -> None:
    body = "ab" * 50_000
    text = json.dumps({"body": body})
    parser = StructuredParser(Letter)
    shown: list[str] = []
    for i in range(0, len(text), 4):
        parser.feed(text[i : i + 4])
        value = parser.value.body if parser.value is not None else None
        if value and (not shown or value is not shown[-1]):
            shown.append(value)
    assert all(body.startswith(s) for s in shown)
    assert shown[-1] == body
    assert len(shown) > 50  # it grew in front of the reader ...
    assert sum(map(len, shown)) <= 25 * len(body)  # ... and each new text is paid once
    short = json.dumps({"body": "a short letter"})
    parser = StructuredParser(Letter)
    seen = []
    for char in short:
        parser.feed(char)
        seen.append(parser.value.body if parser.value is not None else None)
    assert [s for s in seen if s] == [short[10:j] for j in range(11, 25)] + ["a short letter"] * 2


def test_a_schema_that_is_not_a_type_is_a_usage_error() -> None:
    from callstream import UsageError

    for schema in ("Doc", b"x", 5, object()):
        with pytest.raises(UsageError, match=r"schema must be a type|cannot validate with"):
            StructuredParser(schema)
    with pytest.raises(UsageError):
        list(callstream.structured([], 5))


def test_feed_takes_text_only() -> None:
    from callstream import OptionTypeError

    parser = StructuredParser(Doc)
    with pytest.raises(OptionTypeError, match="feed\\(\\) takes str"):
        parser.feed(b"{}")  # type: ignore[arg-type]
