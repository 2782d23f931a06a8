"""The pydantic tools parser previews with the machinery of structured output (issue 27,
item 4): the same document gives the same partial objects as tool arguments and as a
structured output, results handed out never change, and the copying stays linear."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, field_validator

import callstream.parsers.pydantic_tools
from callstream import StructuredOutputError, StructuredParser
from callstream._assembly.types import ArgumentsDelta, CallDone, CallStarted, StreamFinished
from callstream._json import PartialJSONParser
from callstream.parsers import PydanticToolsParser
from callstream.partial._builder import PartialBuilder
from callstream.partial._shapes import Shape
from tests.parsers.test_parsers import chunks_for
from tests.structured.models import Cat, Color, Dog, splits
from tests.support.strategies import split_every

# --- models: nested, a list of models, optionals, a discriminated union, a validator,
# defaults, an enum ---------------------------------------------------------------------


class Address(BaseModel):
    street: str
    zip: str = Field(pattern=r"^\d{5}$")


class Part(BaseModel):
    name: str
    qty: int = 1
    color: Color = Color.RED

    @field_validator("name")
    @classmethod
    def no_x(cls, value: str) -> str:
        if value.startswith("x"):
            raise ValueError("a part's name does not start with x")
        return value.upper()


class Order(BaseModel):
    title: str
    parts: list[Part]
    ship_to: Address | None = None
    pet: Annotated[Cat | Dog, Field(discriminator="kind")] | None = None
    note: str | None = None
    counts: dict[str, int] = {}
    rush: bool = False


words = st.text(alphabet=st.sampled_from('ax1 "\\é😀\n'), max_size=8)
part = st.fixed_dictionaries(
    {"name": words},
    optional={"qty": st.integers(-5, 10**6), "color": st.sampled_from(["red", "green", "blue"])},
)
order = st.fixed_dictionaries(
    {"title": words, "parts": st.lists(part, max_size=3)},
    optional={
        "ship_to": st.one_of(
            st.none(),
            st.fixed_dictionaries({"street": words, "zip": st.sampled_from(["12345", "1"])}),
        ),
        "pet": st.one_of(
            st.none(),
            st.fixed_dictionaries({"kind": st.just("cat"), "lives": st.integers(0, 9)}),
            st.fixed_dictionaries({"name": words, "kind": st.just("dog")}),  # tag last
        ),
        "note": st.one_of(st.none(), words),
        "counts": st.dictionaries(words, st.integers(-3, 3), max_size=3),
        "rush": st.booleans(),
    },
)


def form(value: Any) -> Any:
    """A plain, comparable form of a (partial) object: a model's class name, the fields
    set and every field; lists, dicts and scalars with their types."""
    if isinstance(value, BaseModel):
        fields = {name: form(field) for name, field in value.__dict__.items()}
        return (type(value).__name__, sorted(value.model_fields_set), fields)
    if isinstance(value, list):
        return [form(item) for item in value]
    if isinstance(value, dict):
        return {key: form(item) for key, item in value.items()}
    if isinstance(value, Enum):
        return (type(value).__name__, value.value)
    return (type(value).__name__, value)


def tool_session(pieces: list[str], **options: Any) -> list[Any]:
    """Stream ``pieces`` as the arguments of one ``Order`` call; the result after each
    piece (None: no new result), then the final one."""
    session = PydanticToolsParser([Order], **options).session()
    session.feed({"index": 0, "id": "o", "name": "Order", "args": ""})
    results = [session.feed({"index": 0, "id": None, "name": None, "args": p}) for p in pieces]
    return [*results, session.close()]


@settings(
    max_examples=150,
    deadline=None,
    # the one patch (no work bound) is the same for every example
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_tool_arguments_and_structured_output_give_the_same_partial_objects(
    data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(callstream.parsers.pydantic_tools, "PREVIEW_WORK_FACTOR", 10**9)
    document = data.draw(order)
    text = json.dumps(
        document,
        indent=data.draw(st.sampled_from([None, 2])),
        ensure_ascii=data.draw(st.booleans()),
    )
    pieces = data.draw(splits(text, max_cuts=40))
    structured = StructuredParser(Order)
    results = tool_session(pieces, min_preview_growth=0)
    handed_out = []  # (result, its form when handed out)
    shown = form(None)
    for piece, result in zip(pieces, results, strict=False):
        structured.feed(piece)
        before, shown = shown, form(structured.value)
        # a new result whenever the partial object changed (the gates are open: growth
        # 0, no work bound), showing what the structured output shows (rarely also when
        # a value came and went within the piece: a string that closed invalid)
        if shown != before:
            assert result is not None, piece
        if result is not None:
            (call,) = result
            assert call.status == "partial"
            assert form(call.value) == shown
            handed_out.append((call, form(call.value)))
    (final,) = results[-1]
    try:
        expected = structured.close()
    except StructuredOutputError as exc:
        assert exc.reason == "validation"
        assert final.status == "invalid" and final.value is None
    else:
        assert final.status == "valid" and final.value == expected
        assert type(final.value) is Order
    # results never change once handed out
    for call, shown in handed_out:
        assert form(call.value) == shown


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_with_the_default_gates_every_preview_is_one_structured_output_shows(
    data: st.DataObject,
) -> None:
    """With ``min_preview_growth`` and the work bound in force, fewer previews, each the
    structured output's partial object at that point."""
    text = json.dumps(data.draw(order))
    pieces = data.draw(splits(text, max_cuts=60))
    structured = StructuredParser(Order)
    results = tool_session(pieces, min_preview_growth=data.draw(st.sampled_from([0.05, 1])))
    for piece, result in zip(pieces, results, strict=False):
        structured.feed(piece)
        if result is not None:
            assert form(result[0].value) == form(structured.value)


# --- what a preview is (the decision of issue 27, item 4) -------------------------------


class Person(BaseModel):
    name: str
    age: int = Field(ge=0)
    role: str = "user"
    address: Address | None = None


def previews(model: type[BaseModel], pieces: list[str], **options: Any) -> list[Any]:
    parser = PydanticToolsParser([model], min_preview_growth=0, **options)
    results = list(parser.stream(chunks_for([(model.__name__, "c", pieces)])))
    return [r[0].value for r in results]


def test_no_defaults_are_guessed_and_strings_grow() -> None:
    values = previews(Person, ['{"name": "Ad', 'a", "ag', 'e": 4', '0, "role": "x"}'])
    first = values[0]
    assert type(first).__name__ == "PartialPerson" and isinstance(first, Person)
    assert (first.name, first.age, first.role) == ("Ad", None, None)  # no default shown
    assert first.model_fields_set == {"name"}
    assert (values[1].name, values[1].age) == ("Ada", None)
    # 'e": 4' changed nothing shown (4 may still grow): no result for it
    assert (values[2].age, values[2].role) == (40, "x")
    assert values[-1] == Person(name="Ada", age=40, role="x")
    assert len(values) == 4


def test_a_closed_sub_object_is_its_real_model_and_an_invalid_one_is_not_shown() -> None:
    good = '{"name": "A", "age": 1, "address": {"street": "s", "zip": "12345"}, "role": "r"}'
    values = previews(Person, [good[:-12], good[-12:]])
    assert type(values[1].address) is Address  # validated when it closed
    bad = '{"name": "A", "age": -1, "address": {"street": "s", "zip": "1"}, "role": "r"}'
    values = previews(Person, [bad[:-12], bad[-12:]])
    # the age and the address failed: "not valid yet", never shown, never raised
    assert (values[1].age, values[1].address) == (None, None)
    assert values[-1] is None  # the final verdict is strict: invalid


def test_results_handed_out_are_not_changed_by_later_chunks() -> None:
    text = json.dumps(
        {"title": "t", "parts": [{"name": "a"}, {"name": "b", "qty": 2}], "counts": {"k": 1}}
    )
    parser = PydanticToolsParser([Order], min_preview_growth=0)
    results = list(parser.stream(chunks_for([("Order", "o", split_every(text, 3))])))
    frozen = [form(r[0].value) for r in results]  # after the whole stream ...
    replayed = []
    for result in parser.stream(chunks_for([("Order", "o", split_every(text, 3))])):
        replayed.append(form(result[0].value))  # ... and as each came
    assert frozen == replayed
    assert len({repr(f) for f in frozen}) == len(frozen)  # each result shows a change


def test_an_any_container_shows_its_strings_once_complete_as_args_does() -> None:
    class Note(BaseModel):
        body: str
        extra: Any = None

    pieces = ['{"body": "hel', 'lo", "extra": {"k": "ab', 'cd"}}']
    values = previews(Note, pieces)
    assert values[0].body == "hel"  # a str field grows
    assert values[1].extra == {}  # inside Any: the open string is not shown yet
    structured = StructuredParser(Note)
    structured.feed(pieces[0])
    structured.feed(pieces[1])
    assert structured.value.extra == {"k": "ab"}  # structured output shows it growing
    assert values[-1] == Note(body="hello", extra={"k": "abcd"})


def test_previews_off_builds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []
    original = PartialBuilder.__init__

    def counting(self: PartialBuilder, shape: Shape) -> None:
        built.append(shape)
        original(self, shape)

    monkeypatch.setattr(PartialBuilder, "__init__", counting)
    text = json.dumps({"name": "A", "age": 1})
    assert previews(Person, split_every(text, 2), previews=False) == [None, Person(name="A", age=1)]
    assert built == []
    previews(Person, split_every(text, 2))
    assert len(built) == 1


def test_duplicate_keys_and_several_values_in_one_fragment() -> None:
    """The builder reads the call's tree after the whole fragment: a duplicate key
    replaced within one fragment, or across fragments, shows as structured output does."""
    cases = [
        [
            '{"name": "a", "name": "b", "age": 1, "address": {"street": "x", "zip": "12345"}, '
            '"address": {"street": "y"',
            ', "zip": "54321"}}',
        ],
        ['{"address": {"street": "x"}, "address": "s", "name": "n"', ', "age": 2}'],
        ['{"name": "a", "na', 'me": "bc', 'd", "age": 1, "age": 2', "}"],
    ]
    for pieces in cases:
        structured = StructuredParser(Person)
        session = PydanticToolsParser([Person], min_preview_growth=0).session()
        session.feed({"index": 0, "id": "c", "name": "Person", "args": ""})
        for piece in pieces:
            structured.feed(piece)
            result = session.feed({"index": 0, "id": None, "name": None, "args": piece})
            if result is not None:
                assert form(result[0].value) == form(structured.value), piece


def test_text_held_until_the_name_arrives_previews_as_one_fragment() -> None:
    """A call whose name comes after some argument text: the assembler holds the text,
    then sends it as one fragment of many changes."""
    session = PydanticToolsParser([Person], min_preview_growth=0).session()
    assert session.feed({"index": 0, "id": "c", "name": None, "args": '{"name": "Al'}) is None
    result = session.feed({"index": 0, "name": "Person", "args": 'an", "age": 4'})
    structured = StructuredParser(Person)
    structured.feed('{"name": "Al')
    structured.feed('an", "age": 4')
    assert result is not None and form(result[0].value) == form(structured.value)
    assert result[0].value.name == "Alan"
    final = session.feed({"index": 0, "args": "}"})
    assert final is not None and final[0].value.age == 4
    (closed,) = session.close() or final
    assert closed.value == Person(name="Alan", age=4)


def test_calls_without_previews_dataclasses_and_calls_not_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @dataclasses.dataclass
    class Resize:
        width: int
        label: str

    text = json.dumps({"width": 2, "label": "big"})
    values = previews(Resize, split_every(text, 3))
    # a dataclass is no model: its value comes whole, validated at the end
    assert values == [None, Resize(2, "big")]  # the call appears, then its value
    counting = Counting(monkeypatch)
    parser = PydanticToolsParser([Person, Resize], key_name="Resize", min_preview_growth=0)
    chunks = chunks_for([("Person", "p", split_every(json.dumps({"name": "A", "age": 1}), 2))])
    results = list(parser.stream(chunks))
    assert counting.copies == 0 and results == [[]]  # a call not shown: no partial object


def test_hand_made_events_that_do_not_fit_end_the_previews_not_the_call() -> None:
    parser = PydanticToolsParser([Person], min_preview_growth=0)
    session = parser.session()
    session.feed(CallStarted(0, None, "c", "Person"))
    json_parser = PartialJSONParser()
    result = session.feed(
        ArgumentsDelta(0, '{"name": "A"', tuple(json_parser.feed('{"name": "A"')))
    )
    assert result is not None and result[0].value.name == "A"
    # a change with no open value under it (the JSON parser never sends this)
    bogus = tuple(PartialJSONParser().feed('{"x": 1}'))[-1:]
    assert session.feed(ArgumentsDelta(0, "}", bogus + bogus)) is None
    call_done = CallDone(0, {"name": "Person", "args": {"name": "A", "age": 3}, "id": "c"})
    final = session.feed([call_done, StreamFinished(None)])
    assert final is not None and final[0].value == Person(name="A", age=3)


def test_a_text_input_call_previews_nothing_set_then_validates() -> None:
    class Patch(BaseModel):
        diff: str

    text = json.dumps({"__arg1": "line one\nline two"})
    values = previews(Patch, split_every(text, 4))
    assert all(v is None or v.model_fields_set == set() for v in values[:-1])
    assert values[-1] == Patch(diff="line one\nline two")


# --- cost: the copying is linear, validation runs when values close -------------------------


class Counting:
    """Counts the entries the previews copy and the characters the builder validates."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.copied = 0
        self.copies = 0
        self.validated = 0
        snapshot, validate = PartialBuilder.snapshot, Shape.validate

        def counting_snapshot(builder: PartialBuilder) -> tuple[Any, int]:
            value, copied = snapshot(builder)
            self.copied += copied
            self.copies += 1
            return value, copied

        def counting_validate(shape: Shape, text: str) -> Any:
            self.validated += len(text)
            return validate(shape, text)

        monkeypatch.setattr(PartialBuilder, "snapshot", counting_snapshot)
        monkeypatch.setattr(Shape, "validate", counting_validate)


class Plan(BaseModel):
    steps: list[dict[str, int]]


@pytest.mark.parametrize("growth", [0, 0.05])
def test_preview_copying_is_bounded_by_the_work_factor(
    growth: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    counting = Counting(monkeypatch)
    text = json.dumps({"steps": [{"n": i} for i in range(3000)]})
    parser = PydanticToolsParser([Plan], min_preview_growth=growth)
    results = list(parser.stream(chunks_for([("Plan", "p", split_every(text, 4))])))
    assert results[-1][0].valid
    factor = callstream.parsers.pydantic_tools.PREVIEW_WORK_FACTOR
    # at most the factor per argument character, plus the last copy (the open list)
    assert counting.copied <= factor * len(text) + 3000 + 10
    assert counting.copies > 20  # previews keep coming
    assert len(results) == counting.copies + 1  # each copy, then the final


def test_a_long_string_is_copied_linearly() -> None:
    text = json.dumps({"name": "x" * 20_000, "age": 5})
    values = previews(Person, split_every(text, 2))
    lengths = [len(v.name) for v in values[1:-1] if v is not None and v.name is not None]
    assert lengths == sorted(lengths) and lengths[-1] == 20_000
    # shown again each time it grew by STRING_GROWTH: O(log) previews, O(n) characters
    assert len(lengths) < 250
    assert sum(lengths) < 25 * 20_000


def test_validation_runs_when_values_close_never_per_fragment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = Counting(monkeypatch)
    calls: list[bool] = []
    parser = PydanticToolsParser([Order], min_preview_growth=0)
    original = parser._validate

    def final(adapter: Any, text: str, *, partial: bool) -> Any:
        calls.append(partial)
        return original(adapter, text, partial=partial)

    parser._validate = final
    parts = [{"name": "p" * 50, "qty": i} for i in range(40)]
    text = json.dumps({"title": "t", "parts": parts})
    list(parser.stream(chunks_for([("Order", "o", split_every(text, 1))])))
    assert calls == [False]  # the final verdict, once
    # each part validated once, as it closed (never per fragment): about its own text
    assert counting.validated <= 2 * len(text)
