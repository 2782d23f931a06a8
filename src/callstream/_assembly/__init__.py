"""L2: sans-I/O tool-call assembly: chunks keyed by index, per-call state, events, views."""

from __future__ import annotations

from callstream._assembly.assembler import TRUNCATION_REASONS, ToolCallAssembler
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallChunk,
    CallDone,
    CallEnd,
    CallFailure,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
    ServerToolCall,
    ServerToolUse,
    Signal,
    StreamEnd,
    StreamFinished,
    ToolCall,
    ToolCallChunk,
)

__all__ = (
    "TRUNCATION_REASONS",
    "ArgumentsDelta",
    "AssemblyEvent",
    "CallChunk",
    "CallDone",
    "CallEnd",
    "CallFailure",
    "CallInvalid",
    "CallStarted",
    "InvalidToolCall",
    "ServerToolCall",
    "ServerToolUse",
    "Signal",
    "StreamEnd",
    "StreamFinished",
    "ToolCall",
    "ToolCallAssembler",
    "ToolCallChunk",
)
