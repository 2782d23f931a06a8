"""ToolRunner edges that must be the same on asyncio and trio: a sync tool that returns a
coroutine, and a BaseException (not an Exception) out of a tool or the source, which
propagates as itself out of run / arun / stream / astream."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from callstream.runner import RunResult, ToolRunner

BACKENDS = ["asyncio", "trio"]
WAYS = ["run", "stream", "arun", "astream"]


def chat(*names: str) -> list[dict[str, Any]]:
    """An OpenAI Chat turn calling ``names`` in order (each with ``{"x": 2}``)."""
    payloads: list[dict[str, Any]] = []
    for index, name in enumerate(names):
        call = {
            "index": index,
            "id": f"call_{index}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps({"x": 2})},
        }
        payloads.append(
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"tool_calls": [call]}}],
            }
        )
    payloads.append(
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        }
    )
    return payloads


def turn(runner: ToolRunner, source: Any, way: str, backend: str) -> RunResult:
    """One turn through one of the four faces of the runner."""
    if way == "run":
        return runner.run(source, backend=backend)
    if way == "stream":
        with runner.stream(source, backend=backend) as items:
            for _ in items:
                pass
        return items.result
    if way == "arun":
        result: RunResult = anyio.run(runner.arun, source, backend=backend)
        return result

    async def whole() -> RunResult:
        async with runner.astream(source) as run:
            async for _ in run:
                pass
        return run.result

    streamed: RunResult = anyio.run(whole, backend=backend)
    return streamed


# --- a sync tool that returns a coroutine: awaited, on every backend -------------------------


async def _times_ten(x: int) -> int:
    await anyio.sleep(0)  # a real await, on whatever loop runs it
    return x * 10


def wrapped(x: int) -> Any:
    """A sync wrapper of an async function (a decorator that lost ``async``)."""
    return _times_ten(x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("way", WAYS)
def test_a_sync_tool_returning_a_coroutine_is_awaited_on_both_backends(
    backend: str, way: str
) -> None:
    result = turn(ToolRunner([wrapped]), chat("wrapped"), way, backend)
    [only] = result.results
    assert (only.status, only.output, only.error) == ("done", 20, None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_coroutine_that_fails_is_the_tools_error(backend: str) -> None:
    async def fails(x: int) -> int:
        await anyio.sleep(0)
        raise ValueError(f"bad {x}")

    def sync_face(x: int) -> Any:
        """Fails once awaited."""
        return fails(x)

    [only] = turn(ToolRunner([sync_face]), chat("sync_face"), "run", backend).results
    assert (only.status, only.error) == ("error", "Error: sync_face raised ValueError: bad 2")


# --- a BaseException propagates as itself ------------------------------------------------------


class Stop(BaseException):
    """A program's own BaseException (not an Exception)."""


def _stoppers() -> list[BaseException]:
    return [KeyboardInterrupt("stop"), SystemExit(3), Stop("stop")]


def _tools(exc: BaseException, is_async: bool) -> list[Callable[..., Any]]:
    """``slow`` (runs long, must be cancelled) and ``stops``, which raises ``exc``."""
    cancelled: list[str] = []

    async def slow(x: int) -> int:
        """Takes a minute unless cancelled."""
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            cancelled.append("slow")
            raise
        return x

    def stops(x: int) -> int:
        """Raises."""
        raise exc

    async def astops(x: int) -> int:
        """Raises."""
        await anyio.sleep(0)
        raise exc

    astops.__name__ = "stops"
    slow.cancelled = cancelled  # type: ignore[attr-defined]
    return [slow, astops if is_async else stops]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("is_async", [False, True])
@pytest.mark.parametrize("which", range(3))
def test_a_tool_raising_a_base_exception_stops_the_run_with_it(
    backend: str, way: str, is_async: bool, which: int
) -> None:
    exc = _stoppers()[which]
    slow, stops = _tools(exc, is_async)
    runner = ToolRunner([slow, stops])
    with pytest.raises(BaseException) as caught:
        turn(runner, chat("slow", "stops"), way, backend)
    assert caught.value is exc  # itself: no exception group, no RuntimeError of a portal
    assert slow.cancelled == ["slow"]  # type: ignore[attr-defined]
    result = caught.value.callstream_run_result  # type: ignore[attr-defined]
    name = type(exc).__name__
    assert [(r.name, r.status) for r in result.results] == [
        ("slow", "cancelled"),
        ("stops", "error"),
    ]
    assert result.results[1].error == f"Error: stops raised {name}: {exc}"
    assert result.voided == f"the run failed ({name}: {exc})"


def _source(exc: BaseException) -> Iterator[Any]:
    payloads = chat("slow", "slow")
    yield payloads[0]
    raise exc


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("way", WAYS)
def test_a_source_raising_a_base_exception_stops_the_run_with_it(backend: str, way: str) -> None:
    exc = Stop("source")
    slow, _ = _tools(exc, False)
    with pytest.raises(Stop) as caught:
        turn(ToolRunner([slow]), _source(exc), way, backend)
    assert caught.value is exc
    result = caught.value.callstream_run_result  # type: ignore[attr-defined]
    assert [r.status for r in result.results] == ["cancelled"]
    assert result.voided == "the run failed (Stop: source)"
