"""What a tool run gives beside one :class:`~callstream.runner.ToolResult` per call (in
:mod:`callstream.runner._tool_result`): the lifecycle events and the run's outcome.

Pure data (no anyio, no I/O): the four events (:class:`ToolStarted`,
:class:`ToolFinished`, :class:`ToolFailed`, :class:`ToolCancelled`) are what
``ToolRunner.astream`` yields beside the stream's updates, and :class:`RunResult` is the
stream's result with the tool results and :meth:`RunResult.tool_messages` (the follow-up
messages for the next request).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall
from callstream._result import StreamResult, StreamUpdate
from callstream.runner._tool_result import ToolResult

if TYPE_CHECKING:
    from callstream.runner._messages import MessageFormat

__all__ = (
    "RunItem",
    "RunResult",
    "ToolCancelled",
    "ToolEvent",
    "ToolFailed",
    "ToolFinished",
    "ToolStarted",
)


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
