"""Hostile payload objects and deep argument objects never make a translator raise.

Objects whose attributes, properties, ``__getattr__``, ``__class__``, ``model_dump``,
``__str__``, ``__repr__``, ``__iter__``, ``__len__``, ``keys``... raise arbitrary
exceptions (``RecursionError``, ``KeyError``, ``IndexError``...), return wrong types or
are cyclic, anywhere in a payload: the translators return signals (or ``[]``), and
``callstream.collect(..., provider=X)`` returns data (maybe invalid calls), never an
exception. Arguments given as objects nested 100,000 deep (dicts, pydantic models,
dataclasses) become an invalid call with the depth-limit reason.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream._errors import DataError, JSONLimitError
from callstream.providers import get_translator
from callstream.providers._bad_index import BadIndex, get_index
from callstream.providers._fields import get, get_int, get_list, get_str, is_record, path
from callstream.providers._plain import to_json_data, to_plain
from callstream.providers.cohere import CohereTranslator
from callstream.providers.gemini import GeminiTranslator
from callstream.providers.ollama import OllamaTranslator
from callstream.providers.openai_chat import OpenAIChatTranslator
from callstream.providers.openai_responses import OpenAIResponsesTranslator
from tests.support.responses_streams import CLIENT_BUILTINS, CUSTOM, HOSTED, SHELL

DEEP = 100_000
LIMIT_REASON = "arguments exceed a limit: nesting deeper than max_depth=1000"

EXCEPTIONS = [
    KeyError,
    IndexError,
    RecursionError,
    TypeError,
    ValueError,
    AttributeError,
    RuntimeError,
    ZeroDivisionError,
    StopIteration,
    LookupError,
]


def raiser(exc: type[BaseException]) -> Callable[..., Any]:
    def hostile(*args: Any, **kwargs: Any) -> Any:
        raise exc("hostile")

    return hostile


def hostile(kind: str, exc: type[BaseException]) -> Any:
    """An object of ``kind`` whose methods raise ``exc`` (or misbehave)."""
    boom = raiser(exc)
    if kind == "getattr":
        return type("H", (), {"__getattr__": boom})()
    if kind == "getattribute":
        return type("H", (), {"__getattribute__": boom})()
    if kind == "class":
        return type("H", (), {"__class__": property(boom), "__getattr__": boom})()
    if kind == "properties":
        names = ["choices", "delta", "tool_calls", "function", "arguments", "index", "name"]
        return type("H", (), {n: property(boom) for n in names} | {"type": property(boom)})()
    if kind == "model_dump":
        return type(
            "H", (), {"model_dump": boom, "model_fields": {"a": None}, "a": property(boom)}
        )()
    if kind == "model_dump_wrong":
        return type("H", (), {"model_dump": lambda self: ["not", "a", "dict"]})()
    if kind == "model_dump_cyclic":
        cyclic: dict[str, Any] = {}
        cyclic["self"] = cyclic
        return type("H", (), {"model_dump": lambda self: cyclic})()
    if kind == "mapping":
        ns = dict.fromkeys(("__getitem__", "__iter__", "__len__", "keys", "get", "items"), boom)
        return type("M", (Mapping,), ns)()
    if kind == "dict":
        ns = dict.fromkeys(
            (
                "__getitem__",
                "__iter__",
                "__len__",
                "keys",
                "get",
                "items",
                "values",
                "__repr__",
                "__eq__",
                "__hash__",
            ),
            boom,
        )
        return type("D", (dict,), ns)({"a": 1, "index": 0})
    if kind == "list":
        ns = dict.fromkeys(
            ("__iter__", "__len__", "__getitem__", "__bool__", "__eq__", "__repr__"), boom
        )
        return type("L", (list,), ns)([{"index": 0}, 1])
    if kind == "str":
        ns = dict.fromkeys(
            (
                "__str__",
                "__repr__",
                "__hash__",
                "__eq__",
                "__len__",
                "__iter__",
                "__float__",
                "startswith",
                "strip",
                "lower",
                "isdigit",
                "__getitem__",
            ),
            boom,
        )
        return type("S", (str,), ns)("tool_calls")
    if kind == "int":
        ns = dict.fromkeys(
            (
                "__int__",
                "__index__",
                "__repr__",
                "__str__",
                "__hash__",
                "__eq__",
                "__bool__",
                "__float__",
                "__ne__",
                "__lt__",
                "__ge__",
            ),
            boom,
        )
        return type("I", (int,), ns)(1)
    if kind == "float":
        ns = dict.fromkeys(
            ("__float__", "__repr__", "__str__", "__hash__", "__eq__", "__bool__", "__int__"), boom
        )
        return type("F", (float,), ns)(1.5)
    if kind == "str_repr":
        return type("R", (), {"__str__": boom, "__repr__": boom})()
    if kind == "cyclic_dict":
        d: dict[str, Any] = {"index": 0}
        d["function"] = d
        d["arguments"] = d
        d["tool_calls"] = [d]
        d["delta"] = d
        return d
    if kind == "cyclic_list":
        items: list[Any] = []
        items.append(items)
        return items
    raise AssertionError(kind)


KINDS = [
    "getattr",
    "getattribute",
    "class",
    "properties",
    "model_dump",
    "model_dump_wrong",
    "model_dump_cyclic",
    "mapping",
    "dict",
    "list",
    "str",
    "int",
    "float",
    "str_repr",
    "cyclic_dict",
    "cyclic_list",
]

hostiles = st.builds(hostile, st.sampled_from(KINDS), st.sampled_from(EXCEPTIONS))


# --- payload templates: every node may be replaced by a hostile object --------------------

CHAT = {
    "object": "chat.completion.chunk",
    "choices": [
        {
            "index": 0,
            "delta": {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    }
                ],
                "function_call": {"name": "g", "arguments": {"b": 2}},
            },
            "finish_reason": "tool_calls",
        }
    ],
    "error": {
        "message": "m",
        "code": "tool_use_failed",
        "failed_generation": {"name": "f", "arguments": {"a": 1}},
    },
}
RESPONSES = [
    {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": ""},
    },
    {
        "type": "response.function_call_arguments.delta",
        "output_index": 0,
        "item_id": "fc",
        "delta": '{"a": 1}',
    },
    {
        "type": "response.function_call_arguments.done",
        "output_index": 0,
        "item_id": "fc",
        "arguments": {"a": 1},
    },
    {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"a": 1}'},
    },
    # the other items (tests/support/responses_streams.py), each kind at an index of its own
    *[{**e, "output_index": 1} for e in CUSTOM.events[1:5]],
    *[{**e, "output_index": 2} for e in SHELL.events[1:6]],
    *[
        {**e, "output_index": 3 + n}
        for n, e in enumerate(CLIENT_BUILTINS.events[1:-1:2] + HOSTED.events[1:-1])
    ],
    {
        "type": "response.failed",
        "response": {"error": {"message": "m", "code": "c"}, "incomplete_details": {"reason": "r"}},
    },
]
COHERE = [
    {
        "type": "tool-call-start",
        "index": 0,
        "delta": {
            "message": {"tool_calls": {"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}}
        },
    },
    {
        "type": "tool-call-delta",
        "index": 0,
        "delta": {"message": {"tool_calls": {"function": {"arguments": '{"a"'}}}},
    },
    {"type": "tool-call-end", "index": 0},
    {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "e"}},
]
OLLAMA = {
    "message": {
        "role": "assistant",
        "tool_calls": [
            {"id": "c", "function": {"index": 0, "name": "f", "arguments": {"a": [1, {"b": None}]}}}
        ],
    },
    "done": True,
    "done_reason": "stop",
    "error": "e",
}
GEMINI = [
    {
        "candidates": [
            {
                "index": 0,
                "content": {
                    "parts": [{"functionCall": {"name": "f", "args": {"a": 1}, "id": "x"}}]
                },
            }
        ]
    },
    {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"functionCall": {"name": "g", "willContinue": True, "args": {"z": 1}}}
                    ]
                }
            }
        ]
    },
    {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {
                            "functionCall": {
                                "partialArgs": [
                                    {"jsonPath": "$.a", "stringValue": "x", "willContinue": True},
                                    {"jsonPath": "$.b[1]", "numberValue": 2},
                                    {"jsonPath": "$.c", "boolValue": True},
                                    {"jsonPath": "$.d", "nullValue": None},
                                    {"jsonPath": "$.b[0]", "numberValue": "3"},
                                ],
                                "willContinue": True,
                            }
                        }
                    ]
                }
            }
        ]
    },
    {
        "candidates": [
            {
                "content": {"parts": [{"functionCall": {}}]},
                "finishReason": "MALFORMED_FUNCTION_CALL",
                "finishMessage": "m",
            }
        ]
    },
    {"error": {"status": "S", "code": 5, "message": "m"}, "promptFeedback": {"blockReason": "B"}},
]

TRANSLATORS: dict[str, tuple[Callable[[], Any], list[Any]]] = {
    "openai-chat": (OpenAIChatTranslator, [CHAT]),
    "openai-responses": (OpenAIResponsesTranslator, RESPONSES),
    "cohere": (CohereTranslator, COHERE),
    "ollama": (OllamaTranslator, [OLLAMA]),
    "gemini": (GeminiTranslator, GEMINI),
    # the raw-text formats (their own tests: tests/providers/test_text_sources.py)
    "openai-completions": (
        lambda: get_translator("openai-completions"),
        [
            {
                "object": "text_completion",
                "choices": [{"index": 0, "text": "a", "finish_reason": None}],
            },
            {
                "object": "text_completion",
                "choices": [{"index": 0, "text": "", "finish_reason": "length"}],
            },
            {"error": {"message": "m", "type": "t", "code": 500}},
        ],
    ),
    "ollama-generate": (
        lambda: get_translator("ollama-generate"),
        [
            {"response": "a", "thinking": "b", "done": False},
            {"response": "", "done": True, "done_reason": "stop"},
            {"error": "e"},
        ],
    ),
    "llamacpp-completion": (
        lambda: get_translator("llamacpp-completion"),
        [
            {"index": 0, "content": "a", "stop": False, "id_slot": 0},
            {"index": 0, "content": "", "stop": True, "stop_type": "limit", "stopped_eos": False},
            {"error": {"code": 500, "message": "m", "type": "server_error"}},
        ],
    ),
}


def node_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from node_paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from node_paths(child, (*prefix, i))


@st.composite
def hostile_streams(draw: st.DrawFn, *, whole: bool = True) -> tuple[str, list[Any]]:
    """A provider's template payloads with one to three nodes (or, with ``whole``, a whole
    payload) replaced by hostile objects."""
    name = draw(st.sampled_from(sorted(TRANSLATORS)))
    template = TRANSLATORS[name][1]
    candidates = [p for p in node_paths(template) if len(p) >= (1 if whole else 2)]
    chosen = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True))
    payloads = json.loads(json.dumps(template))
    for where in sorted(chosen, key=len, reverse=True):  # deepest first: parents stay plain
        node = payloads
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = draw(hostiles)
    return name, payloads


@settings(max_examples=1500, deadline=None)
@given(hostile_streams())
def test_hostile_objects_anywhere_never_make_a_translator_raise(
    case: tuple[str, list[Any]],
) -> None:
    name, payloads = case
    translator = TRANSLATORS[name][0]()
    for payload in payloads:
        assert isinstance(translator.translate(payload), list)


# A whole payload that is hostile is left out here: the pipeline's transport check
# (providers/transport.py, not a translator) still calls isinstance on it.
@settings(max_examples=300, deadline=None)
@given(hostile_streams(whole=False))
def test_hostile_objects_through_collect_give_data(case: tuple[str, list[Any]]) -> None:
    name, payloads = case
    result = callstream.collect(payloads, provider=name)
    for call in result.tool_calls:
        json.dumps(call["args"])  # plain JSON data
    for call in result.invalid_tool_calls:
        assert call["args"] is None or type(call["args"]) is str
        assert type(call["error"]) is str


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("exc", EXCEPTIONS)
def test_accessors_never_raise_on_any_hostile_kind(kind: str, exc: type[BaseException]) -> None:
    obj = hostile(kind, exc)
    for key in ("index", "choices", "function", "a", "keys", "__class__"):
        get(obj, key)
        get_str(obj, key)
        get_int(obj, key)
        get_index(obj, key)
        get_list(obj, key)
        get_index({key: obj}, key)
        get_str({key: obj}, key)
        get_int({key: obj}, key)
        get_list({key: obj}, key)
    path(obj, "choices", 0, "delta")
    path({"a": obj}, "a", 0)
    is_record(obj)
    to_plain(obj)
    to_plain({"a": [obj, {"b": obj}]})
    try:
        to_json_data({"a": obj})
    except DataError:
        pass


def test_subclass_values_read_as_plain_values_without_their_methods() -> None:
    text = hostile("str", KeyError)
    number = hostile("int", IndexError)
    assert get_str({"name": text}, "name") == "tool_calls"
    assert type(get_str({"name": text}, "name")) is str
    assert get_int({"index": number}, "index") == 1
    assert get_index({"index": number}, "index") == 1
    assert to_json_data({"a": [text, number, hostile("float", KeyError)]}) == {
        "a": ["tool_calls", 1, 1.5]
    }


# --- deep argument objects ----------------------------------------------------------------


class Node(pydantic.BaseModel):
    child: Node | None = None
    value: int = 0


@dataclasses.dataclass
class Box:
    inner: Any = None


def deep(kind: str, depth: int) -> Any:
    value: Any = {"leaf": 1}
    for _ in range(depth):
        if kind == "dict":
            value = {"a": value}
        elif kind == "list-in-dict":
            value = {"a": [value]}
        elif kind == "pydantic":
            value = Node.model_construct(child=value if isinstance(value, Node) else None)
        else:
            value = Box(value)
    return value


def arg_payloads(provider: str, args: Any) -> list[Any]:
    if provider == "openai-chat":
        return [
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "c",
                                    "function": {"name": "f", "arguments": args},
                                }
                            ]
                        },
                    }
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
    if provider == "ollama":
        return [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [{"function": {"name": "f", "arguments": args}}],
                },
                "done": True,
                "done_reason": "stop",
            }
        ]
    if provider == "gemini":
        return [
            {
                "candidates": [
                    {
                        "content": {"parts": [{"functionCall": {"name": "f", "args": args}}]},
                        "finishReason": "STOP",
                    }
                ]
            }
        ]
    if provider == "cohere":
        return [
            {
                "type": "tool-call-start",
                "index": 0,
                "delta": {
                    "message": {
                        "tool_calls": {"id": "c", "function": {"name": "f", "arguments": args}}
                    }
                },
            },
            {"type": "tool-call-end", "index": 0},
            {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
        ]
    assert provider == "openai-responses"
    return [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""},
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"type": "function_call", "call_id": "c", "name": "f", "arguments": args},
        },
        {"type": "response.completed", "response": {}},
    ]


PROVIDERS = ["openai-chat", "ollama", "gemini", "cohere", "openai-responses"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", ["dict", "list-in-dict", "pydantic", "dataclass"])
def test_arguments_nested_100000_deep_make_an_invalid_call(provider: str, kind: str) -> None:
    result = callstream.collect(arg_payloads(provider, deep(kind, DEEP)), provider=provider)
    assert result.tool_calls == []
    assert [(c["name"], c["error"]) for c in result.invalid_tool_calls] == [("f", LIMIT_REASON)]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", ["dict", "pydantic", "dataclass"])
def test_arguments_deep_but_within_the_limit_stay_valid(provider: str, kind: str) -> None:
    # 300 levels: more than json.dumps may write from inside a deep stack
    result = callstream.collect(arg_payloads(provider, deep(kind, 300)), provider=provider)
    assert result.invalid_tool_calls == []
    [call] = result.tool_calls
    args = call["args"]
    depth = 0
    while isinstance(args, dict) and ("a" in args or "inner" in args or "child" in args):
        args = args.get("a", args.get("inner", args.get("child")))
        depth += 1
    assert depth >= 299


@pytest.mark.parametrize("provider", PROVIDERS)
def test_cyclic_arguments_make_an_invalid_call(provider: str) -> None:
    cyclic: dict[str, Any] = {"x": 1}
    cyclic["me"] = cyclic
    result = callstream.collect(arg_payloads(provider, cyclic), provider=provider)
    assert result.tool_calls == []
    cycle = f"{LIMIT_REASON} (a container holds itself: a cycle)"
    assert [(c["name"], c["error"]) for c in result.invalid_tool_calls] == [("f", cycle)]


def test_to_plain_is_bounded_and_iterative() -> None:
    cyclic: dict[str, Any] = {"x": 1}
    cyclic["me"] = cyclic
    assert to_plain(cyclic)["me"] is cyclic  # kept as it is, not followed
    with pytest.raises(JSONLimitError):
        to_json_data(cyclic)
    for kind in ("dict", "pydantic", "dataclass"):
        with pytest.raises(JSONLimitError):
            to_json_data(deep(kind, DEEP))
        to_plain(deep(kind, DEEP))
    assert to_json_data(deep("pydantic", 3)) == {
        "child": {"child": {"child": None, "value": 0}, "value": 0},
        "value": 0,
    }
    assert to_json_data({1: True, None: 2.5, False: (1, 2)}) == {
        "1": True,
        "null": 2.5,
        "false": [1, 2],
    }
    with pytest.raises(DataError):
        to_json_data({"a": object()})
    with pytest.raises(DataError):
        to_json_data({(1, 2): 1})


def test_get_index_tells_absent_from_unusable() -> None:
    assert get_index({}, "index") is None
    assert get_index({"index": None}, "index") is None
    assert get_index({"index": 3}, "index") == 3
    assert get_index({"index": "3"}, "index") == 3
    for bad in (True, 1.5, "abc", [0], -1, "-1", {"a": 1}, ""):
        found = get_index({"index": bad}, "index")
        assert isinstance(found, BadIndex), bad
