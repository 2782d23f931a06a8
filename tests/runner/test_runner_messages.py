"""tool_messages(): the follow-up messages that carry tool results back to the model.

Each format's exact shape is asserted on hand-built ToolResult objects (done with str,
dict, pydantic-model, list and None outputs; error; cancelled; unicode; no id; no name).
The shapes are then checked against the providers' own code where it is installed:

- the real openai / anthropic / google-genai / ollama clients send a follow-up request
  holding our messages through a mock transport, and the request body carries them
  unchanged;
- the SDKs' request types validate them (openai and anthropic TypedDicts through
  pydantic, google-genai's ``Content`` model, ollama's ``Message``, botocore's Bedrock
  service model and its rest-json serializer);
- LangChain's own converters turn our ``ToolMessage`` objects into exactly our OpenAI
  chat, OpenAI Responses and Anthropic shapes.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import callstream
from callstream._errors import OptionTypeError, OptionValueError, UnknownFormatNameError
from callstream.runner._messages import tool_messages
from callstream.runner._results import RunResult
from callstream.runner._tool_result import Status, ToolResult
from callstream.testing import MockProvider

ALL_FORMATS = (
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "cohere",
    "ollama",
    "langchain",
)
DICT_FORMATS = tuple(f for f in ALL_FORMATS if f != "langchain")
BY_ID = tuple(f for f in ALL_FORMATS if f not in ("ollama", "gemini"))  # gemini: id optional


class Weather(BaseModel):
    city: str
    temp: float


@dataclasses.dataclass
class Point:
    x: int
    y: int


AUTO = "auto"


def done(index: int, output: Any, *, id: str | None = AUTO, name: str | None = "f") -> ToolResult:
    return ToolResult(
        index=index,
        id=f"call_{index}" if id == AUTO else id,
        name=name,
        args={},
        status="done",
        output=output,
    )


def failed(
    index: int, error: str | None, *, status: Any = "error", name: str | None = "f"
) -> ToolResult:
    return ToolResult(
        index=index, id=f"call_{index}", name=name, args=None, status=status, error=error
    )


WEATHER = {"city": "Zürich", "temp": 21.5, "tags": ["sun", "☀"], "nested": {"k": [1, 2]}}
UNICODE = "Zürich ☀ 21°C — 𝄞 « ok »"

RESULTS = [
    done(0, UNICODE, name="echo"),
    done(1, WEATHER, name="get_weather"),
    done(2, Weather(city="Paris", temp=18.0), name="model_tool"),
    done(3, [1, "two", None], name="listing"),
    done(4, None, name="nothing"),
    failed(5, "ValueError: city must not be empty", name="get_weather"),
    failed(6, "the stream was voided (finish reason: length)", status="cancelled", name="slow"),
]
TEXTS = [
    UNICODE,
    '{"city":"Zürich","temp":21.5,"tags":["sun","☀"],"nested":{"k":[1,2]}}',
    '{"city":"Paris","temp":18.0}',
    '[1,"two",null]',
    "",
    "ValueError: city must not be empty",
    "the stream was voided (finish reason: length)",
]
ERRORS = [False, False, False, False, False, True, True]


def test_the_texts_are_the_results_content() -> None:
    assert [r.content for r in RESULTS] == TEXTS
    assert [r.is_error for r in RESULTS] == ERRORS


# --- each format's exact shape -----------------------------------------------------------


def test_openai_chat_one_tool_message_per_result() -> None:
    expected = [
        {"role": "tool", "tool_call_id": f"call_{i}", "content": text}
        for i, text in enumerate(TEXTS)
    ]
    assert tool_messages(RESULTS, "openai") == expected
    for alias in ("openai-chat", "mistral", "OpenAI", " OPENAI_CHAT ", "Mistral"):
        assert tool_messages(RESULTS, alias) == expected


def test_openai_responses_one_function_call_output_per_result() -> None:
    expected = [
        {"type": "function_call_output", "call_id": f"call_{i}", "output": text}
        for i, text in enumerate(TEXTS)
    ]
    assert tool_messages(RESULTS, "openai-responses") == expected
    for alias in ("responses", "OpenAI_Responses", "RESPONSES"):
        assert tool_messages(RESULTS, alias) == expected


def test_anthropic_one_user_message_holding_every_result() -> None:
    blocks = [
        {"type": "tool_result", "tool_use_id": f"call_{i}", "content": text, "is_error": error}
        for i, (text, error) in enumerate(zip(TEXTS, ERRORS, strict=True))
    ]
    assert tool_messages(RESULTS, "anthropic") == [{"role": "user", "content": blocks}]


def test_gemini_one_content_with_a_function_response_per_result() -> None:
    responses = [
        {"output": UNICODE},
        WEATHER,
        {"city": "Paris", "temp": 18.0},
        {"output": [1, "two", None]},
        {"output": None},
        {"error": "ValueError: city must not be empty"},
        {"error": "the stream was voided (finish reason: length)"},
    ]
    names = [r.name for r in RESULTS]
    parts = [
        {"functionResponse": {"name": name, "response": response, "id": f"call_{i}"}}
        for i, (name, response) in enumerate(zip(names, responses, strict=True))
    ]
    assert tool_messages(RESULTS, "gemini") == [{"role": "user", "parts": parts}]


def test_gemini_sends_the_id_only_when_the_call_had_one() -> None:
    message = tool_messages([done(0, {"a": 1}, id=None, name="g")], "gemini")
    assert message == [
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {"a": 1}}}]}
    ]


def test_bedrock_one_user_message_json_for_objects_text_otherwise() -> None:
    contents: list[list[dict[str, Any]]] = [
        [{"text": UNICODE}],
        [{"json": WEATHER}],
        [{"json": {"city": "Paris", "temp": 18.0}}],
        [{"text": '[1,"two",null]'}],
        [{"text": ""}],
        [{"text": "ValueError: city must not be empty"}],
        [{"text": "the stream was voided (finish reason: length)"}],
    ]
    blocks = [
        {
            "toolResult": {
                "toolUseId": f"call_{i}",
                "content": content,
                "status": "error" if error else "success",
            }
        }
        for i, (content, error) in enumerate(zip(contents, ERRORS, strict=True))
    ]
    assert tool_messages(RESULTS, "bedrock") == [{"role": "user", "content": blocks}]


def test_cohere_v2_one_tool_message_with_a_document_per_result() -> None:
    expected = [
        {
            "role": "tool",
            "tool_call_id": f"call_{i}",
            "content": [{"type": "document", "document": {"data": text}}],
        }
        for i, text in enumerate(TEXTS)
    ]
    assert tool_messages(RESULTS, "cohere") == expected


def test_ollama_one_tool_message_per_result_named_not_by_id() -> None:
    expected = [
        {"role": "tool", "content": text, "tool_name": r.name}
        for r, text in zip(RESULTS, TEXTS, strict=True)
    ]
    assert tool_messages(RESULTS, "ollama") == expected
    no_id = [done(0, "x", id=None, name="f")]
    assert tool_messages(no_id, "ollama") == [{"role": "tool", "content": "x", "tool_name": "f"}]


def test_langchain_tool_messages() -> None:
    messages_module = pytest.importorskip("langchain_core.messages")
    messages = tool_messages(RESULTS, "langchain")
    assert all(isinstance(m, messages_module.ToolMessage) for m in messages)
    assert [m.content for m in messages] == TEXTS
    assert [m.tool_call_id for m in messages] == [f"call_{i}" for i in range(len(RESULTS))]
    assert [m.name for m in messages] == [r.name for r in RESULTS]
    assert [m.status for m in messages] == ["error" if e else "success" for e in ERRORS]
    nameless = tool_messages([done(0, "x", name=None)], "langchain")
    assert nameless[0].name is None and nameless[0].tool_call_id == "call_0"


def test_langchain_missing_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "langchain_core.messages", None)
    with pytest.raises(callstream.UsageError, match="pip install langchain-core"):
        tool_messages(RESULTS, "langchain")
    assert tool_messages([], "langchain") == []  # nothing to build, nothing imported


def test_no_results_give_no_messages() -> None:
    for fmt in ALL_FORMATS:
        assert tool_messages([], fmt) == []
        assert tool_messages((), fmt) == []


def test_results_keep_the_order_given() -> None:
    shuffled = [RESULTS[3], RESULTS[0], RESULTS[6]]
    assert [m["tool_call_id"] for m in tool_messages(shuffled, "openai")] == [
        "call_3",
        "call_0",
        "call_6",
    ]
    (message,) = tool_messages(shuffled, "anthropic")
    assert [b["tool_use_id"] for b in message["content"]] == ["call_3", "call_0", "call_6"]


def test_cancelled_without_error_text_says_cancelled() -> None:
    result = failed(0, None, status="cancelled")
    assert tool_messages([result], "openai")[0]["content"] == "cancelled"
    part = tool_messages([result], "gemini")[0]["parts"][0]
    assert part["functionResponse"]["response"] == {"error": "cancelled"}


def test_dataclass_and_nan_outputs_become_json_objects() -> None:
    results = [done(0, Point(1, 2)), done(1, {"v": float("nan"), "w": float("inf")})]
    parts = tool_messages(results, "gemini")[0]["parts"]
    assert [p["functionResponse"]["response"] for p in parts] == [
        {"x": 1, "y": 2},
        {"v": None, "w": None},
    ]
    (message,) = tool_messages(results, "bedrock")
    assert [b["toolResult"]["content"] for b in message["content"]] == [
        [{"json": {"x": 1, "y": 2}}],
        [{"json": {"v": None, "w": None}}],
    ]
    json.dumps(parts, allow_nan=False)  # strict JSON on the wire


def test_outputs_that_cannot_be_json_are_sent_as_errors() -> None:
    loop: list[Any] = []
    loop.append(loop)
    bad_bytes = {"blob": b"\xff\xfe"}
    results = [done(0, loop), done(1, bad_bytes)]
    assert [r.status for r in results] == ["error", "error"]
    parts = tool_messages(results, "gemini")[0]["parts"]
    assert [p["functionResponse"]["response"] for p in parts] == [
        {"error": results[0].content},
        {"error": results[1].content},
    ]
    blocks = tool_messages(results, "bedrock")[0]["content"]
    assert [(b["toolResult"]["content"], b["toolResult"]["status"]) for b in blocks] == [
        ([{"text": results[0].content}], "error"),
        ([{"text": results[1].content}], "error"),
    ]


def test_unknown_objects_in_an_output_become_text() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque!"

    parts = tool_messages([done(0, {"thing": Opaque()})], "gemini")[0]["parts"]
    assert parts[0]["functionResponse"]["response"] == {"thing": "opaque!"}


# --- never mutate, never share ----------------------------------------------------------


def test_results_are_not_changed_and_outputs_not_shared() -> None:
    before = copy.deepcopy(RESULTS)
    for fmt in ALL_FORMATS:
        tool_messages(RESULTS, fmt)
    assert RESULTS == before
    output = {"list": [1, 2], "inner": {"k": "v"}}
    result = done(0, output)
    gemini = tool_messages([result], "gemini")[0]["parts"][0]["functionResponse"]["response"]
    bedrock = tool_messages([result], "bedrock")[0]["content"][0]["toolResult"]["content"][0]
    for copy_of_output in (gemini, bedrock["json"]):
        assert copy_of_output == output and copy_of_output is not output
        copy_of_output["list"].append(3)
        copy_of_output["inner"]["k"] = "changed"
    assert output == {"list": [1, 2], "inner": {"k": "v"}}


def test_every_call_gives_new_messages() -> None:
    first = tool_messages(RESULTS, "anthropic")
    second = tool_messages(RESULTS, "anthropic")
    assert first == second and first is not second and first[0] is not second[0]


# --- misuse --------------------------------------------------------------------------------


def test_a_missing_id_is_a_usage_error_naming_the_call() -> None:
    results = [done(0, "ok"), done(1, "no id here", id=None, name="lookup")]
    for fmt in BY_ID:
        with pytest.raises(callstream.UsageError, match=r"call 1 \('lookup'\) has no id") as info:
            tool_messages(results, fmt)
        assert repr(fmt) in str(info.value)
    with pytest.raises(callstream.UsageError, match=r"call 2 has no id"):
        tool_messages([done(2, "x", id="", name=None)], "openai")


def test_a_missing_name_is_a_usage_error_for_gemini_and_ollama() -> None:
    results = [done(0, "ok"), done(4, "x", name=None)]
    for fmt in ("gemini", "ollama"):
        with pytest.raises(callstream.UsageError, match=r"call 4 has no tool name"):
            tool_messages(results, fmt)
    # The formats that address results by id alone do not need the name.
    for fmt in ("openai", "openai-responses", "anthropic", "bedrock", "cohere"):
        assert len(tool_messages(results, fmt)) in (1, 2)


def test_an_unknown_format_lists_the_known_ones() -> None:
    # every name of the registry is taken, dialects too (vertex: Gemini's shape)
    assert tool_messages(RESULTS, "vertex") == tool_messages(RESULTS, "gemini")
    with pytest.raises(UnknownFormatNameError, match=r"unknown format name 'nope'") as info:
        tool_messages(RESULTS, "nope")
    assert isinstance(info.value, OptionValueError)
    assert isinstance(info.value, callstream.UsageError)
    for name in (*ALL_FORMATS, "openai-chat", "mistral"):
        assert name in str(info.value)
    with pytest.raises(OptionValueError):
        tool_messages([], "nope")  # checked even with no results


def test_wrong_types_are_usage_errors() -> None:
    with pytest.raises(OptionTypeError, match="format must be a str"):
        tool_messages(RESULTS, None)  # type: ignore[arg-type]
    with pytest.raises(OptionTypeError, match="item 1 is dict"):
        tool_messages([RESULTS[0], {"id": "x"}], "openai")  # type: ignore[list-item]
    with pytest.raises(OptionTypeError, match="item 0 is str"):
        tool_messages("abc", "openai")  # type: ignore[arg-type]


def test_run_result_tool_messages_delegates() -> None:
    stream = callstream.StreamResult(tool_calls=[], invalid_tool_calls=[], finish_reason="stop")
    run = RunResult(stream=stream, results=list(RESULTS))
    assert run.tool_messages("anthropic") == tool_messages(RESULTS, "anthropic")
    assert RunResult(stream=stream).tool_messages("openai") == []


# --- properties over random results -------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)  # JSON has neither (they go as null)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def random_results(draw: st.DrawFn) -> list[ToolResult]:
    out = []
    for index in range(draw(st.integers(0, 5))):
        status: Status = draw(st.sampled_from(["done", "error", "cancelled"]))
        out.append(
            ToolResult(
                index=index,
                id=f"id_{index}_{draw(st.text(min_size=1, max_size=3))}",
                name=draw(st.text(min_size=1, max_size=8)),
                args={},
                status=status,
                output=draw(json_values) if status == "done" else None,
                error=draw(st.text(max_size=20)) if status != "done" else None,
            )
        )
    return out


@settings(max_examples=150, deadline=None)
@given(results=random_results(), fmt=st.sampled_from(DICT_FORMATS))
def test_any_results_give_strict_json_in_order_and_stay_unchanged(
    results: list[ToolResult], fmt: str
) -> None:
    before = copy.deepcopy(results)
    messages = tool_messages(results, fmt)
    assert results == before
    text = json.dumps(messages, allow_nan=False, ensure_ascii=False)
    assert json.loads(text) == messages  # plain JSON data, nothing else inside
    if not results:
        assert messages == []
        return
    if fmt == "anthropic":
        entries = messages[0]["content"]
        ids = [b["tool_use_id"] for b in entries]
    elif fmt == "gemini":
        entries = messages[0]["parts"]
        ids = [p["functionResponse"]["id"] for p in entries]
        for part, r in zip(entries, results, strict=True):
            response = part["functionResponse"]["response"]
            if r.is_error:
                assert response == {"error": r.content}
            elif isinstance(r.output, dict):
                assert response == r.output
            else:
                assert response == {"output": r.output}
    elif fmt == "bedrock":
        entries = messages[0]["content"]
        ids = [b["toolResult"]["toolUseId"] for b in entries]
    elif fmt == "openai-responses":
        entries = messages
        ids = [m["call_id"] for m in messages]
        assert [m["output"] for m in messages] == [r.content for r in results]
    elif fmt == "ollama":
        entries = messages
        ids = [r.id for r in results]  # not sent: named by tool, in order
        assert [m["tool_name"] for m in messages] == [r.name for r in results]
    else:
        entries = messages
        ids = [m["tool_call_id"] for m in messages]
    assert len(entries) == len(results)
    assert ids == [r.id for r in results]


# --- the providers' own code accepts the shapes ----------------------------------------

CALLS = [{"id": f"call_{i}", "name": r.name, "args": {"i": i}} for i, r in enumerate(RESULTS)]


def test_openai_chat_types_accept_the_messages() -> None:
    types = pytest.importorskip("openai.types.chat")
    from pydantic import TypeAdapter

    adapter = TypeAdapter(types.ChatCompletionToolMessageParam)
    for message in tool_messages(RESULTS, "openai"):
        assert adapter.validate_python(message) == message
    with pytest.raises(ValueError):
        adapter.validate_python({"role": "tool", "content": "x"})  # the adapter is strict


def test_openai_responses_types_accept_the_items() -> None:
    types = pytest.importorskip("openai.types.responses")
    from pydantic import TypeAdapter

    union = TypeAdapter(types.ResponseInputItemParam)
    item_type = types.response_input_item_param.FunctionCallOutput
    adapter = TypeAdapter(item_type)
    for item in tool_messages(RESULTS, "openai-responses"):
        assert union.validate_python(item) == item
        assert adapter.validate_python(item) == item
    with pytest.raises(ValueError):
        adapter.validate_python({"type": "function_call_output", "call_id": "x"})
    assert set(item_type.__required_keys__) <= {"type", "output", "call_id"}


def test_anthropic_types_accept_the_message() -> None:
    types = pytest.importorskip("anthropic.types")
    from pydantic import TypeAdapter

    (message,) = tool_messages(RESULTS, "anthropic")
    adapter = TypeAdapter(types.ToolResultBlockParam)
    for block in message["content"]:
        assert adapter.validate_python(block) == block
    # (MessageParam itself is not validated: its lazily checked Iterable content makes
    # pydantic-core panic when consumed; the SDK test below sends the whole message.)
    with pytest.raises(ValueError):
        adapter.validate_python({"type": "tool_result", "content": "x"})  # no tool_use_id


def _http2(mock: MockProvider) -> Any:
    httpx2 = pytest.importorskip("httpx2")
    return httpx2.Client(transport=httpx2.MockTransport(mock))


def _openai_client(mock: MockProvider) -> Any:
    import openai

    return openai.OpenAI(
        api_key="test", base_url="http://test/v1", http_client=_http2(mock), max_retries=0
    )


def test_the_openai_sdk_sends_the_chat_messages_unchanged() -> None:
    pytest.importorskip("openai")
    mock = MockProvider("ok", format="openai-chat")
    ours = tool_messages(RESULTS, "openai")
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
            }
            for c in CALLS
        ],
    }
    conversation = [{"role": "user", "content": "weather?"}, assistant, *ours]
    client = _openai_client(mock)
    with client.chat.completions.create(
        model="gpt-test", messages=conversation, stream=True
    ) as stream:
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "ok"
    (sent,) = (r.body for r in mock.requests)
    assert sent["messages"][2:] == ours
    assert sent["messages"] == json.loads(json.dumps(conversation))


def test_the_openai_sdk_sends_the_responses_items_unchanged() -> None:
    pytest.importorskip("openai")
    mock = MockProvider("ok", format="openai-responses")
    ours = tool_messages(RESULTS, "openai-responses")
    calls = [
        {
            "type": "function_call",
            "call_id": c["id"],
            "name": c["name"],
            "arguments": json.dumps(c["args"]),
        }
        for c in CALLS
    ]
    items = [{"role": "user", "content": "weather?"}, *calls, *ours]
    client = _openai_client(mock)
    stream = client.responses.create(model="gpt-test", input=items, stream=True)
    stream.close()
    (sent,) = (r.body for r in mock.requests)
    assert sent["input"][1 + len(calls) :] == ours
    assert sent["input"] == items


def test_the_anthropic_sdk_sends_the_message_unchanged() -> None:
    anthropic = pytest.importorskip("anthropic")
    mock = MockProvider("ok", format="anthropic")
    ours = tool_messages(RESULTS, "anthropic")
    assistant = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]}
            for c in CALLS
        ],
    }
    conversation = [{"role": "user", "content": "weather?"}, assistant, *ours]
    client = anthropic.Anthropic(
        api_key="test", base_url="http://test", http_client=_http2(mock), max_retries=0
    )
    stream = client.messages.create(
        model="claude-test", max_tokens=100, messages=conversation, stream=True
    )
    stream.close()
    (sent,) = (r.body for r in mock.requests)
    assert sent["messages"][2:] == ours
    assert sent["messages"] == conversation


def test_the_google_genai_sdk_validates_and_sends_the_content_unchanged() -> None:
    genai = pytest.importorskip("google.genai")
    httpx = pytest.importorskip("httpx")
    from google.genai import types

    ours = tool_messages(RESULTS, "gemini")
    content = types.Content.model_validate(ours[0])  # the SDK's model forbids unknown keys
    assert content.model_dump(mode="json", by_alias=True, exclude_none=True) == ours[0]
    with pytest.raises(ValueError):
        types.Content.model_validate({"role": "user", "parts": [{"functionResult": {}}]})

    mock = MockProvider("ok", format="gemini")
    http = httpx.Client(transport=httpx.MockTransport(mock))
    client = genai.Client(
        api_key="test", http_options=types.HttpOptions(base_url="http://test/", httpx_client=http)
    )
    model_turn = {
        "role": "model",
        "parts": [
            {"functionCall": {"id": c["id"], "name": c["name"], "args": c["args"]}} for c in CALLS
        ],
    }
    history = [{"role": "user", "parts": [{"text": "weather?"}]}, model_turn]
    stream = client.models.generate_content_stream(model="gemini-test", contents=[*history, *ours])
    assert "".join(chunk.text or "" for chunk in stream) == "ok"
    assert mock.requests[0].body["contents"][2:] == ours


def test_the_ollama_sdk_validates_and_sends_the_messages_unchanged() -> None:
    ollama = pytest.importorskip("ollama")
    httpx = pytest.importorskip("httpx")

    ours = tool_messages(RESULTS, "ollama")
    for message in ours:
        parsed = ollama.Message.model_validate(message)
        assert (parsed.role, parsed.content, parsed.tool_name) == (
            "tool",
            message["content"],
            message["tool_name"],
        )

    mock = MockProvider("ok", format="ollama")
    client = ollama.Client(host="http://test", transport=httpx.MockTransport(mock))
    stream = client.chat(
        model="m", messages=[{"role": "user", "content": "hi"}, *ours], stream=True
    )
    assert "".join(part.message.content or "" for part in stream) == "ok"
    # The SDK leaves out empty fields (the None output's content ""): the server reads a
    # missing content as "" (Go's zero value), so that is the same message.
    sent = mock.requests[0].body["messages"][1:]
    assert sent == [{k: v for k, v in m.items() if v != ""} for m in ours]


def test_botocore_validates_and_serializes_the_bedrock_message_unchanged() -> None:
    botocore_session = pytest.importorskip("botocore.session")
    from botocore.serialize import create_serializer  # type: ignore[import-untyped]
    from botocore.validate import ParamValidator  # type: ignore[import-untyped]

    model = botocore_session.get_session().get_service_model("bedrock-runtime")
    operation = model.operation_model("Converse")
    ours = tool_messages(RESULTS, "bedrock")
    params = {"modelId": "m", "messages": ours}
    report = ParamValidator().validate(params, operation.input_shape)
    assert not report.has_errors(), report.generate_report()
    broken = copy.deepcopy(ours)
    del broken[0]["content"][0]["toolResult"]["toolUseId"]
    assert ParamValidator().validate({"modelId": "m", "messages": broken}, operation.input_shape)
    request = create_serializer(model.protocol).serialize_to_request(params, operation)
    assert json.loads(request["body"])["messages"] == ours


def test_langchain_converts_our_tool_messages_to_our_openai_shape() -> None:
    messages_module = pytest.importorskip("langchain_core.messages")
    ours = tool_messages(RESULTS, "langchain")
    converted = messages_module.convert_to_openai_messages(ours)
    openai_shape = tool_messages(RESULTS, "openai")
    assert [{k: v for k, v in m.items() if k != "name"} for m in converted] == openai_shape
    assert [m.get("name") for m in converted] == [r.name for r in RESULTS]
    back = messages_module.convert_to_messages(openai_shape)
    assert [(m.content, m.tool_call_id) for m in back] == [
        (m.content, m.tool_call_id) for m in ours
    ]


def test_langchain_openai_converts_our_tool_messages_to_our_shapes() -> None:
    base = pytest.importorskip("langchain_openai.chat_models.base")
    convert = getattr(base, "_convert_message_to_dict", None)
    construct = getattr(base, "_construct_responses_api_input", None)
    if convert is None or construct is None:
        pytest.skip("langchain-openai's converters moved")
    ours = tool_messages(RESULTS, "langchain")
    assert [convert(m) for m in ours] == tool_messages(RESULTS, "openai")
    assert construct(ours) == tool_messages(RESULTS, "openai-responses")


def test_langchain_anthropic_converts_our_tool_messages_to_our_shape() -> None:
    chat_models = pytest.importorskip("langchain_anthropic.chat_models")
    format_messages = getattr(chat_models, "_format_messages", None)
    if format_messages is None:
        pytest.skip("langchain-anthropic's converter moved")
    ours = tool_messages(RESULTS, "langchain")
    _, formatted = format_messages(ours, model="claude-sonnet-4-5")
    assert formatted == tool_messages(RESULTS, "anthropic")
