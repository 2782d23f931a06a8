"""The README's agent loops, run verbatim with the real openai and anthropic clients against
a local HTTP server that speaks each provider's streaming API.

The README marks three Python blocks with ``<!-- agent-loop: NAME -->``: ``tools`` (the
tools and a first run, which also runs offline in ``test_readme_blocks.py``), ``openai``
and ``anthropic`` (the loops, skipped there because they talk to an API). Each test
executes the ``tools`` block, then one loop, in one namespace, with ``OPENAI_BASE_URL`` /
``ANTHROPIC_BASE_URL`` pointing at ``callstream.testing.serve`` on 127.0.0.1 serving a
:class:`Script` (a ``MockProvider``) that answers the n-th request with the n-th turn
(turn 1: two parallel tool calls in a hand-written SSE stream; turn 2: the final text)
and records every request. A stream may *hold* part way until a tool has started: the
server waits (at most :data:`HOLD_SECONDS`) for the runner to report the first tool
started, which proves the tool ran while the model was still streaming.

Also here: the README's seal table checked against ``runner/_seal.py``, the loops with the
async clients (asyncio and trio), and a regression test for a bug found on the way (a
tool whose task had not begun when the run was left still ran).
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import callstream
from callstream.testing import MockProvider, Reply, WireStream, serve
from tests.docs.markdown_blocks import ROOT
from tests.docs.markdown_blocks import namespace as _namespace

README = ROOT / "docs" / "guides" / "tool-runner.md"
"""The tool runner's guide: it holds the agent loops and the seal rules (the README did)."""
MARKED = re.compile(
    r"<!-- agent-loop: (?P<name>[\w-]+) -->\n(?:<!-- (?:readme|docs)-test: skip \([^)]+\) -->\n)?"
    r"```python\n(?P<code>.*?)\n```",
    re.DOTALL,
)
HOLD_SECONDS = 20.0
"""How long a held stream waits for the first tool to start before going on (the test
then fails: the tool did not start while the model was streaming)."""


def readme_block(name: str) -> tuple[int, str]:
    """The README's Python block marked ``<!-- agent-loop: name -->`` (line, code)."""
    text = README.read_text(encoding="utf-8")
    found = [m for m in MARKED.finditer(text) if m.group("name") == name]
    assert len(found) == 1, f"the README has one block marked agent-loop: {name}"
    match = found[0]
    return text.count("\n", 0, match.start("code")), match.group("code")


def test_the_loops_are_skipped_by_the_readme_block_test_with_a_pointer_here() -> None:
    text = README.read_text(encoding="utf-8")
    for name in ("openai", "anthropic"):
        head = re.search(rf"<!-- agent-loop: {name} -->\n(?P<skip>[^\n]*)\n```python", text)
        assert head is not None
        assert "docs-test: skip" in head.group("skip")
        assert "tests/real_clients/test_runner_agent_loop.py" in head.group("skip")
    tools = re.search(r"<!-- agent-loop: tools -->\n```python", text)
    assert tools is not None, "the tools block runs offline too (no skip marker)"


def test_the_readme_seal_rules_name_what_the_sealer_reads() -> None:
    """The README's seal table names every event and option the seal rule's docstring
    names, and every finish reason that voids a turn (compared as the runner does)."""
    from callstream.runner import VOID_REASONS, _seal

    text = README.read_text(encoding="utf-8")
    start = text.index("## When a call is sealed")
    section = text[start : text.index("\n## ", start + 1)]
    assert _seal.__doc__ is not None
    for name in re.findall(r"``([^`]+)``", _seal.__doc__):
        assert name in section, f"the README's seal rules do not name {name}"
    for reason in VOID_REASONS:
        assert reason in section.lower(), f"the README does not say {reason!r} voids a turn"


# --- the scripted server -----------------------------------------------------------------------


class Hold:
    """A point in a scripted stream where the server waits for ``event`` (at most
    :data:`HOLD_SECONDS`) before sending the rest; ``released`` says whether it came."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.released: bool | None = None


Piece = bytes | Hold


class Script(MockProvider):
    """A :class:`MockProvider` answering the n-th request with ``turns[n]`` (for
    :func:`serve`): a list of raw chunks, which may hold part way (:class:`Hold`: the
    server waits before sending the chunks after it), or a text answer.

    The hold wraps the reply's chunks in a generator: ``serve`` writes them one by one
    as it iterates, so the wait falls between two chunks on the socket."""

    def __init__(self, format: str, *turns: list[Piece] | str) -> None:
        self.holds: dict[int, tuple[int, Hold]] = {}
        streams: list[WireStream | str] = []
        for n, turn in enumerate(turns):
            if isinstance(turn, str):
                streams.append(turn)
                continue
            chunks = [piece for piece in turn if isinstance(piece, bytes)]
            for at, piece in enumerate(turn):
                if isinstance(piece, Hold):
                    self.holds[n] = (at, piece)
            streams.append(WireStream(chunks, format))
        super().__init__(*streams, format=format)

    def respond(self, *request: Any) -> Reply:
        reply = super().respond(*request)
        turn = self.requests[-1].turn
        if turn not in self.holds:
            return reply
        return dataclasses.replace(reply, chunks=_held(reply.chunks, *self.holds[turn]))


def _held(chunks: tuple[bytes, ...], at: int, hold: Hold) -> Iterator[bytes]:
    """``chunks``, waiting for ``hold`` before the one at ``at``."""
    for n, chunk in enumerate(chunks):
        if n == at:
            hold.released = hold.event.wait(HOLD_SECONDS)
        yield chunk


# --- watching the runner: the first tool's start releases the held stream ---------------------


class Watch:
    """Everything the README's runners yield, and an event set when call 0's tool starts."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.first_started = threading.Event()


class _WatchedRun:
    def __init__(self, inner: Any, watch: Watch) -> None:
        self._inner = inner
        self._watch = watch

    def __enter__(self) -> _WatchedRun:
        self._inner.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._inner.__exit__(*exc_info)

    def __iter__(self) -> Iterator[Any]:
        for item in self._inner:
            self._watch.items.append(item)
            if isinstance(item, callstream.ToolStarted) and item.index == 0:
                self._watch.first_started.set()
            yield item

    @property
    def result(self) -> callstream.RunResult:
        result: callstream.RunResult = self._inner.result
        return result


def watch_runners(monkeypatch: pytest.MonkeyPatch, watch: Watch) -> None:
    """Make ``callstream.ToolRunner`` (as the README's blocks name it) report to ``watch``."""

    class WatchedRunner(callstream.ToolRunner):
        def stream(self, source: Any, **options: Any) -> Any:
            return _WatchedRun(super().stream(source, **options), watch)

        def run(self, source: Any, **options: Any) -> Any:  # run() = draining stream()
            with self.stream(source, **options) as items:
                for _ in items:
                    pass
            return items.result

    monkeypatch.setattr(callstream, "ToolRunner", WatchedRunner)


def run_readme_loop(
    name: str, monkeypatch: pytest.MonkeyPatch, watch: Watch | None = None
) -> dict[str, Any]:
    """Execute the README's tools block, then its ``name`` loop (its runners reporting to
    ``watch``); return the namespace."""
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    namespace = _namespace()
    for block in ("tools", name):
        if block == name and watch is not None:
            watch_runners(monkeypatch, watch)
        line, code = readme_block(block)
        exec(compile(code, f"README.md:{line}", "exec"), namespace)
    return namespace


# --- OpenAI Chat Completions -------------------------------------------------------------------


def chat_event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {
        "id": "chatcmpl-loop",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": "gpt-4.1-2025-04-14",
        "system_fingerprint": "fp_loop",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


def chat_call_start(index: int, call_id: str, name: str) -> bytes:
    return chat_event(
        {
            "tool_calls": [
                {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
            ]
        }
    )


def chat_args(index: int, text: str) -> bytes:
    return chat_event({"tool_calls": [{"index": index, "function": {"arguments": text}}]})


CHAT_DONE = b"data: [DONE]\n\n"
WEATHER = {"city": "Paris"}
RESTAURANTS = {"near": "Le Marais, Paris", "cuisine": ["bistro"], "max_price_eur": 40}
WEATHER_OUT = {"city": "Paris", "days": 1, "sky": "sunny", "high": 21}
RESTAURANTS_OUT = ["Chez Marcel (bistro, Le Marais, Paris)"]
ANSWER = "Sunny and 21°C in Paris; try Chez Marcel in the Marais."


def pieces_of(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def chat_tool_turn(hold: Hold | None) -> list[Piece]:
    """Two parallel calls; the stream holds once call 1's argument text has begun (call 1
    is announced, so call 0 is sealed under ``seal="next-call"``) until call 0's tool has
    started."""
    weather, restaurants = json.dumps(WEATHER), pieces_of(json.dumps(RESTAURANTS), 7)
    return [
        chat_event({"role": "assistant", "content": None, "refusal": None}),
        chat_call_start(0, "call_weather", "get_weather"),
        *(chat_args(0, part) for part in pieces_of(weather, 5)),
        chat_call_start(1, "call_food", "search_restaurants"),
        chat_args(1, restaurants[0]),
        *([hold] if hold is not None else []),
        *(chat_args(1, part) for part in restaurants[1:]),
        chat_event({}, "tool_calls"),
        CHAT_DONE,
    ]


def use_openai(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loop")
    for variable in ("OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_WEBHOOK_SECRET"):
        monkeypatch.delenv(variable, raising=False)


def test_readme_openai_loop_runs_tools_while_streaming_and_sends_results_back(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    watch = Watch()
    hold = Hold(watch.first_started)
    mock = Script("openai-chat", chat_tool_turn(hold), ANSWER)
    with serve(mock) as url:
        use_openai(monkeypatch, url)
        namespace = run_readme_loop("openai", monkeypatch, watch)

    # the loop ended with the model's final text
    assert namespace["text"] == ANSWER
    assert capsys.readouterr().out.rstrip().endswith(ANSWER)
    # call 0's tool started while the model was still streaming call 1
    assert hold.released is True, "get_weather did not start before the stream went on"
    started = [item for item in watch.items if isinstance(item, callstream.ToolStarted)]
    assert [(s.index, s.name, s.args, s.eager) for s in started] == [
        (0, "get_weather", WEATHER, True),
        (1, "search_restaurants", RESTAURANTS, False),
    ]
    # two requests, both to Chat Completions, streamed, with the tools' schemas
    assert [r.path for r in mock.requests] == ["/v1/chat/completions"] * 2
    first, second = (r.body for r in mock.requests)
    for body in (first, second):
        assert body["stream"] is True
        assert [tool["function"]["name"] for tool in body["tools"]] == [
            "get_weather",
            "search_restaurants",
        ]
        assert body["tools"][0] == callstream.to_openai_tool(namespace["get_weather"])
    user = {"role": "user", "content": "Weather in Paris, and a bistro in the Marais?"}
    assert first["messages"] == [user]
    # the second request: the assistant turn with both calls, then one tool message each
    user_again, assistant, *tool_messages = second["messages"]
    assert user_again == user
    assert assistant["role"] == "assistant"
    assert assistant.get("content") is None
    calls = assistant["tool_calls"]
    assert [(c["id"], c["type"], c["function"]["name"]) for c in calls] == [
        ("call_weather", "function", "get_weather"),
        ("call_food", "function", "search_restaurants"),
    ]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [WEATHER, RESTAURANTS]
    assert [(m["role"], m["tool_call_id"]) for m in tool_messages] == [
        ("tool", "call_weather"),
        ("tool", "call_food"),
    ]
    # the tools ran with the model's arguments: their outputs say so
    assert [json.loads(m["content"]) for m in tool_messages] == [WEATHER_OUT, RESTAURANTS_OUT]


def test_readme_openai_loop_sends_every_call_back_when_some_cannot_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A malformed call and a call failing validation still get an assistant entry and an
    error message each, with matching ids (the API refuses a tool message whose id is not
    in the assistant turn)."""
    pytest.importorskip("openai")
    bad_turn: list[Piece] = [
        chat_event({"role": "assistant", "content": None}),
        chat_call_start(0, "call_weather", "get_weather"),
        chat_args(0, '{"city": Par'),
        chat_args(0, 'is"}'),
        chat_call_start(1, "call_food", "search_restaurants"),
        chat_args(1, '{"near": "Le Marais"}'),
        chat_event({}, "tool_calls"),
        CHAT_DONE,
    ]
    mock = Script("openai-chat", bad_turn, ANSWER)
    with serve(mock) as url:
        use_openai(monkeypatch, url)
        namespace = run_readme_loop("openai", monkeypatch)
    assert namespace["text"] == ANSWER
    _, assistant, *tool_messages = mock.requests[1].body["messages"]
    calls = assistant["tool_calls"]
    assert [c["id"] for c in calls] == ["call_weather", "call_food"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_weather", "call_food"]
    assert json.loads(calls[0]["function"]["arguments"]) == {}  # it had no usable arguments
    assert json.loads(calls[1]["function"]["arguments"]) == {"near": "Le Marais"}
    assert tool_messages[0]["content"].startswith("Error: the call to get_weather could not")
    assert tool_messages[1]["content"].startswith("Error: invalid arguments for search_rest")
    assert "cuisine" in tool_messages[1]["content"]


# --- Anthropic Messages ------------------------------------------------------------------------


def anthropic_event(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def message_start() -> bytes:
    return anthropic_event(
        {
            "type": "message_start",
            "message": {
                "id": "msg_loop",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 412, "output_tokens": 1},
            },
        }
    )


def text_block(index: int, text: str) -> list[Piece]:
    return [
        anthropic_event(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            }
        ),
        *(
            anthropic_event(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": part},
                }
            )
            for part in pieces_of(text, 9)
        ),
        anthropic_event({"type": "content_block_stop", "index": index}),
    ]


def tool_block(index: int, call_id: str, name: str, text: str) -> list[Piece]:
    start = {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
    }
    deltas = ["", *pieces_of(text, 6)]
    return [
        anthropic_event(start),
        *(
            anthropic_event(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                }
            )
            for part in deltas
        ),
        anthropic_event({"type": "content_block_stop", "index": index}),
    ]


def message_end(reason: str) -> list[Piece]:
    return [
        anthropic_event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
                "usage": {"output_tokens": 87},
            }
        ),
        anthropic_event({"type": "message_stop"}),
    ]


PREAMBLE = "Let me look both up."


def anthropic_tool_turn(hold: Hold | None, weather: str, restaurants: str) -> list[Piece]:
    """A text block, then two tool_use blocks; the stream holds after call 0's
    ``content_block_stop`` (its seal) until call 0's tool has started."""
    return [
        message_start(),
        anthropic_event({"type": "ping"}),
        *text_block(0, PREAMBLE),
        *tool_block(1, "toolu_weather", "get_weather", weather),
        *([hold] if hold is not None else []),
        *tool_block(2, "toolu_food", "search_restaurants", restaurants),
        *message_end("tool_use"),
    ]


def use_anthropic(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-loop")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)


def test_readme_anthropic_loop_runs_tools_while_streaming_and_sends_results_back(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("anthropic")
    watch = Watch()
    hold = Hold(watch.first_started)
    turn = anthropic_tool_turn(hold, json.dumps(WEATHER), json.dumps(RESTAURANTS))
    mock = Script("anthropic", turn, ANSWER)
    with serve(mock) as url:
        use_anthropic(monkeypatch, url)
        namespace = run_readme_loop("anthropic", monkeypatch, watch)

    assert namespace["text"] == ANSWER
    assert capsys.readouterr().out.rstrip().endswith(ANSWER)
    # call 0's tool started at its content_block_stop, while call 1 was still to come
    assert hold.released is True, "get_weather did not start before the stream went on"
    started = [item for item in watch.items if isinstance(item, callstream.ToolStarted)]
    assert [(s.index, s.name, s.args, s.eager) for s in started] == [
        (0, "get_weather", WEATHER, True),
        (1, "search_restaurants", RESTAURANTS, True),
    ]
    assert [r.path for r in mock.requests] == ["/v1/messages"] * 2
    first, second = (r.body for r in mock.requests)
    for body in (first, second):
        assert body["stream"] is True
        assert body["tools"] == [
            callstream.to_anthropic_tool(namespace["get_weather"]),
            callstream.to_anthropic_tool(namespace["search_restaurants"]),
        ]
    user = {"role": "user", "content": "Weather in Paris, and a bistro in the Marais?"}
    assert first["messages"] == [user]
    # the second request: the assistant turn (text, then the tool_use blocks), then ONE
    # user message holding both tool_result blocks
    assert second["messages"][0] == user
    assert second["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": PREAMBLE},
            {"type": "tool_use", "id": "toolu_weather", "name": "get_weather", "input": WEATHER},
            {
                "type": "tool_use",
                "id": "toolu_food",
                "name": "search_restaurants",
                "input": RESTAURANTS,
            },
        ],
    }
    assert len(second["messages"]) == 3
    results = second["messages"][2]
    assert results["role"] == "user"
    blocks = results["content"]
    assert [(b["type"], b["tool_use_id"], b["is_error"]) for b in blocks] == [
        ("tool_result", "toolu_weather", False),
        ("tool_result", "toolu_food", False),
    ]
    assert [json.loads(b["content"]) for b in blocks] == [WEATHER_OUT, RESTAURANTS_OUT]


def test_readme_anthropic_loop_sends_every_call_back_when_some_cannot_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("anthropic")
    turn = anthropic_tool_turn(None, '{"city": Paris}', '{"near": "Le Marais"}')
    mock = Script("anthropic", turn, ANSWER)
    with serve(mock) as url:
        use_anthropic(monkeypatch, url)
        namespace = run_readme_loop("anthropic", monkeypatch)
    assert namespace["text"] == ANSWER
    assistant, results = mock.requests[1].body["messages"][1:]
    uses = [block for block in assistant["content"] if block["type"] == "tool_use"]
    assert [(u["id"], u["input"]) for u in uses] == [
        ("toolu_weather", {}),  # it had no usable arguments
        ("toolu_food", {"near": "Le Marais"}),
    ]
    blocks = results["content"]
    assert [(b["tool_use_id"], b["is_error"]) for b in blocks] == [
        ("toolu_weather", True),
        ("toolu_food", True),
    ]
    assert blocks[0]["content"].startswith("Error: the call to get_weather could not be used")
    assert blocks[1]["content"].startswith("Error: invalid arguments for search_restaurants")


# --- found while writing the loops ---------------------------------------------------------


def test_leaving_the_run_never_calls_a_tool_whose_task_had_not_begun() -> None:
    """The consumer leaves at the first update; the driver has already read the finish
    and scheduled the tool's task, which has not run yet: it must be cancelled before it
    calls the tool (``_turn``'s invariant), not run the tool's body."""
    import anyio

    ran: list[int] = []

    async def record(x: int) -> int:
        """Record the call."""
        ran.append(x)
        return x

    def payload(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return json.loads(chat_event(delta, finish)[len(b"data: ") :])  # type: ignore[no-any-return]

    async def source() -> Any:
        start = {"index": 0, "id": "c0", "type": "function"}
        yield payload(
            {"tool_calls": [{**start, "function": {"name": "record", "arguments": '{"x": 1}'}}]}
        )
        yield payload({}, "tool_calls")

    async def leave_at_once() -> callstream.RunResult:
        async with callstream.ToolRunner([record]).astream(source()) as run:
            async for _ in run:
                break
        return run.result

    result = anyio.run(leave_at_once, backend="asyncio")
    assert ran == []
    assert [r.status for r in result.results] == ["cancelled"]


# --- the async faces, as the README's sentence after the loops says -------------------------


async def _async_loop(provider: str) -> tuple[str, list[Any]]:
    """The README's loops with the async clients and ``runner.astream`` (the README
    describes them in one sentence: the same loop, awaited)."""
    import anthropic
    import openai

    def get_weather(city: str) -> str:
        """The weather."""
        return f"sunny in {city}"

    def search_restaurants(near: str, cuisine: list[str], max_price_eur: int) -> str:
        """Restaurants."""
        return f"{cuisine[0]} near {near}"

    tools = [get_weather, search_restaurants]
    runner = callstream.ToolRunner(tools, seal="next-call")
    messages: list[Any] = [{"role": "user", "content": "?"}]
    started: list[Any] = []
    while True:
        if provider == "openai":
            stream: Any = await openai.AsyncOpenAI().chat.completions.create(
                model="m",
                messages=messages,
                tools=[callstream.to_openai_tool(f) for f in tools],  # type: ignore[misc]
                stream=True,
            )
        else:
            stream = await anthropic.AsyncAnthropic().messages.create(
                model="m",
                max_tokens=100,
                messages=messages,
                tools=[callstream.to_anthropic_tool(f) for f in tools],  # type: ignore[misc]
                stream=True,
            )
        text = ""
        async with runner.astream(stream) as run:
            async for item in run:
                if isinstance(item, callstream.ToolStarted):
                    started.append(item)
                payload = getattr(item, "payload", None)
                if provider == "openai" and payload is not None and payload.choices:
                    text += payload.choices[0].delta.content or ""
                delta = getattr(payload, "delta", None)
                if getattr(delta, "type", None) == "text_delta":
                    text += delta.text  # type: ignore[union-attr]
        result = run.result
        if not result.results:
            return text, started
        if provider == "openai":
            calls = [
                {
                    "id": r.id,
                    "type": "function",
                    "function": {"name": r.name, "arguments": json.dumps(r.args or {})},
                }
                for r in result.results
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        else:
            uses = [
                {"type": "tool_use", "id": r.id, "name": r.name, "input": r.args or {}}
                for r in result.results
            ]
            messages.append({"role": "assistant", "content": uses})
        messages += result.tool_messages(provider)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_loops_with_the_async_clients(
    provider: str, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip(provider)
    if backend == "trio":
        pytest.importorskip("trio")
    import anyio

    if provider == "openai":
        turn = chat_tool_turn(None)
        mock = Script("openai-chat", turn, ANSWER)
    else:
        turn = anthropic_tool_turn(None, json.dumps(WEATHER), json.dumps(RESTAURANTS))
        mock = Script("anthropic", turn, ANSWER)
    with serve(mock) as url:
        if provider == "openai":
            use_openai(monkeypatch, url)
        else:
            use_anthropic(monkeypatch, url)
        text, started = anyio.run(_async_loop, provider, backend=backend)
    assert text == ANSWER
    # (trio may start two tools scheduled together in either order)
    assert sorted((s.index, s.name, s.args) for s in started) == [
        (0, "get_weather", WEATHER),
        (1, "search_restaurants", RESTAURANTS),
    ]
    results = mock.requests[1].body["messages"][2:]
    if provider == "openai":
        assert [(m["tool_call_id"], m["content"]) for m in results] == [
            ("call_weather", "sunny in Paris"),
            ("call_food", "bistro near Le Marais, Paris"),
        ]
    else:
        blocks = results[0]["content"]
        assert [(b["tool_use_id"], b["content"]) for b in blocks] == [
            ("toolu_weather", "sunny in Paris"),
            ("toolu_food", "bistro near Le Marais, Paris"),
        ]
