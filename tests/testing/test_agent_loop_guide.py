"""The test of ``docs/guides/testing-an-agent.md``, as pytest runs it: a small agent loop
(the openai SDK streaming a turn, ``callstream.ToolRunner`` running the tools as their
calls seal, the results sent back, a second turn answering) against every case of the
formats the openai SDK reads (``openai-chat``, ``openai-responses``, ``mistral``): every
quirk they take, in every split, through the plugin's ``provider_mock`` fixture.

The agent is the guide's, word for word apart from the types; the test is the guide's
pytest block. For each case: the tools the stream keeps run with their arguments, the
calls it breaks come back to the model as error results, a failed or dropped turn stops
the agent before anything is sent back, and ``mock.requests[1].tool_results`` is exactly
what the agent sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import callstream
from callstream.testing import Case, MockProvider, cases, combinations, stream_of

openai = pytest.importorskip("openai")
httpx2 = pytest.importorskip("httpx2")

# --- the agent (the guide's my_agent.py) -------------------------------------------------


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"18°C in {city}"


def search(q: str, limit: int = 3) -> list[str]:
    """Search the web."""
    return [f"{q} #{n}" for n in range(1, limit + 1)]


TOOLS = [get_weather, search]
CHAT_TOOLS = [callstream.to_openai_tool(f) for f in TOOLS]
RESPONSES_TOOLS = [{"type": "function", **t["function"]} for t in CHAT_TOOLS]


def run_agent(
    client: Any,
    question: str,
    *,
    api: str = "chat",
    model: str = "gpt-4.1-mini",
    max_turns: int = 5,
) -> tuple[str, list[callstream.ToolResult]]:
    """Answer ``question``, running the tools the model calls: (answer, every ToolResult)."""
    runner = callstream.ToolRunner(TOOLS, seal="next-call")  # Chat marks no end per call
    history: list[Any] = [{"role": "user", "content": question}]
    results: list[callstream.ToolResult] = []
    for _ in range(max_turns):
        if api == "chat":
            stream = client.chat.completions.create(
                model=model, messages=history, tools=CHAT_TOOLS, stream=True
            )
        else:
            stream = client.responses.create(
                model=model, input=history, tools=RESPONSES_TOOLS, stream=True
            )
        turn = runner.run(stream)  # each tool starts once its call is sealed
        if turn.voided:
            raise RuntimeError(f"the model's turn failed ({turn.finish_reason})")
        if not turn.results:
            return turn.text, results
        results += turn.results
        calls = [(r.id, r.name, json.dumps(r.args or {})) for r in turn.results]
        if api == "chat":
            tool_calls = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                for i, n, a in calls
            ]
            history.append(
                {"role": "assistant", "content": turn.text or None, "tool_calls": tool_calls}
            )
            history += turn.tool_messages("openai")
        else:
            history += [
                {"type": "function_call", "call_id": i, "name": n, "arguments": a}
                for i, n, a in calls
            ]
            history += turn.tool_messages("openai-responses")
    raise RuntimeError(f"no answer after {max_turns} turns")


# --- the test (the guide's pytest block) -------------------------------------------------

CALLS = [
    {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
    {"name": "search", "args": {"q": "rain gear", "limit": 2}, "id": "call_2"},
]
ANSWER = "It is 18°C in Paris; pack a raincoat."
API = {"openai-chat": "chat", "mistral": "chat", "openai-responses": "responses"}
FAILING = {"provider-error", "dropped-connection"}


def client_for(mock: MockProvider) -> Any:
    http = httpx2.Client(transport=httpx2.MockTransport(mock))
    return openai.OpenAI(api_key="test", base_url="http://test/v1", http_client=http)


@pytest.mark.parametrize(("format", "quirks", "split"), cases(formats=list(API)))
def test_agent(
    provider_mock: Callable[..., MockProvider], format: str, quirks: tuple[str, ...], split: str
) -> None:
    stream = stream_of(CALLS, format=format, quirks=quirks, split=split)
    mock = provider_mock(stream, ANSWER)
    if FAILING & set(quirks):
        with pytest.raises((RuntimeError, openai.APIConnectionError)):
            run_agent(client_for(mock), "Weather in Paris?", api=API[format])
        assert len(mock.requests) == 1
        return
    answer, results = run_agent(client_for(mock), "Weather in Paris?", api=API[format])
    if "cumulative-arguments" in quirks:  # only a call sent in one piece stays JSON
        whole = {c["id"] for c in callstream.collect(stream).tool_calls}
        runs = [c for c in CALLS if c["id"] in whole]
    else:
        runs = CALLS[:1] if "token-limit" in quirks else CALLS
    assert answer == ANSWER
    assert [(r.name, r.args) for r in results if r.status == "done"] == [
        (c["name"], c["args"]) for c in runs
    ]
    assert [r.id for r in results if r.status == "error"] == [
        c["id"] for c in CALLS if c not in runs
    ]
    sent = mock.requests[1].tool_results
    assert [(t.id, t.content) for t in sent] == [(r.id, r.content) for r in results]
    # beyond the guide: what each tool returned is what the model got back
    check_outputs(sent, runs)
    assert mock.unanswered == () and mock.errors == []


def check_outputs(sent: Any, runs: list[dict[str, Any]]) -> None:
    """What each tool that ran returned reached the model under its call's id (the
    results are in call order, so with only the second call kept whole the first result
    is the first call's error: look them up by id, never by place)."""
    returned = {t.id: t.content for t in sent}
    if CALLS[0] in runs:
        assert returned["call_1"] == "18°C in Paris"
    if CALLS[1] in runs:
        assert json.loads(returned["call_2"]) == ["rain gear #1", "rain gear #2"]


#: the cases whose turn ends normally, in the random split (its places depend on the seed)
RANDOM_CASES = [
    c for c in combinations(formats=list(API), splits=["random"]) if not FAILING & set(c.quirks)
]


@settings(max_examples=25)
@example(case=Case("openai-chat", ("cumulative-arguments",), "random"), seed=12)
@example(case=Case("openai-chat", ("cumulative-arguments",), "random"), seed=165)
@given(case=st.sampled_from(RANDOM_CASES), seed=st.integers(0, 2**32 - 1))
def test_the_agent_runs_what_collect_keeps_for_any_seed(case: Case, seed: int) -> None:
    """For any seed of the random split, the tools that ran are the calls ``collect``
    keeps, and the calls it finds invalid went back to the model as errors. (Seed 12
    keeps only the second call whole under ``cumulative-arguments``, 165 both: the split
    the README's test command once failed on, one run in eleven.)"""
    stream = stream_of(CALLS, format=case.format, quirks=case.quirks, split="random", seed=seed)
    kept = callstream.collect(stream)
    mock = MockProvider(stream, ANSWER)
    answer, results = run_agent(client_for(mock), "Weather in Paris?", api=API[case.format])
    assert answer == ANSWER
    assert [(r.id, r.name, r.args) for r in results if r.status == "done"] == [
        (c["id"], c["name"], c["args"]) for c in kept.tool_calls
    ]
    assert sorted(r.id for r in results if r.status == "error") == sorted(
        c["id"] for c in kept.invalid_tool_calls
    )
    sent = mock.requests[1].tool_results
    assert [(t.id, t.content) for t in sent] == [(r.id, r.content) for r in results]
    ids = {c["id"] for c in kept.tool_calls}
    check_outputs(sent, [c for c in CALLS if c["id"] in ids])


def test_the_guide_covers_every_quirk_the_openai_formats_take() -> None:
    # the guide says "every quirk the three formats take, each in the four splits": 80 runs
    ids = [p.id for p in cases(formats=list(API))]
    assert len(ids) == 80 and "openai-chat-cumulative-arguments-whole" in ids
