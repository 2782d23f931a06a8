"""Async driver (anyio: asyncio and trio): iterate a source, feed the shared pipeline.

What is closed, and when: the driver closes the iterator it took from the source
(``aiter(source)`` / ``iter(source)``) and the source object itself (``aclose()``, else
``close()``, awaited when it returns an awaitable: openai / anthropic ``AsyncStream``,
async generators), shielded from cancellation, as soon as the iteration ends: the
source is exhausted or raises, the iteration is cancelled while waiting for the
source, :meth:`AsyncToolCallStream.aclose` is called or the ``async with`` block is
left. When a stream object that was iterated is dropped without being closed (a
``break`` out of ``async for`` without ``async with``), closing cannot be awaited
where it is dropped: it is scheduled on the event loop the stream was iterated in
(a task on asyncio, a system task on trio) and runs at the loop's next step, without
the "async generator was garbage collected" warning. ``async with`` closes at once.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
)
from typing import Any

import anyio
import anyio.lowlevel

from callstream._errors import ConcurrentIterationError, UsageError
from callstream._pipeline import Pipeline
from callstream._result import StreamResult, StreamState, StreamUpdate, attach_result
from callstream.providers import Translator

_Closer = Callable[[], Awaitable[None]]

__all__ = ("AsyncToolCallStream", "acollect", "astream")


def _iterator(source: Any) -> AsyncIterator[Any] | Iterator[Any]:
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        return iter((source,))  # one raw chunk holding the whole stream
    if isinstance(source, AsyncIterable):
        return aiter(source)
    if not isinstance(source, Iterable):  # a streamed httpx response: its body
        abody = getattr(source, "aiter_bytes", None)
        if callable(abody):
            chunks: AsyncIterable[Any] = abody()
            return aiter(chunks)
        body = getattr(source, "iter_bytes", None)
        if callable(body):
            pieces: Iterable[Any] = body()
            return iter(pieces)
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        raise UsageError(
            f"source must be an (async) iterable of payloads or chunks, got {source!r}"
        )
    return iter(source)


async def _close_one(obj: Any) -> None:
    aclose = getattr(obj, "aclose", None)
    if callable(aclose):
        await aclose()
        return
    close = getattr(obj, "close", None)
    if callable(close):
        result = close()
        if inspect.isawaitable(result):  # the SDKs' AsyncStream.close() is async
            await result


async def _close_source(source: AsyncIterator[Any] | Iterator[Any], owner: Any) -> None:
    """Close the iterator taken from the source, then the source object, shielded."""
    with anyio.CancelScope(shield=True):
        try:
            await _close_one(source)
        finally:
            if owner is not source:
                await _close_one(owner)


async def _run(
    source: AsyncIterator[Any] | Iterator[Any], owner: Any, pipeline: Pipeline
) -> AsyncGenerator[StreamUpdate, None]:
    # Module-level on purpose (no reference back to the stream object); cancellation,
    # an error or aclose() all leave through `finally`, which closes the source shielded.
    is_async = isinstance(source, AsyncIterator)
    try:
        while True:
            try:
                if is_async:
                    item = await source.__anext__()  # type: ignore[union-attr]
                else:
                    await anyio.lowlevel.checkpoint()  # a sync source must not starve the loop
                    item = next(source)  # type: ignore[arg-type]
            except (StopAsyncIteration, StopIteration):
                break
            except Exception as exc:  # the source failed (cancellation is not caught)
                recovered = pipeline.recover(exc)
                if recovered is None:
                    pipeline.interrupt(exc)
                    raise
                for update in recovered:
                    yield update
                return
            for update in pipeline.feed(item):
                yield update
            pipeline.raise_held()  # a limit error after this item's payloads
        for update in pipeline.close():
            yield update
    finally:
        await _close_source(source, owner)


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
    # report to, and must not crash the event loop (trio system tasks would).
    with anyio.CancelScope(shield=True):
        with contextlib.suppress(Exception):
            await closer()


class AsyncToolCallStream(StreamState, AsyncIterator[StreamUpdate]):
    """An async iterator of :class:`StreamUpdate` s over a source; see :func:`astream`.

    The state so far stays readable during and after iteration, also after cancellation.
    ``aclose()`` (or leaving an ``async with`` block) closes the source object and its
    iterator, shielded from cancellation; a stream dropped unclosed after being
    iterated schedules that on its event loop (see the module docstring).
    """

    __slots__ = ("_busy", "_owner", "_pipeline", "_reap", "_source", "_started", "_updates")

    def __init__(self, source: Any, provider: str | Translator, options: dict[str, Any]) -> None:
        self._reap: Callable[[_Closer], None] | None = None  # first: __del__ reads it
        self._pipeline = Pipeline(provider, **options)
        self._source = _iterator(source)
        self._owner = source
        self._updates = _run(self._source, source, self._pipeline)
        self._busy = False
        self._started = False

    async def __anext__(self) -> StreamUpdate:
        if self._busy:
            raise ConcurrentIterationError("this stream is already being iterated by another task")
        self._busy = True
        if not self._started:
            self._started = True
            self._reap = _scheduler()
        try:
            return await self._updates.__anext__()
        finally:
            self._busy = False

    async def aclose(self) -> None:
        """Stop reading and close the source object and its iterator (idempotent,
        shielded from cancellation)."""
        self._reap = None
        unstarted = not self._started  # a started generator closes the source itself
        self._started = True
        with anyio.CancelScope(shield=True):
            await self._updates.aclose()
            if unstarted:
                await _close_source(self._source, self._owner)

    def __del__(self) -> None:
        # Dropped while its generator is suspended (a `break` without `async with`):
        # schedule the close on the loop it ran in. The closure keeps the generator and
        # the source alive until then, so neither is finalized by the garbage collector.
        reap = self._reap
        if reap is None:
            return
        updates = self._updates
        if getattr(updates, "ag_frame", None) is None:  # finished: the source was closed already
            return
        self._reap = None
        source, owner = self._source, self._owner

        async def close() -> None:
            try:
                await updates.aclose()
            finally:
                await _close_source(source, owner)

        with contextlib.suppress(Exception):  # the loop is closed or the run is over
            reap(close)

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
        UnknownFormatError: (while iterating) no payload identified a format.
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
            if drained.result.interrupted:
                attach_result(exc, drained.result)
            raise
        return drained.result
