"""Sync and async drivers: updates per payload, auto-detection, raw transport, closing and
cancelling the source, concurrent iteration, and sync/async parity on asyncio and trio."""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream._assembly.types import (
    ArgumentsDelta,
    CallDone,
    CallStarted,
    Signal,
    StreamEnd,
    StreamFinished,
)
from callstream._async import acollect, astream
from callstream._errors import ConcurrentIterationError, UnknownFormatError, UsageError
from callstream._pipeline import MAX_UNRECOGNIZED, Pipeline, StreamResult, StreamUpdate
from callstream._sync import collect, stream


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- our own small streams ------------------------------------------------------------------


def chat(*entries: dict[str, Any], finish: str | None = None, role: bool = False) -> dict[str, Any]:
    delta: dict[str, Any] = {"role": "assistant"} if role else {}
    if entries:
        delta["tool_calls"] = list(entries)
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def entry(
    index: int, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    return {"index": index, "id": id, "function": {"name": name, "arguments": args}}


CHAT = [
    chat(role=True),
    chat(entry(0, "call_1", "get_weather", "")),
    chat(entry(0, args='{"city": ')),
    chat(entry(0, args='"Paris"}')),
    chat(entry(1, "call_2", "get_time", '{"tz": "CET"}')),
    chat(finish="tool_calls"),
    {"object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 9}},
]

ANTHROPIC = [
    {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "Let me look."},
    },
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"city"'},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": ': "Oslo"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
    {"type": "message_stop"},
]

OUR_STREAMS = {"chat": CHAT, "anthropic": ANTHROPIC}


def sse(payloads: list[Any], *, events: bool = False) -> bytes:
    parts = []
    for p in payloads:
        head = f"event: {p['type']}\n" if events and "type" in p else ""
        parts.append(f"{head}data: {json.dumps(p, ensure_ascii=False)}\n\n")
    return "".join(parts).encode()


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def events_of(updates: list[StreamUpdate]) -> list[Any]:
    return [e for u in updates for e in u.events]


# --- sync driver ------------------------------------------------------------------------------


def test_one_update_per_payload_and_final_state() -> None:
    updates = list(stream(CHAT))
    assert len(updates) == len(CHAT)
    assert [u.payload for u in updates] == CHAT
    assert updates[0].events == () and updates[0].tool_calls == []
    kinds = [type(e).__name__ for e in events_of(updates)]
    assert kinds[0] == "CallStarted" and kinds[-1] == "StreamFinished"
    assert updates[-2].finish_reason == "tool_calls"
    assert updates[-2].tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"},
        {"name": "get_time", "args": {"tz": "CET"}, "id": "call_2", "type": "tool_call"},
    ]


def test_best_effort_tool_calls_grow_during_the_stream() -> None:
    updates = list(stream(CHAT))
    assert updates[2].tool_calls[0]["name"] == "get_weather"
    deltas = [e for e in events_of(updates) if isinstance(e, ArgumentsDelta)]
    assert "".join(d.text for d in deltas if d.index == 0) == '{"city": "Paris"}'


def test_collect_result() -> None:
    result = collect(CHAT)
    assert isinstance(result, StreamResult)
    assert [c["name"] for c in result.tool_calls] == ["get_weather", "get_time"]
    assert (
        result.finish_reason == "tool_calls"
        and result.provider == "openai-chat"
        and result.finished
    )


def test_stream_without_end_is_finished_by_the_driver() -> None:
    updates = list(stream(CHAT[:4]))
    assert updates[-1].payload is None
    assert updates[-1].events[-1] == StreamFinished(reason=None)
    assert updates[-1].tool_calls[0]["args"] == {"city": "Paris"}


def test_empty_stream_is_just_empty() -> None:
    updates = list(stream([]))
    assert [u.events for u in updates] == [(StreamFinished(reason=None),)]
    result = collect([])
    assert result.tool_calls == [] and result.invalid_tool_calls == [] and result.provider is None
    assert collect([b"", "", b"\n\n: keep-alive\n\n", "data: [DONE]\n\n"]).tool_calls == []


def test_unrecognized_first_payloads_are_held_then_replayed_in_order() -> None:
    odd = [{"keepalive": True}, {}]
    updates = list(stream([*odd, *CHAT]))
    assert [u.payload for u in updates] == [*odd, *CHAT]
    assert collect([*odd, *CHAT]) == collect(CHAT)


def test_unknown_format_raises_at_the_end() -> None:
    with pytest.raises(UnknownFormatError, match="keepalive") as info:
        collect([{"keepalive": True}, {"keepalive": False}])
    assert "provider=" in str(info.value)


def test_unknown_format_raises_early_after_many_payloads_and_closes_the_source() -> None:
    closed = []

    def source() -> Iterator[dict[str, Any]]:
        try:
            while True:
                yield {"x": 1}
        finally:
            closed.append(True)

    with pytest.raises(UnknownFormatError):
        collect(source())
    assert closed == [True]
    assert MAX_UNRECOGNIZED > 10


def test_explicit_provider_name_alias_and_translator_object() -> None:
    assert collect(CHAT, provider="openai-chat") == collect(CHAT)
    assert collect(CHAT, provider="groq").tool_calls == collect(CHAT).tool_calls
    assert (
        collect(ANTHROPIC, provider="anthropic-messages").tool_calls
        == collect(ANTHROPIC).tool_calls
    )

    class Mine:
        name = "mine"

        def translate(self, payload: Any) -> list[Signal]:
            return [
                {"name": payload["n"], "args": payload["a"], "id": None, "index": 0},
                StreamEnd(reason="done"),
            ]

    result = collect([{"n": "f", "a": '{"k": 1}'}], provider=Mine())
    assert result.tool_calls == [{"name": "f", "args": {"k": 1}, "id": None, "type": "tool_call"}]
    assert result.provider == "mine" and result.finish_reason == "done"


def test_bad_provider_and_bad_source_raise_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown format name 'nope'"):
        stream(CHAT, provider="nope")
    with pytest.raises(UsageError):
        stream(CHAT, provider=42)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="iterable"):
        stream({"choices": []})
    with pytest.raises(UsageError, match="iterable"):
        stream(5)  # type: ignore[arg-type]

    async def agen() -> AsyncIterator[int]:
        yield 1

    with pytest.raises(UsageError, match="astream"):
        stream(agen())  # type: ignore[arg-type]


def test_assembler_options_pass_through() -> None:
    # the drivers passing max_calls on; the limit itself: tests/assembly/test_options.py
    result = collect(CHAT, max_calls=1)
    assert [c["name"] for c in result.tool_calls] == ["get_weather"]
    assert [c["name"] for c in result.invalid_tool_calls] == ["get_time"]
    with pytest.raises(TypeError):
        stream(CHAT, no_such_option=1)


@pytest.mark.parametrize("size", [1, 3, 10, 100_000])
def test_raw_sse_bytes_in_any_chunking(size: int) -> None:
    for payloads, events in ((CHAT, False), (ANTHROPIC, True)):
        assert collect(pieces(sse(payloads, events=events), size)) == collect(payloads)


def test_raw_text_in_one_string_and_ndjson() -> None:
    assert collect(sse(ANTHROPIC).decode()) == collect(ANTHROPIC)
    ndjson = "".join(json.dumps(p) + "\n" for p in CHAT)
    assert collect([ndjson[:50], ndjson[50:]]) == collect(CHAT)


def test_updates_for_raw_chunks_carry_decoded_payloads() -> None:
    updates = list(stream(pieces(sse(CHAT), 7)))
    assert [u.payload for u in updates] == CHAT


def closing_source(payloads: list[Any], closed: list[bool]) -> Iterator[Any]:
    """Yields ``payloads``; appends True to ``closed`` once closed or exhausted."""
    try:
        yield from payloads
    finally:
        closed.append(True)


def test_breaking_out_closes_the_source() -> None:
    closed: list[bool] = []
    s = stream(closing_source(CHAT, closed))
    for update in s:
        if update.tool_calls:
            break
    s.close()
    assert closed == [True]
    assert s.tool_calls[0]["name"] == "get_weather"  # the partial result stays readable
    assert not s.result.finished


def test_with_block_closes_the_source_and_close_before_iteration() -> None:
    closed: list[bool] = []
    with stream(closing_source(CHAT, closed)) as s:
        next(s)
    assert closed == [True]
    gen = closing_source(CHAT, closed)
    next(gen)  # started, so closing it runs its finally
    stream(gen).close()
    assert closed == [True, True]


def test_dropping_the_stream_after_break_closes_the_source() -> None:
    closed: list[bool] = []
    for _ in stream(closing_source(CHAT, closed)):
        break
    assert closed == [True]


def test_concurrent_sync_iteration_is_refused() -> None:
    holder: list[Any] = []

    def source() -> Iterator[dict[str, Any]]:
        yield CHAT[0]
        next(holder[0])  # a second consumer while the first is inside next()
        yield CHAT[1]

    s = stream(source(), provider="openai-chat")  # "auto" holds the role chunk back
    holder.append(s)
    next(s)
    with pytest.raises(ConcurrentIterationError):
        next(s)


def test_source_error_propagates_and_partial_result_stays_readable() -> None:
    def source() -> Iterator[dict[str, Any]]:
        yield from CHAT[:3]
        raise ConnectionError("network down")

    s = stream(source())
    with pytest.raises(ConnectionError):
        for _ in s:
            pass
    # The call's arguments were cut off by the error: invalid, not a partial valid call.
    assert s.tool_calls == []
    assert s.invalid_tool_calls[0]["name"] == "get_weather"
    assert "interrupted" in s.invalid_tool_calls[0]["error"]
    assert not s.result.finished and s.result.interrupted


def test_pipeline_is_pure_and_refuses_use_after_close() -> None:
    pipeline = Pipeline()
    updates = [u for p in CHAT for u in pipeline.feed(p)]
    updates += pipeline.close()
    assert events_of(updates) == events_of(list(stream(CHAT)))
    with pytest.raises(UsageError):
        pipeline.feed(CHAT[0])
    with pytest.raises(UsageError):
        pipeline.close()


def test_signals_after_the_end_are_ignored() -> None:
    payloads = [*CHAT[:-1], chat(entry(2, "late", "g", "{}"), finish="stop"), CHAT[-1]]
    result = collect(payloads)
    assert [c["name"] for c in result.tool_calls] == ["get_weather", "get_time"]
    assert result.finish_reason == "tool_calls"


# --- async driver -------------------------------------------------------------------------------


async def agen_of(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        await anyio.lowlevel.checkpoint()
        yield item


#: The async loop's names for the sync loop's (what else may differ is async / await).
ASYNC_NAMES = {
    "AsyncUpdateRun": "UpdateRun",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "StopAsyncIteration": "StopIteration",
    "anext": "next",
    "aiterate": "iterate",
    "aclose": "close",
    "aclose_source": "close_source",
}


class _AsSync(ast.NodeTransformer):
    """The async loop's code read as sync: ``await x`` as ``x``, ``async def`` as ``def``,
    the async names as their sync ones; docstrings left out on both sides."""

    def visit_Await(self, node: ast.Await) -> ast.AST:
        return self.visit(node.value)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        plain = ast.FunctionDef(**{field: getattr(node, field) for field in node._fields})
        return self.visit_FunctionDef(ast.copy_location(plain, node))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = ASYNC_NAMES.get(node.name, node.name)
        return self._undocumented(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = ASYNC_NAMES.get(node.name, node.name)
        return self._undocumented(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = ASYNC_NAMES.get(node.id, node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        node.attr = ASYNC_NAMES.get(node.attr, node.attr)
        return self.generic_visit(node)

    def _undocumented(self, node: ast.FunctionDef | ast.ClassDef) -> ast.AST:
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            node.body = node.body[1:]
        return self.generic_visit(node)


def loop_code(source: str, name: str) -> str:
    """The code of class ``name`` in ``source``, read as sync, without docstrings."""
    tree = ast.parse(source)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return ast.unparse(_AsSync().visit(cls))


def test_the_sync_and_async_loops_differ_only_by_await() -> None:
    """``_drive.py``: ``AsyncUpdateRun`` is ``UpdateRun`` but for async / await and the
    async names, line for line (read from the source, whichever build runs)."""
    source = (Path(callstream.__file__).parent / "_drive.py").read_text(encoding="utf-8")
    sync, async_ = loop_code(source, "UpdateRun"), loop_code(source, "AsyncUpdateRun")
    diff = "\n".join(difflib.unified_diff(sync.splitlines(), async_.splitlines(), lineterm=""))
    assert sync == async_, f"the loops drifted apart:\n{diff}"


def test_the_loop_comparison_sees_a_difference() -> None:
    one = "class UpdateRun:\n    def f(self):\n        return next(self._items)\n"
    two = "class AsyncUpdateRun:\n    async def f(self):\n        return await anext(self._items)\n"
    assert loop_code(one, "UpdateRun") == loop_code(two, "AsyncUpdateRun")
    drifted = two.replace("return await", "self._at = 0\n        return await")
    assert loop_code(one, "UpdateRun") != loop_code(drifted, "AsyncUpdateRun")


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(OUR_STREAMS))
async def test_parity_sync_async_events(name: str) -> None:
    payloads = OUR_STREAMS[name]
    sync_updates = list(stream(payloads))
    async_updates = [u async for u in astream(agen_of(payloads))]
    assert async_updates == sync_updates
    assert events_of(async_updates) == events_of(sync_updates)
    raw = pieces(sse(payloads), 5)
    assert [u async for u in astream(agen_of(raw))] == list(stream(raw))
    assert await acollect(payloads) == collect(payloads)  # a sync iterable works too


@pytest.mark.anyio
async def test_async_partial_result_and_aclose_closes_source() -> None:
    closed = []

    async def source() -> AsyncIterator[dict[str, Any]]:
        try:
            for p in CHAT:
                yield p
        finally:
            closed.append(True)

    async with astream(source()) as s:
        async for update in s:
            if update.tool_calls:
                break
    assert closed == [True]
    assert s.tool_calls[0]["name"] == "get_weather"
    assert s.finish_reason is None


@pytest.mark.anyio
async def test_cancelling_the_consumer_closes_the_source_shielded() -> None:
    closed = []
    reached = anyio.Event()

    async def source() -> AsyncIterator[dict[str, Any]]:
        try:
            for p in CHAT[:3]:
                yield p
            await anyio.sleep_forever()
        finally:
            # Closing awaits; without the shield this checkpoint would be cancelled.
            await anyio.lowlevel.checkpoint()
            closed.append(True)

    holder: list[Any] = []

    async def consume() -> None:
        async with astream(source()) as s:
            holder.append(s)
            async for update in s:
                if update.tool_calls:
                    reached.set()
                    await anyio.sleep_forever()

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await reached.wait()
        tg.cancel_scope.cancel()
    assert closed == [True]
    assert holder[0].tool_calls[0]["name"] == "get_weather"


@pytest.mark.anyio
async def test_cancelling_while_waiting_for_the_source_closes_it() -> None:
    closed = []
    waiting = anyio.Event()

    async def source() -> AsyncIterator[dict[str, Any]]:
        try:
            yield CHAT[1]
            waiting.set()
            await anyio.sleep_forever()
            yield CHAT[2]
        finally:
            closed.append(True)

    s = astream(source())

    async def consume() -> None:
        async for _ in s:
            pass

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await waiting.wait()
        tg.cancel_scope.cancel()
    assert closed == [True]
    assert s.tool_calls == [
        {"name": "get_weather", "args": {}, "id": "call_1", "type": "tool_call"}
    ]


@pytest.mark.anyio
async def test_two_tasks_iterating_one_stream_get_an_error() -> None:
    gate = anyio.Event()
    started = anyio.Event()

    async def source() -> AsyncIterator[dict[str, Any]]:
        started.set()
        await gate.wait()
        for p in CHAT:
            yield p

    s = astream(source())
    errors: list[BaseException] = []

    async def first() -> None:
        async for _ in s:
            pass

    async def second() -> None:
        await started.wait()
        try:
            await s.__anext__()
        except ConcurrentIterationError as exc:
            errors.append(exc)
        gate.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(first)
        tg.start_soon(second)
    assert len(errors) == 1
    assert s.result.finished and len(s.tool_calls) == 2


class SelfIterator:
    """A sync source that is its own iterator and counts its closes."""

    def __init__(self, items: list[Any]) -> None:
        self._items = iter(items)
        self.closes = 0

    def __iter__(self) -> SelfIterator:
        return self

    def __next__(self) -> Any:
        return next(self._items)

    def close(self) -> None:
        self.closes += 1


@pytest.mark.anyio
async def test_a_source_that_is_its_own_iterator_is_closed_once() -> None:
    for how in ("end", "break"):
        sync_source, async_source = SelfIterator(CHAT), SelfIterator(CHAT)
        with stream(sync_source) as updates:
            for _ in updates:
                if how == "break":
                    break
        async with astream(async_source) as aupdates:  # read in the loop, closed as sync
            async for _ in aupdates:
                if how == "break":
                    break
        assert (sync_source.closes, async_source.closes) == (1, 1), how


class GeneratorSource:
    """A sync source whose iterator is a generator: both get closed."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def __iter__(self) -> Iterator[Any]:
        try:
            yield from CHAT
        finally:
            self.log.append("iterator closed")

    def close(self) -> None:
        self.log.append("source closed")


@pytest.mark.anyio
async def test_a_sync_source_and_its_iterator_are_closed_by_both_drivers() -> None:
    sync_source, async_source = GeneratorSource(), GeneratorSource()
    for _ in stream(sync_source):
        break
    async with astream(async_source) as updates:  # read in the loop, closed as sync
        async for _ in updates:
            break
    assert sync_source.log == async_source.log == ["iterator closed", "source closed"]


@pytest.mark.anyio
async def test_async_unknown_format_and_empty() -> None:
    with pytest.raises(UnknownFormatError):
        await acollect(agen_of([{"nothing": 1}]))
    result = await acollect(agen_of([]))
    assert result.tool_calls == [] and result.finished
    with pytest.raises(UsageError):
        astream(5)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_async_sync_source_yields_to_the_loop() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        await acollect(CHAT)
        seen = ticks
        tg.cancel_scope.cancel()
    assert seen > 0


def test_event_order_per_call() -> None:
    events = events_of(list(stream(ANTHROPIC)))
    per_call: dict[int, list[str]] = {}
    for e in events:
        if isinstance(e, (CallStarted, ArgumentsDelta, CallDone)):
            per_call.setdefault(e.index, []).append(type(e).__name__)
    for kinds in per_call.values():
        assert kinds[0] == "CallStarted" and kinds[-1] == "CallDone"
    assert isinstance(events[-1], StreamFinished)


# --- odd payloads never crash the translators written for this layer ------------------------

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "x", "0", "tool_calls"])
)
KEYS = [
    "choices",
    "delta",
    "message",
    "tool_calls",
    "function",
    "arguments",
    "name",
    "id",
    "index",
    "finish_reason",
    "error",
    "failed_generation",
    "code",
    "type",
    "output_index",
    "item",
    "item_id",
    "call_id",
    "delta",
    "response",
    "incomplete_details",
    "reason",
    "done",
    "done_reason",
    "custom",
]
junk = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=12,
)
RESPONSE_TYPES = [
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed",
    "response.incomplete",
    "response.failed",
    "error",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(junk, max_size=6), st.lists(st.sampled_from(RESPONSE_TYPES), min_size=6, max_size=6)
)
def test_junk_payloads_raise_nothing_but_the_foreign_payload_error(
    payloads: list[Any], types: list[str]
) -> None:
    shaped = [{"type": t, **p} if isinstance(p, dict) else p for t, p in zip(types, payloads)]
    for provider in ("openai-chat", "openai-responses", "ollama"):
        for batch in (payloads, shaped):
            try:
                result = collect(batch, provider=provider)
            except UnknownFormatError as exc:  # no payload of the format, or none at all
                assert "has a field of that format" in str(exc) or (
                    "decoded to no payload" in str(exc)  # junk strings are raw text
                )
            else:
                assert result.finished
