"""Run each tool the moment its call is sealed, while the model streams the others.

:class:`ToolRunner` reads a model's stream (any format :func:`callstream.astream`
reads), starts each tool as soon as its call is sealed (final and valid arguments; the
rule per provider is in :mod:`callstream.runner._seal` and the README), and gives one
:class:`ToolResult` per call in the model's call order, with
:meth:`RunResult.tool_messages` to send them back. Errors are results: an invalid
call, an unknown tool, arguments that fail validation, a tool that raises or times out.
A stream that ends with a reason that voids its calls (:data:`VOID_REASONS`), fails or
is cancelled cancels the tools it started and never starts the others.
"""

from __future__ import annotations

from callstream.runner._messages import MessageFormat as MessageFormat
from callstream.runner._messages import tool_messages as tool_messages
from callstream.runner._results import RunItem as RunItem
from callstream.runner._results import RunResult as RunResult
from callstream.runner._results import ToolCancelled as ToolCancelled
from callstream.runner._results import ToolEvent as ToolEvent
from callstream.runner._results import ToolFailed as ToolFailed
from callstream.runner._results import ToolFinished as ToolFinished
from callstream.runner._results import ToolStarted as ToolStarted
from callstream.runner._run import AsyncToolRun as AsyncToolRun
from callstream.runner._run import ToolRunner as ToolRunner
from callstream.runner._run import ToolRunStream as ToolRunStream
from callstream.runner._seal import VOID_REASONS as VOID_REASONS
from callstream.runner._seal import Seal as Seal
from callstream.runner._tool_result import OUTPUT_MAX_DEPTH as OUTPUT_MAX_DEPTH
from callstream.runner._tool_result import Status as Status
from callstream.runner._tool_result import ToolResult as ToolResult
from callstream.runner._tool_result import output_data as output_data
from callstream.runner._tool_result import render_output as render_output
from callstream.runner._tools import Tool as Tool

__all__ = (
    "OUTPUT_MAX_DEPTH",
    "VOID_REASONS",
    "AsyncToolRun",
    "MessageFormat",
    "RunItem",
    "RunResult",
    "Seal",
    "Status",
    "Tool",
    "ToolCancelled",
    "ToolEvent",
    "ToolFailed",
    "ToolFinished",
    "ToolResult",
    "ToolRunStream",
    "ToolRunner",
    "ToolStarted",
    "output_data",
    "render_output",
    "tool_messages",
)
