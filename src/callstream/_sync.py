"""Sync driver: iterate a source, feed the shared pipeline, yield its updates."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping
from typing import Any

from callstream._errors import ConcurrentIterationError, UsageError
from callstream._pipeline import Pipeline, StreamResult, StreamState, StreamUpdate
from callstream.providers import Translator

__all__ = ("ToolCallStream", "collect", "stream")


def _iterator(source: Any) -> Iterator[Any]:
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        return iter((source,))  # one raw chunk holding the whole stream
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        hint = " (use astream / acollect)" if hasattr(source, "__aiter__") else ""
        raise UsageError(f"source must be an iterable of payloads or chunks{hint}, got {source!r}")
    return iter(source)


def _run(source: Iterator[Any], pipeline: Pipeline) -> Generator[StreamUpdate, None, None]:
    # Module-level on purpose: no reference back to the ToolCallStream, so dropping the
    # stream (a `break` out of a for loop) closes this generator, which closes the source.
    try:
        for item in source:
            yield from pipeline.feed(item)
        yield from pipeline.close()
    finally:
        close = getattr(source, "close", None)
        if callable(close):
            close()


class ToolCallStream(StreamState, Iterator[StreamUpdate]):
    """An iterator of :class:`StreamUpdate` s over a source; see :func:`stream`.

    The state so far stays readable during and after iteration (``tool_calls``,
    ``invalid_tool_calls``, ``finish_reason``, ``result``), also after a ``break`` or an
    error. ``close()`` (or leaving a ``with`` block) closes the source.
    """

    __slots__ = ("_busy", "_pipeline", "_source", "_updates")

    def __init__(self, source: Any, provider: str | Translator, options: dict[str, Any]) -> None:
        self._pipeline = Pipeline(provider, **options)
        self._source = _iterator(source)
        self._updates = _run(self._source, self._pipeline)
        self._busy = False

    def __next__(self) -> StreamUpdate:
        if self._busy:
            raise ConcurrentIterationError("this stream is already being iterated elsewhere")
        self._busy = True
        try:
            return next(self._updates)
        except ValueError as exc:  # another thread got into the generator first
            if "already executing" in str(exc):
                raise ConcurrentIterationError("this stream is already being iterated") from exc
            raise
        finally:
            self._busy = False

    def close(self) -> None:
        """Stop reading and close the source (idempotent)."""
        self._updates.close()
        close = getattr(self._source, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> ToolCallStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def stream(
    source: Iterable[Any], *, provider: str | Translator = "auto", **assembler_options: Any
) -> ToolCallStream:
    """Stream tool calls out of ``source``: one :class:`StreamUpdate` per payload.

    ``source`` holds payload dicts, SDK objects (pydantic models, dataclasses) or raw
    ``str`` / ``bytes`` chunks of server-sent events or NDJSON. ``provider="auto"``
    recognizes the format from the first payloads. The last update carries the
    ``StreamFinished`` event (the stream is finished at its end if the provider never
    said so). Cost: O(total size) plus O(calls) per update.

    Raises:
        UsageError: an unknown ``provider`` or a source that is not an iterable.
        UnknownFormatError: (while iterating) no payload identified a format.
        ConcurrentIterationError: (while iterating) two consumers at once.
    """
    return ToolCallStream(source, provider, assembler_options)


def collect(
    source: Iterable[Any], *, provider: str | Translator = "auto", **assembler_options: Any
) -> StreamResult:
    """Read a whole stream and return its :class:`StreamResult` (see :func:`stream`)."""
    with stream(source, provider=provider, **assembler_options) as updates:
        for _ in updates:
            pass
        return updates.result
