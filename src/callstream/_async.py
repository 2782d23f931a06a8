"""Async driver (anyio: asyncio and trio): iterate a source, feed the shared pipeline."""

from __future__ import annotations

from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Iterator,
    Mapping,
)
from typing import Any

import anyio
import anyio.lowlevel

from callstream._errors import ConcurrentIterationError, UsageError
from callstream._pipeline import Pipeline, StreamResult, StreamState, StreamUpdate
from callstream.providers import Translator

__all__ = ("AsyncToolCallStream", "acollect", "astream")


def _iterator(source: Any) -> AsyncIterator[Any] | Iterator[Any]:
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        return iter((source,))  # one raw chunk holding the whole stream
    if isinstance(source, AsyncIterable):
        return aiter(source)
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        raise UsageError(
            f"source must be an (async) iterable of payloads or chunks, got {source!r}"
        )
    return iter(source)


async def _close_source(source: AsyncIterator[Any] | Iterator[Any]) -> None:
    with anyio.CancelScope(shield=True):
        aclose = getattr(source, "aclose", None)
        if callable(aclose):
            await aclose()
            return
        close = getattr(source, "close", None)
        if callable(close):
            close()


async def _run(
    source: AsyncIterator[Any] | Iterator[Any], pipeline: Pipeline
) -> AsyncGenerator[StreamUpdate, None]:
    # Module-level on purpose (no reference back to the stream object); cancellation,
    # an error or aclose() all leave through `finally`, which closes the source shielded.
    try:
        if isinstance(source, AsyncIterator):
            async for item in source:
                for update in pipeline.feed(item):
                    yield update
        else:
            for item in source:
                await anyio.lowlevel.checkpoint()  # a sync source must not starve the loop
                for update in pipeline.feed(item):
                    yield update
        for update in pipeline.close():
            yield update
    finally:
        await _close_source(source)


class AsyncToolCallStream(StreamState, AsyncIterator[StreamUpdate]):
    """An async iterator of :class:`StreamUpdate` s over a source; see :func:`astream`.

    The state so far stays readable during and after iteration, also after cancellation.
    ``aclose()`` (or leaving an ``async with`` block) closes the source, shielded from
    cancellation.
    """

    __slots__ = ("_busy", "_pipeline", "_source", "_updates")

    def __init__(self, source: Any, provider: str | Translator, options: dict[str, Any]) -> None:
        self._pipeline = Pipeline(provider, **options)
        self._source = _iterator(source)
        self._updates = _run(self._source, self._pipeline)
        self._busy = False

    async def __anext__(self) -> StreamUpdate:
        if self._busy:
            raise ConcurrentIterationError("this stream is already being iterated by another task")
        self._busy = True
        try:
            return await self._updates.__anext__()
        finally:
            self._busy = False

    async def aclose(self) -> None:
        """Stop reading and close the source (idempotent, shielded from cancellation)."""
        with anyio.CancelScope(shield=True):
            await self._updates.aclose()
            await _close_source(self._source)

    async def __aenter__(self) -> AsyncToolCallStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def astream(
    source: AsyncIterable[Any] | Iterable[Any],
    *,
    provider: str | Translator = "auto",
    **assembler_options: Any,
) -> AsyncToolCallStream:
    """Async :func:`~callstream.stream`: ``source`` may be an async or a sync iterable.

    Runs on asyncio and trio (anyio). Cancelling the iteration closes the source.

    Raises:
        UsageError: an unknown ``provider`` or a source that is not an iterable.
        UnknownFormatError: (while iterating) no payload identified a format.
        ConcurrentIterationError: (while iterating) two tasks at once.
    """
    return AsyncToolCallStream(source, provider, assembler_options)


async def acollect(
    source: AsyncIterable[Any] | Iterable[Any],
    *,
    provider: str | Translator = "auto",
    **assembler_options: Any,
) -> StreamResult:
    """Read a whole stream and return its :class:`StreamResult` (see :func:`astream`)."""
    async with astream(source, provider=provider, **assembler_options) as updates:
        async for _ in updates:
            pass
        return updates.result
