"""Interrupted streams (``ToolCallAssembler.interrupt`` and the drivers calling it when
the source raises), ``StreamUpdate.snapshot`` and the drivers' option checks: whole,
one character at a time and in random splits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anthropic
import anyio.lowlevel
import httpx
import httpx2
import openai
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

import callstream
from callstream import ToolCallAssembler
from callstream._assembly.types import StreamFinished
from callstream._errors import AssemblerStateError, ChunkValidationError, OptionTypeError
from callstream._result import (
    INTERRUPTION_CLASSES,
    INTERRUPTION_NAMES,
    INTERRUPTIONS,
    is_interruption,
)
from callstream.testing import StreamDropped
from tests.support.paths import ROOT
from tests.support.strategies import json_objects, split_every, splits

INTERRUPTED = "the stream was interrupted before the call completed (ConnectionError: gone)"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- the assembler method --------------------------------------------------------------------


def test_interrupt_keeps_complete_calls_and_invalidates_the_others() -> None:
    asm = ToolCallAssembler()
    asm.feed({"index": 0, "id": "a", "name": "done", "args": '{"x": 1}'})
    asm.feed({"index": 1, "id": "b", "name": "cut", "args": '{"city": "Edin'})
    asm.feed({"index": 2, "id": "c", "name": "empty"})
    asm.feed({"index": 3, "id": "d", "args": '{"y": 2}'})  # never named
    asm.feed({"index": 4, "id": "e", "name": "array", "args": "[1, 2]"})
    asm.feed({"index": 5, "id": "f", "name": "ended", "args": "{"})
    asm.end_call(index=5)  # already invalid ("cut off"): keeps its own verdict
    events = asm.interrupt("ConnectionError: gone")
    assert asm.finished and asm.finish_reason is None
    assert events[-1] == StreamFinished(reason=None)
    assert asm.tool_calls == [{"name": "done", "args": {"x": 1}, "id": "a", "type": "tool_call"}]
    errors = {c["id"]: c["error"] for c in asm.invalid_tool_calls}
    assert errors["b"] == errors["c"] == errors["d"] == INTERRUPTED
    assert errors["e"] == "arguments must be a JSON object, got array"
    assert errors["f"].startswith("arguments were cut off")
    assert {c["id"]: c["args"] for c in asm.invalid_tool_calls}["b"] == '{"city": "Edin'
    kinds = [(type(e).__name__, getattr(e, "index", None)) for e in events]
    assert ("CallDone", 0) in kinds and ("CallInvalid", 1) in kinds
    assert ("CallInvalid", 3) in kinds and ("CallStarted", 3) not in kinds  # nameless


def test_interrupt_is_the_end() -> None:
    asm = ToolCallAssembler()
    assert asm.interrupt("gone") == [StreamFinished(reason=None)]
    for again in (lambda: asm.interrupt("again"), lambda: asm.finish(None)):
        with pytest.raises(AssemblerStateError):
            again()
    finished = ToolCallAssembler()
    finished.finish("stop")
    with pytest.raises(AssemblerStateError):
        finished.interrupt("late")
    with pytest.raises(ChunkValidationError):
        ToolCallAssembler().interrupt(ConnectionError("x"))  # type: ignore[arg-type]


def test_interrupt_events_keep_the_per_call_order() -> None:
    asm = ToolCallAssembler()
    events = asm.feed({"index": 0, "name": "f", "args": '{"a": '})
    events += asm.interrupt("gone")
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["CallStarted", "ArgumentsDelta", "CallInvalid", "StreamFinished"]


# --- the drivers, with random cuts and splits ------------------------------------------------


def chat_payloads(calls: list[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    """Chat Completions chunks: each call's header, then its argument pieces."""
    out: list[dict[str, Any]] = []
    for i, (name, pieces) in enumerate(calls):
        head = {"index": i, "id": f"call_{i}", "function": {"name": name, "arguments": ""}}
        out.append(
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"tool_calls": [head]}}],
            }
        )
        for piece in pieces:
            entry = {"index": i, "function": {"arguments": piece}}
            out.append(
                {
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {"tool_calls": [entry]}}],
                }
            )
    return out


def failing(payloads: list[Any], error: Exception) -> Iterator[Any]:
    yield from payloads
    raise error


def expected_after_cut(
    calls: list[tuple[str, list[str]]], values: list[dict[str, Any]], cut: int
) -> tuple[list[tuple[str, Any]], list[tuple[str, str]]]:
    """(valid (name, args), invalid (name, raw text)) after the first ``cut`` payloads."""
    valid: list[tuple[str, Any]] = []
    invalid: list[tuple[str, str]] = []
    left = cut
    for (name, pieces), value in zip(calls, values):
        if left <= 0:
            break
        left -= 1
        taken = pieces[: max(left, 0)]
        left -= len(pieces)
        text = "".join(taken)
        if text == "".join(pieces):
            valid.append((name, value))
        else:
            invalid.append((name, text))
    return valid, invalid


def check(result: callstream.StreamResult, expected: Any) -> None:
    valid, invalid = expected
    assert [(c["name"], c["args"]) for c in result.tool_calls] == valid
    assert [(c["name"], c["args"] or "") for c in result.invalid_tool_calls] == invalid
    assert all(c["error"] == INTERRUPTED for c in result.invalid_tool_calls)
    assert result.interrupted and not result.finished and result.finish_reason is None


@st.composite
def cut_streams(draw: st.DrawFn) -> tuple[Any, ...]:
    values = draw(st.lists(json_objects(max_leaves=8), min_size=1, max_size=3))
    mode = draw(st.sampled_from(["whole", "chars", "random"]))
    calls = []
    for n, value in enumerate(values):
        text = json.dumps(value, ensure_ascii=draw(st.booleans()))
        if mode == "whole":
            pieces = [text]
        elif mode == "chars":
            pieces = split_every(text, 1)
        else:
            pieces = [p for p in draw(splits(text)) if p]
        calls.append((f"tool_{n}", pieces))
    payloads = chat_payloads(calls)
    cut = draw(st.integers(min_value=0, max_value=len(payloads)))
    return calls, values, payloads, cut


@settings(max_examples=150, deadline=None)
@given(cut_streams())
def test_a_source_error_at_any_point_keeps_only_complete_calls(case: tuple[Any, ...]) -> None:
    calls, values, payloads, cut = case
    expected = expected_after_cut(calls, values, cut)
    error = ConnectionError("gone")
    with pytest.raises(ConnectionError) as info:
        callstream.collect(failing(payloads[:cut], error))
    assert info.value is error
    check(info.value.callstream_result, expected)  # type: ignore[attr-defined]
    updates = callstream.stream(failing(payloads[:cut], ConnectionError("gone")))
    seen = []
    with pytest.raises(ConnectionError):
        for update in updates:
            seen.append(update)
    check(updates.result, expected)
    assert updates.result == info.value.callstream_result  # type: ignore[attr-defined]


async def afailing(payloads: list[Any], error: Exception) -> AsyncIterator[Any]:
    for payload in payloads:
        await anyio.lowlevel.checkpoint()
        yield payload
    raise error


@pytest.mark.anyio
async def test_async_source_error_keeps_only_complete_calls() -> None:
    calls = [("a", ['{"x": ', "1}"]), ("b", ['{"city": "Edin', 'burgh"}'])]
    values = [{"x": 1}, {"city": "Edinburgh"}]
    payloads = chat_payloads(calls)
    for cut in range(len(payloads) + 1):
        expected = expected_after_cut(calls, values, cut)
        with pytest.raises(ConnectionError) as info:
            await callstream.acollect(afailing(payloads[:cut], ConnectionError("gone")))
        check(info.value.callstream_result, expected)  # type: ignore[attr-defined]
        s = callstream.astream(afailing(payloads[:cut], ConnectionError("gone")))
        with pytest.raises(ConnectionError):
            async for _ in s:
                pass
        check(s.result, expected)


def test_errors_after_the_end_keep_the_final_verdicts() -> None:
    calls = [("a", ['{"x": 1}'])]
    payloads = [
        *chat_payloads(calls),
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
    ]
    with pytest.raises(ConnectionError) as info:
        callstream.collect(failing(payloads, ConnectionError("gone")))
    result = info.value.callstream_result  # type: ignore[attr-defined]
    assert [c["args"] for c in result.tool_calls] == [{"x": 1}]
    assert result.finish_reason == "tool_calls" and result.interrupted and not result.finished


def _text_chunk(text: str) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}}],
    }


@pytest.mark.parametrize("foreign", [0, 40])
def test_payloads_held_to_choose_the_format_are_in_the_partial_result(foreign: int) -> None:
    """Two text chunks are too few to choose the format; an error after them keeps their
    text (read in the format they looked like), and a run of foreign payloads among the
    held ones does not turn the source's error into a format error."""
    payloads = [_text_chunk("Hel"), *({"ping": n} for n in range(foreign)), _text_chunk("lo")]
    error = ConnectionError("gone")
    with pytest.raises(ConnectionError) as info:
        callstream.collect(failing(payloads, error))
    assert info.value is error
    result = info.value.callstream_result  # type: ignore[attr-defined]
    assert (result.text, result.provider, result.interrupted) == ("Hello", "openai-chat", True)
    s = callstream.stream(failing(payloads, ConnectionError("gone")))
    with pytest.raises(ConnectionError):
        for _ in s:
            pass
    assert s.result == result


def _limited(read: list[int]) -> Iterator[bytes]:
    """A chunk holding a payload and then a line over the limit; reading on is a bug."""
    read.append(1)
    yield b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n\n:' + b"x" * 300
    read.append(2)
    raise AssertionError("read past a limit error")


@pytest.mark.anyio
async def test_drivers_stop_reading_at_a_limit_error_after_payloads() -> None:
    read: list[int] = []
    with pytest.raises(callstream.StreamLimitError) as info:
        callstream.collect(_limited(read), max_event_chars=100)
    assert read == [1]
    assert info.value.callstream_result.text == "Hi"  # type: ignore[attr-defined]
    read = []
    with callstream.stream(_limited(read), max_event_chars=100) as updates:
        with pytest.raises(callstream.StreamLimitError):
            assert next(updates).text == "Hi"
            next(updates)
    assert read == [1] and updates.result.interrupted
    read = []
    with pytest.raises(callstream.StreamLimitError):
        await callstream.acollect(_limited(read), max_event_chars=100)
    assert read == [1]
    read = []
    async with callstream.astream(_limited(read), max_event_chars=100) as s:
        with pytest.raises(callstream.StreamLimitError):
            async for update in s:
                assert update.text == "Hi"
    assert read == [1] and s.result.text == "Hi" and s.result.interrupted


def test_consumer_errors_and_our_own_errors_are_not_interruptions() -> None:
    payloads = chat_payloads([("a", ['{"x": '])])
    s = callstream.stream(payloads)
    with pytest.raises(KeyError):
        for _ in s:
            raise KeyError("consumer")
    assert not s.result.interrupted and s.tool_calls[0]["name"] == "a"
    with pytest.raises(callstream.UnknownFormatError) as info:
        callstream.collect([{"x": 1}])
    assert not hasattr(info.value, "callstream_result")


# --- which exceptions are interruptions (callstream._result.is_interruption) -------------------


def _named(package: str, *names: str) -> Exception:
    """An exception whose classes (subclass first) are defined in ``package``: what an SDK
    that is not installed raises, recognized by name and package alone."""
    base: type[Exception] = Exception
    for name in reversed(names):
        base = type(name, (base,), {"__module__": package})
    return base("gone")


def _httpx_error(module: Any) -> Exception:
    return module.RemoteProtocolError("peer closed connection")  # type: ignore[no-any-return]


#: (id, a fresh exception, whether it is an interruption)
SOURCE_ERRORS: list[tuple[str, Callable[[], Exception], bool]] = [
    ("ConnectionResetError", lambda: ConnectionResetError("reset"), True),
    ("TimeoutError", lambda: TimeoutError("read timed out"), True),
    ("IncompleteReadError", lambda: asyncio.IncompleteReadError(b"", 10), True),
    ("StreamDropped", lambda: StreamDropped("the server went away"), True),
    ("httpx", lambda: _httpx_error(httpx), True),
    ("httpx2", lambda: _httpx_error(httpx2), True),
    ("httpx-timeout", lambda: httpx.ReadTimeout("slow"), True),
    ("anyio", anyio.EndOfStream, True),
    ("anyio-broken", anyio.BrokenResourceError, True),
    ("trio", trio.BrokenResourceError, True),
    ("openai", lambda: openai.APIConnectionError(request=httpx.Request("GET", "http://x")), True),
    (
        "anthropic",
        lambda: anthropic.APIConnectionError(request=httpx.Request("GET", "http://x")),
        True,
    ),
    (
        "aiohttp",
        lambda: _named(
            "aiohttp.client_exceptions", "ServerDisconnectedError", "ClientConnectionError"
        ),
        True,
    ),
    (
        "some-sdk",
        lambda: _named("some_sdk._exceptions", "APITimeoutError", "APIConnectionError"),
        True,
    ),
    ("StreamLimitError", lambda: callstream.StreamLimitError("too long"), True),
    ("KeyError", lambda: KeyError("choices"), False),
    ("ValueError", lambda: ValueError("Unable to parse tool parameter JSON"), False),
    ("RuntimeError", lambda: RuntimeError("bug"), False),
    ("TypeError", lambda: TypeError("bug"), False),
    ("httpx-StreamClosed", httpx.StreamClosed, False),
    ("anyio-Closed", anyio.ClosedResourceError, False),
    ("own", lambda: _named("myapp.errors", "TransportError"), False),  # a name, not its package
]

_CUT = [("a", ['{"x": ', "1}"]), ("b", ['{"city": "Edin'])]  # a complete call, a cut one


def _check_ending(result: callstream.StreamResult, error: Exception, interruption: bool) -> None:
    """Either way the stream ends and no call is lost; only an interruption says so."""
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [("a", {"x": 1})]
    [cut] = result.invalid_tool_calls
    assert cut["name"] == "b" and cut["args"] == '{"city": "Edin'
    cause = f"{type(error).__qualname__}" if interruption else "the source raised "
    assert cut["error"].startswith(f"the stream was interrupted before the call completed ({cause}")
    assert result.interrupted is interruption
    assert not result.finished and result.finish_reason is None


def _noted(error: Exception) -> bool:
    return any("stream was interrupted" in note for note in getattr(error, "__notes__", ()))


@pytest.mark.parametrize(
    ("make", "interruption"), [c[1:] for c in SOURCE_ERRORS], ids=[c[0] for c in SOURCE_ERRORS]
)
def test_only_an_interruption_is_reported_as_one(
    make: Callable[[], Exception], interruption: bool
) -> None:
    assert is_interruption(make()) is interruption
    payloads = chat_payloads(_CUT)
    error = make()
    with pytest.raises(type(error)) as info:
        callstream.collect(failing(payloads, error))
    assert info.value is error and _noted(error) is interruption
    _check_ending(error.callstream_result, error, interruption)  # type: ignore[attr-defined]
    error = make()
    with callstream.stream(failing(payloads, error)) as updates:
        with pytest.raises(type(error)):
            for _ in updates:
                pass
    assert not _noted(error)  # stream() leaves the exception as it is
    _check_ending(updates.result, error, interruption)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("make", "interruption"), [c[1:] for c in SOURCE_ERRORS], ids=[c[0] for c in SOURCE_ERRORS]
)
async def test_only_an_interruption_is_reported_as_one_async(
    make: Callable[[], Exception], interruption: bool
) -> None:
    payloads = chat_payloads(_CUT)
    error = make()
    with pytest.raises(type(error)) as info:
        await callstream.acollect(afailing(payloads, error))
    assert info.value is error and _noted(error) is interruption
    _check_ending(error.callstream_result, error, interruption)  # type: ignore[attr-defined]
    error = make()
    async with callstream.astream(afailing(payloads, error)) as updates:
        with pytest.raises(type(error)):
            async for _ in updates:
                pass
    _check_ending(updates.result, error, interruption)


def test_cancellation_ends_nothing() -> None:
    payloads = chat_payloads(_CUT)

    def interrupted_by_the_user() -> Iterator[Any]:
        yield from payloads
        raise KeyboardInterrupt

    with callstream.stream(interrupted_by_the_user()) as updates:
        with pytest.raises(KeyboardInterrupt):
            for _ in updates:
                pass
    result = updates.result
    assert not result.finished and not result.interrupted and result.invalid_tool_calls == []


def test_the_guide_lists_every_interruption() -> None:
    guide = (ROOT / "docs/guides/interrupted-streams.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Which exceptions are interruptions") :]
    section = section[: section.index("Then `result.interrupted` is True")]
    for package, name in sorted(INTERRUPTIONS):
        assert f"`{name}`" in section and package in section, (package, name)
    for name in [*INTERRUPTION_NAMES, *(cls.__name__ for cls in INTERRUPTION_CLASSES)]:
        assert name in section, name


# --- snapshots ----------------------------------------------------------------------------------


def depth_of(value: Any) -> int:
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def test_snapshot_of_deep_args_never_recurses() -> None:
    depth = 20_000
    text = '{"a": ' + "[" * depth + "]" * depth + "}"
    payloads = chat_payloads([("deep", split_every(text, 997))])
    updates = list(callstream.stream(payloads, max_depth=depth + 10))
    snap = updates[-1].snapshot()
    assert depth_of(snap.tool_calls[0]["args"]) == depth  # the innermost list is empty
    assert snap.tool_calls[0]["args"] is not updates[-1].tool_calls[0]["args"]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_snapshots_hold_what_each_update_showed(data: st.DataObject) -> None:
    value = data.draw(json_objects(max_leaves=10))
    text = json.dumps(value)
    mode = data.draw(st.sampled_from(["whole", "chars", "random"]))
    pieces = (
        [text]
        if mode == "whole"
        else split_every(text, 1)
        if mode == "chars"
        else [p for p in data.draw(splits(text)) if p]
    )
    payloads = chat_payloads([("f", pieces), ("g", ['{"k": [1, {"z": null}]}'])])
    shown, snaps = [], []
    for update in callstream.stream(payloads):
        shown.append(json.dumps([c["args"] for c in update.tool_calls]))
        snaps.append(update.snapshot())
    assert [json.dumps([c["args"] for c in s.tool_calls]) for s in snaps] == shown
    assert json.loads(shown[-1])[0] == value
    last = snaps[-1]
    assert last.invalid_tool_calls == [] and last.finish_reason is None
    assert last.snapshot() == last  # equal, but shares no mutable args
    assert last.snapshot().tool_calls[1]["args"]["k"] is not last.tool_calls[1]["args"]["k"]


def test_snapshot_copies_invalid_and_server_calls_too() -> None:
    payloads = chat_payloads([("f", ["[1, {"])])
    [*_, end] = callstream.stream(payloads)
    snap = end.snapshot()
    assert snap.invalid_tool_calls == end.invalid_tool_calls
    assert snap.invalid_tool_calls[0] is not end.invalid_tool_calls[0]
    assert snap.events is end.events and snap.payload is end.payload


# --- options ------------------------------------------------------------------------------------


def test_unknown_option_names_the_known_ones() -> None:
    with pytest.raises(OptionTypeError) as info:
        callstream.stream([], max_text=10)
    message = str(info.value)
    assert "'max_text'" in message
    # the drivers' message naming the options (the options: tests/assembly/test_options.py)
    for known in ("max_argument_chars", "max_calls", "empty_args", "max_depth"):
        assert known in message
    with pytest.raises(TypeError):  # still a TypeError, as before
        callstream.collect([], no_such_option=1)
