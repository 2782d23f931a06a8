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
call order. Nothing raised by a tool, a validation or a bad call escapes: each is an
error result. A sync tool runs in a worker thread; cancelling it abandons the thread
(Python cannot stop it): its result is discarded and it is reported cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from callstream._assembly.types import ToolCall
from callstream._async import AsyncToolCallStream, astream
from callstream._errors import OptionTypeError, OptionValueError, UsageError
from callstream.providers import Translator
from callstream.runner._results import (
    RunItem,
    RunResult,
    ToolCancelled,
    ToolEvent,
    ToolFailed,
    ToolFinished,
    ToolResult,
    ToolStarted,
)
from callstream.runner._seal import (
    VOID_REASONS,
    Action,
    Broken,
    Ended,
    Rejected,
    Seal,
    Sealed,
    Sealer,
    Voided,
)
from callstream.runner._tools import BoundTool, Prepared, bind_tools, check_timeout

if TYPE_CHECKING:
    from callstream.runner._sync import ToolRunStream

__all__ = ("AsyncToolRun", "ToolRunner")

Eager = bool | Callable[[ToolCall], bool]
"""Whether a sealed call's tool starts before the stream ends: for every call, or per
call (a predicate given the sealed call)."""

DEFAULT_THREADS = 64
"""Sync tools of one run that may hold a worker thread at once (without max_concurrency)."""


class _Failure:
    """The source (or the runner) failed: the consumer raises ``exc`` (internal)."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _error_text(name: str, exc: BaseException) -> str:
    text = str(exc)
    kind = type(exc).__name__
    return f"Error: {name} raised {kind}: {text}" if text else f"Error: {name} raised {kind}"


class _Turn:
    """One model turn: the stream, the sealer, the tools' tasks and their results."""

    def __init__(self, runner: ToolRunner, stream: AsyncToolCallStream) -> None:
        self.runner = runner
        self.stream = stream
        self.sealer = Sealer(runner.seal, runner.void_reasons)
        self.results: dict[int, ToolResult] = {}
        self.sealed_at: dict[int, float] = {}
        self.started_at: dict[int, float] = {}
        self.calls: dict[int, ToolCall] = {}
        self.scopes: dict[int, anyio.CancelScope] = {}
        self.cancel_reason: dict[int, str] = {}
        self.waiting: list[tuple[int, BoundTool, Prepared]] = []
        self.outstanding = 0
        self.settled = anyio.Event()
        self.voided: str | None = None
        self.ended = False
        self.stream_ended_at: float | None = None
        self.finished_at: float | None = None
        self.t0 = 0.0
        self.group: anyio.abc.TaskGroup | None = None
        self.send: MemoryObjectSendStream[RunItem | _Failure] | None = None
        limit = runner.max_concurrency
        self.slots = anyio.CapacityLimiter(limit) if limit is not None else None
        self.threads = anyio.CapacityLimiter(limit if limit is not None else DEFAULT_THREADS)

    # --- plumbing ------------------------------------------------------------------------

    def now(self) -> float:
        return anyio.current_time() - self.t0

    def emit(self, item: RunItem | _Failure) -> None:
        send = self.send
        if send is not None:
            # the consumer left: nobody reads the events any more
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                send.send_nowait(item)

    def settle(self, result: ToolResult) -> None:
        """Record a call's result and tell the consumer (once per call)."""
        if result.index in self.results:
            return
        self.results[result.index] = result
        event: ToolEvent
        if result.status == "done":
            event = ToolFinished(index=result.index, result=result)
        elif result.status == "cancelled":
            event = ToolCancelled(index=result.index, result=result)
        else:
            event = ToolFailed(index=result.index, result=result)
        self.emit(event)

    def error_result(self, index: int, call: ToolCall | None, text: str, **times: Any) -> None:
        self.settle(
            ToolResult(
                index=index,
                id=call["id"] if call else None,
                name=call["name"] if call else None,
                args=call["args"] if call and "sealed" in times else None,
                status="error",
                error=text,
                sealed_at=times.get("sealed"),
                finished_at=self.now(),
            )
        )

    # --- the driver ------------------------------------------------------------------------

    async def drive(self) -> None:
        """Read the stream to its end (or failure), then wait for every tool."""
        assembler = self.stream._pipeline.assembler
        try:
            async with self.stream:
                async for update in self.stream:
                    self.emit(update)
                    self.act(self.sealer.read(update.events, assembler))
        except Exception as exc:
            self.fail(exc)
            await self.wait_for_tools()
            self.finish()
            result = self.result()
            with contextlib.suppress(Exception):  # an exception that refuses attributes
                exc.callstream_run_result = result  # type: ignore[attr-defined]
            self.emit(_Failure(exc))
        else:
            if not self.ended:  # cannot happen: every stream ends with StreamFinished
                self.act([Ended(None)])
            await self.wait_for_tools()
            self.finish()
        if self.send is not None:
            self.send.close()

    async def wait_for_tools(self) -> None:
        """Wait until no tool task is left (tasks started meanwhile are waited for too)."""
        while self.outstanding:
            self.settled = anyio.Event()
            await self.settled.wait()

    def act(self, actions: list[Action]) -> None:
        at_end = any(isinstance(action, (Ended, Voided)) for action in actions)
        for action in actions:
            if isinstance(action, Sealed):
                self.on_sealed(action, at_end)
            elif isinstance(action, Rejected):
                call = action.call
                name = call.get("name")
                what = f"the call to {name}" if name else "a call without a tool name"
                self.calls.setdefault(action.index, call)  # type: ignore[arg-type]
                self.error_result(
                    action.index,
                    {"name": name or "", "args": {}, "id": call.get("id")},
                    f"Error: {what} could not be used: {call.get('error') or 'invalid'}",
                )
            elif isinstance(action, Broken):
                self.on_broken(action)
            elif isinstance(action, Ended):
                self.on_ended()
            else:
                self.void(action.reason, f"the stream ended with {action.reason!r}")

    def on_sealed(self, action: Sealed, at_end: bool) -> None:
        index, call = action.index, action.call
        self.calls[index] = call
        sealed = self.sealed_at[index] = self.now()
        tool = self.runner.tools.get(call["name"])
        if tool is None:
            known = ", ".join(sorted(self.runner.tools)) or "none"
            self.error_result(
                index,
                call,
                f"Error: there is no tool named {call['name']!r} (the tools are: {known})",
                sealed=sealed,
            )
            return
        prepared = tool.prepare(call["args"])
        if isinstance(prepared, str):
            self.error_result(index, call, prepared, sealed=sealed)
            return
        if at_end or self.ended or not self.is_eager(tool, call):
            self.waiting.append((index, tool, prepared))
        else:
            self.start(index, tool, prepared)

    def is_eager(self, tool: BoundTool, call: ToolCall) -> bool:
        if tool.eager is False:
            return False
        eager = self.runner.eager
        return eager if isinstance(eager, bool) else bool(eager(call))

    def on_broken(self, action: Broken) -> None:
        index = action.index
        text = f"Error: {action.error}; the tool's run was not valid"
        scope = self.scopes.get(index)
        old = self.results.get(index)
        if old is None:
            self.waiting = [entry for entry in self.waiting if entry[0] != index]
            call = self.calls.get(index)
            self.settle_cancelled_or_error(index, call, text, scope)
        elif old.status == "done":  # it ran on arguments that were not the call's
            self.results[index] = _replace(old, status="error", output=None, error=text)
            self.emit(ToolFailed(index=index, result=self.results[index]))

    def settle_cancelled_or_error(
        self, index: int, call: ToolCall | None, text: str, scope: anyio.CancelScope | None
    ) -> None:
        if scope is not None:  # still running (or waiting for a slot): stop it
            self.cancel_reason[index] = text
            self.broken_error(index, call, text)
            scope.cancel()
        else:
            self.error_result(index, call, text, sealed=self.sealed_at.get(index))

    def broken_error(self, index: int, call: ToolCall | None, text: str) -> None:
        self.settle(
            ToolResult(
                index=index,
                id=call["id"] if call else None,
                name=call["name"] if call else None,
                args=call["args"] if call else None,
                status="error",
                error=text,
                sealed_at=self.sealed_at.get(index),
                started_at=self.started_at.get(index),
                finished_at=self.now(),
                eager=index in self.started_at,
            )
        )

    def on_ended(self) -> None:
        self.ended = True
        self.stream_ended_at = self.now()
        waiting, self.waiting = self.waiting, []
        for index, tool, prepared in waiting:
            self.start(index, tool, prepared)

    def void(self, reason: str, why: str) -> None:
        """The calls are void: cancel running tools, never start the waiting ones."""
        if self.voided is None:
            self.voided = reason
        if not self.ended:
            self.ended = True
            self.stream_ended_at = self.now()
        text = f"Cancelled: {why}, which voids its tool calls"
        for index, scope in list(self.scopes.items()):
            if index not in self.results:
                self.cancel_reason.setdefault(index, text)
                scope.cancel()
        waiting, self.waiting = self.waiting, []
        for index, _tool, _prepared in waiting:
            self.cancelled(index, text)
        for index, call in self.unreported_calls():
            self.calls.setdefault(index, call)
            self.cancelled(index, text)

    def unreported_calls(self) -> list[tuple[int, ToolCall]]:
        """Calls the stream has seen that have no result yet (server-side tools aside):
        started and not final, or not even announced when the stream stopped."""
        assembler = self.stream._pipeline.assembler
        server_ids = {call["id"] for call in assembler.server_tool_calls}
        found: list[tuple[int, ToolCall]] = []
        for chunk in assembler.tool_call_chunks:
            index = chunk["index"]
            if index is None or index in self.results or chunk["id"] in server_ids:
                continue
            found.append((index, {"name": chunk["name"] or "", "args": {}, "id": chunk["id"]}))
        return found

    def fail(self, exc: BaseException) -> None:
        why = f"the stream failed ({type(exc).__name__}: {exc})"
        self.void(why, why)

    def cancelled(self, index: int, text: str) -> None:
        call = self.calls.get(index)
        self.settle(
            ToolResult(
                index=index,
                id=call["id"] if call else None,
                name=call["name"] if call else None,
                args=call["args"] if call and index in self.sealed_at else None,
                status="cancelled",
                error=text,
                sealed_at=self.sealed_at.get(index),
                started_at=self.started_at.get(index),
                finished_at=self.now(),
                eager=index in self.started_at
                and (self.stream_ended_at is None or self.started_at[index] < self.stream_ended_at),
            )
        )

    # --- one tool ------------------------------------------------------------------------

    def start(self, index: int, tool: BoundTool, prepared: Prepared) -> None:
        assert self.group is not None
        scope = anyio.CancelScope()
        self.scopes[index] = scope
        self.outstanding += 1
        self.group.start_soon(self.run_tool, index, tool, prepared, scope)

    async def run_tool(
        self, index: int, tool: BoundTool, prepared: Prepared, scope: anyio.CancelScope
    ) -> None:
        call = self.calls[index]
        try:
            with scope:
                slot: AbstractContextManager[Any] | anyio.CapacityLimiter = (
                    self.slots if self.slots is not None else nullcontext()
                )
                async with _async_cm(slot):
                    if not scope.cancel_called:  # stopped before it could start: never starts
                        await self.invoke(index, tool, prepared, call)
            if scope.cancelled_caught and index not in self.results:
                self.cancelled(index, self.cancel_reason.get(index, "Cancelled"))
        finally:
            self.outstanding -= 1
            if self.outstanding == 0:
                self.settled.set()

    async def invoke(self, index: int, tool: BoundTool, prepared: Prepared, call: ToolCall) -> None:
        started = self.started_at[index] = self.now()
        eager = not self.ended
        self.emit(
            ToolStarted(
                index=index,
                id=call["id"],
                name=call["name"],
                args=call["args"],
                at=started,
                eager=eager,
            )
        )
        timeout = tool.timeout if tool.timeout is not None else self.runner.timeout
        limit = anyio.move_on_after(timeout) if timeout is not None else anyio.CancelScope()
        output: Any = None
        error: str | None = None
        with limit:
            try:
                output = await self.call(prepared)
            except Exception as exc:
                error = _error_text(call["name"], exc)
        if limit.cancelled_caught:
            error = f"Error: {call['name']} did not finish within {timeout:g} s"
            output = None
        self.settle(
            ToolResult(
                index=index,
                id=call["id"],
                name=call["name"],
                args=call["args"],
                status="done" if error is None else "error",
                output=output,
                error=error,
                sealed_at=self.sealed_at.get(index),
                started_at=started,
                finished_at=self.now(),
                eager=eager,
            )
        )

    async def call(self, prepared: Prepared) -> Any:
        kwargs = prepared.kwargs or {}
        if prepared.direct:
            return prepared.run(*prepared.args, **kwargs)
        if prepared.is_async and not (prepared.asyncio_only and not _on_asyncio()):
            return await prepared.run(*prepared.args, **kwargs)
        if prepared.is_async:  # an asyncio-only coroutine, off asyncio: its own loop
            return await anyio.to_thread.run_sync(
                partial(_run_on_asyncio, prepared.run, prepared.args, kwargs),
                abandon_on_cancel=True,
                limiter=self.threads,
            )
        result = await anyio.to_thread.run_sync(
            partial(prepared.run, *prepared.args, **kwargs),
            abandon_on_cancel=True,
            limiter=self.threads,
        )
        if hasattr(result, "__await__"):  # a sync callable that returned an awaitable
            result = await result
        return result

    # --- the end -----------------------------------------------------------------------------

    def finish(self) -> None:
        if self.finished_at is None:
            self.finished_at = self.now()

    def abandon(self) -> None:
        """The run was left or cancelled: whatever has no result is cancelled."""
        text = "Cancelled: the run was stopped before the tool finished"
        for index in list(self.scopes):
            if index not in self.results:
                self.cancelled(index, self.cancel_reason.get(index, text))
        for index, _tool, _prepared in self.waiting:
            self.cancelled(index, text)
        self.waiting = []
        for index, call in self.unreported_calls():
            self.calls.setdefault(index, call)
            self.cancelled(index, "Cancelled: the run was stopped before the call was complete")
        self.finish()

    def result(self) -> RunResult:
        return RunResult(
            stream=self.stream.result,
            results=[self.results[index] for index in sorted(self.results)],
            voided=self.voided,
            stream_ended_at=self.stream_ended_at,
            finished_at=self.finished_at,
        )


def _on_asyncio() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _run_on_asyncio(run: Callable[..., Any], args: tuple[Any, ...], kwargs: Any) -> Any:
    """Run the coroutine ``run(*args, **kwargs)`` on a new asyncio loop (in this thread)."""
    return asyncio.run(run(*args, **kwargs))


def _replace(result: ToolResult, **changes: Any) -> ToolResult:
    return dataclasses.replace(result, **changes)


class _async_cm:
    """``async with`` over a sync context manager or an anyio limiter."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> None:
        if isinstance(self._inner, anyio.CapacityLimiter):
            await self._inner.acquire()
        else:
            self._inner.__enter__()

    async def __aexit__(self, *exc_info: object) -> None:
        if isinstance(self._inner, anyio.CapacityLimiter):
            self._inner.release()
        else:
            self._inner.__exit__(None, None, None)


class AsyncToolRun(AsyncIterator[RunItem]):
    """One model turn run by a :class:`ToolRunner`: ``async with`` it, then iterate.

    Yields the stream's :class:`~callstream.StreamUpdate` s and the tools' lifecycle
    events (:class:`~callstream.runner.ToolStarted`, ``ToolFinished``, ``ToolFailed``,
    ``ToolCancelled``) in the order they happened; ends once the stream has ended and
    every tool has an outcome. :attr:`result` is readable at any time (the results so
    far). Leaving the block early cancels the tools still running (reported cancelled).
    When the source raises, the tools are cancelled, their events yielded, and the
    exception raised from the iteration, carrying the run's result as
    ``exc.callstream_run_result`` (and the stream's as ``exc.callstream_result``).
    """

    __slots__ = ("_entered", "_group", "_receive", "_turn")

    def __init__(self, runner: ToolRunner, stream: AsyncToolCallStream) -> None:
        self._turn = _Turn(runner, stream)
        self._entered = False
        self._group: anyio.abc.TaskGroup | None = None
        self._receive: MemoryObjectReceiveStream[RunItem | _Failure] | None = None

    async def __aenter__(self) -> AsyncToolRun:
        if self._entered:
            raise UsageError("a tool run can be entered once; call runner.astream() again")
        self._entered = True
        send, receive = anyio.create_memory_object_stream[RunItem | _Failure](math.inf)
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
        if isinstance(item, _Failure):
            raise item.exc
        return item

    @property
    def result(self) -> RunResult:
        """The run's result so far (final once the iteration ended)."""
        return self._turn.result()


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
        from callstream.runner._sync import check_no_loop, in_threads

        check_no_loop("run")
        run = self.astream(in_threads(source), provider=provider, **options)

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
        from callstream.runner._sync import ToolRunStream, in_threads

        return ToolRunStream(
            self.astream(in_threads(source), provider=provider, **options), backend
        )
