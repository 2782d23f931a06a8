"""ToolCallAssembler: streamed tool-call chunks in; per-call state, events and views out."""

# Theory of operation
# -------------------
# The assembler is a sans-I/O state machine. Every input (a chunk, an end marker, a
# provider failure, the end of the stream) is merged into a list of per-call records
# (callstream._assembly.call.Call) and answered with a list of events; nothing else
# happens: no I/O, no clocks, no logging.
#
# Routing. Two dictionaries and a pointer find the call a chunk continues: provider
# index -> the latest call on that index, id -> call, and "current" (the call that
# received the last chunk). The merge rules in ToolCallAssembler's docstring decide
# between continuing that call and starting a new one; the decision looks only at the
# call's identity, whether argument text has begun, and whether its JSON is already
# complete, so it is O(1) per chunk.
#
# Arguments. Each call owns one incremental PartialJSONParser. A text fragment is fed
# to it once (never re-parsed), and the parser's changes are passed on in an
# ArgumentsDelta together with the raw fragment: a UI updates in O(fragment). Text that
# arrives before the call has a name is parsed at once but buffered, and released as
# one ArgumentsDelta right after CallStarted. When the parser rejects a fragment the
# call turns invalid at once (CallInvalid); its raw text keeps accumulating for the
# view, and the other calls are unaffected.
#
# Verdicts are late: a call is final only at its end marker (end_call / fail_call) or
# at finish(), never because its text happens to parse. Then close() gives the strict
# value (exactly json.loads of the text) or the reason it is not one.
#
# Views. tool_calls / invalid_tool_calls / tool_call_chunks are cached lists that are
# rebuilt only when a call was added, renamed, re-identified or changed state (O(calls)
# then); in between, a read costs O(1) plus one parser preview refresh per call that
# received text since the last read. A ToolCall's "args" is the parser's live preview
# object, which the parser grows in place, so streaming text rebuilds nothing. A list
# handed out is never modified afterwards (a change builds a new list); the args
# objects inside it are live views that keep growing until the call is final.

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from callstream._assembly.call import DONE, INVALID, OPEN, Call, json_kind
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
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
from callstream._assembly.validation import args_text, check_index, check_str, read_chunk
from callstream._errors import (
    AssemblerStateError,
    ChunkValidationError,
    IncompleteJSONError,
    JSONLimitError,
    PartialJSONError,
)
from callstream._json.changes import Change
from callstream._json.parser import DEFAULT_ALLOW, DEFAULT_MAX_DEPTH, PartialJSONParser
from callstream._types import slot_setter

__all__ = ("TRUNCATION_REASONS", "ToolCallAssembler")

TRUNCATION_REASONS: Final = frozenset({"length", "max_tokens", "max_output_tokens"})
"""Finish reasons (compared case-insensitively) meaning the output hit a token limit."""


_BLOCK: Final = 256
"""Consecutive raw fragments joined into one string, so that a long argument text streamed
in tiny fragments costs O(1) string objects per 256 fragments, not one per fragment."""

_new = object.__new__
_set_index = slot_setter(ArgumentsDelta, "index")
_set_text = slot_setter(ArgumentsDelta, "text")
_set_changes = slot_setter(ArgumentsDelta, "changes")


def _delta(index: int, text: str, changes: tuple[Change, ...]) -> ArgumentsDelta:
    """``ArgumentsDelta(index=..., text=..., changes=...)`` at half the cost (hot path).

    Sets the slots directly instead of going through the frozen dataclass's
    ``object.__setattr__`` calls; a test checks it equals the constructor's result.
    """
    delta: ArgumentsDelta = _new(ArgumentsDelta)
    _set_index(delta, index)
    _set_text(delta, text)
    _set_changes(delta, changes)
    return delta


def _has_content(text: str | None) -> bool:
    """Whether argument text carries more than whitespace."""
    return text is not None and not text.isspace()


def _rejected(exc: PartialJSONError) -> str:
    """The error text of a call whose arguments the parser rejected."""
    if isinstance(exc, JSONLimitError):
        return f"arguments exceed a limit: {exc.reason} at position {exc.position}"
    return f"malformed arguments: {exc.reason} at position {exc.position}"


class ToolCallAssembler:
    """Merges streamed tool-call chunks into tool calls, with events and live views.

    Feed provider chunks (``ToolCallChunk`` dicts: ``index``, ``id``, ``name``, ``args``,
    any of them missing or None) with :meth:`feed`, end markers with :meth:`end_call`,
    provider-side failures with :meth:`fail_call`, and the end of the stream with
    :meth:`finish`; or pass any of these signals to :meth:`apply`. Each returns the
    events it caused. Read :attr:`tool_calls`, :attr:`invalid_tool_calls` and
    :attr:`tool_call_chunks` at any time.

    Merge rules (each has a test in ``tests/test_assembler_rules.py``):

    1. **Key.** A chunk with an ``index`` continues the latest call on that index; a
       chunk without one continues the call with its ``id``; a chunk with neither
       continues the call being streamed (the one that received the last chunk). An
       unknown index or id starts a new call. (An unknown index whose id names a call
       that came without an index adopts that call; a chunk without an index whose id is
       unknown still continues the call being streamed when that call has no index and
       no id yet, or when the id extends its id and no argument text has arrived.)
    2. **Empty fields.** ``""`` and ``None`` for ``id``, ``name`` and ``args`` are ignored:
       they never reset or blank anything. A chunk carrying nothing else never starts
       a call.
    3. **Repeats and snapshots.** An ``id`` or ``name`` equal to the call's current one is
       ignored (servers resend them on every chunk); one that extends it (starts with
       it) replaces it (cumulative snapshots).
    4. **Pieces.** Before any argument text has arrived, any other ``id`` or ``name`` is
       a piece of it and is appended (ids and names streamed in pieces).
    5. **New call on the same key.** A chunk starts a new call, even on a known index or
       for the call being streamed, when

       a. it brings a different ``id`` or ``name`` (not an exact repeat) and the call
          has already received argument text (servers that reuse index 0);
       b. it brings both an ``id`` and a ``name`` that differ from the call's (neither
          extending it) while the call has both — two back-to-back calls without
          arguments, rather than an id and a name both streamed in pieces;
       c. it names a tool while the call's arguments are already a complete JSON value,
          and either brings non-blank argument text, or has neither index nor id while
          the call has no id either (whole calls of the same tool one after the other,
          Ollama style; a chunk resending the name with blank text to a call that has
          an index or an id stays a repeat);
       d. it has neither index nor id and names a tool other than the call's (not a
          repeat or an extension): pieces cannot be told apart without a key, so the
          name is taken as a tool of its own;
       e. the call was ended (:meth:`end_call` / :meth:`fail_call`) and the chunk names
          a tool (even the same one: an ended call takes no more names), brings another
          id, or non-blank argument text; blank continuations of an ended call and a
          repeat of its id are ignored.
    6. **Arguments.** ``args`` text is appended to the call's raw text and fed to its
       parser. An ``args`` dict is the complete arguments (serialized with
       ``json.dumps``); when the call already has text, the dict replaces it.
    7. **Name first.** Nothing about a call is announced before it has a name:
       :class:`CallStarted` comes when argument text begins (by then the name is
       complete) or when the call is reported; argument text that arrived before it is
       released as one :class:`ArgumentsDelta` right after.

    Each call is *pending* (no name yet), then *streaming* (named), then *done* or
    *invalid*; a malformed fragment makes it invalid mid-stream (its raw text keeps
    growing in the views; other calls carry on). Per call, events are ordered
    ``CallStarted``, ``ArgumentsDelta``\\*, then exactly one of ``CallDone`` /
    ``CallInvalid``; a call that never had a name gets only ``CallInvalid``. Event
    ``index`` numbers calls in order of start (their first chunk);
    ``CallStarted.key`` is the provider's index.

    Verdicts are late: a call is final at :meth:`end_call`, :meth:`fail_call` or
    :meth:`finish`, never because its text happens to parse. Then: a JSON object ->
    valid; no argument text -> ``{}`` (or invalid with ``empty_args="invalid"``, and
    always invalid when the finish reason is a token limit); other JSON -> invalid
    ("arguments must be a JSON object, got array"); malformed -> invalid with reason and
    position, reported at the fragment where it became impossible; incomplete -> invalid
    "cut off" (naming the finish reason when it was ``length`` / ``max_tokens``); no
    name -> invalid "tool call has no name". A call whose JSON is complete is valid
    even under a token-limit finish reason.

    Limits: calls beyond ``max_calls`` are recorded as invalid at once, without their
    argument text; a call whose argument text exceeds ``max_argument_chars`` becomes
    invalid at once, its raw text kept up to the limit.

    Cost model: a chunk costs O(its size) plus O(1) bookkeeping (parser feed, one event);
    reading a view costs O(1) when nothing changed, one parser preview refresh per call
    that received text, and O(number of calls) after a structural change (a call added,
    named, ended). ``tool_call_chunks`` and ``invalid_tool_calls`` also join the raw text
    of calls whose text grew. Not thread-safe: use one assembler per stream.
    """

    __slots__ = (
        "_by_id",
        "_by_key",
        "_calls",
        "_chunks",
        "_current",
        "_empty_args",
        "_finish_reason",
        "_finished",
        "_inv",
        "_max_calls",
        "_max_chars",
        "_popts",
        "_server",
        "_tc",
        "_touched",
    )

    def __init__(
        self,
        *,
        allow: int = DEFAULT_ALLOW,
        strict: bool = True,
        allow_nan: bool = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_calls: int | None = None,
        max_argument_chars: int | None = None,
        empty_args: Literal["object", "invalid"] = "object",
    ) -> None:
        """Create an assembler for one stream.

        Args:
            allow: partial-json-parser ``Allow`` flags for argument previews.
            strict: reject control characters inside JSON strings (as ``json.loads``).
            allow_nan: accept ``NaN`` / ``Infinity`` in arguments.
            max_depth: deepest nesting accepted in arguments.
            max_calls: most calls kept; later calls are recorded invalid (None: no limit).
            max_argument_chars: most characters of argument text per call (None: no
                limit); a call exceeding it becomes invalid.
            empty_args: what a call without argument text means: ``"object"`` (``{}``)
                or ``"invalid"``.

        Raises:
            TypeError, ValueError: an option has a wrong type or value.
        """
        self._popts: dict[str, Any] = {
            "allow": allow,
            "strict": strict,
            "allow_nan": allow_nan,
            "max_depth": max_depth,
        }
        PartialJSONParser(**self._popts)  # checks the parser options once
        for option, limit in (("max_calls", max_calls), ("max_argument_chars", max_argument_chars)):
            if limit is not None and (
                isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
            ):
                raise ValueError(f"{option} must be a non-negative integer or None, got {limit!r}")
        if empty_args not in ("object", "invalid"):
            raise ValueError(f"empty_args must be 'object' or 'invalid', got {empty_args!r}")
        self._max_calls = max_calls
        self._max_chars = max_argument_chars
        self._empty_args = empty_args
        self._calls: list[Call] = []
        self._by_key: dict[int, Call] = {}
        self._by_id: dict[str, Call] = {}
        self._current: Call | None = None
        self._touched: list[Call] = []
        self._tc: list[ToolCall] | None = None
        self._inv: list[InvalidToolCall] | None = None
        self._chunks: list[ToolCallChunk] | None = None
        self._server: list[ServerToolCall] | None = None
        self._finished = False
        self._finish_reason: str | None = None

    def __repr__(self) -> str:
        state = f"finished ({self._finish_reason!r})" if self._finished else "open"
        return f"<ToolCallAssembler calls={len(self._calls)} {state}>"

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

        Raises:
            AssemblerStateError: :meth:`finish` was already called.
            ChunkValidationError: not a mapping (or a sequence of them), or a field of a
                wrong type (``index`` not an int or digit string, ``id``/``name`` not
                str, ``args`` not str/dict).
        """
        if self._finished:
            raise AssemblerStateError("feed() after finish(): this stream is over")
        events: list[AssemblyEvent] = []
        x: Any = chunk_or_chunks
        if type(x) is dict or isinstance(x, Mapping):
            self._merge(read_chunk(x), events)
            return events
        if isinstance(x, (str, bytes, bytearray)) or not isinstance(x, Sequence):
            raise ChunkValidationError(
                "feed() takes a tool call chunk (a mapping) or a sequence of them, "
                f"got {type(x).__name__}"
            )
        items = [read_chunk(c, f"chunk {j}: ") for j, c in enumerate(x)]
        for item in items:
            self._merge(item, events)
        return events

    def end_call(
        self,
        *,
        index: int | str | None = None,
        id: str | None = None,
        args: str | Mapping[str, Any] | None = None,
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
        text, whole = args_text(args, "end_call: ")
        call = self._find(key, id_, current=True)
        if call is None or call.ended:
            return []
        events: list[AssemblyEvent] = []
        if text and call.state == OPEN and not call.dropped:
            if call.chars == 0:
                call.whole = whole
                self._add_text(call, text, events)
            elif not self._same_args(call, text, args if isinstance(args, Mapping) else None):
                call.whole = whole
                self._replace_args(call, text, events)
        self._settle(call, events, None)
        return events

    def fail_call(
        self,
        error: str,
        *,
        index: int | str | None = None,
        id: str | None = None,
        name: str | None = None,
        args: str | Mapping[str, Any] | None = None,
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
        text, _whole = args_text(args, "fail_call: ")
        events: list[AssemblyEvent] = []
        call = self._find(key, id_, current=False)
        if call is None or call.ended:
            call = self._new_call(key)
            if id_ is not None:
                self._set_id(call, id_)
            call.name = name
        elif name is not None and call.name is None:
            call.name = name
        if text and call.chars == 0 and not call.dropped:
            self._keep_raw(call, text)
            call.args_seen = True
        call.ended = True
        if call.state == OPEN:
            self._invalidate(call, error, events)
        elif call.state == INVALID:
            call.error = f"{call.error}; {error}"
            self._views_changed(call)
        return events

    def finish(self, reason: str | None = None) -> list[AssemblyEvent]:
        """End the stream: give every open call its verdict, then ``StreamFinished``.

        ``reason`` is the provider's finish reason; ``"length"``, ``"max_tokens"`` and
        ``"max_output_tokens"`` (any case) mean the output was cut off by a token limit,
        so calls with incomplete or no arguments are reported as cut off.

        Cost: O(number of calls) plus each open call's strict verdict (O(1) per call:
        the parser already holds the value).

        Raises:
            AssemblerStateError: called a second time.
            ChunkValidationError: ``reason`` is not a str or None.
        """
        if self._finished:
            raise AssemblerStateError("finish() was already called on this assembler")
        if reason is not None and not isinstance(reason, str):
            raise ChunkValidationError(
                f"finish: reason must be a str or None, got {type(reason).__name__}"
            )
        limit = reason if reason is not None and reason.lower() in TRUNCATION_REASONS else None
        events: list[AssemblyEvent] = []
        for call in self._calls:
            if not call.ended:
                self._settle(call, events, limit, at_finish=True)
        events.append(StreamFinished(reason=reason))
        self._finished = True
        self._finish_reason = reason
        self._touched.clear()
        return events

    def interrupt(self, cause: str) -> list[AssemblyEvent]:
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
        error = f"the stream was interrupted before the call completed ({cause})"
        events: list[AssemblyEvent] = []
        for call in self._calls:
            if call.ended:
                continue
            parser = call.parser
            complete = parser is not None and parser.complete
            if call.state == OPEN and call.name is not None and complete:
                self._settle(call, events, None, at_finish=True)
                continue
            call.ended = True
            if call.state == OPEN:
                self._invalidate(call, error, events)
        events.append(StreamFinished(reason=None))
        self._finished = True
        self._finish_reason = None
        self._touched.clear()
        return events

    def mark_server(
        self, *, index: int | None = None, id: str | None = None
    ) -> list[AssemblyEvent]:
        """Mark the call with provider ``index`` (or ``id``) as a server-side tool.

        It leaves ``tool_calls`` / ``invalid_tool_calls`` and is listed in
        :attr:`server_tool_calls` instead. Unknown calls are ignored (a translator never
        raises on provider data). Returns no events. Cost: O(1).
        """
        index = check_index(index, "mark_server: ")
        id = check_str("id", id, "mark_server: ")
        call = self._find(index, id or None, current=False)
        if call is not None and not call.server:
            call.server = True
            self._views_changed(call)
            self._server = None
        return []

    def apply(self, signal: Signal | Sequence[Signal]) -> list[AssemblyEvent]:
        """Apply one provider signal (or a sequence of them, in order): a chunk dict,
        :class:`CallEnd`, :class:`CallFailure` or :class:`StreamEnd`.

        Raises:
            AssemblerStateError, ChunkValidationError: as the method it dispatches to.
        """
        s: Any = signal
        if type(s) is dict and not self._finished:  # feed(s), inline (hot path)
            events: list[AssemblyEvent] = []
            self._merge(read_chunk(s), events)
            return events
        if type(s) is dict or isinstance(s, Mapping):
            return self.feed(s)
        if isinstance(s, CallEnd):
            return self.end_call(index=s.index, id=s.id, args=s.args)
        if isinstance(s, CallFailure):
            return self.fail_call(s.error, index=s.index, id=s.id, name=s.name, args=s.args)
        if isinstance(s, StreamEnd):
            return self.finish(s.reason)
        if isinstance(s, ServerToolUse):
            return self.mark_server(index=s.index, id=s.id)
        if isinstance(s, Sequence) and not isinstance(s, (str, bytes, bytearray)):
            events = []
            for item in s:
                events.extend(self.apply(item))
            return events
        raise ChunkValidationError(
            "apply() takes a tool call chunk, CallEnd, CallFailure, StreamEnd or ServerToolUse, "
            f"got {type(s).__name__}"
        )

    # --- views --------------------------------------------------------------------------

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Tool calls in order of start: best effort while streaming, final after finish.

        Before :meth:`finish`: every named call not known invalid, with ``args`` the
        parser's live preview (``{}`` until it is an object) or the final value of a
        call already ended. After: only the valid calls, with the strict value.

        The list is never modified after it is returned (a change builds a new one), but
        its ``args`` objects are live views that grow with later chunks; read the
        property again after each feed, ``copy.deepcopy`` to keep a snapshot, and do not
        mutate them. Cost: see the class docstring.
        """
        touched = self._touched
        if touched:
            for call in touched:
                call.touched = False
                if call.state == OPEN and call.view is not None and call.parser is not None:
                    if call.parser.value is not call.view_args:
                        call.view = None
                        self._tc = None
            touched.clear()
        views = self._tc
        if views is None:
            views = []
            for call in self._calls:
                if call.state != INVALID and call.name is not None and not call.server:
                    view = call.view
                    if view is None:
                        view = call.view = call.tool_call()
                    views.append(view)
            self._tc = views
        return views

    @property
    def invalid_tool_calls(self) -> list[InvalidToolCall]:
        """Calls known to be invalid, in order of start, with raw ``args`` text and ``error``.

        Before :meth:`finish`: calls already known bad (malformed, over a limit, failed
        or ended without a valid verdict). After: every call that failed. The list is
        never modified after it is returned. Cost: O(1) when nothing changed, else
        O(number of calls + raw text that grew).
        """
        views = self._inv
        if views is None:
            views = []
            for call in self._calls:
                if call.state == INVALID and not call.server:
                    view = call.inv_view
                    if view is None:
                        view = call.inv_view = call.invalid_tool_call()
                    views.append(view)
            self._inv = views
        return views

    @property
    def server_tool_calls(self) -> list[ServerToolCall]:
        """Calls the provider runs itself (server-side tools), in order of start.

        Marked by a :class:`ServerToolUse` signal; they never appear in
        :attr:`tool_calls` or :attr:`invalid_tool_calls`. Cost: O(number of calls) per
        read while any server call is open (their previews grow), O(1) otherwise.
        """
        views = self._server
        if views is None or any(c.server and c.state == OPEN for c in self._calls):
            views = [c.server_tool_call() for c in self._calls if c.server and c.name is not None]
            self._server = views
        return views

    @property
    def tool_call_chunks(self) -> list[ToolCallChunk]:
        """One merged chunk per call (valid or not), in order of start.

        ``index`` is the call number (unique per call, so LangChain does not merge two
        calls that shared a provider index); ``args`` is the raw text so far (None when
        none arrived). The list is never modified after it is returned. Cost: O(1) when
        nothing changed, else O(number of calls + raw text that grew).
        """
        views = self._chunks
        if views is None:
            views = []
            for call in self._calls:
                view = call.chunk_view
                if view is None:
                    view = call.chunk_view = call.chunk()
                views.append(view)
            self._chunks = views
        return views

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` was called."""
        return self._finished

    @property
    def finish_reason(self) -> str | None:
        """The reason given to :meth:`finish` (None before, or when none was given)."""
        return self._finish_reason

    # --- merging ------------------------------------------------------------------------

    def _merge(
        self,
        item: tuple[int | None, str | None, str | None, str | None, bool],
        events: list[AssemblyEvent],
    ) -> None:
        """Apply one checked chunk (rules 1-7 of the class docstring)."""
        key, id_, name, text, whole = item
        if key is not None and text and not id_ and not name and not whole:
            # fast path: a keyed continuation carrying only text (rule 5 cannot apply)
            streaming = self._by_key.get(key)
            if streaming is not None and not streaming.ended:
                self._current = streaming
                self._add_text(streaming, text, events)
                return
        if not id_:
            id_ = None
        if not name:
            name = None
        if not text:
            text = None
        if id_ is None and name is None and text is None:
            if key is not None:
                known = self._by_key.get(key)
                if known is not None:
                    self._current = known
            return
        anonymous = False
        call: Call | None
        if key is not None:
            call = self._by_key.get(key)
            if call is None and id_ is not None:
                call = self._by_id.get(id_)
                if call is not None and (call.key is not None or call.ended):
                    call = None
                elif call is not None:
                    call.key = key
                    self._by_key[key] = call
        elif id_ is not None:
            call = self._by_id.get(id_)
            if call is None:
                current = self._current
                if (
                    current is not None
                    and current.key is None
                    and not current.ended
                    and (
                        current.id is None or (not current.args_seen and id_.startswith(current.id))
                    )
                ):
                    call = current
                    anonymous = True
        else:
            call = self._current
            anonymous = True
        over_limit = False
        if call is None or self._starts_new_call(call, id_, name, text, anonymous):
            call = self._new_call(key)
            over_limit = self._max_calls is not None and call.number >= self._max_calls
        elif call.ended:
            self._current = call
            return  # nothing new for an ended call (rule 5e)
        self._current = call
        if id_ is not None and id_ != call.id:
            self._set_id(call, id_)
        if name is not None and name != call.name:
            old = call.name
            call.name = name if old is None or name.startswith(old) else old + name
            self._views_changed(call)
            if not call.announced and call.state == OPEN and call.args_seen:
                self._announce(call, events)
        if over_limit:
            call.dropped = True
            self._invalidate(
                call,
                f"too many tool calls (more than max_calls={self._max_calls}); "
                "its arguments were discarded",
                events,
            )
        if text is not None:
            if whole:
                call.whole = True
                if call.chars == 0:
                    self._add_text(call, text, events)
                else:
                    self._replace_args(call, text, events)
            else:
                self._add_text(call, text, events)

    def _starts_new_call(
        self,
        call: Call,
        id_: str | None,
        name: str | None,
        text: str | None,
        anonymous: bool,
    ) -> bool:
        """Rule 5: whether this chunk starts a new call instead of continuing ``call``."""
        if call.ended:
            return name is not None or (id_ is not None and id_ != call.id) or _has_content(text)
        cid = call.id
        cname = call.name
        if id_ is not None and cid is not None and id_ != cid:
            if call.args_seen:
                return True
            if (
                name is not None
                and cname is not None
                and name != cname
                and not id_.startswith(cid)
                and not name.startswith(cname)
            ):
                return True
        if name is not None and cname is not None:
            if name != cname:
                if call.args_seen or (anonymous and not name.startswith(cname)):
                    return True
            if (_has_content(text) or (anonymous and cid is None)) and (
                call.whole or (call.parser is not None and call.parser.complete)
            ):
                return True
        return False

    def _new_call(self, key: int | None) -> Call:
        call = Call(len(self._calls), key)
        self._calls.append(call)
        if key is not None:
            self._by_key[key] = call
        self._tc = self._inv = self._chunks = None
        return call

    def _find(self, key: int | None, id_: str | None, *, current: bool) -> Call | None:
        """The call an end marker or failure names: by id, else by index, else current."""
        call = self._by_id.get(id_) if id_ else None
        if call is None and key is not None:
            call = self._by_key.get(key)
        if call is None and current and not id_ and key is None:
            call = self._current
        return call

    def _set_id(self, call: Call, id_: str) -> None:
        old = call.id
        new = id_ if old is None or id_.startswith(old) else old + id_
        call.id = new
        by_id = self._by_id
        if old is not None and by_id.get(old) is call:
            del by_id[old]
        by_id[new] = call
        self._views_changed(call)

    def _views_changed(self, call: Call) -> None:
        call.view = call.inv_view = call.chunk_view = None
        self._tc = self._inv = self._chunks = self._server = None

    def _keep_raw(self, call: Call, text: str) -> bool:
        """Append raw text within ``max_argument_chars``; False (and drop) when over it."""
        limit = self._max_chars
        if limit is not None and call.chars + len(text) > limit:
            keep = limit - call.chars
            if keep > 0:
                call.parts.append(text[:keep])
                call.chars = limit
            call.dropped = True
            return False
        call.parts.append(text)
        call.chars += len(text)
        return True

    # --- arguments ----------------------------------------------------------------------

    def _add_text(self, call: Call, text: str, events: list[AssemblyEvent]) -> None:
        """Append a fragment to the call's raw text and feed it to its parser (hot path)."""
        call.args_seen = True
        if call.dropped:
            return
        call.chunk_view = None
        self._chunks = None
        chars = call.chars + len(text)
        limit = self._max_chars
        if limit is not None and chars > limit:
            self._keep_raw(call, text)
            if call.state == OPEN:
                self._invalidate(call, self._too_long(), events)
            else:
                call.inv_view = None
                self._inv = None
            return
        parts = call.parts
        parts.append(text)
        call.chars = chars
        loose = call.loose + 1
        if loose >= _BLOCK:  # bound the per-fragment overhead of long texts
            parts[-_BLOCK:] = ["".join(parts[-_BLOCK:])]
            loose = 0
        call.loose = loose
        if call.state != OPEN:  # invalid: the raw text grows, nothing else
            call.inv_view = None
            self._inv = None
            return
        parser = call.parser
        if parser is None:
            parser = call.parser = PartialJSONParser(**self._popts)
        try:
            changes = parser.feed(text)
        except PartialJSONError as exc:
            self._invalidate(call, _rejected(exc), events)
            return
        if not call.touched:
            call.touched = True
            self._touched.append(call)
        if not call.announced:
            if call.name is None:
                if call.buf_text is None:
                    call.buf_text = [text]
                    call.buf_changes = list(changes)
                else:
                    call.buf_text.append(text)
                    call.buf_changes.extend(changes)  # type: ignore[union-attr]
                return
            self._announce(call, events)
        events.append(_delta(call.number, text, tuple(changes)))

    def _replace_args(self, call: Call, text: str, events: list[AssemblyEvent]) -> None:
        """Replace an open call's arguments with the provider's authoritative text."""
        call.args_seen = True
        if call.state != OPEN or call.dropped:
            return
        call.parts.clear()
        call.chars = 0
        call.buf_text = call.buf_changes = None
        call.parser = None
        self._views_changed(call)
        if not self._keep_raw(call, text):
            self._invalidate(call, self._too_long(), events)
            return
        parser = call.parser = PartialJSONParser(**self._popts)
        try:
            changes = parser.feed(text)
        except PartialJSONError as exc:
            self._invalidate(call, _rejected(exc), events)
            return
        if not call.touched:
            call.touched = True
            self._touched.append(call)
        if call.announced:
            return  # a UI's incremental state cannot express a replacement: CallDone will
        if call.name is None:
            call.buf_text = [text]
            call.buf_changes = list(changes)
            return
        self._announce(call, events)
        events.append(_delta(call.number, text, tuple(changes)))

    def _same_args(self, call: Call, text: str, obj: Mapping[str, Any] | None) -> bool:
        """Whether authoritative ``args`` agree with what was streamed."""
        if obj is None:
            return call.raw() == text
        parser = call.parser
        if parser is None or not parser.complete:
            return False
        try:
            return bool(parser.value == dict(obj))
        except Exception:  # exotic values that refuse comparison: take the provider's
            return False

    def _too_long(self) -> str:
        return (
            f"arguments longer than max_argument_chars={self._max_chars} "
            "(raw text kept up to the limit)"
        )

    # --- announcing and verdicts --------------------------------------------------------

    def _announce(self, call: Call, events: list[AssemblyEvent]) -> None:
        """Emit CallStarted, then the text buffered while the call had no name."""
        call.announced = True
        events.append(
            CallStarted(index=call.number, key=call.key, id=call.id, name=call.name or "")
        )
        buf = call.buf_text
        if buf:
            text = buf[0] if len(buf) == 1 else "".join(buf)
            changes = tuple(call.buf_changes or ())
            events.append(ArgumentsDelta(index=call.number, text=text, changes=changes))
        call.buf_text = call.buf_changes = None

    def _report(self, call: Call, events: list[AssemblyEvent]) -> None:
        """Emit the call's final event (announcing it first if it has a name)."""
        if not call.announced and call.name is not None:
            self._announce(call, events)
        if call.state == DONE:
            view = call.view = call.tool_call()
            events.append(CallDone(index=call.number, tool_call=view))
        else:
            events.append(
                CallInvalid(index=call.number, invalid_tool_call=call.invalid_tool_call())
            )

    def _invalidate(self, call: Call, error: str, events: list[AssemblyEvent]) -> None:
        call.state = INVALID
        call.error = error
        call.buf_text = call.buf_changes = None
        self._views_changed(call)
        self._report(call, events)

    def _settle(
        self,
        call: Call,
        events: list[AssemblyEvent],
        limit_reason: str | None,
        *,
        at_finish: bool = False,
    ) -> None:
        """End ``call`` and give its verdict (see the class docstring)."""
        call.ended = True
        if call.state != OPEN:
            return
        if call.name is None:
            self._invalidate(call, "tool call has no name", events)
            return
        parser = call.parser
        if parser is None or not parser.started:
            if limit_reason is not None:
                error = (
                    "tool call was cut off before its arguments began "
                    f"(finish reason {limit_reason!r})"
                )
            elif self._empty_args == "invalid":
                error = "tool call has empty arguments"
            else:
                self._done(call, {}, events)
                return
            self._invalidate(call, error, events)
            return
        try:
            value = parser.close()
        except IncompleteJSONError as exc:
            where = f"{exc.reason} at position {exc.position}"
            if limit_reason is not None:
                error = (
                    f"arguments were cut off by the token limit (finish reason {limit_reason!r}): "
                    f"{where}"
                )
            else:
                ended = "stream" if at_finish else "call"
                error = (
                    f"arguments were cut off: the {ended} ended before they were complete ({where})"
                )
        except PartialJSONError as exc:
            error = _rejected(exc)
        else:
            if type(value) is dict:
                self._done(call, value, events)
                return
            error = f"arguments must be a JSON object, got {json_kind(value)}"
        self._invalidate(call, error, events)

    def _done(self, call: Call, value: dict[str, Any], events: list[AssemblyEvent]) -> None:
        call.state = DONE
        call.final = value
        call.buf_text = call.buf_changes = None
        self._views_changed(call)
        self._report(call, events)
