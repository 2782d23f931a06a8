"""What a tool run gives: one result per call, the lifecycle events, the run's outcome.

Pure data (no anyio, no I/O): :class:`ToolResult` is the outcome of one call (in the
model's call order), the four events (:class:`ToolStarted`, :class:`ToolFinished`,
:class:`ToolFailed`, :class:`ToolCancelled`) are what ``ToolRunner.astream`` yields
beside the stream's updates, and :class:`RunResult` is the stream's result with the tool
results and :meth:`RunResult.tool_messages` (the follow-up messages for the next request).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall
from callstream._result import StreamResult, StreamUpdate

if TYPE_CHECKING:
    from callstream.runner._messages import MessageFormat

__all__ = (
    "RunItem",
    "RunResult",
    "Status",
    "ToolCancelled",
    "ToolEvent",
    "ToolFailed",
    "ToolFinished",
    "ToolResult",
    "ToolStarted",
    "render_output",
)

Status: TypeAlias = Literal["done", "error", "cancelled"]
"""``done``: the tool ran and returned; ``error``: the call was invalid, named no known
tool, failed validation, raised or timed out (``error`` says which); ``cancelled``: the
tool was stopped (or never started) because the stream was voided, failed or the run
was cancelled."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """The outcome of one tool call.

    Attributes:
        index: the call's number in the stream (0, 1, ... in the model's call order).
        id: the call's id (None when the provider gave none).
        name: the tool name the model asked for (None for a call without one).
        args: the arguments the tool was given (the call's final, valid arguments
            object), None when it never had valid arguments.
        status: ``"done"``, ``"error"`` or ``"cancelled"`` (see :data:`Status`).
        output: what the tool returned (None unless done).
        error: why it is not done: a readable text for the model (None when done).
        sealed_at: seconds from the start of the stream to the call's seal (its
            arguments were final and valid), None when it was never sealed.
        started_at: seconds from the start of the stream to the tool's start (None when
            it never started).
        finished_at: seconds from the start of the stream to the outcome.
        eager: the tool started before the stream ended.
    """

    index: int
    id: str | None
    name: str | None
    args: dict[str, Any] | None
    status: Status
    output: Any = None
    error: str | None = None
    sealed_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    eager: bool = False

    @property
    def is_error(self) -> bool:
        """Whether the tool did not run to completion (an error or a cancellation)."""
        return self.status != "done"

    @property
    def content(self) -> str:
        """The text to give the model: the output (a ``str`` as it is, anything else as
        JSON, see :func:`render_output`) or the error. Cost: O(size of the output)."""
        if self.status == "done":
            return render_output(self.output)
        return self.error or self.status


def render_output(output: Any) -> str:
    """A tool's output as text for the model: a ``str`` unchanged, ``None`` as ``""``, a
    pydantic model, dataclass or any JSON-able value as strict JSON (pydantic's
    serializer, non-ASCII kept, NaN and infinities as ``null``), anything else as
    ``str(output)``."""
    if isinstance(output, str):
        return output
    if output is None:
        return ""
    from pydantic_core import to_json

    try:
        return to_json(output, inf_nan_mode="null").decode("utf-8")
    except Exception:  # not serializable: its text is the best the model can get
        try:
            return json.dumps(output, ensure_ascii=False, default=str)
        except Exception:
            return str(output)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStarted:
    """The tool of call ``index`` started (at ``at`` seconds from the start of the stream),
    with the call's final arguments ``args``; ``eager``: before the stream ended."""

    index: int
    id: str | None
    name: str
    args: dict[str, Any]
    at: float
    eager: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFinished:
    """The tool of call ``index`` returned; ``result.output`` is what it returned."""

    index: int
    result: ToolResult


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFailed:
    """Call ``index`` gives an error result (``result.error`` says why): the call was
    invalid, named no known tool, failed validation, or its tool raised or timed out."""

    index: int
    result: ToolResult


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCancelled:
    """The tool of call ``index`` was stopped, or will never start (``result.error`` says
    why): the stream was voided or failed, or the run was cancelled."""

    index: int
    result: ToolResult


ToolEvent: TypeAlias = ToolStarted | ToolFinished | ToolFailed | ToolCancelled
"""A tool lifecycle event."""

RunItem: TypeAlias = StreamUpdate | ToolEvent
"""What ``ToolRunner.astream`` / ``stream`` yield: the stream's updates (one per payload)
and the tools' lifecycle events, in the order they happened."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """The outcome of one model turn: the stream's result and one result per call.

    Attributes:
        stream: the stream's :class:`~callstream.StreamResult`.
        results: one :class:`ToolResult` per call the model made (valid or invalid,
            server-side tools excluded), in the model's call order.
        voided: why the calls were voided (the finish reason that voids them, or the
            stream's failure), None when they were not.
        stream_ended_at: seconds from the start of the stream to its end (None if it
            never ended: it failed or the run was cancelled).
        finished_at: seconds from the start of the stream to the last tool's outcome.
    """

    stream: StreamResult
    results: list[ToolResult] = field(default_factory=list)
    voided: str | None = None
    stream_ended_at: float | None = None
    finished_at: float | None = None

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The stream's valid tool calls."""
        return self.stream.tool_calls

    @property
    def invalid_tool_calls(self) -> list[InvalidToolCall]:
        """The stream's invalid tool calls."""
        return self.stream.invalid_tool_calls

    @property
    def server_tool_calls(self) -> list[ServerToolCall]:
        """Tools the provider ran itself (no result here: the provider has it)."""
        return self.stream.server_tool_calls

    @property
    def text(self) -> str:
        """The assistant's text in the stream (reasoning aside)."""
        return self.stream.text

    @property
    def finish_reason(self) -> str | None:
        """The stream's finish reason (see :class:`~callstream.StreamResult`)."""
        return self.stream.finish_reason

    @property
    def provider_finish_reason(self) -> str | None:
        """The provider's own word for the finish reason."""
        return self.stream.provider_finish_reason

    @property
    def provider_error(self) -> str | None:
        """The provider's message when it ended the stream with an error (see
        :class:`~callstream.StreamResult`)."""
        return self.stream.provider_error

    def tool_messages(self, format: MessageFormat) -> list[Any]:
        """The follow-up messages that carry every result back to the model, in the
        provider's own shape (see :func:`callstream.runner.tool_messages`)."""
        from callstream.runner._messages import tool_messages

        return tool_messages(self.results, format)
