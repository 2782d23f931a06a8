"""The assembly's types in one import: the LangChain-shaped tool-call dicts
(:mod:`callstream._assembly.call_dicts`), the signal and event records
(:mod:`callstream._assembly.records`), and the unions of the signals providers send and
of the assembly events.

Signals are what provider translators produce: :class:`CallChunk` (a fragment of one
call), :class:`CallEnd` (an explicit end marker for one call), :class:`CallFailure` (a
provider-side failure), :class:`ServerToolUse`, :class:`CallExtras` (facts about a call
beyond those keys), :class:`TextDelta` (text the model wrote, for the user or as
reasoning) and :class:`StreamEnd` (the end of the stream). Events
(:class:`CallStarted`, :class:`ArgumentsDelta`, :class:`CallDone`, :class:`CallInvalid`,
:class:`StreamFinished`) are what the assembler reports, in order per call: started,
deltas, then done or invalid.

Three modules, not one, because of the compiled build: the records are compiled with
mypyc, the dicts stay interpreted (pydantic reads them; docs/design.md, "Compiled build").
"""

from __future__ import annotations

from typing import TypeAlias

from callstream._assembly.call_dicts import (
    InvalidToolCall,
    ServerToolCall,
    ToolCall,
    ToolCallChunk,
)
from callstream._assembly.records import (
    ArgumentsDelta,
    CallChunk,
    CallDone,
    CallEnd,
    CallExtras,
    CallFailure,
    CallInvalid,
    CallStarted,
    ServerToolUse,
    StreamEnd,
    StreamFinished,
    TextDelta,
)

__all__ = (
    "ArgumentsDelta",
    "AssemblyEvent",
    "CallChunk",
    "CallDone",
    "CallEnd",
    "CallExtras",
    "CallFailure",
    "CallInvalid",
    "CallStarted",
    "InvalidToolCall",
    "ServerToolCall",
    "ServerToolUse",
    "Signal",
    "StreamEnd",
    "StreamFinished",
    "TextDelta",
    "ToolCall",
    "ToolCallChunk",
)


Signal: TypeAlias = (
    CallChunk
    | ToolCallChunk
    | CallEnd
    | CallFailure
    | StreamEnd
    | ServerToolUse
    | CallExtras
    | TextDelta
)
"""What a provider translator produces for one payload."""


AssemblyEvent: TypeAlias = CallStarted | ArgumentsDelta | CallDone | CallInvalid | StreamFinished
"""Any assembly event."""
