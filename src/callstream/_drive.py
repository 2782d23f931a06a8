"""The driver loops, sync and async side by side: read the source, feed the pipeline, hand
out its updates one by one, and close the source exactly once, whatever happens.

:class:`UpdateRun` (behind :class:`~callstream.ToolCallStream`) and
:class:`AsyncUpdateRun` (behind :class:`~callstream.AsyncToolCallStream`) are one code:
the async one differs only by ``async`` / ``await`` and the async names (``__anext__``,
``anext``, ``StopAsyncIteration``, ``aclose``), as ``tests/drivers/test_drivers.py`` checks. What
the source is turned into and how it is closed is :mod:`callstream._sources`' part.

The source is closed when it is exhausted (after the pipeline's closing updates were
read), when reading it or feeding the pipeline raises (the exception propagates; a source
exception the pipeline can read as a provider error ends the stream instead, see
:meth:`~callstream._pipeline.Pipeline.recover`), when the iteration is cancelled while
waiting for the source, or on ``close()`` / ``aclose()``. After that the iterator is
finished. Plain classes rather than generators (``docs/design.md``, "Compiled build").

Apart from the public faces (:mod:`callstream._sync`, :mod:`callstream._async`) for the
compiled build only: the loops run per item and are compiled; the faces cost per stream,
and the async one schedules its close on the running event loop from ``__del__``, so
they stay interpreted.

Cost: the pipeline's, O(1) more per item.
"""

from __future__ import annotations

from typing import Any, final

from callstream._errors import ConcurrentIterationError
from callstream._pipeline import Pipeline
from callstream._sources import aclose_source, aiterate, close_source, iterate
from callstream._update import StreamUpdate

__all__ = ("AsyncUpdateRun", "UpdateRun")


@final
class UpdateRun:
    """The sync driver's loop as an iterator of updates (see the module docstring).

    Raises:
        UsageError: (at construction) a source that is no iterable.
    """

    def __init__(self, source: Any, pipeline: Pipeline) -> None:
        self._items = iterate(source)
        self._source = source
        self._pipeline = pipeline
        self._pending: list[StreamUpdate] = []
        self._at = 0
        self._ended = False  # no more items to read (exhausted, failed or closed)
        self._running = False  # reading an item (a second consumer must not enter)
        self.closed = False  # the source was closed

    def __iter__(self) -> UpdateRun:
        return self

    def __next__(self) -> StreamUpdate:
        """The next update.

        Raises:
            StopIteration: the stream ended (or was closed) and every update was read.
            ConcurrentIterationError: another consumer is reading an item of this stream.
        """
        if self._running:
            raise ConcurrentIterationError("this stream is already being iterated")
        while self._at >= len(self._pending):
            if self._ended:
                self.close()
                raise StopIteration
            self._running = True
            try:
                self._pipeline.raise_held()  # a limit error after the last item's payloads
                try:
                    item = next(self._items)
                except StopIteration:
                    self._ended = True
                    self._pending = self._pipeline.close()
                except Exception as exc:  # the source failed (not our code, not the consumer)
                    self._ended = True
                    recovered = self._pipeline.recover(exc)
                    if recovered is None:
                        self._pipeline.interrupt(exc)
                        raise
                    self._pending = recovered
                else:
                    updates = self._pipeline.feed(item)
                    if len(updates) == 1:  # the common case: handed out as it came
                        return updates[0]
                    self._pending = updates
            except BaseException:  # the source is closed on any exception, which propagates
                self._ended = True
                self.close()
                raise
            finally:
                self._running = False
            self._at = 0
        update = self._pending[self._at]
        self._at += 1
        return update

    def close(self) -> None:
        """Stop: drop the updates not read and close the source (once; idempotent)."""
        self._ended = True
        self._pending = []
        self._at = 0
        if not self.closed:
            self.closed = True
            close_source(self._items, self._source)


@final
class AsyncUpdateRun:
    """The async driver's loop as an async iterator of updates (see the module docstring);
    closing is shielded from cancellation.

    Raises:
        UsageError: (at construction) a source that is no (async) iterable.
    """

    def __init__(self, source: Any, pipeline: Pipeline) -> None:
        self._items = aiterate(source)
        self._source = source
        self._pipeline = pipeline
        self._pending: list[StreamUpdate] = []
        self._at = 0
        self._ended = False  # no more items to read (exhausted, failed or closed)
        self._running = False  # reading an item (a second consumer must not enter)
        self.closed = False  # the source was closed

    def __aiter__(self) -> AsyncUpdateRun:
        return self

    async def __anext__(self) -> StreamUpdate:
        """The next update.

        Raises:
            StopAsyncIteration: the stream ended (or was closed) and every update was read.
            ConcurrentIterationError: another consumer is reading an item of this stream.
        """
        if self._running:
            raise ConcurrentIterationError("this stream is already being iterated")
        while self._at >= len(self._pending):
            if self._ended:
                await self.aclose()
                raise StopAsyncIteration
            self._running = True
            try:
                self._pipeline.raise_held()  # a limit error after the last item's payloads
                try:
                    item = await anext(self._items)
                except StopAsyncIteration:
                    self._ended = True
                    self._pending = self._pipeline.close()
                except Exception as exc:  # the source failed (not our code, not the consumer)
                    self._ended = True
                    recovered = self._pipeline.recover(exc)
                    if recovered is None:
                        self._pipeline.interrupt(exc)
                        raise
                    self._pending = recovered
                else:
                    updates = self._pipeline.feed(item)
                    if len(updates) == 1:  # the common case: handed out as it came
                        return updates[0]
                    self._pending = updates
            except BaseException:  # the source is closed on any exception, which propagates
                self._ended = True
                await self.aclose()
                raise
            finally:
                self._running = False
            self._at = 0
        update = self._pending[self._at]
        self._at += 1
        return update

    async def aclose(self) -> None:
        """Stop: drop the updates not read and close the source (once; idempotent)."""
        self._ended = True
        self._pending = []
        self._at = 0
        if not self.closed:
            self.closed = True
            await aclose_source(self._items, self._source)
