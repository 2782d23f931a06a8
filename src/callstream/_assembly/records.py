"""The signals translators send and the events the assembler reports: one record class
each (:class:`~callstream._types.Record`), built by calling the class.

Signals: :class:`CallChunk` (a fragment of one call), :class:`TextDelta`, :class:`CallEnd`,
:class:`CallFailure`, :class:`ServerToolUse`, :class:`CallExtras`, :class:`StreamEnd`.
Events, in order per call: :class:`CallStarted`, :class:`ArgumentsDelta`, then
:class:`CallDone` or :class:`CallInvalid`; :class:`StreamFinished` last. Re-exported by
:mod:`callstream._assembly.types` (with the ``TypedDict`` s of
:mod:`~callstream._assembly.call_dicts` and the unions); compiled with mypyc in the
compiled build.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from callstream._assembly.validation import check_args, check_index, check_str
from callstream._errors import ChunkValidationError
from callstream._json.changes import Change
from callstream._types import Record

if TYPE_CHECKING:
    from callstream._argtypes import ArgsArg, BoolArg, OptIntArg, OptStrArg, StrArg
    from callstream._assembly.call_dicts import InvalidToolCall, ToolCall

__all__ = (
    "ArgumentsDelta",
    "CallChunk",
    "CallDone",
    "CallEnd",
    "CallExtras",
    "CallFailure",
    "CallInvalid",
    "CallStarted",
    "ServerToolUse",
    "StreamEnd",
    "StreamFinished",
    "TextDelta",
)

# --- signals from providers -------------------------------------------------------------
#
# A signal's fields are what its producer gave: CallChunk and TextDelta check them where
# they are made; the others are checked by the assembler method they stand for
# (``end_call``, ``fail_call`` ...), so their parameters read as ``object`` to mypyc
# (``_argtypes``) and a wrong type raises ChunkValidationError there, in both builds.


@final
class CallChunk(Record):
    """A fragment of one call, as a translator read it from provider data: the provider's
    ``index`` (its key for the call), ``id``, ``name``, and ``args``: a fragment of the
    JSON argument text, or the whole arguments as an object (a ``dict``).

    The signal translators hand the assembler (what a ``ToolCallChunk`` dict is for user
    code, without the dict): it is checked once, where it is made, as
    :meth:`ToolCallAssembler.feed` checks a chunk dict (an ``index`` of digits becomes an
    int, ``str`` subclasses plain ``str``); a field that has its type already costs one
    ``type()`` test. The assembler merges it as it is. Cost: O(1) (an ``args`` object is
    serialized by the assembler).

    Raises:
        ChunkValidationError: a field of the wrong type.
    """

    __match_args__: ClassVar = ("index", "id", "name", "args")
    __slots__ = __match_args__

    def __init__(
        self,
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


@final
class TextDelta(Record):
    """Text the model wrote: for the user (``reasoning=False``, the assistant's answer) or
    reasoning / thinking text (``reasoning=True``).

    Translators report it in stream order, one per piece of text in a payload. The
    assembler is about calls: :meth:`~callstream.ToolCallAssembler.apply` passes it
    through untouched (``[]``); the pipeline puts it on :attr:`StreamUpdate.text` /
    :attr:`StreamUpdate.reasoning` and the whole text on the result. The fields are
    checked (a ``str`` subclass becomes a plain ``str``). Cost: O(1).

    Raises:
        ChunkValidationError: ``text`` not a str, or ``reasoning`` not a bool.
    """

    __match_args__: ClassVar = ("text", "reasoning")
    __slots__ = __match_args__

    def __init__(self, text: StrArg, reasoning: BoolArg = False) -> None:
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


@final
class CallEnd(Record):
    """The provider marked the end of one call (``index`` as in its chunks, or ``id``).

    ``args``, when given, is the provider's authoritative complete argument text (or
    object); it replaces what was streamed if the two differ.
    """

    __match_args__: ClassVar = ("index", "id", "args")
    __slots__ = __match_args__

    def __init__(self, index: OptIntArg = None, id: OptStrArg = None, args: ArgsArg = None) -> None:
        self.index: Final = index
        self.id: Final = id
        self.args: Final = args


@final
class CallFailure(Record):
    """The provider reported that a call failed; it becomes an invalid tool call.

    ``index`` / ``id`` select an existing call when one matches; otherwise a new invalid
    call is recorded with ``name`` and the raw ``args``.
    """

    __match_args__: ClassVar = ("error", "index", "id", "name", "args")
    __slots__ = __match_args__

    def __init__(
        self,
        error: StrArg,
        index: OptIntArg = None,
        id: OptStrArg = None,
        name: OptStrArg = None,
        args: OptStrArg = None,
    ) -> None:
        self.error: Final = error
        self.index: Final = index
        self.id: Final = id
        self.name: Final = name
        self.args: Final = args


@final
class StreamEnd(Record):
    """The stream ended; ``reason`` is the provider's finish reason, normalized where
    known (``"length"`` means the output was cut off by a token limit, ``"error"`` that
    the provider reported an error); ``provider_reason`` is the word the provider sent
    (``"max_tokens"``, ``"MAX_TOKENS"``, ``"end_turn"`` ...), None if it sent none;
    ``provider_error`` is what the provider said about the error that ended the stream
    (an error event's message), None for any other end."""

    __match_args__: ClassVar = ("reason", "provider_reason", "provider_error")
    __slots__ = __match_args__

    def __init__(
        self,
        reason: OptStrArg = None,
        provider_reason: OptStrArg = None,
        provider_error: OptStrArg = None,
    ) -> None:
        self.reason: Final = reason
        self.provider_reason: Final = provider_reason
        self.provider_error: Final = provider_error


@final
class ServerToolUse(Record):
    """The call with provider ``index`` (or ``id``) is a server-side tool: the provider
    runs it itself, so it is reported in ``server_tool_calls``, not in ``tool_calls``.

    Sent by a translator right *before* the chunk that starts the call (with the index
    and id that chunk carries), so the call is a server call from its birth: every event
    about it says ``server=True``, also one reported by that first chunk (an id or name
    over the length limit, malformed text). A marker for a call already open marks it
    from then on (the events reported before said ``server=False``); see
    :meth:`ToolCallAssembler.mark_server`.
    """

    __match_args__: ClassVar = ("index", "id")
    __slots__ = __match_args__

    def __init__(self, index: OptIntArg = None, id: OptStrArg = None) -> None:
        self.index: Final = index
        self.id: Final = id


@final
class CallExtras(Record):
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

    __match_args__: ClassVar = ("extras", "index", "id")
    __slots__ = __match_args__

    def __init__(
        self, extras: Mapping[str, Any], index: OptIntArg = None, id: OptStrArg = None
    ) -> None:
        self.extras: Final = extras
        self.index: Final = index
        self.id: Final = id


# --- events for consumers ---------------------------------------------------------------


@final
class CallStarted(Record):
    """A call has a name and is announced. ``index`` numbers calls in order of start
    (0, 1, ...); ``key`` is the provider's index, when it gave one. ``server`` is True for
    a server-side tool (run by the provider) whose :class:`ServerToolUse` marker arrived
    before the call was announced (translators send it before the starting chunk).
    ``extras`` is the call's :class:`CallExtras` record when it started (None: none)."""

    __match_args__: ClassVar = ("index", "key", "id", "name", "server", "extras")
    __slots__ = __match_args__

    def __init__(  # noqa: PLR0917 - by position or keyword, as every record
        self,
        index: int,
        key: int | None,
        id: str | None,
        name: str,
        server: bool = False,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self.index: Final = index
        self.key: Final = key
        self.id: Final = id
        self.name: Final = name
        self.server: Final = server
        self.extras: Final = extras


@final
class ArgumentsDelta(Record):
    """Argument text arrived for call ``index``: the raw ``text`` and the parser's
    ``changes`` (paths are relative to the arguments object); one per argument fragment."""

    __match_args__: ClassVar = ("index", "text", "changes")
    __slots__ = __match_args__

    def __init__(self, index: int, text: str, changes: tuple[Change, ...] = ()) -> None:
        self.index: Final = index
        self.text: Final = text
        self.changes: Final = changes


@final
class CallDone(Record):
    """Call ``index`` is final and valid; ``server``: a server-side tool (run by the
    provider, listed in ``server_tool_calls``, not to be run again); ``extras``: the
    call's :class:`CallExtras` record at that point (None: none)."""

    __match_args__: ClassVar = ("index", "tool_call", "server", "extras")
    __slots__ = __match_args__

    def __init__(
        self,
        index: int,
        tool_call: ToolCall,
        server: bool = False,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self.index: Final = index
        self.tool_call: Final = tool_call
        self.server: Final = server
        self.extras: Final = extras


@final
class CallInvalid(Record):
    """Call ``index`` is final and invalid; ``invalid_tool_call["error"]`` says why;
    ``server``: a server-side tool (run by the provider); ``extras``: the call's
    :class:`CallExtras` record at that point (None: none)."""

    __match_args__: ClassVar = ("index", "invalid_tool_call", "server", "extras")
    __slots__ = __match_args__

    def __init__(
        self,
        index: int,
        invalid_tool_call: InvalidToolCall,
        server: bool = False,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self.index: Final = index
        self.invalid_tool_call: Final = invalid_tool_call
        self.server: Final = server
        self.extras: Final = extras


@final
class StreamFinished(Record):
    """The stream finished (after every call's done or invalid event); ``reason`` is its
    finish reason, ``provider_error`` the provider's message when it ended the stream
    with an error (see :attr:`ToolCallAssembler.provider_error`), else None."""

    __match_args__: ClassVar = ("reason", "provider_error")
    __slots__ = __match_args__

    def __init__(self, reason: str | None, provider_error: str | None = None) -> None:
        self.reason: Final = reason
        self.provider_error: Final = provider_error
