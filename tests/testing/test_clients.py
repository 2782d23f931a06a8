"""The real SDK clients read what ``callstream.testing.MockProvider`` serves: openai (Chat
Completions, Responses, and Mistral's chunks), anthropic, google-genai (Gemini and
Vertex's ``partialArgs``), ollama, cohere, botocore's Bedrock (over the loopback server,
in AWS eventstream framing) and LangChain's ``ChatOpenAI`` / ``ChatAnthropic``; sync,
asyncio and trio where the client runs there.

For each: the calls the client assembles itself (where it does) and the calls
``callstream.collect`` reads from what the client yields both equal the calls given to
``stream_of``; the request recorded names the tools the client offered. Then one agent
loop over two scripted turns (calls, then text after the tool results).

How each client is pointed at the mock: openai 3 and anthropic 2 (and google-genai, which
takes either) send through ``httpx2``, so they get an ``httpx2`` client over
``httpx2.MockTransport(mock)``; ollama and cohere take an ``httpx`` transport or client;
botocore needs a socket (``serve``). ``ChatAnthropic`` has no client option: as in
``tests/real_clients/test_real_clients_langchain.py``, the SDK clients are stored in the
instance's ``__dict__``, where its cached properties look first.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import callstream
from callstream.testing import MockProvider, SentToolResult, Turn, serve, stream_of

httpx = pytest.importorskip("httpx")
httpx2 = pytest.importorskip("httpx2")

CALLS = [
    {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
    {"name": "search", "args": {"q": 'é ☃ "x"', "n": [1, 2.5, None]}, "id": "call_2"},
]
TEXT = "Let me check."
EXPECTED = [(c["name"], c["args"], c["id"]) for c in CALLS]
NAMES = ("get_weather", "search")
SCHEMA = {"type": "object", "properties": {}}
CHAT_TOOLS = [
    {"type": "function", "function": {"name": n, "description": n, "parameters": SCHEMA}}
    for n in NAMES
]
PROMPT = "Weather in Paris? And search."

Seen = list[tuple[Any, ...]]
"""The calls one client run saw: (name, args, id) each."""


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def calls_of(result: callstream.StreamResult) -> Seen:
    return [(c["name"], c["args"], c["id"]) for c in result.tool_calls]


# --- openai (Chat Completions, Responses) ----------------------------------------------------


def openai_client(mock: MockProvider, aio: bool = False) -> Any:
    openai = pytest.importorskip("openai")
    if aio:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(mock))
        return openai.AsyncOpenAI(
            api_key="sk-test", base_url="http://test/v1", http_client=http, max_retries=0
        )
    http = httpx2.Client(transport=httpx2.MockTransport(mock))
    return openai.OpenAI(
        api_key="sk-test", base_url="http://test/v1", http_client=http, max_retries=0
    )


def chat_calls(final: Any) -> Seen:
    calls = final.choices[0].message.tool_calls
    return [(c.function.name, json.loads(c.function.arguments), c.id) for c in calls]


def openai_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    request = {"model": "gpt-test", "messages": [{"role": "user", "content": PROMPT}]}
    with openai_client(mock).chat.completions.stream(**request, tools=CHAT_TOOLS) as stream:
        chunks = [event.chunk for event in stream if event.type == "chunk"]
        final = stream.get_final_completion()
    return chat_calls(final), callstream.collect(chunks)


async def aopenai_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    request = {"model": "gpt-test", "messages": [{"role": "user", "content": PROMPT}]}
    client = openai_client(mock, aio=True)
    async with client.chat.completions.stream(**request, tools=CHAT_TOOLS) as stream:
        chunks = [event.chunk async for event in stream if event.type == "chunk"]
        final = await stream.get_final_completion()
    return chat_calls(final), await callstream.acollect(chunks)


def mistral_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    # Mistral's calls come without index, which the SDK's stream helper cannot merge:
    # the raw stream only
    request = {"model": "mistral-test", "messages": [{"role": "user", "content": PROMPT}]}
    chunks = openai_client(mock).chat.completions.create(**request, tools=CHAT_TOOLS, stream=True)
    return [], callstream.collect(chunks)


async def amistral_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    request = {"model": "mistral-test", "messages": [{"role": "user", "content": PROMPT}]}
    client = openai_client(mock, aio=True)
    chunks = await client.chat.completions.create(**request, tools=CHAT_TOOLS, stream=True)
    return [], await callstream.acollect(chunks)


RESPONSES_TOOLS = [{"type": "function", "name": n, "parameters": SCHEMA} for n in NAMES]


def responses_calls(events: list[Any]) -> Seen:
    # the items the SDK parsed from ``response.output_item.done`` (its stream helper,
    # ``responses.stream``, is tested on its own below)
    return [
        (e.item.name, json.loads(e.item.arguments), e.item.call_id)
        for e in events
        if e.type == "response.output_item.done" and e.item.type == "function_call"
    ]


def openai_responses(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    client = openai_client(mock)
    events = list(
        client.responses.create(model="gpt-test", input=PROMPT, tools=RESPONSES_TOOLS, stream=True)
    )
    return responses_calls(events), callstream.collect(events)


async def aopenai_responses(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    client = openai_client(mock, aio=True)
    stream = await client.responses.create(
        model="gpt-test", input=PROMPT, tools=RESPONSES_TOOLS, stream=True
    )
    events = [event async for event in stream]
    return responses_calls(events), await callstream.acollect(events)


def test_the_responses_stream_helper_gives_the_text_and_the_final_response() -> None:
    # the helper builds its state from the content-part events and checks the items of
    # ``response.completed`` against the finished ones: both must be there, as the
    # real server sends them
    stream = stream_of(CALLS, format="openai-responses", text=TEXT, reasoning="Hmm.")
    mock = MockProvider(stream)
    request = {"model": "gpt-test", "input": PROMPT, "tools": RESPONSES_TOOLS}
    with openai_client(mock).responses.stream(**request) as events:
        deltas = [e.snapshot for e in events if e.type == "response.output_text.delta"]
        final = events.get_final_response()
    assert deltas == [TEXT] and final.output_text == TEXT
    assert [item.type for item in final.output] == [
        "reasoning",
        "message",
        "function_call",
        "function_call",
    ]
    assert final.output[0].summary[0].text == "Hmm."
    calls = [(o.name, json.loads(o.arguments), o.call_id) for o in final.output[2:]]
    assert calls == EXPECTED and final.status == "completed"


# --- anthropic -------------------------------------------------------------------------------

ANTHROPIC_TOOLS = [{"name": n, "description": n, "input_schema": SCHEMA} for n in NAMES]
ANTHROPIC_REQUEST: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": PROMPT}],
    "tools": ANTHROPIC_TOOLS,
}


def anthropic_client(mock: MockProvider, aio: bool = False) -> Any:
    anthropic = pytest.importorskip("anthropic")
    common: dict[str, Any] = {"api_key": "sk-test", "base_url": "http://test", "max_retries": 0}
    if aio:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(mock))
        return anthropic.AsyncAnthropic(http_client=http, **common)
    return anthropic.Anthropic(
        http_client=httpx2.Client(transport=httpx2.MockTransport(mock)), **common
    )


def blocks_calls(message: Any) -> Seen:
    return [(b.name, b.input, b.id) for b in message.content if b.type == "tool_use"]


def anthropic_messages(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    client = anthropic_client(mock)
    with client.messages.stream(**ANTHROPIC_REQUEST) as stream:
        final = stream.get_final_message()
    events = client.messages.create(**ANTHROPIC_REQUEST, stream=True)  # the second turn
    return blocks_calls(final), callstream.collect(events)


async def aanthropic_messages(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    client = anthropic_client(mock, aio=True)
    async with client.messages.stream(**ANTHROPIC_REQUEST) as stream:
        final = await stream.get_final_message()
    events = await client.messages.create(**ANTHROPIC_REQUEST, stream=True)
    return blocks_calls(final), await callstream.acollect(events)


# --- google-genai ----------------------------------------------------------------------------


def genai_client(mock: MockProvider, aio: bool = False) -> tuple[Any, Any]:
    genai = pytest.importorskip("google.genai")
    types = pytest.importorskip("google.genai.types")
    options = types.HttpOptions(
        base_url="http://test/",
        httpx_client=None if aio else httpx2.Client(transport=httpx2.MockTransport(mock)),
        httpx_async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(mock))
        if aio
        else None,
    )
    declarations = [types.FunctionDeclaration(name=n, description=n) for n in NAMES]
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])
    return genai.Client(api_key="test-key", http_options=options), config


def parts_calls(chunks: list[Any]) -> Seen:
    return [(f.name, f.args, f.id) for chunk in chunks for f in chunk.function_calls or ()]


def gemini(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    client, config = genai_client(mock)
    chunks = list(
        client.models.generate_content_stream(model="gemini-test", contents=PROMPT, config=config)
    )
    return parts_calls(chunks), callstream.collect(chunks)


async def agemini(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    client, config = genai_client(mock, aio=True)
    stream = await client.aio.models.generate_content_stream(
        model="gemini-test", contents=PROMPT, config=config
    )
    chunks = [chunk async for chunk in stream]
    return parts_calls(chunks), await callstream.acollect(chunks)


def vertex(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    # the SDK passes Vertex's partialArgs leaves through without joining them
    return [], gemini(mock)[1]


async def avertex(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    return [], (await agemini(mock))[1]


# --- ollama ----------------------------------------------------------------------------------


def ollama_calls(chunks: list[Any]) -> Seen:
    # the SDK's ToolCall keeps no id: the calls are compared by name and arguments
    found = [c for chunk in chunks for c in chunk.message.tool_calls or ()]
    return [(c.function.name, dict(c.function.arguments), None) for c in found]


def ollama_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    ollama = pytest.importorskip("ollama")
    client = ollama.Client(host="http://test", transport=httpx.MockTransport(mock))
    messages = [{"role": "user", "content": PROMPT}]
    chunks = list(client.chat(model="m", messages=messages, tools=CHAT_TOOLS, stream=True))
    return ollama_calls(chunks), callstream.collect(chunks)


async def aollama_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    ollama = pytest.importorskip("ollama")
    client = ollama.AsyncClient(host="http://test", transport=httpx.MockTransport(mock))
    messages = [{"role": "user", "content": PROMPT}]
    stream = await client.chat(model="m", messages=messages, tools=CHAT_TOOLS, stream=True)
    chunks = [chunk async for chunk in stream]
    return ollama_calls(chunks), await callstream.acollect(chunks)


# --- cohere ----------------------------------------------------------------------------------


def cohere_client(mock: MockProvider, aio: bool = False) -> Any:
    cohere = pytest.importorskip("cohere")
    if aio:
        http = httpx.AsyncClient(transport=httpx.MockTransport(mock))
        return cohere.AsyncClientV2(api_key="test", base_url="http://test", httpx_client=http)
    http = httpx.Client(transport=httpx.MockTransport(mock))
    return cohere.ClientV2(api_key="test", base_url="http://test", httpx_client=http)


def cohere_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    messages = [{"role": "user", "content": PROMPT}]
    events = list(
        cohere_client(mock).chat_stream(model="command-test", messages=messages, tools=CHAT_TOOLS)
    )
    return [], callstream.collect(events)


async def acohere_chat(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    messages = [{"role": "user", "content": PROMPT}]
    stream = cohere_client(mock, aio=True).chat_stream(
        model="command-test", messages=messages, tools=CHAT_TOOLS
    )
    events = [event async for event in stream]
    return [], await callstream.acollect(events)


# --- botocore's Bedrock, over the loopback server ---------------------------------------------


def bedrock_converse(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
    session = pytest.importorskip("botocore.session")
    specs = [{"toolSpec": {"name": n, "inputSchema": {"json": SCHEMA}}} for n in NAMES]
    with serve(mock) as base_url:
        client = session.get_session().create_client(
            "bedrock-runtime",
            endpoint_url=base_url,
            region_name="us-east-1",
            aws_access_key_id="AKIDEXAMPLE",
            aws_secret_access_key="secret-key",
        )
        reply = client.converse_stream(
            modelId="anthropic.claude-test:0",
            messages=[{"role": "user", "content": [{"text": PROMPT}]}],
            toolConfig={"tools": specs},
        )
        events = list(reply["stream"])
    return [], callstream.collect(events, provider="bedrock")


# --- LangChain -------------------------------------------------------------------------------


def chat_openai(mock: MockProvider) -> Any:
    langchain_openai = pytest.importorskip("langchain_openai")
    model = langchain_openai.ChatOpenAI(
        model="gpt-test",
        api_key="sk-test",
        base_url="http://test/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(mock)),
        http_async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(mock)),
        max_retries=0,
    )
    return model.bind_tools(CHAT_TOOLS)


def chat_anthropic(mock: MockProvider) -> Any:
    langchain_anthropic = pytest.importorskip("langchain_anthropic")
    model = langchain_anthropic.ChatAnthropic(
        model_name="claude-test", api_key="sk-test", base_url="http://test", max_retries=0
    )
    model.__dict__["_client"] = anthropic_client(mock)
    model.__dict__["_async_client"] = anthropic_client(mock, aio=True)
    return model.bind_tools(ANTHROPIC_TOOLS)


def langchain_seen(chunks: list[Any]) -> tuple[Seen, callstream.StreamResult]:
    whole = chunks[0]
    for chunk in chunks[1:]:
        whole = whole + chunk  # LangChain's own merge of tool_call_chunks
    return [(c["name"], c["args"], c["id"]) for c in whole.tool_calls], callstream.collect(chunks)


def langchain(build: Callable[[MockProvider], Any]) -> Callable[[MockProvider], Any]:
    def run(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
        return langchain_seen(list(build(mock).stream(PROMPT)))

    return run


def alangchain(build: Callable[[MockProvider], Any]) -> Callable[[MockProvider], Any]:
    async def run(mock: MockProvider) -> tuple[Seen, callstream.StreamResult]:
        chunks = [chunk async for chunk in build(mock).astream(PROMPT)]
        return langchain_seen(chunks)

    return run


# --- the table -------------------------------------------------------------------------------

Run = Callable[[MockProvider], tuple[Seen, callstream.StreamResult]]
ARun = Callable[[MockProvider], Awaitable[tuple[Seen, callstream.StreamResult]]]
#: name: (format, sync run, async run or None, runs under trio, requests per run)
CLIENTS: dict[str, tuple[str, Run, ARun | None, bool, int]] = {
    "openai-chat": ("openai-chat", openai_chat, aopenai_chat, True, 1),
    "openai-responses": ("openai-responses", openai_responses, aopenai_responses, True, 1),
    "anthropic": ("anthropic", anthropic_messages, aanthropic_messages, True, 2),
    "google-genai": ("gemini", gemini, agemini, True, 1),
    "google-genai-vertex": ("vertex", vertex, avertex, True, 1),
    "openai-mistral": ("mistral", mistral_chat, amistral_chat, True, 1),
    "ollama": ("ollama", ollama_chat, aollama_chat, True, 1),
    "cohere": ("cohere", cohere_chat, acohere_chat, True, 1),
    "botocore-bedrock": ("bedrock", bedrock_converse, None, False, 1),
    # LangChain does not run under trio (see test_real_clients_langchain.py's docstring)
    "langchain-ChatOpenAI": (
        "openai-chat",
        langchain(chat_openai),
        alangchain(chat_openai),
        False,
        1,
    ),
    "langchain-ChatAnthropic": (
        "anthropic",
        langchain(chat_anthropic),
        alangchain(chat_anthropic),
        False,
        1,
    ),
}


def scripted(name: str) -> MockProvider:
    fmt, *_, requests = CLIENTS[name]
    stream = stream_of(CALLS, format=fmt, text=TEXT)
    return MockProvider(*[stream] * requests)


def check(name: str, mock: MockProvider, seen: Seen, result: callstream.StreamResult) -> None:
    # the ollama SDK's ToolCall keeps no id: what it yields carries none
    expected = [(n, a, None) for n, a, _ in EXPECTED] if name == "ollama" else EXPECTED
    assert calls_of(result) == expected
    if seen:
        assert seen == expected
    assert result.text == TEXT
    assert not result.invalid_tool_calls and result.finished
    assert mock.errors == [] and mock.unanswered == ()
    assert all(request.tools == NAMES for request in mock.requests)


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_the_client_reads_the_served_stream(name: str) -> None:
    run = CLIENTS[name][1]
    mock = scripted(name)
    seen, result = run(mock)
    check(name, mock, seen, result)


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(n for n, c in CLIENTS.items() if c[2] is not None))
async def test_the_async_client_reads_the_served_stream(name: str, anyio_backend: str) -> None:
    _, _, arun, trio_too, _ = CLIENTS[name]
    if anyio_backend == "trio" and not trio_too:
        pytest.skip(f"{name} does not run under trio")
    assert arun is not None
    mock = scripted(name)
    seen, result = await arun(mock)
    check(name, mock, seen, result)


def test_a_request_no_turn_answers_is_an_error_each_client_raises() -> None:
    openai = pytest.importorskip("openai")
    ollama = pytest.importorskip("ollama")
    exceptions = pytest.importorskip("botocore.exceptions")
    mock = MockProvider("one answer", format="anthropic")
    with pytest.raises(openai.NotFoundError, match="expected a path ending /v1/messages"):
        openai_chat(mock)
    with pytest.raises(ollama.ResponseError, match="expected a path ending /v1/messages"):
        ollama_chat(mock)
    with pytest.raises(exceptions.ClientError, match="expected a path ending /v1/messages"):
        bedrock_converse(mock)
    assert len(mock.errors) == len(mock.requests) == 3 and mock.unanswered == (0,)


# --- error turns ---------------------------------------------------------------------------


def test_the_openai_client_retries_a_rate_limit_then_reads_the_stream() -> None:
    openai = pytest.importorskip("openai")
    # ``retry-after-ms``: the SDK waits that long (1 ms) before its retry
    limited = Turn.error(429, headers={"retry-after-ms": "1"})
    mock = MockProvider(limited, stream_of(CALLS, format="openai-chat", text=TEXT))
    http = httpx2.Client(transport=httpx2.MockTransport(mock))
    client = openai.OpenAI(
        api_key="sk-test", base_url="http://test/v1", http_client=http, max_retries=1
    )
    request = {"model": "gpt-test", "messages": [{"role": "user", "content": PROMPT}]}
    stream = client.chat.completions.create(**request, tools=CHAT_TOOLS, stream=True)
    result = callstream.collect(stream)
    assert calls_of(result) == EXPECTED and result.text == TEXT
    assert [r.turn for r in mock.requests] == [0, 1] and mock.unanswered == ()
    assert mock.requests[1].headers["x-stainless-retry-count"] == "1"
    no_retry = openai_client(MockProvider(Turn.error(429), format="openai-chat"))
    with pytest.raises(openai.RateLimitError) as raised:
        no_retry.chat.completions.create(**request, stream=True)
    assert raised.value.code == "rate_limit_exceeded" and raised.value.type == "requests"


def test_the_anthropic_client_raises_its_rate_limit_error() -> None:
    anthropic = pytest.importorskip("anthropic")
    mock = MockProvider(Turn.error(429, headers={"retry-after": "0"}), format="anthropic")
    with pytest.raises(anthropic.RateLimitError) as raised:
        anthropic_client(mock).messages.create(**ANTHROPIC_REQUEST, stream=True)
    assert raised.value.status_code == 429
    assert raised.value.body["error"]["type"] == "rate_limit_error"
    assert len(mock.requests) == 1 and mock.requests[0].tools == NAMES


# --- an agent loop over two scripted turns ---------------------------------------------------


def test_an_agent_loop_gets_the_calls_then_answers_after_the_tool_results() -> None:
    tools = {
        "get_weather": lambda city: f"18°C in {city}",
        "search": lambda q, n: {"hits": len(n), "q": q},
    }
    mock = MockProvider(
        stream_of(CALLS, format="openai-chat", split="char"),
        "Paris is at 18°C.",
        format="openai-chat",
        pace=0.001,
    )
    client = openai_client(mock)
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(3):
        stream = client.chat.completions.create(
            model="gpt-test", messages=messages, tools=CHAT_TOOLS, stream=True
        )
        result = callstream.collect(stream)
        if not result.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
                    }
                    for c in result.tool_calls
                ],
            }
        )
        for call in result.tool_calls:
            output = tools[call["name"]](**call["args"])
            content = output if isinstance(output, str) else json.dumps(output)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    assert result.text == "Paris is at 18°C." and not result.tool_calls
    first, second = mock.requests
    assert first.tool_results == [] and first.tools == NAMES
    assert second.tool_results == [
        SentToolResult("call_1", None, "18°C in Paris"),
        SentToolResult("call_2", None, json.dumps({"hits": 3, "q": 'é ☃ "x"'})),
    ]
    assert [m["role"] for m in second.messages] == ["user", "assistant", "tool", "tool"]
    assert mock.unanswered == () and mock.errors == []
