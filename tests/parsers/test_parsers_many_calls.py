"""Many calls through the output parsers: the result copies stay linear in the number
of calls (RESULT_COPY_FACTOR), held changes are shown later and never lost, and the
LangChain parser adds up no messages when nobody listens to its run.

Structural checks only (counts of work), no timings: timings are in
``tests/growth/test_growth_parsers.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream.parsers._shown  # where the copy budget is checked
from callstream.parsers import JsonToolsParser
from callstream.parsers._parsed_call import ParsedCall
from callstream.parsers._tools_parser import RESULT_COPY_FACTOR
from tests.parsers.test_parsers import chunks_for, consistent
from tests.support.strategies import json_objects, split_every, splits


def many_calls(n: int, size: int = 4) -> list[dict[str, Any]]:
    texts = [json.dumps({"a": i, "b": "x" * 8}) for i in range(n)]
    return chunks_for([("Small", f"c{i}", split_every(t, size)) for i, t in enumerate(texts)])


def final_of(results: list[list[ParsedCall[Any]]]) -> list[tuple[Any, ...]]:
    return [(c.index, c.name, c.id, c.status, c.args) for c in results[-1]]


def test_many_calls_copy_at_most_the_budget_and_end_complete() -> None:
    n = 3_000
    chunks = many_calls(n)
    session = JsonToolsParser().session(max_calls=None)  # no limit: tests/assembly/test_options.py
    copied = 0
    results = []
    for chunk in chunks:
        result = session.feed(chunk)
        if result is not None:
            assert None not in result  # never a placeholder for a call not shown yet
            copied += len(result)
            results.append(result)
    events = session._read
    final = session.close()
    assert final is not None
    results.append(final)
    # Without the budget each change gets its own full list: about 3 n^2 / 2 entries.
    assert copied <= RESULT_COPY_FACTOR * events
    assert len(final) == n
    assert [c.args for c in final] == [{"a": i, "b": "x" * 8} for i in range(n)]
    assert all(c.status == "valid" for c in final)
    # Results are held, not dropped: they keep coming while the calls stream.
    shown = {c.index for result in results[:-1] for c in result}
    assert len(shown) >= n * 9 // 10
    assert len(results) >= n // 4


def test_result_property_includes_held_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    # hold every change after the first
    monkeypatch.setattr(callstream.parsers._shown, "RESULT_COPY_FACTOR", 0)
    session = JsonToolsParser().session()
    outputs = [session.feed(chunk) for chunk in many_calls(3)]
    assert [o is not None for o in outputs].count(True) == 0
    current = session.result
    assert [c.index for c in current] == [0, 1, 2]
    assert current[2].args == {"a": 2, "b": "x" * 8}
    final = session.close()
    assert final is not None and [c.status for c in final] == ["valid"] * 3


def _reference(chunks: list[dict[str, Any]]) -> list[list[ParsedCall[Any]] | None]:
    session = JsonToolsParser().session()
    out: list[list[ParsedCall[Any]] | None] = [session.feed(c) for c in chunks]
    out.append(session.close())
    return out


@st.composite
def call_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    values = draw(st.lists(json_objects(max_leaves=6), min_size=1, max_size=6))
    how = draw(st.sampled_from(["whole", "chars", "random"]))
    calls: list[tuple[str, str | None, list[str]]] = []
    for number, value in enumerate(values):
        text = json.dumps(value)
        if how == "whole":
            parts = [text]
        elif how == "chars":
            parts = split_every(text, 1)
        else:
            parts = draw(splits(text))
        calls.append((f"t{number % 2}", f"id{number}", parts))
    return chunks_for(calls)


@settings(max_examples=60, deadline=None)
@given(chunks=call_streams(), factor=st.integers(min_value=0, max_value=3))
def test_held_results_are_at_least_as_new_as_the_unheld_ones(
    chunks: list[dict[str, Any]], factor: int
) -> None:
    """With a tiny budget, a result handed out after an item shows the same calls as the
    last result without a budget, each at least as far along (a held call is rebuilt
    when it is shown) and consistent with the final value; the final result is identical.
    """
    reference = _reference(chunks)
    saved = callstream.parsers._shown.RESULT_COPY_FACTOR
    setattr(callstream.parsers._shown, "RESULT_COPY_FACTOR", factor)
    try:
        session = JsonToolsParser().session()
        held = [session.feed(c) for c in chunks]
        held.append(session.close())
    finally:
        setattr(callstream.parsers._shown, "RESULT_COPY_FACTOR", saved)
    final = held[-1]
    assert final is not None
    assert final == next(r for r in reversed(reference) if r is not None)
    current: list[ParsedCall[Any]] | None = None
    for ours, theirs in zip(held, reference):
        current = theirs if theirs is not None else current
        if ours is None:
            continue
        assert current is not None
        assert [(c.index, c.name, c.id) for c in ours] == [(c.index, c.name, c.id) for c in current]
        for mine, unheld, last in zip(ours, current, final):
            assert consistent(unheld.args, mine.args)
            assert consistent(mine.args, last.args)


# --- the LangChain parser -------------------------------------------------------------------

langchain_core = pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk  # noqa: E402

from callstream.parsers.langchain import ToolCallsOutputParser  # noqa: E402

ADDITIONS = {"count": 0}


class CountingChunk(AIMessageChunk):
    """An AIMessageChunk that counts the additions made with it."""

    def __add__(self, other: Any) -> Any:
        ADDITIONS["count"] += 1
        return super().__add__(other)


def messages_for(n: int) -> list[AIMessageChunk]:
    out: list[AIMessageChunk] = [
        CountingChunk(content="", tool_call_chunks=[c])  # type: ignore[list-item]
        for c in many_calls(n)
    ]
    out.append(CountingChunk(content="", response_metadata={"finish_reason": "tool_calls"}))
    return out


def test_langchain_transform_without_callbacks_adds_no_messages() -> None:
    messages = messages_for(5)
    ADDITIONS["count"] = 0
    results = list(ToolCallsOutputParser().transform(iter(messages)))
    assert ADDITIONS["count"] == 0
    whole = AIMessage(content="", tool_calls=results[-1])
    assert ToolCallsOutputParser().invoke(whole) == results[-1]
    assert [c["args"] for c in results[-1]] == [{"a": i, "b": "x" * 8} for i in range(5)]


def test_langchain_transform_with_a_callback_reports_the_run_same_results() -> None:
    events: list[str] = []

    class Listener(BaseCallbackHandler):
        def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
            events.append("start")

        def on_chain_end(self, *args: Any, **kwargs: Any) -> None:
            events.append("end")

    messages = messages_for(4)
    plain = list(ToolCallsOutputParser().transform(iter(messages)))
    traced = list(ToolCallsOutputParser().transform(iter(messages), {"callbacks": [Listener()]}))
    assert traced == plain
    assert events == ["start", "end"]


async def _collect(parser: ToolCallsOutputParser, messages: list[AIMessageChunk]) -> list[Any]:
    async def source() -> Any:
        for message in messages:
            yield message

    return [r async for r in parser.atransform(source())]


def test_langchain_atransform_without_callbacks_adds_no_messages() -> None:
    import asyncio

    messages = messages_for(5)
    ADDITIONS["count"] = 0
    results = asyncio.run(_collect(ToolCallsOutputParser(), messages))
    assert ADDITIONS["count"] == 0
    assert results == list(ToolCallsOutputParser().transform(iter(messages)))


def test_langchain_many_calls_no_placeholder_and_all_calls_with_assembler_options() -> None:
    n = 1_500
    messages = messages_for(n)
    parser = ToolCallsOutputParser(assembler_options={"max_calls": None})  # no limit (as above)
    copied = 0
    results = []
    for result in parser.transform(iter(messages)):
        assert None not in result
        copied += len(result)
        results.append(result)
    assert len(results[-1]) == n
    assert all(c["type"] == "tool_call" for c in results[-1])
    # Each of the n calls brings at least 4 events (start, text, done...): the budget.
    assert copied <= RESULT_COPY_FACTOR * 8 * n
    default = list(ToolCallsOutputParser().transform(iter(messages)))[-1]
    assert len(default) == 1_001  # 1,000 calls and the one entry counting the refused
    assert default[-1]["type"] == "invalid_tool_call"
