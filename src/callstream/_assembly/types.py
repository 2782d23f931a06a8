"""LangChain-shaped tool-call dicts, the signals providers send, and assembly events.

The three ``TypedDict`` s have exactly the keys of LangChain's ``ToolCallChunk``,
``ToolCall`` and ``InvalidToolCall``, so results drop into LangChain messages unchanged.

Signals are what provider translators produce: :class:`CallChunk` (a fragment of one
call), :class:`CallEnd` (an explicit end marker for one call), :class:`CallFailure` (a
provider-side failure), :class:`ServerToolUse`, :class:`CallExtras` (facts about a call
beyond those keys), :class:`TextDelta` (text the model wrote, for the user or as
reasoning) and :class:`StreamEnd` (the end of the stream). Events
(:class:`CallStarted`, :class:`ArgumentsDelta`, :class:`CallDone`, :class:`CallInvalid`,
:class:`StreamFinished`) are what the assembler reports, in order per call: started,
deltas, then done or invalid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from typing_extensions import NotRequired, TypedDict

# The per-chunk values: records that mypyc compiles (this module's TypedDicts must stay
# interpreted: pydantic reads them, and needs typing_extensions' TypedDict on 3.10-3.11).
from callstream._assembly.records import (
    ArgumentsDelta,
    CallChunk,
    TextDelta,
    new_arguments_delta,
    new_call_chunk,
    new_text_delta,
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
    "new_arguments_delta",
    "new_call_chunk",
    "new_text_delta",
)


class ToolCallChunk(TypedDict):
    """A fragment of a tool call, as streamed (LangChain's keys; any value may be None).

    ``args`` is a text fragment of the JSON arguments; callstream also accepts a whole
    ``dict`` (servers that send the arguments as an object).
    """

    name: str | None
    args: str | dict[str, Any] | None
    id: str | None
    index: int | None
    type: NotRequired[Literal["tool_call_chunk"]]


class ToolCall(TypedDict):
    """A tool call whose arguments are a JSON object (LangChain's keys)."""

    name: str
    args: dict[str, Any]
    id: str | None
    type: NotRequired[Literal["tool_call"]]


class InvalidToolCall(TypedDict):
    """A tool call that could not be completed, with the raw arguments and a reason."""

    name: str | None
    args: str | None
    id: str | None
    error: str | None
    type: NotRequired[Literal["invalid_tool_call"]]


class ServerToolCall(TypedDict):
    """A tool the provider ran itself (LangChain's ``server_tool_call`` content block).

    Server-side tools (Anthropic ``server_tool_use`` such as web search or code execution,
    Bedrock server tools) are executed by the provider: they are reported here, never in
    ``tool_calls``, so an agent loop does not run them again. ``args`` is the arguments
    object (the live preview while streaming, ``{}`` when they were not a valid object).
    ``extras``, present only for a call that has any (LangChain's key for provider
    metadata), is the call's :class:`CallExtras` record: for OpenAI Responses items the
    item kind, its ``status`` and the like (see ``ToolCallAssembler.call_extras``).
    """

    type: Literal["server_tool_call"]
    name: str
    args: dict[str, Any]
    id: str | None
    extras: NotRequired[dict[str, Any]]


# --- signals from providers -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CallEnd:
    """The provider marked the end of one call (``index`` as in its chunks, or ``id``).

    ``args``, when given, is the provider's authoritative complete argument text (or
    object); it replaces what was streamed if the two differ.
    """

    index: int | None = None
    id: str | None = None
    args: str | dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallFailure:
    """The provider reported that a call failed; it becomes an invalid tool call.

    ``index`` / ``id`` select an existing call when one matches; otherwise a new invalid
    call is recorded with ``name`` and the raw ``args``.
    """

    error: str
    index: int | None = None
    id: str | None = None
    name: str | None = None
    args: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamEnd:
    """The stream ended; ``reason`` is the provider's finish reason, normalized where
    known (``"length"`` means the output was cut off by a token limit, ``"error"`` that
    the provider reported an error); ``provider_reason`` is the word the provider sent
    (``"max_tokens"``, ``"MAX_TOKENS"``, ``"end_turn"`` ...), None if it sent none;
    ``provider_error`` is what the provider said about the error that ended the stream
    (an error event's message), None for any other end."""

    reason: str | None = None
    provider_reason: str | None = None
    provider_error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerToolUse:
    """The call with provider ``index`` (or ``id``) is a server-side tool: the provider
    runs it itself, so it is reported in ``server_tool_calls``, not in ``tool_calls``.

    Sent by a translator right *before* the chunk that starts the call (with the index
    and id that chunk carries), so the call is a server call from its birth: every event
    about it says ``server=True``, also one reported by that first chunk (an id or name
    over the length limit, malformed text). A marker for a call already open marks it
    from then on (the events reported before said ``server=False``); see
    :meth:`ToolCallAssembler.mark_server`.
    """

    index: int | None = None
    id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallExtras:
    """Facts about the call with provider ``index`` (or ``id``) that LangChain's tool-call
    keys have no place for: ``extras`` is merged into the call's extras record (a key
    given again replaces its value; the record is a new dict after each merge, so one
    handed out never changes).

    The record is the one place a call's extras live: read it with
    :attr:`ToolCallAssembler.call_extras` (by call id), on the assembly events of the
    call (``CallStarted.extras`` / ``CallDone.extras`` / ``CallInvalid.extras``) and, for
    a server-side tool, as the ``extras`` key of its ``server_tool_calls`` entry. Which
    keys a format writes is its translator's (OpenAI Responses: ``item_type``,
    ``namespace``, ``caller``, ``status``, ``input`` ...). Values are JSON data.

    Sent by a translator after the chunk that starts the call (and any
    :class:`ServerToolUse`), before its argument text, so the call's ``CallStarted``
    carries them; later ones (a status change) update the record. Unknown calls are
    ignored.
    """

    extras: dict[str, Any]
    index: int | None = None
    id: str | None = None


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


# --- events for consumers ---------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CallStarted:
    """A call has a name and is announced. ``index`` numbers calls in order of start
    (0, 1, ...); ``key`` is the provider's index, when it gave one. ``server`` is True for
    a server-side tool (run by the provider) whose :class:`ServerToolUse` marker arrived
    before the call was announced (translators send it before the starting chunk).
    ``extras`` is the call's :class:`CallExtras` record when it started (None: none)."""

    index: int
    key: int | None
    id: str | None
    name: str
    server: bool = False
    extras: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallDone:
    """Call ``index`` is final and valid; ``server``: a server-side tool (run by the
    provider, listed in ``server_tool_calls``, not to be run again); ``extras``: the
    call's :class:`CallExtras` record at that point (None: none)."""

    index: int
    tool_call: ToolCall
    server: bool = False
    extras: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallInvalid:
    """Call ``index`` is final and invalid; ``invalid_tool_call["error"]`` says why;
    ``server``: a server-side tool (run by the provider); ``extras``: the call's
    :class:`CallExtras` record at that point (None: none)."""

    index: int
    invalid_tool_call: InvalidToolCall
    server: bool = False
    extras: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamFinished:
    """The stream finished (after every call's done or invalid event); ``reason`` is its
    finish reason, ``provider_error`` the provider's message when it ended the stream
    with an error (see :attr:`ToolCallAssembler.provider_error`), else None."""

    reason: str | None
    provider_error: str | None = None


AssemblyEvent: TypeAlias = CallStarted | ArgumentsDelta | CallDone | CallInvalid | StreamFinished
"""Any assembly event."""
