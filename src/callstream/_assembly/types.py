"""LangChain-shaped tool-call dicts, the signals providers send, and assembly events.

The three ``TypedDict`` s have exactly the keys of LangChain's ``ToolCallChunk``,
``ToolCall`` and ``InvalidToolCall``, so results drop into LangChain messages unchanged.

Signals are what provider translators produce: :class:`CallChunk` (a fragment of one
call), :class:`CallEnd` (an explicit end marker for one call), :class:`CallFailure` (a
provider-side failure), :class:`ServerToolUse`, :class:`TextDelta` (text the model wrote,
for the user or as reasoning) and :class:`StreamEnd` (the end of the stream). Events
(:class:`CallStarted`, :class:`ArgumentsDelta`, :class:`CallDone`, :class:`CallInvalid`,
:class:`StreamFinished`) are what the assembler reports, in order per call: started,
deltas, then done or invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, TypeAlias, final

from typing_extensions import NotRequired, TypedDict

from callstream._assembly.validation import check_args, check_index, check_str
from callstream._errors import ChunkValidationError
from callstream._json.changes import Change
from callstream._types import Record, assign_field, delete_field, fast_constructor, is_native

if TYPE_CHECKING:
    from callstream._argtypes import ArgsArg, BoolArg, OptIntArg, OptStrArg, StrArg

__all__ = (
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
    """

    type: Literal["server_tool_call"]
    name: str
    args: dict[str, Any]
    id: str | None


# --- signals from providers -------------------------------------------------------------


@final
class CallChunk(Record):
    """A fragment of one call, as a translator read it from provider data: the provider's
    ``index`` (its key for the call), ``id``, ``name``, and ``args``: a fragment of the
    JSON argument text, or the whole arguments as an object (a ``dict``).

    The signal translators hand the assembler (what a ``ToolCallChunk`` dict is for user
    code, without the dict): it is checked once, where it is made. Built by its
    constructor (keywords), the fields are checked as
    :meth:`ToolCallAssembler.feed` checks a chunk dict (an ``index`` of digits becomes an
    int, ``str`` subclasses plain ``str``); translators, whose accessors already return
    these types, build it through :func:`new_call_chunk`. The assembler merges it as it
    is. Immutable, compared and matched as a frozen dataclass (a :class:`Record`). Cost:
    O(1) (an ``args`` object is serialized by the assembler).

    Raises:
        ChunkValidationError: a field of the wrong type.
    """

    __slots__ = ("index", "id", "name", "args")
    __match_args__: ClassVar = ("index", "id", "name", "args")
    _compared: ClassVar = __match_args__

    def __init__(
        self,
        *,
        index: OptIntArg = None,
        id: OptStrArg = None,
        name: OptStrArg = None,
        args: ArgsArg = None,
    ) -> None:
        if index is not None and type(index) is not int:
            index = check_index(index, "CallChunk: ")
        if id is not None and type(id) is not str:
            id = check_str("id", id, "CallChunk: ")
        if name is not None and type(name) is not str:
            name = check_str("name", name, "CallChunk: ")
        if args is not None and type(args) is not str:
            args = check_args(args, "CallChunk: ")
        self.index: Final[int | None] = index
        self.id: Final[str | None] = id
        self.name: Final[str | None] = name
        self.args: Final[str | dict[str, Any] | None] = args

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


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
    (``"max_tokens"``, ``"MAX_TOKENS"``, ``"end_turn"`` ...), None if it sent none."""

    reason: str | None = None
    provider_reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerToolUse:
    """The call with provider ``index`` (or ``id``) is a server-side tool: the provider
    runs it itself, so it is reported in ``server_tool_calls``, not in ``tool_calls``.

    Sent by a translator after the chunk that starts the call.
    """

    index: int | None = None
    id: str | None = None


@final
class TextDelta(Record):
    """Text the model wrote: for the user (``reasoning=False``, the assistant's answer) or
    reasoning / thinking text (``reasoning=True``).

    Translators report it in stream order, one per piece of text in a payload (built
    through :func:`new_text_delta`, without a second check). The assembler is about
    calls: :meth:`~callstream.ToolCallAssembler.apply` passes it through untouched
    (``[]``); the pipeline puts it on :attr:`StreamUpdate.text` /
    :attr:`StreamUpdate.reasoning` and the whole text on the result. Built by its
    constructor, the fields are checked (a ``str`` subclass becomes a plain ``str``).
    Immutable, compared and matched as a frozen dataclass (a :class:`Record`). Cost: O(1).

    Raises:
        ChunkValidationError: ``text`` not a str, or ``reasoning`` not a bool.
    """

    __slots__ = ("text", "reasoning")
    __match_args__: ClassVar = ("text", "reasoning")
    _compared: ClassVar = __match_args__

    def __init__(self, *, text: StrArg, reasoning: BoolArg = False) -> None:
        if type(text) is not str:
            checked = check_str("text", text, "TextDelta: ")
            if checked is None:
                raise ChunkValidationError("TextDelta: field 'text' must be a str, got None")
            text = checked
        if type(reasoning) is not bool:
            raise ChunkValidationError(
                f"TextDelta: field 'reasoning' must be a bool, got {reasoning!r}"
            )
        self.text: Final[str] = text
        self.reasoning: Final[bool] = reasoning

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


Signal: TypeAlias = (
    CallChunk | ToolCallChunk | CallEnd | CallFailure | StreamEnd | ServerToolUse | TextDelta
)
"""What a provider translator produces for one payload."""


# --- events for consumers ---------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CallStarted:
    """A call has a name and is announced. ``index`` numbers calls in order of start
    (0, 1, ...); ``key`` is the provider's index, when it gave one. ``server`` is True for
    a server-side tool (run by the provider) whose :class:`ServerToolUse` marker arrived
    before the call was announced (translators send it right after the starting chunk)."""

    index: int
    key: int | None
    id: str | None
    name: str
    server: bool = False


@final
class ArgumentsDelta(Record):
    """Argument text arrived for call ``index``: the raw ``text`` and the parser's
    ``changes`` (paths are relative to the arguments object). Immutable, compared and
    matched as a frozen dataclass (a :class:`Record`); one per argument fragment."""

    __slots__ = ("index", "text", "changes")
    __match_args__: ClassVar = ("index", "text", "changes")
    _compared: ClassVar = __match_args__

    def __init__(self, *, index: int, text: str, changes: tuple[Change, ...] = ()) -> None:
        self.index: Final = index
        self.text: Final = text
        self.changes: Final = changes

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallDone:
    """Call ``index`` is final and valid; ``server``: a server-side tool (run by the
    provider, listed in ``server_tool_calls``, not to be run again)."""

    index: int
    tool_call: ToolCall
    server: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class CallInvalid:
    """Call ``index`` is final and invalid; ``invalid_tool_call["error"]`` says why;
    ``server``: a server-side tool (run by the provider)."""

    index: int
    invalid_tool_call: InvalidToolCall
    server: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamFinished:
    """The stream finished (after every call's done or invalid event)."""

    reason: str | None


AssemblyEvent: TypeAlias = CallStarted | ArgumentsDelta | CallDone | CallInvalid | StreamFinished
"""Any assembly event."""


# --- construction on the hot path --------------------------------------------------------
#
# Compiled (mypyc), a record's native __init__ is the fast way: the functions below call
# the class directly. Interpreted, __init__ assigns through __setattr__ (which keeps the
# record frozen), so the same functions call a factory that sets the slots instead
# (fast_constructor, built once here). Both build equal records.

_CHUNK: Final[Callable[..., CallChunk] | None] = (
    None if is_native(CallChunk) else fast_constructor(CallChunk, unchecked=True)
)
_TEXT: Final[Callable[..., TextDelta] | None] = (
    None if is_native(TextDelta) else fast_constructor(TextDelta, unchecked=True)
)
_DELTA: Final[Callable[..., ArgumentsDelta] | None] = (
    None if is_native(ArgumentsDelta) else fast_constructor(ArgumentsDelta, unchecked=True)
)


def new_call_chunk(
    index: int | None, id: str | None, name: str | None, args: str | dict[str, Any] | None
) -> CallChunk:
    """``CallChunk(index, id, name, args)`` without its field checks, for callers whose
    values have the checked types already (the translators pass what this package's
    accessors return). Cost: O(1)."""
    if _CHUNK is None:
        return CallChunk(index=index, id=id, name=name, args=args)
    return _CHUNK(index, id, name, args)


def new_text_delta(text: str, reasoning: bool) -> TextDelta:
    """``TextDelta(text, reasoning)`` without its field checks (``text`` a plain ``str``,
    ``reasoning`` a bool). Cost: O(1)."""
    if _TEXT is None:
        return TextDelta(text=text, reasoning=reasoning)
    return _TEXT(text, reasoning)


def new_arguments_delta(index: int, text: str, changes: tuple[Change, ...]) -> ArgumentsDelta:
    """``ArgumentsDelta(index, text, changes)`` (one per argument fragment). Cost: O(1)."""
    if _DELTA is None:
        return ArgumentsDelta(index=index, text=text, changes=changes)
    return _DELTA(index, text, changes)
