"""ToolCallAssembler: streamed tool-call chunks in; per-call state, events and views out."""

# How the assembler works, module by module: see the package docstring (__init__.py).

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from callstream._assembly.assembly_state import AssemblyState
from callstream._assembly.call import UNDECIDED, VALID
from callstream._assembly.options import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_CHARS,
    MAX_NAME_CHARS,
    check_options,
)
from callstream._assembly.types import (
    AssemblyEvent,
    CallChunk,
    CallEnd,
    CallExtras,
    CallFailure,
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
from callstream._assembly.validation import (
    args_text,
    check_extras,
    check_index,
    check_str,
    read_chunk,
)
from callstream._assembly.verdict import TRUNCATION_REASONS, truncation
from callstream._errors import AssemblerStateError, ChunkValidationError
from callstream._json.parser import DEFAULT_ALLOW, DEFAULT_MAX_DEPTH
from callstream._types import mypyc_attr

if TYPE_CHECKING:
    from callstream._argtypes import (
        ArgsArg,
        BoolArg,
        EmptyArgsArg,
        IndexArg,
        IntArg,
        OptIntArg,
        OptStrArg,
        StrArg,
    )

_SIGNAL_TYPES: Final = (Mapping, CallEnd, CallFailure, StreamEnd, ServerToolUse, CallExtras)
"""What :meth:`ToolCallAssembler.apply` dispatches besides a :class:`CallChunk` (and lists);
a :class:`TextDelta` is taken too, and passed through."""

__all__ = (
    "DEFAULT_MAX_ARGUMENT_CHARS",
    "DEFAULT_MAX_CALLS",
    "DEFAULT_MAX_CHARS",
    "MAX_NAME_CHARS",
    "TRUNCATION_REASONS",
    "ToolCallAssembler",
)


@mypyc_attr(allow_interpreted_subclasses=True)  # subclassable: docs/design.md
class ToolCallAssembler:
    """Merges streamed tool-call chunks into tool calls, with events and live views.

    Feed provider chunks (``ToolCallChunk`` dicts: ``index``, ``id``, ``name``, ``args``,
    any of them missing or None) with :meth:`feed`, end markers with :meth:`end_call`,
    provider-side failures with :meth:`fail_call`, and the end of the stream with
    :meth:`finish`; or pass any of these signals to :meth:`apply`. Each returns the
    events it caused. Read :attr:`tool_calls`, :attr:`invalid_tool_calls` and
    :attr:`tool_call_chunks` at any time.

    Merge rules: which call a chunk belongs to (key, empty fields, repeats and
    snapshots, pieces, a new call on the same key), how its arguments join, and that
    nothing is announced before the name, are stated once in
    :mod:`callstream._assembly.routing` (rules 1-7, each with a test in
    ``tests/assembly/test_assembler_rules.py``).

    Each call is *pending* (no name yet), then *streaming* (named), then *done* or
    *invalid*; a malformed fragment makes it invalid mid-stream (its raw text keeps
    growing in the views; other calls carry on). Per call, events are ordered
    ``CallStarted``, ``ArgumentsDelta``\\*, then exactly one of ``CallDone`` /
    ``CallInvalid``; a call that never had a name gets only ``CallInvalid``. Event
    ``index`` numbers calls in order of start (their first chunk);
    ``CallStarted.key`` is the provider's index.

    Verdicts (when a call is final, and why it is valid or invalid): stated once in
    :mod:`callstream._assembly.verdict`.

    Limits (what each ``max_*`` option bounds, its default, what happens past it):
    stated once in :mod:`callstream._assembly.options`.

    Cost model: a chunk costs O(its size) plus O(1) bookkeeping (parser feed, one event);
    a call entering or leaving a view costs O(1) amortized in Python plus, when the list
    had been read since its last change, one C-speed copy of it (``list.copy``, at most
    one per view per read, bounded by ``max_calls``).
    Reading a view costs O(1) plus one preview check per call that received text since
    the last read; ``invalid_tool_calls`` and ``tool_call_chunks`` re-join a call's raw
    text at every read while it is at most 4,096 characters, beyond that only when it has
    doubled (and once when the call ended), so reading them after every fragment costs
    O(total text) over the stream.
    Not thread-safe: use one assembler per stream.
    """

    __slots__ = (
        "_finish_reason",
        "_finished",
        "_max_depth",
        "_provider_error",
        "_provider_finish_reason",
        "_state",
        "_views",
    )

    def __init__(
        self,
        *,
        allow: IntArg = DEFAULT_ALLOW,
        strict: BoolArg = True,
        allow_nan: BoolArg = False,
        max_depth: IntArg = DEFAULT_MAX_DEPTH,
        max_calls: OptIntArg = DEFAULT_MAX_CALLS,
        max_argument_chars: OptIntArg = DEFAULT_MAX_ARGUMENT_CHARS,
        max_chars: OptIntArg = DEFAULT_MAX_CHARS,
        empty_args: EmptyArgsArg = "object",
    ) -> None:
        """Create an assembler for one stream.

        The options are checked here (by :func:`check_options`), also in the compiled
        build, where their types read as ``object`` (``callstream._argtypes``), so that a
        wrong type raises the precise errors below rather than a bare ``TypeError``.

        Args:
            allow: partial-json-parser ``Allow`` flags for argument previews.
            strict: reject control characters inside JSON strings (as ``json.loads``).
            allow_nan: accept ``NaN`` / ``Infinity`` in arguments.
            max_depth: deepest nesting accepted in arguments (text or decoded object).
            max_calls: most calls stored; later calls are counted on one invalid entry,
                not stored (None: no limit). Default :data:`DEFAULT_MAX_CALLS`.
            max_argument_chars: most characters of argument text per call (None: no
                limit); a call exceeding it becomes invalid. Default
                :data:`DEFAULT_MAX_ARGUMENT_CHARS`.
            max_chars: most characters of argument text in the whole stream (None: no
                limit); calls receiving text past it become invalid. Default
                :data:`DEFAULT_MAX_CHARS`.
            empty_args: what a call without argument text means: ``"object"`` (``{}``)
                or ``"invalid"``.

        Raises:
            OptionValueError: an option's value is out of range (also a ``ValueError``).
            OptionTypeError: an option has the wrong type (also a ``TypeError``).
        """
        parser_options: dict[str, Any] = {
            "allow": allow,
            "strict": strict,
            "allow_nan": allow_nan,
            "max_depth": max_depth,
        }
        limits: dict[str, Any] = {
            "max_calls": max_calls,
            "max_argument_chars": max_argument_chars,
            "max_chars": max_chars,
        }
        check_options(parser_options, tuple(limits.items()), empty_args)
        # checked: read back from the dicts (Any) rather than cast from the parameters
        self._max_depth: int = parser_options["max_depth"]
        self._state = AssemblyState(
            parser_options,
            max_calls=limits["max_calls"],
            max_argument_chars=limits["max_argument_chars"],
            max_chars=limits["max_chars"],
            empty_args=str(empty_args),
        )
        self._views = self._state.views  # the same object: one lookup less per read
        self._finished = False
        self._finish_reason: str | None = None
        self._provider_finish_reason: str | None = None
        self._provider_error: str | None = None

    def __repr__(self) -> str:
        state = f"finished ({self._finish_reason!r})" if self._finished else "open"
        return f"<ToolCallAssembler calls={len(self._state.calls)} {state}>"

    # --- inputs -------------------------------------------------------------------------

    def feed(
        self,
        chunk_or_chunks: ToolCallChunk
        | Mapping[str, Any]
        | Sequence[ToolCallChunk | Mapping[str, Any]],
    ) -> list[AssemblyEvent]:
        """Merge one chunk, or a sequence of chunks in order, and return the events.

        A sequence is checked whole before any chunk is applied.

        Cost: O(size of the chunks) plus O(1) per chunk.

        An ``index`` must be an int or a string of at most 18 ASCII digits (``"0"`` is
        0); any other value (``True``, ``1.5``, ``"lc_0"``, ``[0]``) raises and nothing
        of the chunk is applied, so its text never reaches another call. (A translator
        that meets such a chunk in provider data sends a :class:`CallFailure` without
        ``index`` instead: it is recorded as an invalid call of its own.) An ``args``
        mapping nested deeper than ``max_depth`` (or cyclic) is not an error of the
        caller: that call becomes invalid ("arguments exceed a limit: ...").

        Raises:
            AssemblerStateError: :meth:`finish` was already called.
            ChunkValidationError: not a mapping (or a sequence of them), or a field of a
                wrong type (``index`` not an int or digit string, ``id``/``name`` not
                str, ``args`` not str/dict, or a dict JSON cannot hold).
        """
        if self._finished:
            raise AssemblerStateError("feed() after finish(): this stream is over")
        events: list[AssemblyEvent] = []
        given: Any = chunk_or_chunks
        depth = self._max_depth
        state = self._state
        if type(given) is dict or isinstance(given, Mapping):
            state.merge(*read_chunk(given, "", depth), events)
            return events
        if isinstance(given, (str, bytes, bytearray)) or not isinstance(given, Sequence):
            raise ChunkValidationError(
                "feed() takes a tool call chunk (a mapping) or a sequence of them, "
                f"got {type(given).__name__}"
            )
        items = [read_chunk(c, f"chunk {j}: ", depth) for j, c in enumerate(given)]
        for item in items:
            state.merge(*item, events)
        return events

    def end_call(
        self,
        *,
        index: IndexArg = None,
        id: OptStrArg = None,
        args: ArgsArg = None,
    ) -> list[AssemblyEvent]:
        """Mark the end of one call and give its verdict now.

        The call is found by ``id``, else by ``index`` (the provider's index), else, when
        neither is given, it is the call being streamed; an unknown or already ended
        call is ignored. ``args``, when given, is the provider's complete argument text
        (or object): if the call has no text yet it is fed as usual; if it differs from
        what was streamed it replaces it (the provider is the authority; no delta is
        emitted for the replacement, the ``CallDone`` carries the result). A call already
        known invalid stays invalid.

        Cost: O(1), plus O(length of the text) when ``args`` is compared or parsed.

        Raises:
            AssemblerStateError: :meth:`finish` was already called.
            ChunkValidationError: an argument has a wrong type.
        """
        if self._finished:
            raise AssemblerStateError("end_call() after finish(): this stream is over")
        key = check_index(index, "end_call: ")
        id_ = check_str("id", id, "end_call: ")
        text, whole, too_deep = args_text(args, "end_call: ", self._max_depth)
        return self._state.end_call(
            key, id_, text, whole, too_deep, args if isinstance(args, Mapping) else None
        )

    def fail_call(
        self,
        error: StrArg,
        *,
        index: IndexArg = None,
        id: OptStrArg = None,
        name: OptStrArg = None,
        args: ArgsArg = None,
    ) -> list[AssemblyEvent]:
        """Record a provider-side failure of a call: it becomes invalid with ``error``.

        An open call matching ``id`` (else ``index``) turns invalid (keeping its streamed
        text; ``name``/``args`` fill in what it lacks); a call already invalid gets the
        error appended to its own. Otherwise (no match, or the match already ended) a new
        invalid call is recorded with ``name``, ``id`` and the raw ``args``.

        Raises:
            AssemblerStateError: :meth:`finish` was already called.
            ChunkValidationError: an argument has a wrong type.
        """
        if self._finished:
            raise AssemblerStateError("fail_call() after finish(): this stream is over")
        if not isinstance(error, str):
            raise ChunkValidationError(
                f"fail_call: error must be a str, got {type(error).__name__}"
            )
        key = check_index(index, "fail_call: ")
        id_ = check_str("id", id, "fail_call: ") or None
        name = check_str("name", name, "fail_call: ") or None
        text, _whole, too_deep = args_text(args, "fail_call: ", self._max_depth)
        return self._state.fail_call(error, key, id_, name, text, too_deep)

    def finish(
        self,
        reason: OptStrArg = None,
        *,
        provider_reason: OptStrArg = None,
        provider_error: OptStrArg = None,
    ) -> list[AssemblyEvent]:
        """End the stream: give every open call its verdict, then ``StreamFinished``.

        ``reason`` is the provider's finish reason; ``"length"``, ``"max_tokens"`` and
        ``"max_output_tokens"`` (any case) mean the output was cut off by a token limit,
        so calls with incomplete or no arguments are reported as cut off.
        ``provider_reason`` is the word the provider itself sent, when ``reason`` was
        normalized from it (kept in :attr:`provider_finish_reason`). ``provider_error``
        is the provider's message when it ended the stream with an error (kept in
        :attr:`provider_error`, and on the ``StreamFinished`` event).

        Cost: O(number of calls) plus each open call's strict verdict (O(1) per call:
        the parser already holds the value).

        Raises:
            AssemblerStateError: called a second time.
            ChunkValidationError: ``reason`` (or ``provider_reason``, ``provider_error``)
                is not a str or None.
        """
        if self._finished:
            raise AssemblerStateError("finish() was already called on this assembler")
        if reason is not None and not isinstance(reason, str):
            raise ChunkValidationError(
                f"finish: reason must be a str or None, got {type(reason).__name__}"
            )
        if provider_reason is not None and not isinstance(provider_reason, str):
            raise ChunkValidationError(
                "finish: provider_reason must be a str or None, "
                f"got {type(provider_reason).__name__}"
            )
        if provider_error is not None and not isinstance(provider_error, str):
            raise ChunkValidationError(
                "finish: provider_error must be a str or None, "
                f"got {type(provider_error).__name__}"
            )
        events = self._state.finish(truncation(reason))
        events.append(StreamFinished(reason=reason, provider_error=provider_error))
        self._finished = True
        self._finish_reason = reason
        self._provider_finish_reason = provider_reason
        self._provider_error = provider_error
        return events

    def interrupt(self, cause: StrArg) -> list[AssemblyEvent]:
        """End the stream because its source failed (a dropped connection, say).

        A call whose arguments are a complete JSON value gets its usual verdict; any
        other open call (incomplete arguments, or none yet) becomes invalid with "the
        stream was interrupted before the call completed (<cause>)". Calls already
        ended keep their verdict. Ends with ``StreamFinished(reason=None)``;
        :attr:`finish_reason` stays None.

        Cost: O(number of calls) plus each complete call's verdict (O(1) per call).

        Raises:
            AssemblerStateError: the stream was already finished.
            ChunkValidationError: ``cause`` is not a str.
        """
        if self._finished:
            raise AssemblerStateError("interrupt() after finish(): this stream is over")
        if not isinstance(cause, str):
            raise ChunkValidationError(
                f"interrupt: cause must be a str, got {type(cause).__name__}"
            )
        events = self._state.interrupt(cause)
        events.append(StreamFinished(reason=None))
        self._finished = True
        self._finish_reason = None
        return events

    def mark_server(self, *, index: OptIntArg = None, id: OptStrArg = None) -> list[AssemblyEvent]:
        """Mark the call with provider ``index`` (or ``id``) as a server-side tool.

        It leaves ``tool_calls`` / ``invalid_tool_calls`` and is listed in
        :attr:`server_tool_calls` instead. Called before the call's first chunk (no open
        call has that id, or that index: what translators do), the mark is kept for the
        next call to start, which is then a server call from its birth, when it starts
        on ``index`` with ``id`` (a given one must match; another call starting first
        drops the mark). Called for an open call (with that ``id`` or none), it marks
        that call from now on: events already returned for it said ``server=False``.
        A translator never raises on provider data: nothing else is checked. Returns no
        events. Cost: O(1).
        """
        key = check_index(index, "mark_server: ")
        id_ = check_str("id", id, "mark_server: ")
        self._state.mark_server(key, id_ or None)
        return []

    def add_extras(
        self, extras: Mapping[str, Any], *, index: OptIntArg = None, id: OptStrArg = None
    ) -> list[AssemblyEvent]:
        """Merge ``extras`` into the extras record of the call with provider ``index`` (or
        ``id``): facts about the call that LangChain's keys have no place for (see
        :class:`CallExtras`). Read back through :attr:`call_extras`, the events of the
        call and its ``server_tool_calls`` entry. Unknown calls are ignored (a translator
        never raises on provider data); also after the call ended (a status that changes
        later). Returns no events. Cost: O(size of the record).

        Raises:
            ChunkValidationError: ``extras`` is not a mapping with str keys of JSON data
                (nested at most ``DEFAULT_MAX_DEPTH`` levels, whatever the assembler's
                ``max_depth``: translators bound what they copy from provider data by
                the same default), or ``index`` / ``id`` has a wrong type.
        """
        key = check_index(index, "add_extras: ")
        id_ = check_str("id", id, "add_extras: ")
        checked = check_extras(extras, "add_extras: ", DEFAULT_MAX_DEPTH)
        self._state.add_extras(key, id_ or None, checked)
        return []

    def apply(self, signal: Signal | Sequence[Signal]) -> list[AssemblyEvent]:
        """Apply one provider signal (or a sequence of them, in order): a
        :class:`CallChunk`, a chunk dict, :class:`CallEnd`, :class:`CallFailure`,
        :class:`ServerToolUse`, :class:`CallExtras`, :class:`StreamEnd` or
        :class:`TextDelta`.

        A :class:`CallChunk` is merged as it is (its fields were checked where it was
        made); a chunk dict is checked as by :meth:`feed`. A :class:`TextDelta` is not
        about calls: it changes nothing and gives ``[]`` (before and after the finish;
        the pipeline reads the text itself).

        The assembler owns "at most one end of stream": a translator reports every end
        marker it sees, and the assembler keeps the first. Once the stream finished
        (a :class:`StreamEnd`, :meth:`finish` or :meth:`interrupt`), every later signal
        is ignored unread and gives ``[]``: late provider data (a usage chunk after the
        stop, a second stop event) is not misuse. The direct methods (:meth:`feed`,
        :meth:`finish`, :meth:`end_call`, :meth:`fail_call`, :meth:`interrupt`) still
        raise after the finish.

        Raises:
            AssemblerStateError, ChunkValidationError: as the method it dispatches to
                (never for a signal after the finish); ChunkValidationError for a value
                that is no signal.
        """
        given: Any = signal
        if type(given) is CallChunk:  # what every translator sends, first
            if self._finished:
                return []  # late provider data: the stream already ended
            chunk: CallChunk = given  # typed: its fields are read natively when compiled
            events: list[AssemblyEvent] = []
            args = chunk.args
            if args is None or type(args) is str:
                self._state.merge(chunk.index, chunk.id, chunk.name, args, False, None, events)
            else:
                text, whole, too_deep = args_text(args, "", self._max_depth)
                self._state.merge(chunk.index, chunk.id, chunk.name, text, whole, too_deep, events)
            return events
        if isinstance(given, _SIGNAL_TYPES):
            return [] if self._finished else self._dispatch(given)
        if isinstance(given, TextDelta):
            return []  # text passes through: the assembler is about calls
        if isinstance(given, Sequence) and not isinstance(given, (str, bytes, bytearray)):
            events = []
            for item in given:
                events.extend(self.apply(item))
            return events
        raise ChunkValidationError(
            "apply() takes a CallChunk, a tool call chunk dict, CallEnd, CallFailure, StreamEnd, "
            "ServerToolUse, CallExtras or TextDelta, "
            f"got {type(given).__name__}"
        )

    def _dispatch(
        self,
        given: Mapping[str, Any] | CallEnd | CallFailure | StreamEnd | ServerToolUse | CallExtras,
    ) -> list[AssemblyEvent]:
        """:meth:`apply` for a signal other than a :class:`CallChunk`, before the finish.

        The fields are read as ``Any``: a caller may have filled them with other types
        (the method called checks them; see :mod:`~callstream._assembly.records`).
        """
        signal: Any = given
        if isinstance(given, CallEnd):
            return self.end_call(index=signal.index, id=signal.id, args=signal.args)
        if isinstance(given, CallFailure):
            return self.fail_call(
                signal.error, index=signal.index, id=signal.id, name=signal.name, args=signal.args
            )
        if isinstance(given, StreamEnd):
            return self.finish(
                signal.reason,
                provider_reason=signal.provider_reason,
                provider_error=signal.provider_error,
            )
        if isinstance(given, ServerToolUse):
            return self.mark_server(index=signal.index, id=signal.id)
        if isinstance(given, CallExtras):
            return self.add_extras(signal.extras, index=signal.index, id=signal.id)
        return self.feed(given)  # a chunk dict, checked there

    # --- views --------------------------------------------------------------------------

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Tool calls in order of start: best effort while streaming, final after finish.

        Before :meth:`finish`: every named call not known invalid, with ``args`` the
        parser's live preview (``{}`` until it is an object) or the final value of a
        call already ended. After: only the valid calls, with the strict value.

        The list is never modified after it is returned (a change copies it first),
        but its entries are the calls' own dicts, updated in place until the call is
        final: ``args`` is the live preview, which grows with later chunks (and name or
        id pieces, rare once text streams). Read the property again after each feed,
        ``copy.deepcopy`` to keep a snapshot, and do not mutate them. Cost: O(1) plus one
        preview check per call that received text since the last read (see the class
        docstring).
        """
        views = self._views
        if views.preview_changed:
            views.refresh_previews()
        return views.tool_calls.hand_out()

    @property
    def invalid_tool_calls(self) -> list[InvalidToolCall]:
        """Calls known to be invalid, in order of start, with raw ``args`` text and ``error``.

        Before :meth:`finish`: calls already known bad (malformed, over a limit, failed
        or ended without a valid verdict). After: every call that failed. Lists and
        entries behave as in :attr:`tool_calls`. An invalid call that keeps streaming
        shows its complete raw text while it is at most 4,096 characters, then text
        re-joined each time it has doubled (so reading after every fragment stays
        linear); the text is complete again once the call ended. Cost: O(1),
        plus those joins.
        """
        views = self._views
        if views.lagging_invalid:
            views.refresh_invalid()
        return views.invalid_calls.hand_out()

    @property
    def server_tool_calls(self) -> list[ServerToolCall]:
        """Calls the provider runs itself (server-side tools), in order of start.

        Marked by a :class:`ServerToolUse` signal; they never appear in
        :attr:`tool_calls` or :attr:`invalid_tool_calls`. Lists and entries behave as in
        :attr:`tool_calls` (``args`` is the live preview, ``{}`` until it is an object or
        when the call turned out invalid). Cost: as :attr:`tool_calls`.
        """
        views = self._views
        if views.preview_changed:
            views.refresh_previews()
        return views.server_calls.hand_out()

    def current_views(self) -> tuple[list[ToolCall], list[InvalidToolCall], list[ServerToolCall]]:
        """:attr:`tool_calls`, :attr:`invalid_tool_calls` and :attr:`server_tool_calls`
        read at once, as the pipeline puts them on every update (one call, not three).
        Cost: as the three properties."""
        views = self._views
        if views.preview_changed:
            views.refresh_previews()
        if views.lagging_invalid:
            views.refresh_invalid()
        return (
            views.tool_calls.hand_out(),
            views.invalid_calls.hand_out(),
            views.server_calls.hand_out(),
        )

    @property
    def call_extras(self) -> dict[str, dict[str, Any]]:
        """The extras record of each call that has one (see :class:`CallExtras`), by call
        id: ``call_extras.get(call["id"])`` for an entry of any view.

        Calls without an id are not listed (their events carry the record); two calls
        sharing an id give the later one's. A new dict at each read; the records in it
        are never changed (a merge replaces a call's record). Empty for streams whose
        translator sends none (every format but OpenAI Responses items). Cost: O(calls
        with extras).
        """
        return self._views.extras_by_id()

    @property
    def tool_call_chunks(self) -> list[ToolCallChunk]:
        """One merged chunk per call (valid or not), in order of start.

        ``index`` is the call number (unique per call, so LangChain does not merge two
        calls that shared a provider index); ``args`` is the raw text (None when none
        arrived): complete while it is at most 4,096 characters; beyond that, while the
        call streams, re-joined each time it has doubled; complete again once the call
        ended (at the latest after :meth:`finish`). Lists and
        entries behave as in :attr:`tool_calls`. Cost: O(1) plus those joins.
        """
        views = self._views
        if views.lagging_chunks:
            views.refresh_chunks()
        return views.chunks.hand_out()

    @property
    def call_count(self) -> int:
        """Calls seen so far: every call a chunk started (named or not yet, valid,
        invalid or server-side), also before it is announced. Cost: O(1)."""
        return len(self._state.calls)

    def is_server_call(self, index: int) -> bool:
        """Whether call number ``index`` (the ``index`` of events and of
        :attr:`tool_call_chunks`) is a server-side tool, run by the provider (listed in
        :attr:`server_tool_calls`, or to be once it has a name); False for an unknown
        number. Cost: O(1)."""
        calls = self._state.calls
        if type(index) is not int or not 0 <= index < len(calls):
            return False
        return calls[index].server

    def closed_arguments(self, index: int) -> dict[str, Any] | None:
        """The arguments of call ``index`` (a call number) if its text has closed as one
        JSON object, else None.

        For a call still streaming, "closed" means the parser has seen the object's last
        ``}`` and nothing but whitespace after it: what the call would be if its input
        ended now (the strict verdict of :meth:`finish` would give this value, unless
        more text arrives). A call already valid gives its final arguments; an invalid
        call, a call without a name, a server-side tool or an unknown number give None.
        The returned dict is the assembler's own live object: copy it before keeping
        or changing it. Cost: O(1) (the parser holds the value).
        """
        calls = self._state.calls
        if type(index) is not int or not 0 <= index < len(calls):
            return None
        call = calls[index]
        if call.server or call.name is None or call.number != index:
            return None
        if call.verdict == VALID:
            return call.final
        if call.verdict != UNDECIDED:
            return None
        parser = call.arguments.parser
        if parser is None or not parser.complete or parser.failed is not None:
            return None
        value = parser.value
        return value if type(value) is dict else None

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` was called."""
        return self._finished

    @property
    def finish_reason(self) -> str | None:
        """The reason given to :meth:`finish` (None before, or when none was given)."""
        return self._finish_reason

    @property
    def provider_finish_reason(self) -> str | None:
        """The provider's own word for the finish reason (``"max_tokens"``, ``"STOP"``,
        ``"end_turn"`` ...) when a translator passed it on, else None. Cost: O(1)."""
        return self._provider_finish_reason

    @property
    def provider_error(self) -> str | None:
        """What the provider said when it ended the stream with an error (an error
        event's message: Groq's "Tool choice is required, but model did not call a
        tool", Anthropic's "Overloaded" ...), as given to :meth:`finish`; None for any
        other end, and before it. Cost: O(1)."""
        return self._provider_error
