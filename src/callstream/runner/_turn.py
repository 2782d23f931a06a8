"""One model turn inside the tool runner: the driver task, the tools' tasks, the results.

:class:`Turn` is the machine behind :class:`~callstream.runner.AsyncToolRun` (which
owns the task group and hands the consumer what the turn emits). The driver reads the
stream, asks the :class:`~callstream.runner._seal.Sealer` what each update means and
acts: a sealed call's tool starts (eager) or waits for the end; a rejected call, an
unknown tool or arguments that fail validation get an error result; the end starts the
waiting tools or voids the turn (running tools cancelled, waiting ones never started).
Each tool runs in its own task and cancel scope, under the run's concurrency limit and
its timeout; whatever happens, it settles exactly one :class:`ToolResult` for its call.

Invariants: ``results`` gets at most one entry per call number (the first settles it);
``outstanding`` counts the tool tasks not yet ended, and the driver waits for it to
reach 0 before it closes the consumer's stream; a tool task whose scope was cancelled
before it acquired its slot never calls the tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from typing import Any, Protocol

import anyio
import anyio.abc
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectSendStream

from callstream._assembly.types import ToolCall
from callstream._async import AsyncToolCallStream
from callstream._update import copy_json
from callstream.runner._results import (
    RunItem,
    RunResult,
    ToolCancelled,
    ToolEvent,
    ToolFailed,
    ToolFinished,
    ToolStarted,
)
from callstream.runner._seal import Action, Broken, Ended, Rejected, Seal, Sealed, Sealer, Voided
from callstream.runner._tool_result import Status, ToolResult
from callstream.runner._tools import BoundTool, Prepared

__all__ = ("DEFAULT_THREADS", "Eager", "Failure", "RunnerSettings", "Turn")

DEFAULT_THREADS = 64
"""Sync tools of one run that may hold a worker thread at once (without max_concurrency)."""

Eager = bool | Callable[[ToolCall], bool]
"""Whether a sealed call's tool starts before the stream ends: for every call, or per
call (a predicate given the sealed call)."""


class RunnerSettings(Protocol):
    """What a turn reads of its :class:`~callstream.runner.ToolRunner` (which checks them)."""

    tools: dict[str, BoundTool]
    eager: Eager
    max_concurrency: int | None
    timeout: float | None
    seal: Seal
    void_reasons: frozenset[str]


class Failure:
    """The source (or the runner, or a tool raising a ``BaseException``) failed: the
    consumer raises ``exc`` (internal)."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def is_cancellation(exc: BaseException) -> bool:
    """Whether ``exc`` is the running backend's cancellation (which must propagate)."""
    return isinstance(exc, anyio.get_cancelled_exc_class())


def _error_text(name: str, exc: BaseException) -> str:
    text = str(exc)
    kind = type(exc).__name__
    return f"Error: {name} raised {kind}: {text}" if text else f"Error: {name} raised {kind}"


class Turn:
    """One model turn: the stream, the sealer, the tools' tasks and their results
    (internal; see the module docstring)."""

    def __init__(self, runner: RunnerSettings, stream: AsyncToolCallStream) -> None:
        self.runner = runner
        self.stream = stream
        self.sealer = Sealer(runner.seal, runner.void_reasons)
        self.results: dict[int, ToolResult] = {}
        self.sealed_at: dict[int, float] = {}
        self.started_at: dict[int, float] = {}
        self.early: dict[int, bool] = {}  # started before the stream ended
        self.calls: dict[int, ToolCall] = {}
        self.extras: dict[int, dict[str, Any]] = {}  # the calls' extras records, if any
        self.scopes: dict[int, anyio.CancelScope] = {}
        self.cancel_reason: dict[int, str] = {}
        self.waiting: list[tuple[int, BoundTool, Prepared]] = []
        self.outstanding = 0
        self.settled = anyio.Event()
        self.voided: str | None = None
        self.crashed: BaseException | None = None  # a tool's BaseException, raised by the run
        self.reading: anyio.CancelScope | None = None  # the driver's, stopped by a crash
        self.ended = False
        self.stream_ended_at: float | None = None
        self.finished_at: float | None = None
        self.t0 = 0.0
        self.group: anyio.abc.TaskGroup | None = None
        self.send: MemoryObjectSendStream[RunItem | Failure] | None = None
        limit = runner.max_concurrency
        self.slots = anyio.CapacityLimiter(limit) if limit is not None else None
        self.threads = anyio.CapacityLimiter(limit if limit is not None else DEFAULT_THREADS)

    # --- plumbing ------------------------------------------------------------------------

    def now(self) -> float:
        return anyio.current_time() - self.t0

    def emit(self, item: RunItem | Failure) -> None:
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

    def outcome(
        self, index: int, status: Status, *, output: Any = None, error: str | None = None
    ) -> ToolResult:
        """Call ``index``'s result, from what the turn recorded about it (its call, when
        it was sealed and started): the one place a result is built."""
        call = self.calls.get(index)
        extras = self.extras.get(index)
        return ToolResult(
            index=index,
            id=call["id"] if call else None,
            name=call["name"] if call else None,
            args=call["args"] if call and index in self.sealed_at else None,
            status=status,
            output=output,
            error=error,
            sealed_at=self.sealed_at.get(index),
            started_at=self.started_at.get(index),
            finished_at=self.now(),
            eager=self.early.get(index, False),
            extras=copy_json(extras) if extras is not None else None,
        )

    # --- the driver ------------------------------------------------------------------------

    async def drive(self) -> None:
        """Read the stream to its end (or failure), then wait for every tool.

        A source that raises (anything but a cancellation, a ``BaseException`` too), or
        a tool that raised a ``BaseException`` (see :meth:`crash`, which stops the
        reading), ends the run: once every tool has an outcome, the consumer raises that
        exception itself, carrying the run's result (never an exception group: it
        leaves no task through the task group).
        """
        assembler = self.stream._pipeline.assembler
        failure: BaseException | None = None
        self.reading = reading = anyio.CancelScope()
        try:
            with reading:
                async with self.stream:
                    async for update in self.stream:
                        self.emit(update)
                        self.act(self.sealer.read(update.events, assembler))
        except BaseException as exc:
            if is_cancellation(exc):
                raise
            failure = exc
            self.fail(exc)
        if failure is None and not self.ended:  # cannot happen: every stream ends
            self.act([Ended(None)])  # with StreamFinished (a crash has voided the turn)
        await self.wait_for_tools()
        self.finish()
        if self.crashed is not None:
            failure = self.crashed
        if failure is not None:
            result = self.result()
            with contextlib.suppress(Exception):  # an exception that refuses attributes
                failure.callstream_run_result = result  # type: ignore[attr-defined]
            self.emit(Failure(failure))
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
                if action.extras is not None:
                    self.extras[action.index] = action.extras
                invalid = action.call
                name = invalid.get("name")
                what = f"the call to {name}" if name else "a call without a tool name"
                result = self.outcome(
                    action.index,
                    "error",
                    error=f"Error: {what} could not be used: {invalid.get('error')}",
                )
                self.settle(_replace(result, id=invalid.get("id"), name=name))
            elif isinstance(action, Broken):
                self.on_broken(action)
            elif isinstance(action, Ended):
                self.on_ended()
            else:
                self.void(action.reason, f"the stream ended with {action.reason!r}")

    def on_sealed(self, action: Sealed, at_end: bool) -> None:
        index, call = action.index, action.call
        self.calls[index] = call
        if action.extras is not None:
            self.extras[index] = action.extras
        self.sealed_at[index] = self.now()
        tool = self.runner.tools.get(call["name"])
        if tool is None:
            known = ", ".join(sorted(self.runner.tools)) or "none"
            text = f"Error: there is no tool named {call['name']!r} (the tools are: {known})"
            self.settle(self.outcome(index, "error", error=text))
            return
        prepared = tool.prepare(call["args"])
        if isinstance(prepared, str):
            self.settle(self.outcome(index, "error", error=prepared))
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
        """A ``"next-call"`` seal turned out wrong: the call's result is an error; a tool
        still running (or waiting) is stopped, one already done loses its output."""
        index = action.index
        text = f"Error: {action.error}; the tool's run was not valid"
        old = self.results.get(index)
        if old is None:
            self.waiting = [entry for entry in self.waiting if entry[0] != index]
            self.settle(self.outcome(index, "error", error=text))
            scope = self.scopes.get(index)
            if scope is not None:  # still running (or waiting for a slot): stop it
                scope.cancel()
        elif old.status == "done":  # it ran on arguments that were not the call's
            self.results[index] = _replace(old, status="error", output=None, error=text)
            self.emit(ToolFailed(index=index, result=self.results[index]))

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
        found: list[tuple[int, ToolCall]] = []
        records: dict[str, dict[str, Any]] | None = None
        for chunk in assembler.tool_call_chunks:
            index = chunk["index"]
            if index is None or index in self.results or assembler.is_server_call(index):
                continue
            found.append((index, {"name": chunk["name"] or "", "args": {}, "id": chunk["id"]}))
            id_ = chunk["id"]
            if id_ and index not in self.extras:
                if records is None:
                    records = assembler.call_extras  # built once, when a call needs it
                record = records.get(id_)
                if record is not None:
                    self.extras[index] = record
        return found

    def fail(self, exc: BaseException) -> None:
        """The source raised (the stream ended by it, an interruption or not), or code
        the run calls did (an ``eager`` predicate): void the turn with that reason."""
        what = "stream" if self.stream._pipeline.failed else "run"
        why = f"the {what} failed ({type(exc).__name__}: {exc})"
        self.void(why, why)

    def crash(self, index: int, name: str, exc: BaseException) -> None:
        """Tool ``index`` raised ``exc``, a ``BaseException`` that is no ``Exception``
        (``KeyboardInterrupt``, ``SystemExit``, one of the program's own): that is not
        the tool's result to report but the program stopping, so the run stops: the call
        gets an error result, the turn is voided (running tools cancelled, waiting ones
        never started), the stream is no longer read, and the run raises ``exc``."""
        self.settle(self.outcome(index, "error", error=_error_text(name, exc)))
        if self.crashed is None:
            self.crashed = exc
            why = f"the run failed ({type(exc).__name__}: {exc})"
            self.void(why, why)
            if self.reading is not None:
                self.reading.cancel()

    def cancelled(self, index: int, text: str) -> None:
        self.settle(self.outcome(index, "cancelled", error=text))

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
                    # stopped before it could start (the run was left, the turn voided):
                    # it never starts; without a limiter this is the task's first
                    # chance to see a cancellation of the whole run
                    await anyio.lowlevel.checkpoint_if_cancelled()
                    if not scope.cancel_called:
                        await self.invoke(index, tool, prepared, call)
            if scope.cancelled_caught and index not in self.results:
                self.cancelled(index, self.cancel_reason.get(index, "Cancelled"))
        finally:
            self.outstanding -= 1
            if self.outstanding == 0:
                self.settled.set()

    async def invoke(self, index: int, tool: BoundTool, prepared: Prepared, call: ToolCall) -> None:
        started = self.started_at[index] = self.now()
        eager = self.early[index] = not self.ended
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
            except BaseException as exc:
                if is_cancellation(exc):
                    raise
                self.crash(index, call["name"], exc)
                return
        if limit.cancelled_caught:
            error = f"Error: {call['name']} did not finish within {timeout:g} s"
            output = None
        status: Status = "done" if error is None else "error"
        self.settle(self.outcome(index, status, output=output, error=error))

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
        # Boxed: trio refuses a worker-thread function that returns a coroutine. A sync
        # callable that returns an awaitable (a sync wrapper of an async function) is
        # awaited here on the event loop, on every backend.
        [result] = await anyio.to_thread.run_sync(
            partial(_boxed, prepared.run, prepared.args, kwargs),
            abandon_on_cancel=True,
            limiter=self.threads,
        )
        if inspect.isawaitable(result):
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


def _boxed(run: Callable[..., Any], args: tuple[Any, ...], kwargs: Any) -> list[Any]:
    """``[run(*args, **kwargs)]``: what a sync tool returned, as the worker thread's result."""
    return [run(*args, **kwargs)]


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
