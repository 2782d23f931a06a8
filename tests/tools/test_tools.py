"""Tool definitions: functions, pydantic models and schema dicts into provider formats."""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typing_extensions import TypedDict

from callstream._errors import UsageError
from callstream.tools import (
    ToolDefinition,
    ToolDefinitionError,
    describe_tool,
    parse_google_docstring,
    to_anthropic_tool,
    to_openai_tool,
    tool_adapter,
    tool_name,
)

# --- inputs --------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def get_weather(
    city: str,
    unit: Literal["c", "f"] = "c",
    days: Optional[int] = None,  # noqa: UP045 - Optional on purpose
    tags: list[str] = [],
    color: Color = Color.RED,
) -> str:
    """Get the weather for a city.

    Use it for forecasts too.

    Args:
        city: The city name.
        unit (str): Temperature unit,
            celsius or fahrenheit.
        days: How many days.

    Returns:
        A text forecast.
    """
    return city


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="Street and number")
    zip: str = Field(pattern=r"^\d{5}$")


class Person(BaseModel):
    """A person record.

    Second paragraph."""

    name: str = Field(description="Full name")
    age: int = Field(ge=0, le=150)
    address: Address | None = None
    friends: list[str] = Field(default_factory=list)
    role: Literal["admin", "user"] = "user"


WEATHER_PARAMETERS: dict[str, Any] = {
    "$defs": {"Color": {"enum": ["red", "blue"], "title": "Color", "type": "string"}},
    "properties": {
        "city": {"description": "The city name.", "type": "string"},
        "unit": {
            "default": "c",
            "description": "Temperature unit, celsius or fahrenheit.",
            "enum": ["c", "f"],
            "type": "string",
        },
        "days": {
            "anyOf": [{"type": "integer"}, {"type": "null"}],
            "default": None,
            "description": "How many days.",
        },
        "tags": {"default": [], "items": {"type": "string"}, "type": "array"},
        "color": {"$ref": "#/$defs/Color", "default": "red"},
    },
    "required": ["city"],
    "type": "object",
}

PERSON_PARAMETERS: dict[str, Any] = {
    "$defs": {
        "Address": {
            "description": "A postal address.",
            "properties": {
                "street": {"description": "Street and number", "type": "string"},
                "zip": {"pattern": r"^\d{5}$", "type": "string"},
            },
            "required": ["street", "zip"],
            "title": "Address",
            "type": "object",
        }
    },
    "properties": {
        "name": {"description": "Full name", "type": "string"},
        "age": {"maximum": 150, "minimum": 0, "type": "integer"},
        "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
        "friends": {"items": {"type": "string"}, "type": "array"},
        "role": {"default": "user", "enum": ["admin", "user"], "type": "string"},
    },
    "required": ["name", "age"],
    "type": "object",
}


class Opaque:
    """A type pydantic has no schema for."""


# --- functions -----------------------------------------------------------------------------


def test_function_to_openai_tool() -> None:
    assert to_openai_tool(get_weather) == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather for a city.\n\nUse it for forecasts too.",
            "parameters": WEATHER_PARAMETERS,
        },
    }


def test_function_to_anthropic_tool() -> None:
    assert to_anthropic_tool(get_weather) == {
        "name": "get_weather",
        "description": "Get the weather for a city.\n\nUse it for forecasts too.",
        "input_schema": WEATHER_PARAMETERS,
    }


def test_function_strict_closes_objects_inlines_refs_and_drops_null_defaults() -> None:
    tool = to_openai_tool(get_weather, strict=True)
    params = tool["function"]["parameters"]
    assert tool["function"]["strict"] is True
    assert params["required"] == ["city", "unit", "days", "tags", "color"]
    assert params["additionalProperties"] is False
    # {"$ref", "default"} is rejected by strict mode: the definition is inlined
    assert params["properties"]["color"] == {
        "enum": ["red", "blue"],
        "title": "Color",
        "type": "string",
        "default": "red",
    }
    # "default": null is dropped (a strict model always sends the value)
    assert params["properties"]["days"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "description": "How many days.",
    }
    anthropic = to_anthropic_tool(get_weather, strict=True)
    assert anthropic["strict"] is True
    assert anthropic["input_schema"] == params


def test_untyped_parameter_is_any_unless_strict() -> None:
    def lookup(key, limit: int = 3):  # type: ignore[no-untyped-def]
        """Look something up."""

    assert describe_tool(lookup).parameters == {
        "properties": {"key": {}, "limit": {"default": 3, "type": "integer"}},
        "required": ["key"],
        "type": "object",
    }
    with pytest.raises(ToolDefinitionError, match=r"parameter 'key' of lookup has no type hint"):
        to_openai_tool(lookup, strict=True)


def test_var_positional_and_var_keyword_are_refused() -> None:
    def many(*items: int) -> None: ...

    def options(**flags: bool) -> None: ...

    with pytest.raises(ToolDefinitionError, match=r"\*items of many"):
        to_openai_tool(many)
    with pytest.raises(ToolDefinitionError, match=r"\*\*flags of options"):
        to_anthropic_tool(options)


def test_errors_are_usage_errors_and_type_errors() -> None:
    assert issubclass(ToolDefinitionError, UsageError)
    assert issubclass(ToolDefinitionError, TypeError)


def test_field_defaults_and_annotated_descriptions() -> None:
    def search(
        query: Annotated[str, Field(description="From Annotated", min_length=1)],
        limit: int = Field(10, ge=1, le=100),
        page: int = Field(1, description="From Field"),
    ) -> None:
        """Search.

        Args:
            query: From the docstring (Annotated wins).
            limit: From the docstring (Field has none).
            page: From the docstring (Field wins).
        """

    assert describe_tool(search).parameters["properties"] == {
        "query": {"description": "From Annotated", "minLength": 1, "type": "string"},
        "limit": {
            "default": 10,
            "description": "From the docstring (Field has none).",
            "maximum": 100,
            "minimum": 1,
            "type": "integer",
        },
        "page": {"default": 1, "description": "From Field", "type": "integer"},
    }


def test_nested_model_parameter_and_list_of_models() -> None:
    def add_people(people: list[Person], group: str) -> None:
        """Add people to a group."""

    params = describe_tool(add_people).parameters
    assert params["properties"]["people"] == {
        "items": {"$ref": "#/$defs/Person"},
        "type": "array",
    }
    assert params["$defs"]["Person"]["properties"]["age"] == {
        "maximum": 150,
        "minimum": 0,
        "type": "integer",
    }
    assert params["$defs"]["Address"]["properties"]["zip"]["pattern"] == r"^\d{5}$"
    assert params["required"] == ["people", "group"]


def test_methods_skip_the_receiver() -> None:
    class Service:
        def fetch(self, url: str) -> None:
            """Fetch a URL."""

    expected = {"properties": {"url": {"type": "string"}}, "required": ["url"], "type": "object"}
    assert describe_tool(Service().fetch).parameters == expected
    assert describe_tool(Service.fetch).parameters == expected


def test_function_without_docstring_has_no_description() -> None:
    def ping() -> None: ...

    assert to_openai_tool(ping) == {
        "type": "function",
        "function": {"name": "ping", "parameters": {"properties": {}, "type": "object"}},
    }


def test_overrides_name_and_description() -> None:
    tool = to_anthropic_tool(get_weather, name="weather", description="Weather.")
    assert tool["name"] == "weather"
    assert tool["description"] == "Weather."


def test_functions_that_cannot_be_named_or_typed() -> None:
    with pytest.raises(ToolDefinitionError, match="lambda"):
        to_openai_tool(lambda x: x)
    assert to_openai_tool(lambda x: x, name="identity")["function"]["name"] == "identity"

    def use(thing: Opaque) -> None: ...

    with pytest.raises(
        ToolDefinitionError, match="cannot build a schema for the parameters of use"
    ):
        to_openai_tool(use)

    def private(_hidden: int) -> None: ...

    with pytest.raises(ToolDefinitionError, match="'_hidden'"):
        to_openai_tool(private)


def test_unresolvable_forward_reference() -> None:
    def later(x: NotDefinedAnywhere) -> None: ...  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(ToolDefinitionError, match="cannot resolve the type hints of later"):
        to_openai_tool(later)


def test_unsupported_objects() -> None:
    class Plain:
        pass

    with pytest.raises(ToolDefinitionError, match="class 'test_unsupported_objects"):
        to_openai_tool(Plain)
    with pytest.raises(ToolDefinitionError, match="int object"):
        to_openai_tool(3)


# --- models, TypedDicts, dataclasses -------------------------------------------------------


def test_model_to_openai_tool() -> None:
    assert to_openai_tool(Person) == {
        "type": "function",
        "function": {
            "name": "Person",
            "description": "A person record.\n\nSecond paragraph.",
            "parameters": PERSON_PARAMETERS,
        },
    }


def test_model_strict() -> None:
    tool = to_anthropic_tool(Person, strict=True)
    schema = tool["input_schema"]
    assert tool["strict"] is True
    assert schema["required"] == ["name", "age", "address", "friends", "role"]
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Address"]["additionalProperties"] is False
    assert schema["$defs"]["Address"]["required"] == ["street", "zip"]
    assert schema["properties"]["address"] == {
        "anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]
    }
    # the non-strict definition is untouched
    assert to_anthropic_tool(Person)["input_schema"] == PERSON_PARAMETERS


def test_strict_does_not_touch_data_that_looks_like_a_schema() -> None:
    class Odd(BaseModel):
        properties: dict[str, Any] = {"properties": {"a": 1}}

    params = describe_tool(Odd, strict=True).parameters
    assert params["properties"]["properties"]["default"] == {"properties": {"a": 1}}
    assert params["required"] == ["properties"]


def test_recursive_model_strict_keeps_self_reference() -> None:
    class Node(BaseModel):
        """A tree node."""

        label: str
        children: list[Node] = Field(default_factory=list, description="Sub-nodes")

    Node.model_rebuild()
    params = describe_tool(Node, strict=True).parameters
    assert params["properties"]["children"] == {
        "description": "Sub-nodes",
        "items": {"$ref": "#/$defs/Node"},
        "type": "array",
    }
    assert params["$defs"]["Node"]["additionalProperties"] is False


def test_model_title_from_config() -> None:
    class Internal(BaseModel):
        model_config = ConfigDict(title="lookup_user")
        user_id: int

    assert tool_name(Internal) == "lookup_user"
    assert to_openai_tool(Internal)["function"]["name"] == "lookup_user"


def test_model_explicit_field_title_is_kept() -> None:
    class Titled(BaseModel):
        x: int = Field(title="The X")

    assert describe_tool(Titled).parameters["properties"]["x"] == {
        "title": "The X",
        "type": "integer",
    }


def test_typeddict_and_dataclass() -> None:
    class Move(TypedDict):
        """Move a piece."""

        piece: str
        to: Annotated[str, Field(pattern="^[a-h][1-8]$")]

    @dataclasses.dataclass
    class Resize:
        width: int
        height: int = 10

    assert to_anthropic_tool(Move) == {
        "name": "Move",
        "description": "Move a piece.",
        "input_schema": {
            "properties": {
                "piece": {"type": "string"},
                "to": {"pattern": "^[a-h][1-8]$", "type": "string"},
            },
            "required": ["piece", "to"],
            "type": "object",
        },
    }
    resize = describe_tool(Resize)
    assert resize.name == "Resize"
    assert resize.parameters == {
        "properties": {"width": {"type": "integer"}, "height": {"default": 10, "type": "integer"}},
        "required": ["width"],
        "type": "object",
    }


def test_root_model_that_is_not_an_object() -> None:
    from pydantic import RootModel

    class Numbers(RootModel[list[int]]):
        pass

    with pytest.raises(ToolDefinitionError, match="does not describe a JSON object"):
        to_openai_tool(Numbers)


# --- dicts ---------------------------------------------------------------------------------


OPENAI_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
ANTHROPIC_WEATHER = {
    "name": "get_weather",
    "description": "Weather.",
    "input_schema": OPENAI_WEATHER["function"]["parameters"],  # type: ignore[index]
}


def test_dict_formats_round_trip() -> None:
    assert to_openai_tool(OPENAI_WEATHER) == OPENAI_WEATHER
    assert to_anthropic_tool(OPENAI_WEATHER) == ANTHROPIC_WEATHER
    assert to_openai_tool(ANTHROPIC_WEATHER) == OPENAI_WEATHER
    assert to_anthropic_tool(ANTHROPIC_WEATHER) == ANTHROPIC_WEATHER
    functions_form = {
        "name": "get_weather",
        "description": "Weather.",
        **{"parameters": ANTHROPIC_WEATHER["input_schema"]},
    }
    responses_form = {"type": "function", **functions_form}
    assert to_openai_tool(functions_form) == OPENAI_WEATHER
    assert to_openai_tool(responses_form) == OPENAI_WEATHER
    bare = {"title": "get_weather", "description": "Weather.", **ANTHROPIC_WEATHER["input_schema"]}
    assert to_openai_tool(bare) == OPENAI_WEATHER


def test_dict_output_does_not_share_the_input() -> None:
    source = copy.deepcopy(OPENAI_WEATHER)
    out = to_openai_tool(source)
    out["function"]["parameters"]["properties"]["city"]["type"] = "integer"
    assert source == OPENAI_WEATHER


def test_dict_strict_flag_carries_over_unless_overridden() -> None:
    strict_tool = copy.deepcopy(OPENAI_WEATHER)
    strict_tool["function"]["strict"] = True  # type: ignore[index]
    anthropic = to_anthropic_tool(strict_tool)
    assert anthropic["strict"] is True
    assert anthropic["input_schema"]["additionalProperties"] is False
    assert "strict" not in to_anthropic_tool(strict_tool, strict=False)


def test_dict_without_parameters_takes_no_arguments() -> None:
    assert to_anthropic_tool({"name": "now"}) == {
        "name": "now",
        "input_schema": {"type": "object", "properties": {}},
    }


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        ({"type": "object", "properties": {}}, "without a 'title'"),
        ({"name": 3, "input_schema": {}}, "string 'name'"),
        ({"name": "f", "parameters": {"type": "array"}}, "must be a JSON object"),
        ({"name": "f", "parameters": "nope"}, "not a dict"),
        ({"name": "f", "description": 3}, "not a string"),
        ({"type": "web_search_20250305", "name": "web_search"}, "only function tools"),
        ({"name": "has space"}, "not accepted by providers"),
        ({"name": "x" * 65}, "not accepted by providers"),
    ],
)
def test_bad_dicts(tool: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        to_openai_tool(tool)


def test_bare_schema_named_by_argument() -> None:
    assert to_openai_tool({"type": "object", "properties": {}}, name="noop")["function"] == {
        "name": "noop",
        "parameters": {"type": "object", "properties": {}},
    }


# --- adapters (what the pydantic parser validates with) ------------------------------------


def test_tool_adapter_for_function_validates_arguments() -> None:
    adapter = tool_adapter(get_weather)
    value = adapter.validate_python({"city": "Paris", "color": "blue"})
    assert type(value).__name__ == "get_weather"
    assert (value.city, value.unit, value.days, value.tags, value.color) == (
        "Paris",
        "c",
        None,
        [],
        Color.BLUE,
    )
    with pytest.raises(ValidationError, match="unit"):
        adapter.validate_python({"city": "Paris", "unit": "k"})


def test_tool_adapter_for_model_and_passthrough() -> None:
    adapter = tool_adapter(Person)
    assert adapter.validate_python({"name": "A", "age": 3}) == Person(name="A", age=3)
    with pytest.raises(ValidationError):
        adapter.validate_python({"name": "A", "age": -1})
    assert tool_adapter(adapter) is adapter
    with pytest.raises(ToolDefinitionError, match="no Python type"):
        tool_adapter(OPENAI_WEATHER)
    assert describe_tool(OPENAI_WEATHER).adapter is None


def test_tool_name_rules() -> None:
    assert tool_name(get_weather) == "get_weather"
    assert tool_name(Person) == "Person"
    assert tool_name(ANTHROPIC_WEATHER) == "get_weather"
    assert isinstance(describe_tool(Person), ToolDefinition)


def test_schema_and_pydantic_agree_on_examples() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    params = describe_tool(Person).parameters
    adapter = tool_adapter(Person)
    examples: list[dict[str, Any]] = [
        {"name": "A", "age": 3},
        {"name": "A", "age": -1},
        {"name": "A", "age": 151},
        {"name": "A"},
        {"name": "A", "age": 3, "role": "root"},
        {"name": "A", "age": 3, "address": {"street": "x", "zip": "1234"}},
        {"name": "A", "age": 3, "address": {"street": "x", "zip": "12345"}},
        {"name": "A", "age": 3, "friends": ["b", 2]},
    ]
    for example in examples:
        schema_ok = jsonschema.Draft202012Validator(params).is_valid(example)
        try:
            adapter.validate_json(json.dumps(example))
            pydantic_ok = True
        except ValidationError:
            pydantic_ok = False
        assert schema_ok == pydantic_ok, example


# --- docstrings ----------------------------------------------------------------------------


def test_parse_google_docstring() -> None:
    doc = """Summary line
    continues here.

    Body paragraph.

    Args:
        a (int): First
            and more.
        b: Second.

        c: Third after a blank line.
        *rest: Star.
    Raises:
        ValueError: not an argument.
    """
    description, args = parse_google_docstring(doc)
    assert description == "Summary line continues here.\n\nBody paragraph."
    assert args == {
        "a": "First and more.",
        "b": "Second.",
        "c": "Third after a blank line.",
        "rest": "Star.",
    }
    assert parse_google_docstring(None) == (None, {})
    assert parse_google_docstring("Args:\n    x: only args") == (None, {"x": "only args"})


# --- LangChain comparison ------------------------------------------------------------------


def _inline_refs(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """Our schemas keep pydantic's $defs; LangChain inlines them. Inline for comparison."""
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
    if isinstance(schema, dict):
        if "$ref" in schema:
            target = _inline_refs(defs[schema["$ref"].split("/")[-1]], defs)  # type: ignore[index]
            merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
            return merged
        return {k: _inline_refs(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline_refs(item, defs) for item in schema]
    return schema


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: _strip_titles(v)
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_strip_titles(item) for item in schema]
    return schema


def _normalize_order(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


@pytest.mark.parametrize("obj", [get_weather, Person, OPENAI_WEATHER, ANTHROPIC_WEATHER])
def test_matches_langchain_convert_to_openai_tool(obj: Any) -> None:
    """Same inputs as LangChain's ``convert_to_openai_tool``; deliberate differences:

    1. We keep pydantic's ``$defs`` / ``$ref`` (exact, works for recursive models, smaller);
       LangChain inlines definitions. Compared after inlining ours.
    2. A function's description keeps paragraph breaks (``"\\n\\n"``); LangChain joins the
       docstring's paragraphs with a space.
    3. LangChain keeps the titles of inlined nested models and drops the rest; we keep
       ``$defs`` titles. Compared without titles.
    4. An Anthropic-format dict: LangChain reads it too; same result.
    """
    lc_utils = pytest.importorskip("langchain_core.utils.function_calling")
    theirs = lc_utils.convert_to_openai_tool(obj)
    ours = to_openai_tool(obj)
    ours["function"]["parameters"] = _inline_refs(ours["function"]["parameters"])
    if callable(obj) and not isinstance(obj, type):
        ours["function"]["description"] = ours["function"]["description"].replace("\n\n", " ")
    assert _normalize_order(_strip_titles(ours)) == _normalize_order(_strip_titles(theirs))


def test_strict_matches_langchain_on_required_and_closed_objects() -> None:
    lc_utils = pytest.importorskip("langchain_core.utils.function_calling")
    theirs = lc_utils.convert_to_openai_tool(Person, strict=True)["function"]
    ours = to_openai_tool(Person, strict=True)["function"]
    assert ours["strict"] is theirs["strict"] is True
    assert ours["parameters"]["required"] == theirs["parameters"]["required"]
    assert ours["parameters"]["additionalProperties"] is False
    assert theirs["parameters"]["additionalProperties"] is False
    # Deliberate difference: we drop "default": null in strict mode (OpenAI's strict mode
    # does not support it; the model always sends a value); LangChain keeps it.
    assert theirs["parameters"]["properties"]["address"].get("default", "absent") is None
    assert "default" not in ours["parameters"]["properties"]["address"]
