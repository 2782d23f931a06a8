"""L2: sans-I/O tool-call assembly: chunks keyed by index, per-call state, events, views.

Theory of operation
-------------------
The assembler is a sans-I/O state machine. Every input (a chunk, an end marker, a
provider failure, the end of the stream) is merged into a list of per-call records
(call.Call) and answered with a list of events; nothing else happens: no I/O, no
clocks, no logging. assembler.py holds the public class (checking what callers hand it,
events, cached views); assembly_state.py applies the checked inputs to the calls. Inputs come as
CallChunk signals from translators (their fields already checked where they were made,
records.py) or as ToolCallChunk dicts from users, checked once (validation.py). The rules
live beside it, each in its own module:

Routing (routing.py). Two dictionaries and a pointer find the call a chunk continues:
provider index -> the latest call on that index, id -> call, and the call being
streamed. The merge rules (stated once, in routing.py's docstring) decide between
continuing that call and starting a new one, looking only at the call's identity,
whether its argument text has begun and is already complete: O(1) per chunk.

Arguments (arguments.py). Each call owns an ArgumentText: its raw fragments (within
the limits of a TextBudget shared by the stream) and one incremental
PartialJSONParser. A fragment is fed to it once (never re-parsed), and the parser's
changes are passed on in an ArgumentsDelta together with the raw fragment: a UI
updates in O(fragment). Text that arrives before the call has a name is parsed at once
but held, and released as one ArgumentsDelta right after CallStarted. When the parser
rejects a fragment the call turns invalid at once (CallInvalid); its raw text keeps
accumulating for the view, and the other calls are unaffected.

Verdicts (verdict.py, where their rules are stated): when a call is final, the
parser's close() gives the strict value (exactly json.loads of the text) or the reason
it is not one.

Views (views.py). tool_calls / invalid_tool_calls / server_tool_calls /
tool_call_chunks are kept up to date as calls change, never rebuilt per read: a new
call is appended, a call leaving a view (turned invalid, server-side) is deleted, both
at C speed. A list handed out is never modified: the first change after a read copies
it. Entries are the calls' own dicts, updated in place until the call is final: a
ToolCall's "args" is the parser's live preview object (which the parser grows in
place; a read only checks, for the calls that received text, whether that object was
replaced), name and id pieces are written into every entry of the call.

Limits (stated in options.py, applied by arguments.py and state.py) bound memory;
every limit makes a call invalid, none raises.
"""

from __future__ import annotations

from callstream._assembly.assembler import TRUNCATION_REASONS, ToolCallAssembler
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallChunk,
    CallDone,
    CallEnd,
    CallExtras,
    CallFailure,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
    ServerToolCall,
    ServerToolUse,
    Signal,
    StreamEnd,
    StreamFinished,
    TextDelta,
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
    "ToolCallAssembler",
    "ToolCallChunk",
)
