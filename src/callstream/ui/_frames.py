"""Driving an encoder over a stream of items, and framing what it gives.

One loop, in a sync and an async version: start the encoder, feed it every item, close
it (or, when the items raise, hand it the failure: the client gets an error event and a
well-formed end, and the exception is re-raised only with ``raise_errors=True``). Misuse
the encoder raises (an item of the wrong kind) propagates as it is.
Leaving early (the client went away: the generator is closed) closes the items' source
when it has ``close()`` / ``aclose()`` (a ``ToolCallStream``, a ``ToolRunStream``...), by
the rule of :mod:`callstream._sources` (async: shielded from cancellation).

Every frame is written by the one JSON writer under its output rule
(:mod:`callstream._json.dump`: valid UTF-8 JSON, lone surrogates as U+FFFD, ``NaN`` as
``null``, any depth without recursion).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar, overload

from callstream._errors import UsageError
from callstream._json.dump import dumps_bounded
from callstream._sources import aclose_source, close_source
from callstream.runner._tool_result import output_data
from callstream.ui._agui import AGUIEncoder
from callstream.ui._mcp_apps import McpAppsEncoder, ViewMessage
from callstream.ui._vercel import VercelEncoder

__all__ = ("agui_stream", "mcp_apps_notifications", "sse_frame", "vercel_stream")

T = TypeVar("T")
DONE = "data: [DONE]\n\n"


class _Encoder(Protocol[T]):  # what the loop needs of an encoder
    def start(self) -> list[T]: ...
    def feed(self, item: Any) -> list[T]: ...
    def close(self) -> list[T]: ...
    def fail(self, exc: BaseException) -> list[T]: ...


def _json(value: Any) -> str:
    """Compact strict JSON text (the output rule of :mod:`callstream._json.dump`)."""
    try:
        return dumps_bounded(value, max_depth=None, strict=True, separators=(",", ":"))
    except TypeError:  # a value JSON cannot hold in an event of the caller's own (a model)
        plain = output_data(value)
        return dumps_bounded(plain, max_depth=None, strict=True, separators=(",", ":"))


def sse_frame(event: Any) -> str:
    """One server-sent event carrying ``event`` as JSON: ``data: <json>\\n\\n``.

    The JSON follows the output rule of :mod:`callstream._json.dump` (valid UTF-8 JSON
    whatever the strings hold: a lone surrogate is written as U+FFFD, ``NaN`` and
    infinities as ``null``; any depth). A value JSON cannot hold (a pydantic model, a
    dataclass, a datetime) is written as :func:`~callstream.runner.output_data` makes
    it. Cost: O(size of the event).

    Raises:
        DataError: a part of ``event`` cannot be JSON data (see ``output_data``).
        ValueError: ``event`` holds itself (a cycle).
    """
    return f"data: {_json(event)}\n\n"


def _run_sync(encoder: _Encoder[T], items: Iterable[Any], *, raise_errors: bool) -> Iterator[T]:
    iterator = iter(items)
    try:
        yield from encoder.start()
        while True:
            try:
                item = next(iterator)
            except StopIteration:
                break
            except Exception as exc:  # the source failed (not the encoder: misuse raises)
                yield from encoder.fail(exc)
                if raise_errors:
                    raise
                return
            yield from encoder.feed(item)
        yield from encoder.close()
    finally:
        close_source(iterator, items)


async def _run_async(
    encoder: _Encoder[T], items: AsyncIterable[Any], *, raise_errors: bool
) -> AsyncIterator[T]:
    iterator = aiter(items)
    try:
        for out in encoder.start():
            yield out
        while True:
            try:
                item = await anext(iterator)
            except StopAsyncIteration:
                break
            except Exception as exc:  # the source failed (not the encoder: misuse raises)
                for out in encoder.fail(exc):
                    yield out
                if raise_errors:
                    raise
                return
            for out in encoder.feed(item):
                yield out
        for out in encoder.close():
            yield out
    finally:
        await aclose_source(iterator, items)


def _check(items: Any) -> bool:
    """Whether ``items`` is async (else sync); raises for anything else."""
    if isinstance(items, AsyncIterable):
        return True
    if isinstance(items, Iterable) and not isinstance(items, (str, bytes, dict)):
        return False
    raise UsageError(f"items must be an (async) iterable of updates, got {items!r:.60}")


def _framed(events: Iterator[Any], done: bool) -> Iterator[str]:
    for event in events:
        yield sse_frame(event)
    if done:
        yield DONE


async def _aframed(events: AsyncIterator[Any], done: bool) -> AsyncIterator[str]:
    async for event in events:
        yield sse_frame(event)
    if done:
        yield DONE


@overload
def agui_stream(
    items: AsyncIterable[Any],
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    message_id: str | None = None,
    raise_errors: bool = False,
) -> AsyncIterator[str]: ...
@overload
def agui_stream(
    items: Iterable[Any],
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    message_id: str | None = None,
    raise_errors: bool = False,
) -> Iterator[str]: ...
def agui_stream(
    items: Iterable[Any] | AsyncIterable[Any],
    *,
    thread_id: str | None = None,
    run_id: str | None = None,
    message_id: str | None = None,
    raise_errors: bool = False,
) -> Iterator[str] | AsyncIterator[str]:
    """AG-UI events for a turn, as server-sent events (``data: <json>\\n\\n``).

    ``items``: the updates of :func:`callstream.stream` / ``astream`` or the items of a
    ``ToolRunner`` (sync or async: the result is of the same kind). What is sent is
    listed in :mod:`callstream.ui._agui`. When ``items`` raises, a ``RUN_ERROR`` ends the
    stream (the exception is re-raised after it only with ``raise_errors=True``).

    Raises:
        UsageError: ``items`` is not an iterable, or an id is not a str.
    """
    encoder = AGUIEncoder(thread_id=thread_id, run_id=run_id, message_id=message_id)
    if _check(items):
        async_items: AsyncIterable[Any] = items  # type: ignore[assignment]
        return _aframed(_run_async(encoder, async_items, raise_errors=raise_errors), done=False)
    sync_items: Iterable[Any] = items  # type: ignore[assignment]
    return _framed(_run_sync(encoder, sync_items, raise_errors=raise_errors), done=False)


@overload
def vercel_stream(
    items: AsyncIterable[Any],
    *,
    message_id: str | None = None,
    reasoning: bool = False,
    raise_errors: bool = False,
) -> AsyncIterator[str]: ...
@overload
def vercel_stream(
    items: Iterable[Any],
    *,
    message_id: str | None = None,
    reasoning: bool = False,
    raise_errors: bool = False,
) -> Iterator[str]: ...
def vercel_stream(
    items: Iterable[Any] | AsyncIterable[Any],
    *,
    message_id: str | None = None,
    reasoning: bool = False,
    raise_errors: bool = False,
) -> Iterator[str] | AsyncIterator[str]:
    """A turn as a Vercel AI SDK UI message stream (v1): server-sent events, then
    ``data: [DONE]``. Send it with :data:`~callstream.ui.VERCEL_HEADERS`.

    ``items`` as in :func:`agui_stream`; what is sent is listed in
    :mod:`callstream.ui._vercel`. ``reasoning=True`` also sends reasoning text (read the
    stream with ``reasoning=True`` too). When ``items`` raises, an ``error`` chunk and a
    ``finish`` end the stream.

    Raises:
        UsageError: ``items`` is not an iterable, or a bad option.
    """
    encoder = VercelEncoder(message_id=message_id, reasoning=reasoning)
    if _check(items):
        async_items: AsyncIterable[Any] = items  # type: ignore[assignment]
        return _aframed(_run_async(encoder, async_items, raise_errors=raise_errors), done=True)
    sync_items: Iterable[Any] = items  # type: ignore[assignment]
    return _framed(_run_sync(encoder, sync_items, raise_errors=raise_errors), done=True)


@overload
def mcp_apps_notifications(
    items: AsyncIterable[Any],
    *,
    min_interval: float = 0.1,
    clock: Callable[[], float] | None = None,
) -> AsyncIterator[ViewMessage]: ...
@overload
def mcp_apps_notifications(
    items: Iterable[Any],
    *,
    min_interval: float = 0.1,
    clock: Callable[[], float] | None = None,
) -> Iterator[ViewMessage]: ...
def mcp_apps_notifications(
    items: Iterable[Any] | AsyncIterable[Any],
    *,
    min_interval: float = 0.1,
    clock: Callable[[], float] | None = None,
) -> Iterator[ViewMessage] | AsyncIterator[ViewMessage]:
    """MCP Apps notifications for every tool call of a turn (see
    :mod:`callstream.ui._mcp_apps`), each a :class:`~callstream.ui.ViewMessage` naming
    the call whose view it is for. Partial arguments are sent at most once per
    ``min_interval`` seconds per call. When ``items`` raises, the exception propagates
    (there is no run-wide error notification in MCP Apps).

    Raises:
        UsageError: ``items`` is not an iterable.
        OptionTypeError, OptionValueError: a bad ``min_interval`` or ``clock``.
    """
    encoder = McpAppsEncoder(min_interval=min_interval, **({"clock": clock} if clock else {}))
    if _check(items):
        async_items: AsyncIterable[Any] = items  # type: ignore[assignment]
        return _run_async(encoder, async_items, raise_errors=True)
    sync_items: Iterable[Any] = items  # type: ignore[assignment]
    return _run_sync(encoder, sync_items, raise_errors=True)
