"""The tool runner: read a model's stream, run each tool when its call is sealed.

Theory of operation. :meth:`ToolRunner.astream` gives an :class:`AsyncToolRun`, an async
context manager: entering it opens a task group (structured concurrency, anyio: asyncio
and trio) holding one *driver* task and one task per tool. The driver iterates
:func:`callstream.astream` over the source and hands each update's events to a
:class:`~callstream.runner._seal.Sealer`, which says when a call is sealed (its
arguments final and valid), rejected (invalid), broken (``seal="next-call"`` guessed
wrong) and how the stream ended. A sealed call whose tool is eager starts at once, in
its own task and cancel scope; the others wait for the end of the stream. At the end,
either the calls stand (the waiting tools start) or the stream voids them (a finish
reason in ``void_reasons``, a source error): running tools are cancelled, waiting ones
never start. Updates and tool lifecycle events go to the consumer through an unbounded
memory stream, in the order they happened; leaving the ``async with`` block early
cancels everything still running.

Every call the model made gets exactly one :class:`~callstream.runner.ToolResult`, in
call order. No ``Exception`` raised by a tool, a validation or a bad call escapes: each
is an error result. A ``BaseException`` that is no ``Exception`` (``KeyboardInterrupt``,
``SystemExit``) stops the run and is raised by the consumer's iteration as itself,
never as an exception group (it never leaves a task through the task group). A sync tool
runs in a worker thread; cancelling it abandons the thread (Python cannot stop it): its
result is discarded and it is reported cancelled. One that returns an awaitable has it
awaited on the loop, on asyncio and trio alike.

The sync faces, :meth:`ToolRunner.run` and :meth:`ToolRunner.stream` (a
:class:`ToolRunStream`): tools run concurrently, so even a sync caller needs an event
loop: ``run`` starts one (``anyio.run``) for the turn; ``stream`` runs one in a helper
thread (an anyio blocking portal) and hands its items over one by one. A sync source that
blocks (an SDK ``Stream`` reading the network) is read in a worker thread, one ``next()``
at a time, so the loop keeps running the tools meanwhile; a list, a tuple or one raw
chunk is read in the loop (nothing to wait for). Neither may be called from a running
event loop: they raise :class:`~callstream.UsageError` (use ``arun`` / ``astream`` there).
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import AsyncIterator, Collection, Iterable, Iterator, Mapping
from typing import Any

import anyio
import anyio.abc
import anyio.from_thread
from anyio.streams.memory import MemoryObjectReceiveStream

from callstream._async import AsyncToolCallStream, astream
from callstream._errors import OptionTypeError, OptionValueError, UsageError
from callstream._sources import ThreadedSource
from callstream.providers import Translator
from callstream.runner._results import RunItem, RunResult
from callstream.runner._seal import VOID_REASONS, Seal
from callstream.runner._tools import BoundTool, bind_tools, check_timeout
from callstream.runner._turn import Eager, Failure, Turn, is_cancellation

__all__ = ("AsyncToolRun", "ToolRunStream", "ToolRunner")


class AsyncToolRun(AsyncIterator[RunItem]):
    """One model turn run by a :class:`ToolRunner`: ``async with`` it, then iterate.

    Yields the stream's :class:`~callstream.StreamUpdate` s and the tools' lifecycle
    events (:class:`~callstream.runner.ToolStarted`, ``ToolFinished``, ``ToolFailed``,
    ``ToolCancelled``) in the order they happened; ends once the stream has ended and
    every tool has an outcome. :attr:`result` is readable at any time (the results so
    far). Leaving the block early cancels the tools still running (reported cancelled).
    When the source raises, the tools are cancelled, their events yielded, and the
    exception raised from the iteration, carrying the run's result as
    ``exc.callstream_run_result`` (and the stream's as ``exc.callstream_result``); the
    same for a tool raising a ``BaseException`` that is no ``Exception``, which is
    raised as itself.
    """

    __slots__ = ("_entered", "_group", "_receive", "_turn")

    def __init__(self, runner: ToolRunner, stream: AsyncToolCallStream) -> None:
        self._turn = Turn(runner, stream)
        self._entered = False
        self._group: anyio.abc.TaskGroup | None = None
        self._receive: MemoryObjectReceiveStream[RunItem | Failure] | None = None

    async def __aenter__(self) -> AsyncToolRun:
        if self._entered:
            raise UsageError("a tool run can be entered once; call runner.astream() again")
        self._entered = True
        send, receive = anyio.create_memory_object_stream[RunItem | Failure](math.inf)
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group, self._receive = group, receive
        turn = self._turn
        turn.group, turn.send, turn.t0 = group, send, anyio.current_time()
        group.start_soon(turn.drive)
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        group, receive = self._group, self._receive
        if group is None or receive is None:
            return None
        self._group = None
        turn = self._turn
        group.cancel_scope.cancel()  # a no-op when every task has ended
        try:
            # The block's own exception (or cancellation) propagates as it is, not
            # wrapped in an ExceptionGroup: the tasks are told to stop, not given it.
            await group.__aexit__(None, None, None)
            return None
        finally:
            receive.close()
            if turn.send is not None:
                turn.send.close()
            turn.abandon()

    def __aiter__(self) -> AsyncToolRun:
        return self

    async def __anext__(self) -> RunItem:
        receive = self._receive
        if receive is None:
            raise UsageError(
                "iterate a tool run inside its block: `async with runner.astream(...) as run:`"
            )
        try:
            item = await receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None
        if isinstance(item, Failure):
            raise item.exc
        return item

    @property
    def result(self) -> RunResult:
        """The run's result so far (final once the iteration ended)."""
        return self._turn.result()


def _check_no_loop(method: str) -> None:
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


def _in_threads(source: Any) -> Any:
    """``source`` as the runner's loop should read it: lists, tuples and raw chunks as
    they are, any other sync iterable through a
    :class:`~callstream._sources.ThreadedSource`."""
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
            _check_no_loop("stream")
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


class ToolRunner:
    """Runs each tool the moment its call is sealed, while the model streams the others.

    An agent turn usually costs the stream's time plus the tools' time; with parallel
    calls, call 0 is often complete seconds before the last call has finished
    streaming. A runner starts each tool as soon as its call is *sealed* (its arguments
    are final and valid, see :mod:`callstream.runner._seal` for the rule per provider)
    and gives every call a result, in the model's call order.

    Args:
        tools: functions (sync ones run in a worker thread, ``async def`` awaited),
            pydantic model classes (their validated instance is the output), LangChain
            ``BaseTool`` s, or :class:`~callstream.runner.Tool` wrappers; a list, or a
            mapping of name -> tool.
        eager: start a sealed call's tool before the stream ends: True (default),
            False (run every tool after the stream ended and its calls stand), or a
            predicate over the sealed call. A tool wrapped as ``Tool(f, eager=False)``
            never starts early, whatever this says.
        max_concurrency: tools running at once (None: no limit but the 64 worker
            threads a run gives sync tools).
        timeout: seconds a tool may run before it becomes an error result (None: no
            limit; ``Tool(timeout=...)`` sets one tool's).
        seal: ``"end"`` (default): a call is sealed at the provider's end of the call,
            or at the finish for formats without one (OpenAI Chat); ``"next-call"``:
            also when a later call starts and the call's text has closed as an object
            (opt-in for OpenAI Chat; see the seal rules).
        void_reasons: finish reasons that void the turn's calls (default
            :data:`~callstream.runner.VOID_REASONS`).

    Raises:
        ToolDefinitionError: a tool cannot be described or run.
        UsageError: two tools share a name, or ``tools`` is not a collection.
        OptionTypeError, OptionValueError: an option of the wrong type or out of range.
    """

    __slots__ = ("eager", "max_concurrency", "seal", "timeout", "tools", "void_reasons")

    def __init__(
        self,
        tools: Iterable[Any] | Mapping[str, Any],
        *,
        eager: Eager = True,
        max_concurrency: int | None = None,
        timeout: float | None = None,
        seal: Seal = "end",
        void_reasons: Collection[str] = VOID_REASONS,
    ) -> None:
        if not isinstance(eager, bool) and not callable(eager):
            raise OptionTypeError(f"eager must be a bool or a predicate, got {eager!r:.60}")
        if max_concurrency is not None and (
            isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int)
        ):
            raise OptionTypeError(
                f"max_concurrency must be an int or None, got {max_concurrency!r:.60}"
            )
        if max_concurrency is not None and max_concurrency < 1:
            raise OptionValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        if seal not in ("end", "next-call"):
            raise OptionValueError(f"seal must be 'end' or 'next-call', got {seal!r:.60}")
        if isinstance(void_reasons, str) or not all(isinstance(r, str) for r in void_reasons):
            raise OptionTypeError("void_reasons must be a collection of str")
        self.tools: dict[str, BoundTool] = bind_tools(tools)
        self.eager: Eager = eager
        self.max_concurrency = max_concurrency
        self.timeout = check_timeout(timeout, "timeout")
        self.seal: Seal = seal
        self.void_reasons = frozenset(reason.lower() for reason in void_reasons)

    def __repr__(self) -> str:
        return f"<ToolRunner tools={sorted(self.tools)} seal={self.seal!r}>"

    def astream(
        self, source: Any, *, provider: str | Translator = "auto", **options: Any
    ) -> AsyncToolRun:
        """Run one turn: ``async with runner.astream(source) as run: async for item in run``.

        ``source`` and the options are those of :func:`callstream.astream` (an SDK
        ``AsyncStream``, an async or sync iterable of payloads or raw chunks ...).

        Raises:
            UsageError, OptionTypeError, OptionValueError: as :func:`callstream.astream`.
        """
        return AsyncToolRun(self, astream(source, provider=provider, **options))

    async def arun(
        self, source: Any, *, provider: str | Translator = "auto", **options: Any
    ) -> RunResult:
        """Run one turn to its end and return its :class:`~callstream.runner.RunResult`.

        Cancelling the awaiting task cancels the tools. A source error is raised after
        the tools were cancelled, carrying ``exc.callstream_run_result``.
        """
        async with self.astream(source, provider=provider, **options) as run:
            async for _ in run:
                pass
        return run.result

    def run(
        self,
        source: Any,
        *,
        provider: str | Translator = "auto",
        backend: str = "asyncio",
        **options: Any,
    ) -> RunResult:
        """Sync :meth:`arun`: runs the turn in its own event loop (``backend``: ``"asyncio"``
        or ``"trio"``) and returns its result. A blocking source (an SDK ``Stream``) is
        read in a worker thread, so tools keep running while it waits.

        Raises:
            UsageError: called inside a running event loop, or an async source.
        """
        _check_no_loop("run")
        run = self.astream(_in_threads(source), provider=provider, **options)

        async def whole() -> RunResult:
            async with run:
                async for _ in run:
                    pass
            return run.result

        result: RunResult = anyio.run(whole, backend=backend)
        return result

    def stream(
        self,
        source: Any,
        *,
        provider: str | Translator = "auto",
        backend: str = "asyncio",
        **options: Any,
    ) -> ToolRunStream:
        """Sync :meth:`astream`: an iterator of updates and tool events (use ``with``).

        The turn runs in an event loop in a helper thread; ``close()`` (or leaving the
        ``with`` block) cancels the tools still running.

        Raises:
            UsageError: an async source (and, at the first ``next()``, a running loop).
        """
        return ToolRunStream(
            self.astream(_in_threads(source), provider=provider, **options), backend
        )
