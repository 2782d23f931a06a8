"""The sync face of the tool runner: :meth:`ToolRunner.run` and :meth:`ToolRunner.stream`.

Tools run concurrently, so even a sync caller needs an event loop: ``run`` starts one
(``anyio.run``) for the turn; ``stream`` runs one in a helper thread (an anyio blocking
portal) and hands its items over one by one. A sync source that blocks (an SDK
``Stream`` reading the network) is read in a worker thread, one ``next()`` at a time,
so the loop keeps running the tools meanwhile; a list, a tuple or one raw chunk is read
in the loop (nothing to wait for). Neither may be called from a running event loop:
they raise :class:`~callstream.UsageError` (use ``arun`` / ``astream`` there).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.to_thread

from callstream._drive import close_source as _close_source
from callstream._errors import UsageError
from callstream._sync import _iterator
from callstream.runner._results import RunItem, RunResult
from callstream.runner._turn import Failure, is_cancellation

if TYPE_CHECKING:
    from callstream.runner._run import AsyncToolRun

__all__ = ("ThreadedSource", "ToolRunStream", "check_no_loop", "in_threads")

_END = object()


def check_no_loop(method: str) -> None:
    """Raise :class:`UsageError` when an event loop runs in this thread."""
    running = False
    try:
        import asyncio

        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        pass
    trio = sys.modules.get("trio")
    if trio is not None and not running:
        try:
            trio.lowlevel.current_trio_token()
            running = True
        except RuntimeError:
            pass
    if running:
        raise UsageError(
            f"ToolRunner.{method}() cannot run inside a running event loop; "
            f"use `await runner.arun(...)` or `async with runner.astream(...)` there"
        )


class ThreadedSource:
    """A sync source read in worker threads, one item at a time (internal)."""

    __slots__ = ("_items", "_owner")

    def __init__(self, source: Any) -> None:
        self._items: Iterator[Any] = _iterator(source)  # UsageError for a non-iterable
        self._owner = source

    def __aiter__(self) -> ThreadedSource:
        return self

    async def __anext__(self) -> Any:
        item = await anyio.to_thread.run_sync(next, self._items, _END)
        if item is _END:
            raise StopAsyncIteration
        return item

    async def aclose(self) -> None:
        _close_source(self._items, self._owner)


def in_threads(source: Any) -> Any:
    """``source`` as the runner's loop should read it: lists, tuples and raw chunks as
    they are, any other sync iterable through a :class:`ThreadedSource`."""
    if isinstance(source, (list, tuple, str, bytes, bytearray, memoryview)):
        return source
    if hasattr(source, "__aiter__"):
        raise UsageError(
            "this source is async: use `await runner.arun(...)` or `runner.astream(...)`"
        )
    return ThreadedSource(source)


async def _next_item(run: AsyncToolRun) -> RunItem | Failure:
    """The run's next item, or a ``BaseException`` it raised (a tool's ``SystemExit``)
    boxed: raised through the portal, it would stop the portal's event loop instead of
    reaching the caller."""
    try:
        return await run.__anext__()
    except Exception:
        raise
    except BaseException as exc:
        if is_cancellation(exc):
            raise
        return Failure(exc)


class ToolRunStream(Iterator[RunItem]):
    """A sync iterator over one turn's updates and tool events; see ``ToolRunner.stream``.

    The event loop (in a helper thread) starts at the first ``next()``; ``close()`` (or
    leaving a ``with`` block, or dropping it) cancels the tools still running and stops
    the loop. :attr:`result` is readable at any time.
    """

    __slots__ = ("_backend", "_context", "_done", "_portal", "_portal_cm", "_run")

    def __init__(self, run: AsyncToolRun, backend: str) -> None:
        self._run = run
        self._backend = backend
        self._portal_cm: Any = None
        self._portal: Any = None
        self._context: Any = None
        self._done = False

    def __next__(self) -> RunItem:
        if self._done:
            raise StopIteration
        if self._portal is None:
            check_no_loop("stream")
            self._portal_cm = anyio.from_thread.start_blocking_portal(self._backend)
            self._portal = self._portal_cm.__enter__()
            self._context = self._portal.wrap_async_context_manager(self._run)
            self._context.__enter__()
        try:
            item: RunItem | Failure = self._portal.call(_next_item, self._run)
        except StopAsyncIteration:
            self.close()
            raise StopIteration from None
        except BaseException:
            self.close()
            raise
        if isinstance(item, Failure):
            self.close()
            raise item.exc
        return item

    def close(self) -> None:
        """Stop: cancel the tools still running, close the source, stop the loop."""
        if self._done:
            return
        self._done = True
        context, portal_cm = self._context, self._portal_cm
        self._context = self._portal = self._portal_cm = None
        try:
            if context is not None:
                context.__exit__(None, None, None)
        finally:
            if portal_cm is not None:
                portal_cm.__exit__(None, None, None)

    def __enter__(self) -> ToolRunStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    @property
    def result(self) -> RunResult:
        """The run's result so far (final once the iteration ended)."""
        return self._run.result
