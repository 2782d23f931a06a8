"""The sync driver's loop, compiled with mypyc in the compiled build: read the source,
feed the pipeline, yield its updates, and close the source whatever happens
(:class:`~callstream._sync.ToolCallStream` wraps it).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any, final

from callstream._errors import ConcurrentIterationError
from callstream._pipeline import Pipeline
from callstream._update import StreamUpdate

__all__ = ("UpdateRun", "close_object", "close_source")


def close_object(obj: Any) -> None:
    """Call ``obj.close()`` if it has one (an async close() is closed, not awaited)."""
    close = getattr(obj, "close", None)
    if callable(close):
        result = close()
        if inspect.iscoroutine(result):  # an async close() we cannot await here
            result.close()


def close_source(source: Iterator[Any], owner: Any) -> None:
    """Close the iterator taken from the source, then the source object itself."""
    try:
        close_object(source)
    finally:
        if owner is not source:
            close_object(owner)


@final
class UpdateRun:
    """The sync driver's loop as an iterator: read the source, feed the pipeline, hand out
    its updates one by one, and close the source exactly once.

    The source (the iterator taken from it, then the source object) is closed when it is
    exhausted (after the pipeline's closing updates are read), when reading it or feeding
    the pipeline raises (the exception propagates; a source exception the pipeline can
    read as a provider error ends the stream instead, see
    :meth:`~callstream._pipeline.Pipeline.recover`), or on :meth:`close`. After that the
    iterator is finished. A plain class rather than a generator: compiled with mypyc it
    stays one (a compiled generator is not a Python generator).

    Cost: the pipeline's, O(1) more per item.
    """

    def __init__(self, source: Iterator[Any], owner: Any, pipeline: Pipeline) -> None:
        self._source = source
        self._owner = owner
        self._pipeline = pipeline
        self._pending: list[StreamUpdate] = []
        self._at = 0
        self._ended = False  # no more items to read (exhausted, failed or closed)
        self._closed = False  # the source was closed
        self._running = False  # inside next_update (a second thread must not enter)

    def __iter__(self) -> UpdateRun:
        return self

    def __next__(self) -> StreamUpdate:
        return self.next_update()

    def next_update(self) -> StreamUpdate:
        """The next update.

        Raises:
            StopIteration: the stream ended (or was closed) and every update was read.
            ConcurrentIterationError: another thread is in this method for this stream.
        """
        if self._running:
            raise ConcurrentIterationError("this stream is already being iterated")
        while self._at >= len(self._pending):
            if self._ended:
                self.close()
                raise StopIteration
            self._running = True
            try:
                self._pending = self._read()
            finally:
                self._running = False
            self._at = 0
        update = self._pending[self._at]
        self._at += 1
        return update

    def _read(self) -> list[StreamUpdate]:
        """The updates of the next item (or the closing ones); the source is closed on any
        exception, which propagates."""
        try:
            self._pipeline.raise_held()  # a limit error after the last item's payloads
            try:
                item = next(self._source)
            except StopIteration:
                self._ended = True
                return self._pipeline.close()
            except Exception as exc:  # the source failed (not our code, not the consumer)
                self._ended = True
                recovered = self._pipeline.recover(exc)
                if recovered is None:
                    self._pipeline.interrupt(exc)
                    raise
                return recovered
            return self._pipeline.feed(item)
        except BaseException:
            self._ended = True
            self.close()
            raise

    def close(self) -> None:
        """Stop: drop the updates not read and close the source (once; idempotent)."""
        self._ended = True
        self._pending = []
        self._at = 0
        if not self._closed:
            self._closed = True
            close_source(self._source, self._owner)
