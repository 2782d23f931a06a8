"""Async driver (anyio: asyncio and trio): :func:`astream`, :func:`acollect` and
:class:`AsyncToolCallStream`.

The loop, and when the source is closed (shielded from cancellation):
:class:`~callstream._drive.AsyncUpdateRun`; what is read from the source and how it is
closed: :mod:`callstream._sources`. When a stream object that was iterated is dropped
with its source open (a ``break`` out of ``async for`` without ``async with``), closing
cannot be awaited where it is dropped: it is scheduled on the event loop the stream was
iterated in (a task on asyncio, a system task on trio) and runs at the loop's next step.
``async with`` closes at once. The loop is in its own module because it is compiled and
this face is not (see :mod:`callstream._drive`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from callstream._drive import AsyncUpdateRun
from callstream._pipeline import Pipeline
from callstream._result import StreamResult, StreamUpdate, attach_result
from callstream._sync import StreamState
from callstream.providers import Translator

_Closer = Callable[[], Awaitable[None]]

__all__ = ("AsyncToolCallStream", "acollect", "astream")


def _scheduler() -> Callable[[_Closer], None] | None:
    """A way to run a closing coroutine on the current event loop later, from ``__del__``.

    Returns None outside asyncio and trio (then a dropped stream is left to the
    garbage collector and the loop's async generator hooks).
    """
    try:
        import asyncio

        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        tasks: set[Any] = set()

        def on_asyncio(closer: _Closer) -> None:
            def start() -> None:
                task = loop.create_task(_quietly(closer))
                tasks.add(task)  # a task nobody references may be collected mid-way
                task.add_done_callback(tasks.discard)

            loop.call_soon_threadsafe(start)

        return on_asyncio
    trio = sys.modules.get("trio")
    if trio is None:
        return None
    try:
        token = trio.lowlevel.current_trio_token()
    except RuntimeError:
        return None

    def on_trio(closer: _Closer) -> None:
        def start() -> None:
            # RuntimeError: the run is ending, and its own cleanup takes over
            with contextlib.suppress(RuntimeError):
                trio.lowlevel.spawn_system_task(_quietly, closer)

        token.run_sync_soon(start)

    return on_trio


async def _quietly(closer: _Closer) -> None:
    # Runs detached from any caller: an error closing an abandoned source has nobody to
    # report to, and must not crash the event loop (trio system tasks would). The closing
    # itself is shielded (callstream._sources.aclose_source).
    with contextlib.suppress(Exception):
        await closer()


class AsyncToolCallStream(StreamState, AsyncIterator[StreamUpdate]):
    """An async iterator of :class:`StreamUpdate` s over a source; see :func:`astream`.

    The state so far stays readable during and after iteration, also after cancellation.
    ``aclose()`` (or leaving an ``async with`` block) closes the source object and its
    iterator, shielded from cancellation; a stream dropped unclosed after being
    iterated schedules that on its event loop (see the module docstring).
    """

    __slots__ = ("_pipeline", "_reap", "_started", "_updates")

    def __init__(self, source: Any, provider: str | Translator, options: dict[str, Any]) -> None:
        self._reap: Callable[[_Closer], None] | None = None  # first: __del__ reads it
        self._pipeline = Pipeline(provider, **options)
        self._updates = AsyncUpdateRun(source, self._pipeline)
        self._started = False

    def __anext__(self) -> Awaitable[StreamUpdate]:
        if not self._started:
            self._started = True
            self._reap = _scheduler()
        return anext(self._updates)

    async def aclose(self) -> None:
        """Stop reading and close the source object and its iterator (idempotent,
        shielded from cancellation)."""
        self._reap = None
        self._started = True
        await self._updates.aclose()

    def __del__(self) -> None:
        # Dropped with its source open (a `break` without `async with`): schedule the
        # close on the event loop it ran in. The bound method keeps the driver loop and
        # its source alive until then, so neither is finalized by the garbage collector.
        reap = self._reap
        if reap is None or self._updates.closed:
            return
        self._reap = None
        with contextlib.suppress(Exception):  # the loop is closed or the run is over
            reap(self._updates.aclose)

    async def __aenter__(self) -> AsyncToolCallStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def astream(
    source: AsyncIterable[Any] | Iterable[Any],
    *,
    provider: str | Translator = "auto",
    **options: Any,
) -> AsyncToolCallStream:
    """Async :func:`~callstream.stream`: ``source`` may be an async or a sync iterable.

    Runs on asyncio and trio (anyio). Closing (see :func:`~callstream.stream`): the
    source object (``aclose()`` / ``close()``: an SDK ``AsyncStream``, an async
    generator) and the iterator taken from it are closed, shielded, when the iteration
    ends, the source raises, the iteration is cancelled, :meth:`AsyncToolCallStream.aclose`
    is called or the ``async with`` block is left. Use ``async with``: a stream left
    by ``break`` without it cannot be closed where it is dropped, so its closing is
    scheduled on the event loop and runs at the loop's next step. Source errors are
    handled as in :func:`~callstream.stream`.

    Raises:
        UsageError: an unknown ``provider`` or a source that is not an iterable.
        OptionTypeError, OptionValueError: an unknown option or a bad option value.
        UnknownFormatError: (while iterating) no payload identified a format, or the
            format named (or recognized) does not read the stream (the partial result
            rides on it: see the reading guide).
        ConcurrentIterationError: (while iterating) two tasks at once.
    """
    return AsyncToolCallStream(source, provider, options)


async def acollect(
    source: AsyncIterable[Any] | Iterable[Any],
    *,
    provider: str | Translator = "auto",
    **options: Any,
) -> StreamResult:
    """Read a whole stream and return its :class:`StreamResult` (see :func:`astream`).

    A source error propagates as in :func:`~callstream.collect`, carrying the partial
    result as ``exc.callstream_result``. Cost: as :func:`~callstream.collect`, no update
    is built (the same driver loop over a quiet pipeline).
    """
    async with astream(source, provider=provider, **options) as drained:
        drained._pipeline.quiet()  # nobody reads the updates: build none (see Pipeline.quiet)
        try:
            async for _ in drained:  # the same driver loop as astream(); it yields nothing
                pass
        except Exception as exc:
            if drained._pipeline.failed:  # the exception ended the stream
                attach_result(exc, drained.result)
            raise
        return drained.result
