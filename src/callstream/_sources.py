"""What the user passed as a source, as an iterator, and how it is closed: the one home of
both, for the drivers (``stream`` / ``astream``), the tool runner and the UI emitters.

The iterator (:func:`iterate`, sync; :func:`aiterate`, async):

- ``str`` / ``bytes`` / ``bytearray`` / ``memoryview``: one raw chunk holding the whole
  stream;
- a streamed httpx response (an object that is not itself iterable but has
  ``iter_bytes()`` / ``aiter_bytes()``): its body (``aiter_bytes()`` for the async form
  when it has one, else ``iter_bytes()``);
- an iterable (or, for the async form, an async iterable): the iterator it gives;
- anything else (a mapping, a number, None ...): :class:`~callstream.UsageError`.

The async form reads a sync iterable in the event loop, with a checkpoint before each
item so that a sync source never starves the loop; :class:`ThreadedSource` reads one in
worker threads instead (the tool runner's sync faces).

Closing (:func:`close_source`, :func:`aclose_source`): the iterator taken from the source,
then the source object itself unless it is that iterator, each when it has a close
method: sync, ``close()`` (an async ``close()`` gives a coroutine, which cannot be
awaited there: it is closed unawaited); async, ``aclose()`` else ``close()``, awaited
when it returns an awaitable (the SDKs' ``AsyncStream.close()``), shielded from
cancellation. Callers close once: closing is not idempotent for every source object.

anyio is imported only by the async parts, when they first run: ``import callstream``
and a sync stream never load it.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, final

from callstream._errors import UsageError

__all__ = ("ThreadedSource", "aclose_source", "aiterate", "close_source", "iterate")

_RAW = (str, bytes, bytearray, memoryview)  # one raw chunk holding the whole stream


def _items(source: Any) -> Iterator[Any] | None:
    """The sync iterator of ``source``, None when it gives none (see the module docstring)."""
    if isinstance(source, _RAW):
        return iter((source,))
    if isinstance(source, Iterable):
        return None if isinstance(source, Mapping) else iter(source)
    body = getattr(source, "iter_bytes", None)  # a streamed httpx response: its body
    return iter(body()) if callable(body) else None


def iterate(source: Any) -> Iterator[Any]:
    """``source`` as a sync iterator (see the module docstring). Cost: O(1).

    Raises:
        UsageError: ``source`` gives no sync iterator (the message says so when it is
            async).
    """
    items = _items(source)
    if items is None:
        hint = " (use astream / acollect)" if hasattr(source, "__aiter__") else ""
        raise UsageError(f"source must be an iterable of payloads or chunks{hint}, got {source!r}")
    return items


def aiterate(source: Any) -> AsyncIterator[Any]:
    """``source`` as an async iterator, a sync one read in the event loop (see the module
    docstring). Cost: O(1).

    Raises:
        UsageError: ``source`` gives neither an async nor a sync iterator.
    """
    if isinstance(source, AsyncIterable):
        return aiter(source)
    body = None if isinstance(source, Iterable) else getattr(source, "aiter_bytes", None)
    if callable(body):  # a streamed async httpx response: its body
        chunks: AsyncIterable[Any] = body()
        return aiter(chunks)
    items = _items(source)
    if items is None:
        raise UsageError(
            f"source must be an (async) iterable of payloads or chunks, got {source!r}"
        )
    return _InLoop(items)


@final
class _InLoop:
    """A sync iterator read in the event loop as an async one: a checkpoint (a chance for
    the other tasks to run, and for cancellation), then ``next()``. Closing it closes what
    it reads (:func:`aclose_source`)."""

    __slots__ = ("_checkpoint", "items")

    def __init__(self, items: Iterator[Any]) -> None:
        import anyio.lowlevel

        self.items = items
        self._checkpoint = anyio.lowlevel.checkpoint

    def __aiter__(self) -> _InLoop:
        return self

    async def __anext__(self) -> Any:
        await self._checkpoint()
        try:
            return next(self.items)
        except StopIteration:
            raise StopAsyncIteration from None


@final
class ThreadedSource:
    """A sync source read in worker threads, one ``next()`` at a time, as an async
    iterator: a source that blocks (an SDK ``Stream`` reading the network) leaves the
    event loop free meanwhile. ``aclose()`` closes the iterator and the source (sync).

    Raises:
        UsageError: (at construction) as :func:`iterate`.
    """

    __slots__ = ("_items", "_run_sync", "_source")

    def __init__(self, source: Any) -> None:
        import anyio.to_thread

        self._items = iterate(source)
        self._source = source
        self._run_sync = anyio.to_thread.run_sync

    def __aiter__(self) -> ThreadedSource:
        return self

    async def __anext__(self) -> Any:
        item = await self._run_sync(next, self._items, _END)
        if item is _END:
            raise StopAsyncIteration
        return item

    async def aclose(self) -> None:
        close_source(self._items, self._source)


_END = object()  # what next() gives a worker thread at the end of a ThreadedSource


def _close(obj: Any) -> None:
    close = getattr(obj, "close", None)
    if callable(close):
        result = close()
        if inspect.iscoroutine(result):  # an async close() we cannot await here
            result.close()


def close_source(items: Iterator[Any], source: Any) -> None:
    """Close ``items`` (the iterator taken from ``source``), then ``source`` itself unless
    it is that iterator (see the module docstring); an error closing ``items`` propagates
    after ``source`` was closed."""
    try:
        _close(items)
    finally:
        if source is not items:
            _close(source)


async def _aclose(obj: Any) -> None:
    aclose = getattr(obj, "aclose", None)
    if callable(aclose):
        await aclose()
        return
    close = getattr(obj, "close", None)
    if callable(close):
        result = close()
        if inspect.isawaitable(result):  # the SDKs' AsyncStream.close() is async
            await result


async def aclose_source(items: AsyncIterator[Any], source: Any) -> None:
    """The async :func:`close_source`: ``items`` (a sync iterator read in the loop: the
    iterator it reads), then ``source`` unless it is that iterator; awaited, shielded from
    cancellation."""
    import anyio

    inner: Any = items.items if isinstance(items, _InLoop) else items
    with anyio.CancelScope(shield=True):
        try:
            await _aclose(inner)
        finally:
            if source is not inner:
                await _aclose(source)
