"""Pydantic tools parser: registry, previews as values close, strict final validation."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator
from typing_extensions import TypedDict

import callstream.parsers.pydantic_tools
from callstream._assembly import StreamEnd
from callstream._errors import UsageError
from callstream.parsers import ParsedCall, PydanticToolsParser
from callstream.parsers.pydantic_tools import PREVIEW_WORK_FACTOR
from callstream.partial._builder import PartialBuilder
from callstream.partial._shapes import Shape
from tests.parsers.test_parsers import chunks_for, updates_for
from tests.structured.models import consistent as consistent_preview
from tests.support.strategies import split_every, splits

# --- models ----------------------------------------------------------------------------------


class Address(BaseModel):
    street: str
    zip: str = Field(pattern=r"^\d{5}$")


class Person(BaseModel):
    """A person."""

    name: str
    age: int = Field(ge=0, le=150)
    role: Literal["admin", "user"] = "user"
    address: Address | None = None
    tags: list[str] = Field(default_factory=list)


class Step(TypedDict):
    n: int
    text: str


class Plan(TypedDict):
    title: str
    steps: list[Step]


PERSON = {
    "name": "Ada",
    "age": 36,
    "role": "admin",
    "address": {"street": "1 Main St", "zip": "12345"},
    "tags": ["math", "engines"],
}
PERSON_TEXT = json.dumps(PERSON)


def counting(parser: PydanticToolsParser) -> list[bool]:
    """Record every validation of a whole call the parser runs (False: the final one;
    previews validate only the values that close, in the partial-object builder)."""
    calls: list[bool] = []
    original = parser._validate

    def validate(adapter: TypeAdapter[Any], text: str, *, partial: bool) -> Any:
        calls.append(partial)
        return original(adapter, text, partial=partial)

    parser._validate = validate
    return calls


# --- streaming -------------------------------------------------------------------------------


def test_previews_then_validated_model() -> None:
    parser = PydanticToolsParser([Person], min_preview_growth=0)
    results = list(parser.stream(chunks_for([("Person", "c", split_every(PERSON_TEXT, 4))])))
    values = [r[0].value for r in results]
    # the partial object (as structured output shows it): no field before its value
    assert type(values[0]).__name__ == "PartialPerson" and values[0].model_fields_set == set()
    assert values[1].name == "Ad"  # a string grows
    assert values[-1] == Person.model_validate(PERSON)
    assert results[-1][0].status == "valid"
    assert results[-1][0].args == PERSON
    assert [r[0].status for r in results[:-1]] == ["partial"] * (len(results) - 1)
    # every preview shows only what the final value has (strings as prefixes)
    for value in values[:-1]:
        assert isinstance(value, Person)
        consistent_preview(value, values[-1])


def test_preview_never_shows_a_number_still_arriving() -> None:
    parser = PydanticToolsParser([Person], min_preview_growth=0)
    text = '{"name": "Bo", "age": 30}'
    # split right after "3": LangChain's partial parser would show age=3 here
    chunks = chunks_for([("Person", "c", ['{"name": "Bo", "age": 3', "0", "}"])])
    results = list(parser.stream(chunks))
    ages = [r[0].value.age for r in results if r[0].value is not None]
    assert ages == [None, 30, 30]  # not yet, then when 30 completes, then the final
    assert json.loads(text) == results[-1][0].args


def validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the text of every value the partial-object builder validates."""
    seen: list[str] = []
    original = Shape.validate

    def validate(shape: Shape, text: str) -> Any:
        seen.append(text)
        return original(shape, text)

    monkeypatch.setattr(Shape, "validate", validate)
    return seen


def test_validation_runs_when_values_close_never_per_fragment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = PydanticToolsParser([Person], min_preview_growth=0)
    finals = counting(parser)
    closed = validations(monkeypatch)
    body = json.dumps({"name": "x" * 3000, "age": 5})
    results = list(parser.stream(chunks_for([("Person", "c", split_every(body, 2))])))
    # 1500 fragments: the age validated once as it closed (a bare str is its own
    # value), the whole call once at the end
    assert closed == ["5"]
    assert finals == [False]
    # the growing name is shown again as it grows by STRING_GROWTH: O(log) previews
    assert 10 < len(results) < 200


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_each_value_is_validated_once_as_it_closes(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = PydanticToolsParser([Person], min_preview_growth=0)
    closed = validations(monkeypatch)
    list(parser.stream(chunks_for([("Person", "c", split_every(PERSON_TEXT, size))])))
    # age (a constraint), role (a Literal), zip (a pattern), the address (a model); the
    # name, the street and the tags are bare strings, the list has no constraint
    assert sorted(closed) == sorted(["36", '"admin"', '"12345"', json.dumps(PERSON["address"])])


def snapshots(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the entries each preview copy copies."""
    copied: list[int] = []
    original = PartialBuilder.snapshot

    def snapshot(builder: PartialBuilder) -> tuple[Any, int]:
        value, count = original(builder)
        copied.append(count)
        return value, count

    monkeypatch.setattr(PartialBuilder, "snapshot", snapshot)
    return copied


def test_min_preview_growth_bounds_preview_work(monkeypatch: pytest.MonkeyPatch) -> None:
    items = [{"n": i, "text": f"step {i}"} for i in range(400)]
    text = json.dumps({"title": "t", "steps": items})
    chunks = chunks_for([("Plan", "p", split_every(text, 5))])
    copied = snapshots(monkeypatch)
    eager = PydanticToolsParser({"Plan": Plan}, min_preview_growth=0)
    eager_results = list(eager.stream(chunks))
    # min_preview_growth=0 previews at every change, within the work bound (the copies
    # of the open list of steps are not quadratic)
    assert len(copied) > 400
    assert sum(copied) <= PREVIEW_WORK_FACTOR * len(text) + 500
    throttled_count = copied
    throttled_count.clear()
    throttled = PydanticToolsParser({"Plan": Plan}, min_preview_growth=0.25)
    throttled_results = list(throttled.stream(chunks))
    # geometric growth: about log(len)/log(1.25) previews
    assert len(throttled_count) < 40
    assert eager_results[-1] == throttled_results[-1]
    assert throttled_results[-1][0].value == {"title": "t", "steps": items}


def test_previews_off_validates_once() -> None:
    parser = PydanticToolsParser([Person], previews=False)
    validations = counting(parser)
    results = list(parser.stream(chunks_for([("Person", "c", split_every(PERSON_TEXT, 1))])))
    assert validations == [False]
    assert [r[0].value for r in results] == [None, Person.model_validate(PERSON)]


def test_typeddict_previews_show_each_key_with_its_value() -> None:
    text = json.dumps({"title": "Plan", "steps": [{"n": 1, "text": "a"}, {"n": 2, "text": "b"}]})
    parser = PydanticToolsParser({"Plan": Plan}, min_preview_growth=0)
    values = [r[0].value for r in parser.stream(chunks_for([("Plan", "p", split_every(text, 1))]))]
    assert values[0] == {}
    assert {"title": "Pl"} in values  # a string grows
    # the open step shows the keys whose values arrived, never a number half-read
    assert {"title": "Plan", "steps": [{"n": 1, "text": "a"}, {"n": 2}]} in values
    for value in values:
        consistent_preview(value, values[-1])
    assert values[-1] == json.loads(text)


def test_a_list_of_models_shows_closed_items_validated_and_the_open_one_partial() -> None:
    class Book(BaseModel):
        addresses: list[Address]

    first = {"street": "a", "zip": "11111"}
    second = {"street": "b", "zip": "22222"}
    text = json.dumps({"addresses": [first, second]})
    parser = PydanticToolsParser([Book], min_preview_growth=0)
    values = [r[0].value for r in parser.stream(chunks_for([("Book", "b", split_every(text, 1))]))]
    shown = [v.addresses for v in values if v.addresses]
    assert [type(item).__name__ for item in shown[0]] == ["PartialAddress"]
    assert [type(item).__name__ for item in shown[-1]] == ["Address", "Address"]
    # an item is its real model from the moment it closed
    assert all(type(items[0]) is Address for items in shown if len(items) == 2)
    assert values[-1] == Book(addresses=[Address(**first), Address(**second)])


def test_nested_models_lists_literals_and_constraints() -> None:
    parser = PydanticToolsParser([Person])
    bad_zip = {**PERSON, "address": {"street": "x", "zip": "123"}}
    bad_role = {**PERSON, "role": "root"}
    bad_age = {**PERSON, "age": 200}
    chunks = chunks_for(
        [
            ("Person", "ok", [PERSON_TEXT]),
            ("Person", "zip", [json.dumps(bad_zip)]),
            ("Person", "role", [json.dumps(bad_role)]),
            ("Person", "age", [json.dumps(bad_age)]),
        ]
    )
    final = list(parser.stream(chunks))[-1]
    assert [c.status for c in final] == ["valid", "invalid", "invalid", "invalid"]
    assert isinstance(final[0].value, Person)
    assert final[0].value.address == Address(street="1 Main St", zip="12345")
    assert "address.zip" in (final[1].error or "") and "pattern" in (final[1].error or "")
    assert "role" in (final[2].error or "") and "'admin' or 'user'" in (final[2].error or "")
    assert "age" in (final[3].error or "") and "less than or equal to 150" in (final[3].error or "")
    assert final[1].value is None
    assert json.loads(final[1].raw_args or "") == bad_zip
    assert final[1].to_dict()["type"] == "invalid_tool_call"


def test_unknown_tools_and_assembler_failures_are_invalid_results() -> None:
    parser = PydanticToolsParser([Person])
    session = parser.session()
    for chunk in chunks_for([("Nope", "n", ['{"a": 1}']), ("Person", "p", ['{"name": "A", "age'])]):
        session.feed(chunk)
    result = session.feed(StreamEnd(reason="max_tokens"))
    assert result is not None
    unknown, cut = result
    assert unknown.status == "invalid"
    assert unknown.error == "unknown tool 'Nope' (known tools: 'Person')"
    assert unknown.args == {"a": 1}
    assert cut.status == "invalid" and "cut off" in (cut.error or "")
    assert cut.value is None


def test_defaults_are_not_guessed_while_streaming() -> None:
    """A preview is the partial object: a field that has not arrived is None (its
    default comes with the validated object at the end)."""
    parser = PydanticToolsParser([Person], min_preview_growth=0)
    chunks = chunks_for([("Person", "c", ['{"name": "A", "age": 1, ', '"tags": ["t"]}'])])
    values = [r[0].value for r in parser.stream(chunks)]
    assert values[0].role is None and "role" not in values[0].model_fields_set
    assert values[-1].role == "user" and "role" not in values[-1].model_fields_set


def test_strict_models_are_validated_in_json_mode() -> None:
    class Meeting(BaseModel):
        model_config = ConfigDict(strict=True)
        day: datetime.date
        kind: Literal["call", "visit"]

    parser = PydanticToolsParser([Meeting])
    final = list(
        parser.stream(chunks_for([("Meeting", "m", ['{"day": "2025-01-31", "kind": "call"}'])]))
    )[-1]
    assert final[0].value == Meeting(day=datetime.date(2025, 1, 31), kind="call")


def test_validator_exceptions_become_invalid_results() -> None:
    class Picky(BaseModel):
        x: int

        @field_validator("x")
        @classmethod
        def explode(cls, v: int) -> int:
            if v == 13:
                raise RuntimeError("unlucky")
            return v

    parser = PydanticToolsParser([Picky], min_preview_growth=0)
    final = list(
        parser.stream(chunks_for([("Picky", "a", ['{"x": 13}']), ("Picky", "b", ['{"x": 1}'])]))
    )[-1]
    assert final[0].status == "invalid"
    assert final[0].error == "RuntimeError: unlucky"
    assert final[1].value == Picky(x=1)


def test_first_tool_only_and_function_tools() -> None:
    def get_weather(city: str, days: int = 1) -> str:
        """Weather.

        Args:
            city: City name.
        """
        return city

    parser = PydanticToolsParser([get_weather, Person], first_tool_only=True)
    chunks = chunks_for(
        [("get_weather", "w", ['{"city": "Oslo"}']), ("Person", "p", [PERSON_TEXT])]
    )
    results = list(parser.stream(chunks))
    assert all(len(r) == 1 for r in results)
    value = results[-1][0].value
    assert type(value).__name__ == "get_weather"
    assert (value.city, value.days) == ("Oslo", 1)


def test_registry_forms_and_errors() -> None:
    adapter = TypeAdapter(Step)
    parser = PydanticToolsParser({"step": adapter, "person": Person})
    assert set(parser.adapters) == {"step", "person"}
    final = parser.parse([{"name": "step", "args": {"n": 1, "text": "x"}, "id": None}])
    assert final[0].value == {"n": 1, "text": "x"}

    @dataclasses.dataclass
    class Resize:
        width: int

    assert PydanticToolsParser([Resize]).parse(
        [{"name": "Resize", "args": {"width": 2}, "id": "r"}]
    )[0].value == Resize(2)

    class Other(BaseModel):
        model_config = ConfigDict(title="Person")

    with pytest.raises(UsageError, match="two tools are named 'Person'"):
        PydanticToolsParser([Person, Other])
    with pytest.raises(UsageError, match="cannot register"):
        PydanticToolsParser([{"name": "x", "parameters": {}}])
    with pytest.raises(UsageError, match="cannot register"):
        PydanticToolsParser([adapter])  # an adapter needs a name: use a mapping
    with pytest.raises(UsageError, match="must be a list"):
        PydanticToolsParser(Person)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="min_preview_growth"):
        PydanticToolsParser([Person], min_preview_growth=-1)


def test_parse_finished_results_validates_strictly() -> None:
    parsed = PydanticToolsParser([Person]).parse(
        [
            {"name": "Person", "args": {"name": "A", "age": 1}, "id": "1"},
            {"name": "Person", "args": {"name": "A"}, "id": "2"},
            {"name": "Person", "args": "{", "id": "3", "error": "cut off"},
        ]
    )
    assert [c.status for c in parsed] == ["valid", "invalid", "invalid"]
    assert "age\n  Field required" in (parsed[1].error or "")
    assert parsed[2].error == "cut off"


def test_reads_driver_updates() -> None:
    class get_weather(BaseModel):
        model_config = ConfigDict(extra="allow")
        city: str

    parser = PydanticToolsParser([get_weather])
    final = list(parser.stream(updates_for("openai_chat_parallel")))[-1]
    weather = [c for c in final if c.name == "get_weather"]
    assert weather and weather[0].status == "valid"
    assert isinstance(weather[0].value, get_weather)
    others = [c for c in final if c.name != "get_weather"]
    assert all(c.status == "invalid" and "unknown tool" in (c.error or "") for c in others)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_any_split_gives_the_same_final_and_consistent_previews(data: st.DataObject) -> None:
    person = {
        "name": data.draw(st.text(max_size=20)),
        "age": data.draw(st.integers(min_value=-5, max_value=200)),
        "tags": data.draw(st.lists(st.text(max_size=5), max_size=4)),
    }
    text = json.dumps(person, ensure_ascii=data.draw(st.booleans()))
    fragments = data.draw(splits(text))
    parser = PydanticToolsParser(
        [Person], min_preview_growth=data.draw(st.sampled_from([0, 0.05, 1]))
    )
    results = list(parser.stream(chunks_for([("Person", "c", fragments)])))
    reference = parser.parse([{"name": "Person", "args": person, "id": "c"}])[0]
    final = results[-1][0]
    assert (final.status, final.value, final.error) == (
        reference.status,
        reference.value,
        reference.error,
    )
    for result in results[:-1]:
        preview = result[0].value
        if preview is not None and final.value is not None:
            consistent_preview(preview, final.value)
        elif preview is not None:  # invalid in the end: what arrived is in the arguments
            assert preview.name is None or person["name"].startswith(preview.name)


def test_astream_matches_stream() -> None:
    chunks = chunks_for([("Person", "c", split_every(PERSON_TEXT, 6))])

    async def source() -> AsyncIterator[Any]:
        for chunk in chunks:
            await asyncio.sleep(0)
            yield chunk

    async def collect() -> list[list[ParsedCall[Any]]]:
        return [r async for r in PydanticToolsParser([Person]).astream(source())]

    assert asyncio.run(collect()) == list(PydanticToolsParser([Person]).stream(chunks))


def test_module_validate_hook_is_json_mode() -> None:
    adapter = TypeAdapter(Annotated[int, Field(ge=0)])
    assert callstream.parsers.pydantic_tools._validate(adapter, "3", partial=False) == 3


def test_deeply_nested_arguments_are_data_not_crashes() -> None:
    class Deep(BaseModel):
        x: Any

    depth = 990  # under the assembler's max_depth; deeper than json.dumps / jiter allow
    text = '{"x": ' + "[" * depth + "]" * depth + "}"
    parser = PydanticToolsParser([Deep], min_preview_growth=0)
    final = list(parser.stream(chunks_for([("Deep", "d", split_every(text, 50))])))[-1]
    (call,) = final
    assert call.status in ("valid", "invalid")
    if call.status == "invalid":
        assert call.error
        call.to_dict()  # renders without raising
