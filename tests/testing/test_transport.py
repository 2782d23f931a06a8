"""``callstream.testing.MockProvider`` as the handler of ``httpx.MockTransport`` and
``httpx2.MockTransport``: the body in the stream's own chunks (sync, asyncio, trio), the
pace, routing by path and tools, the error reply when nothing matches, what is recorded
(credentials never), and the views of each format's request (tools, tool results)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

import callstream
from callstream.runner import ToolResult, tool_messages
from callstream.testing import (
    ENDPOINTS,
    MockProvider,
    Turn,
    encode,
    stream_of,
)

httpx = pytest.importorskip("httpx")
httpx2 = pytest.importorskip("httpx2")

LIBS = {"httpx": httpx, "httpx2": httpx2}
CALLS = [
    {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
    {"name": "search", "args": {"q": 'é ☃ "x"', "n": [1, 2]}, "id": "call_2"},
]
CHAT_URL = "http://test/v1/chat/completions"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def chat_tools(*names: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names]


def post(mock: MockProvider, url: str = CHAT_URL, body: Any = None, **kw: Any) -> Any:
    with httpx2.Client(transport=httpx2.MockTransport(mock)) as client:
        return client.post(url, json={"messages": []} if body is None else body, **kw)


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_the_body_arrives_in_the_streams_chunks(lib: str) -> None:
    http = LIBS[lib]
    stream = stream_of(CALLS, format="anthropic", as_="bytes")
    mock = MockProvider(stream)
    with http.Client(transport=http.MockTransport(mock)) as client:
        with client.stream("POST", "http://test/v1/messages", json={"messages": []}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            assert tuple(response.iter_raw()) == stream.items
    assert callstream.collect(stream.items).tool_calls == [
        {**c, "type": "tool_call"} for c in CALLS
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("lib", sorted(LIBS))
async def test_the_async_body_arrives_in_the_streams_chunks(lib: str) -> None:
    http = LIBS[lib]
    payloads = stream_of(CALLS, format="openai-chat", split="char")
    mock = MockProvider(payloads)
    async with http.AsyncClient(transport=http.MockTransport(mock)) as client:
        async with client.stream("POST", CHAT_URL, json={"messages": []}) as response:
            chunks = [chunk async for chunk in response.aiter_raw()]
    assert chunks == encode(payloads, "openai-chat")  # payloads are served as their SSE
    assert chunks[-1] == b"data: [DONE]\n\n"


def test_pace_pauses_between_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    stream = stream_of(CALLS[:1], format="openai-chat", split="whole")
    response = post(MockProvider(stream, pace=0.25))
    assert response.content == b"".join(encode(stream, "openai-chat"))
    assert slept == [0.25] * (len(encode(stream, "openai-chat")) - 1)


@pytest.mark.anyio
async def test_async_pace_sleeps_with_anyio(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(anyio, "sleep", sleep)
    stream = stream_of(CALLS[:1], format="ollama", split="whole")
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(MockProvider(stream, pace=0.5))
    ) as c:
        response = await c.post("http://test/api/chat", json={"messages": []})
    assert response.headers["content-type"] == "application/x-ndjson"
    assert [json.loads(line) for line in response.text.splitlines()] == list(stream)
    assert slept == [0.5] * (len(stream) - 1)


def test_turns_are_answered_in_order_then_an_error_names_the_script() -> None:
    mock = MockProvider(CALLS, "It is sunny.", format="openai-chat")
    first, second, third = (post(mock) for _ in range(3))
    assert callstream.collect([first.content]).tool_calls[1]["args"] == CALLS[1]["args"]
    assert callstream.collect([second.content]).text == "It is sunny."
    assert third.status_code == 404
    message = third.json()["error"]["message"]
    assert "request #2" in message and "all 2 scripted turns are answered" in message
    assert [r.turn for r in mock.requests] == [0, 1, None]
    assert mock.errors == [message] and mock.unanswered == ()


def test_a_request_to_another_path_gets_an_error_naming_the_endpoint() -> None:
    mock = MockProvider(stream_of(CALLS, format="anthropic"))
    response = post(mock, "http://test/v1/chat/completions")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    message = response.json()["error"]["message"]
    assert "(anthropic)" in message and "a path ending /v1/messages" in message
    assert mock.unanswered == (0,) and mock.requests[0].turn is None


def test_turns_match_the_tools_offered() -> None:
    weather = Turn(stream_of(CALLS[:1], format="openai-chat"), tools=["get_weather"])
    search = Turn(stream_of(CALLS[1:], format="openai-chat"), tools={"search", "get_weather"})
    mock = MockProvider(weather, search)
    both = post(mock, body={"messages": [], "tools": chat_tools("search", "get_weather")})
    assert callstream.collect([both.content]).tool_calls[0]["name"] == "search"
    other = post(mock, body={"messages": [], "tools": chat_tools("other")})
    assert other.status_code == 404
    assert (
        "offers tools ['other']; no turn left expects them (turn 0: ['get_weather'])"
        in (other.json()["error"]["message"])
    )
    one = post(mock, body={"messages": [], "tools": chat_tools("get_weather")})
    assert callstream.collect([one.content]).tool_calls[0]["name"] == "get_weather"
    assert [r.turn for r in mock.requests] == [1, None, 0]
    assert [r.tools for r in mock.requests] == [
        ("search", "get_weather"),
        ("other",),
        ("get_weather",),
    ]


def test_credentials_are_never_recorded() -> None:
    mock = MockProvider(stream_of(CALLS, format="gemini"))
    secrets = {
        "authorization": "Bearer sk-secret-1",
        "x-api-key": "secret-2",
        "api-key": "secret-3",
        "x-goog-api-key": "secret-4",
        "x-amz-security-token": "secret-5",
        "cookie": "session=secret-6",
    }
    url = "http://test/v1beta/models/m:streamGenerateContent?alt=sse&key=secret-7"
    assert post(mock, url, body={"contents": []}, headers=secrets).status_code == 200
    (seen,) = mock.requests
    assert seen.query == "alt=sse" and seen.path.endswith(":streamGenerateContent")
    assert not set(secrets) & set(seen.headers)
    assert "secret" not in repr(seen)
    assert seen.headers["content-type"] == "application/json"


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_a_dropped_stream_raises_the_clients_own_protocol_error(lib: str) -> None:
    http = LIBS[lib]
    stream = stream_of(CALLS, format="openai-chat", quirks=["dropped-connection"])
    mock = MockProvider(stream)
    got: list[bytes] = []
    with http.Client(transport=http.MockTransport(mock)) as client:
        with client.stream("POST", CHAT_URL, json={}) as response:
            with pytest.raises(http.RemoteProtocolError, match="dropped"):
                got.extend(response.iter_raw())
    assert got == encode(stream.items, "openai-chat")


@pytest.mark.anyio
@pytest.mark.parametrize("lib", sorted(LIBS))
async def test_a_dropped_stream_raises_once_in_an_async_client(lib: str) -> None:
    http = LIBS[lib]
    stream = stream_of(CALLS, format="openai-chat", quirks=["dropped-connection"])
    mock = MockProvider(stream)
    got: list[bytes] = []
    async with http.AsyncClient(transport=http.MockTransport(mock)) as client:
        async with client.stream("POST", CHAT_URL, json={}) as response:
            with pytest.raises(http.RemoteProtocolError, match="dropped"):
                async for chunk in response.aiter_raw():
                    got.append(chunk)
    assert got == encode(stream.items, "openai-chat")
    body = aiter(mock._bodies[0])  # the body read again: the error comes once, then the end
    assert [chunk async for chunk in _until_error(body)] == got
    with pytest.raises(StopAsyncIteration):
        await anext(body)


async def _until_error(body: Any) -> Any:
    while True:
        try:
            yield await anext(body)
        except Exception as exc:
            assert "dropped" in str(exc)
            return


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_closed_says_which_bodies_the_client_let_go(lib: str) -> None:
    http = LIBS[lib]
    stream = stream_of(CALLS, format="openai-chat", split="char", as_="bytes")
    mock = MockProvider(stream, stream)
    with http.Client(transport=http.MockTransport(mock)) as client:
        early = client.send(client.build_request("POST", CHAT_URL, json={}), stream=True)
        assert mock.closed == (False,)
        raw = early.iter_raw()
        next(raw)
        with client.stream("POST", CHAT_URL, json={}) as response:
            response.read()  # read to the end
        assert mock.closed == (False, True)
        early.close()  # let go part way
    assert mock.closed == (True, True)


@pytest.mark.anyio
async def test_closed_counts_async_bodies() -> None:
    mock = MockProvider(stream_of(CALLS, format="openai-chat", split="char"))
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(mock)) as client:
        async with client.stream("POST", CHAT_URL, json={}) as response:
            await response.aiter_raw().__anext__()
            assert mock.closed == (False,)
    assert mock.closed == (True,)


def test_a_body_that_is_not_json_is_refused_and_recorded() -> None:
    mock = MockProvider(stream_of(CALLS, format="openai-chat"))
    with httpx2.Client(transport=httpx2.MockTransport(mock)) as client:
        response = client.post(CHAT_URL, content=b"not json")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        "callstream MockProvider (openai-chat): request #0 (/v1/chat/completions): "
        "the request body is not JSON"
    )
    assert mock.requests[0].body == "not json" and mock.unanswered == (0,)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((), {}, ValueError, "at least one turn"),
        (("hello",), {}, ValueError, "give format="),
        (("hello",), {"format": "langchain"}, ValueError, "no HTTP endpoint for format"),
        (
            (stream_of(CALLS, format="anthropic"),),
            {"format": "openai-chat"},
            ValueError,
            "turn 0 is written in anthropic; this mock serves openai-chat",
        ),
        (
            (stream_of(CALLS, format="openai-chat", as_="lines"),),
            {},
            ValueError,
            "lost its chunk boundaries",
        ),
        ((stream_of(CALLS, format="openai-chat"),), {"pace": -1}, ValueError, "pace must be"),
        ((42,), {"format": "openai-chat"}, TypeError, "a turn is a WireStream"),
    ],
)
def test_misuse_raises_a_precise_error(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        MockProvider(*args, **kwargs)


def test_turn_misuse() -> None:
    with pytest.raises(TypeError, match="not the string"):
        Turn(stream_of(CALLS, format="anthropic"), tools="get_weather")
    with pytest.raises(TypeError, match="Turn takes a WireStream"):
        Turn(CALLS)  # type: ignore[arg-type]


# --- what each format's request carries ------------------------------------------------------

RESULTS = [
    ToolResult(
        index=0,
        id="call_1",
        name="get_weather",
        args=CALLS[0]["args"],
        status="done",
        output={"temp": 18},
    ),
    ToolResult(
        index=1, id="call_2", name="search", args=CALLS[1]["args"], status="done", output="found"
    ),
]
# where each format keeps its conversation, and its tool declarations
BODIES: dict[str, tuple[str, dict[str, Any]]] = {
    "openai-chat": ("messages", {"tools": chat_tools("get_weather", "search")}),
    "mistral": ("messages", {"tools": chat_tools("get_weather", "search")}),
    "cohere": ("messages", {"tools": chat_tools("get_weather", "search")}),
    "ollama": ("messages", {"tools": chat_tools("get_weather", "search")}),
    "openai-responses": (
        "input",
        {"tools": [{"type": "function", "name": "get_weather"}, {"type": "web_search"}]},
    ),
    "anthropic": ("messages", {"tools": [{"name": "get_weather"}, {"name": "search"}]}),
    "gemini": (
        "contents",
        {"tools": [{"functionDeclarations": [{"name": "get_weather"}, {"name": "search"}]}]},
    ),
    "bedrock": (
        "messages",
        {
            "toolConfig": {
                "tools": [{"toolSpec": {"name": "get_weather"}}, {"toolSpec": {"name": "search"}}]
            }
        },
    ),
}
TOOLS_SEEN = {"openai-responses": ("get_weather", "web_search")}


@pytest.mark.parametrize("fmt", sorted(BODIES))
def test_the_views_read_each_formats_tools_and_tool_results(fmt: str) -> None:
    key, extra = BODIES[fmt]
    sent = tool_messages(RESULTS, fmt)  # type: ignore[arg-type]
    mock = MockProvider(stream_of(CALLS, format=fmt))
    path = ENDPOINTS[fmt].replace("{modelId}", "m")
    response = post(mock, f"http://test/v1/x{path}", body={key: sent, **extra})
    assert response.status_code == 200, response.text
    (seen,) = mock.requests
    assert seen.messages == sent
    assert seen.tools == TOOLS_SEEN.get(fmt, ("get_weather", "search"))
    ids = [r.id for r in seen.tool_results]
    assert ids == ([None, None] if fmt == "ollama" else ["call_1", "call_2"])
    if fmt in ("ollama", "gemini"):
        assert [r.name for r in seen.tool_results] == ["get_weather", "search"]
    first, second = (json.dumps(r.content) for r in seen.tool_results)
    assert "temp" in first and "18" in first and "found" in second


def test_a_responses_input_string_is_one_user_message() -> None:
    mock = MockProvider(stream_of(CALLS, format="openai-responses"))
    post(mock, "http://test/v1/responses", body={"input": "hi"})
    assert mock.requests[0].messages == [{"role": "user", "content": "hi"}]
    assert mock.requests[0].tool_results == []


# --- error turns -----------------------------------------------------------------------------

#: the body each format's error turn writes for a 429 (the message is callstream's)
RATE_LIMITED = "callstream MockProvider: 429 Too Many Requests"
ERROR_BODIES = {
    "openai-chat": {
        "error": {
            "message": RATE_LIMITED,
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    },
    "anthropic": {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": RATE_LIMITED},
        "request_id": "req_callstream_mock",
    },
    "gemini": {"error": {"code": 429, "message": RATE_LIMITED, "status": "RESOURCE_EXHAUSTED"}},
    "bedrock": {"message": RATE_LIMITED},
    "ollama": {"error": RATE_LIMITED},
}


@pytest.mark.parametrize("fmt", sorted(ERROR_BODIES))
def test_an_error_turn_answers_in_the_formats_error_shape_then_the_next_turn_streams(
    fmt: str,
) -> None:
    stream = stream_of(CALLS, format=fmt)
    mock = MockProvider(Turn.error(429, headers={"Retry-After": "0"}), stream)
    url = "http://test" + ENDPOINTS[fmt].replace("{modelId}", "m").replace(":", "/m:")
    refused, answered = post(mock, url), post(mock, url)
    assert refused.status_code == 429 and refused.json() == ERROR_BODIES[fmt]
    assert refused.headers["retry-after"] == "0"
    assert refused.headers["content-type"] == "application/json"
    if fmt == "bedrock":
        assert refused.headers["x-amzn-errortype"] == "ThrottlingException"
    assert answered.status_code == 200
    assert answered.content == b"".join(encode(stream.items, fmt, "bytes"))
    assert [r.turn for r in mock.requests] == [0, 1] and mock.errors == []
    assert mock.unanswered == ()


def test_an_error_turn_takes_any_json_body_and_matches_tools() -> None:
    body = {"message": "too many tokens", "id": "e1"}
    mock = MockProvider(
        Turn.error(422, body, tools=["search"]),
        Turn.error(503, ["not", "an", "object"]),
        format="cohere",
    )
    url = "http://test/v2/chat"
    other = post(mock, url, body={"messages": [], "tools": chat_tools("get_weather")})
    first = post(mock, url, body={"messages": [], "tools": chat_tools("search")})
    assert (other.status_code, other.json()) == (503, ["not", "an", "object"])
    assert (first.status_code, first.json()) == (422, body)
    assert [r.turn for r in mock.requests] == [1, 0]
    assert mock.turns[0].status == 422 and mock.turns[0].stream is None
    overloaded = MockProvider(Turn.error(529), format="anthropic")
    assert post(overloaded, "http://test/v1/messages").json()["error"] == {
        "type": "overloaded_error",
        "message": "callstream MockProvider: 529 Overloaded",
    }


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: Turn.error(200), "from 400 to 599"),
        (lambda: Turn.error(600), "from 400 to 599"),
        (lambda: Turn.error(429.0), "from 400 to 599"),
        (lambda: Turn.error(429, {"x": float("nan")}), "body must be JSON"),
        (lambda: Turn.error(429, {"x": object()}), "body must be JSON"),
        (lambda: Turn.error(429, headers={"retry-after": 0}), "are strings"),
        (lambda: MockProvider(Turn.error(429), format="mistral"), "give one, Turn.error"),
        (lambda: MockProvider(Turn.error(429)), "give format="),
    ],
)
def test_error_turn_misuse(call: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
