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
# Views. tool_calls / invalid_tool_calls / server_tool_calls / tool_call_chunks are kept
# up to date as calls change (views.ViewList), never rebuilt per read: a new call is
# appended, a call leaving a view (turned invalid, server-side) is deleted, both at C
# speed. A list handed out is never modified: the first change after a read copies it
# (list.copy, about a nanosecond per listed call; at most one copy per view per payload,
# and max_calls bounds the length). Entries are the calls' own dicts, updated in place
# until the call is final: a ToolCall's "args" is the parser's live preview object (which
# the parser grows in place; a read only checks, for the calls that received text,
# whether that object was replaced), name and id pieces are written into every entry of
# the call. Raw text in invalid_tool_calls and tool_call_chunks is re-joined at every
# read while it is short (_EXACT_CHARS), then only when it has doubled since the last
# join, and exactly once the call has ended, so reading after every fragment stays
# linear.
#
# Limits bound memory: at most max_calls calls are stored (later ones are counted on one
# overflow entry, not stored), max_argument_chars characters per call and max_chars in
# the whole stream; a decoded arguments object is serialized without recursion and
# refused beyond max_depth. Every limit makes a call invalid; none raises.

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
from callstream._assembly.validation import Args, args_text, check_index, check_str, read_chunk
from callstream._assembly.views import ViewList
from callstream._errors import (
    AssemblerStateError,
    ChunkValidationError,
    IncompleteJSONError,
    JSONLimitError,
    OptionTypeError,
    OptionValueError,
    PartialJSONError,
    UsageError,
)
from callstream._json.changes import Change
from callstream._json.parser import DEFAULT_ALLOW, DEFAULT_MAX_DEPTH, PartialJSONParser
from callstream._types import slot_setter

__all__ = (
    "DEFAULT_MAX_ARGUMENT_CHARS",
    "DEFAULT_MAX_CALLS",
    "DEFAULT_MAX_CHARS",
    "MAX_NAME_CHARS",
    "TRUNCATION_REASONS",
    "ToolCallAssembler",
)

DEFAULT_MAX_CALLS: Final = 1_000
"""Default ``max_calls``: calls stored per stream. Real streams carry at most a few dozen
calls; the limit bounds the bookkeeping (about a megabyte) and the cost of a view change
after a read (one C-speed copy of at most 1,000 entries, a few microseconds)."""

DEFAULT_MAX_ARGUMENT_CHARS: Final = 8 << 20
"""Default ``max_argument_chars``: 8 Mi characters (8,388,608) of argument text per call,
several times what a model's whole output (at most a few hundred thousand tokens) holds."""

DEFAULT_MAX_CHARS: Final = 32 << 20
"""Default ``max_chars``: 32 Mi characters (33,554,432) of argument text in the whole
stream, all calls together (raw text plus parsed previews: a few hundred MB at most)."""

MAX_NAME_CHARS: Final = 4096
"""Longest tool name or call id kept, in characters (providers allow 64 to 128 for a
name and use ids of a few dozen). Pieces that would grow one past it are not joined and
the call becomes invalid, so name and id pieces cost O(1) each however many come."""

_NO_LIMIT: Final = 1 << 62
"""Stands for a limit given as None (no limit): larger than any text in memory."""

TRUNCATION_REASONS: Final = frozenset({"length", "max_tokens", "max_output_tokens"})
"""Finish reasons (compared case-insensitively) meaning the output hit a token limit."""


_BLOCK: Final = 256
"""Consecutive raw fragments joined into one string, so that a long argument text streamed
in tiny fragments costs O(1) string objects per 256 fragments, not one per fragment."""

_EXACT_CHARS: Final = 4096
"""Raw text up to this length is re-joined for the views at every read after it grew (a
bounded cost per fragment); longer text each time it has doubled, and once at the end."""

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

    Limits (every one makes a call invalid with a readable ``error``; none raises, and
    the other calls carry on). The defaults are far above what a real stream produces
    and bound the memory one stream can take:

    - ``max_calls`` (default 1,000): past it, a chunk that would start a call is
      refused: nothing of it is stored. The first refused call becomes one invalid entry
      (``CallStarted`` if named, then ``CallInvalid``) whose ``error`` counts the refused
      calls (a refused call is counted at the chunk that starts it, one bringing a name
      or an id; the count in the view is kept current, the event carries the first).
    - ``max_argument_chars`` (default 8,388,608 = 8 Mi): argument text per call; beyond
      it the call becomes invalid at once, its raw text kept up to the limit.
    - ``max_chars`` (default 33,554,432 = 32 Mi): argument text of all calls together;
      the call whose text crosses it becomes invalid (raw text kept up to the limit), and
      so does every call that receives text after it.
    - ``max_depth`` (default 1000): nesting of arguments, as text or as a decoded object
      (an object nested deeper, or cyclic, makes that call invalid: "arguments exceed a
      limit: ...").

    - names and ids longer than :data:`MAX_NAME_CHARS` (4,096) are not grown further:
      the call becomes invalid ("tool name longer than 4096 characters").

    Memory is thus O(max_calls + max_chars) whatever the input. ``None`` for a
    ``max_*`` count means no limit.

    Cost model: a chunk costs O(its size) plus O(1) bookkeeping (parser feed, one event);
    a call entering or leaving a view costs O(1) amortized in Python plus, when the list
    had been read since its last change, one C-speed copy of it (``list.copy``: about a
    nanosecond per listed call, at most one per view per read, bounded by ``max_calls``).
    Reading a view costs O(1) plus one preview check per call that received text since
    the last read; ``invalid_tool_calls`` and ``tool_call_chunks`` re-join a call's raw
    text at every read while it is at most 4,096 characters, beyond that only when it has
    doubled (and once when the call ended), so reading them after every fragment costs
    O(total text) over the stream.
    Not thread-safe: use one assembler per stream.
    """

    __slots__ = (
        "_by_id",
        "_by_key",
        "_calls",
        "_cap_call",
        "_cap_calls",
        "_cap_total",
        "_cgrown",
        "_chunks",
        "_current",
        "_depth",
        "_empty_args",
        "_finish_reason",
        "_provider_finish_reason",
        "_finished",
        "_igrown",
        "_inv",
        "_max_calls",
        "_max_chars",
        "_max_total",
        "_overflow",
        "_popts",
        "_ref_id",
        "_ref_key",
        "_server",
        "_tc",
        "_total",
        "_touched",
    )

    def __init__(
        self,
        *,
        allow: int = DEFAULT_ALLOW,
        strict: bool = True,
        allow_nan: bool = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_calls: int | None = DEFAULT_MAX_CALLS,
        max_argument_chars: int | None = DEFAULT_MAX_ARGUMENT_CHARS,
        max_chars: int | None = DEFAULT_MAX_CHARS,
        empty_args: Literal["object", "invalid"] = "object",
    ) -> None:
        """Create an assembler for one stream.

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
        self._popts: dict[str, Any] = {
            "allow": allow,
            "strict": strict,
            "allow_nan": allow_nan,
            "max_depth": max_depth,
        }
        try:
            PartialJSONParser(**self._popts)  # checks the parser options once
        except UsageError:
            raise
        except TypeError as exc:
            raise OptionTypeError(str(exc)) from None
        except ValueError as exc:
            raise OptionValueError(str(exc)) from None
        limits = (
            ("max_calls", max_calls),
            ("max_argument_chars", max_argument_chars),
            ("max_chars", max_chars),
        )
        for option, limit in limits:
            if limit is None or (type(limit) is int and limit >= 0):
                continue
            message = f"{option} must be a non-negative integer or None, got {limit!r}"
            if isinstance(limit, (int, float)):  # bool, float, negative: a wrong value
                raise OptionValueError(message)
            raise OptionTypeError(message)
        if empty_args not in ("object", "invalid"):
            raise OptionValueError(f"empty_args must be 'object' or 'invalid', got {empty_args!r}")
        self._depth: int = max_depth
        self._max_calls = max_calls
        self._max_chars = max_argument_chars
        self._max_total = max_chars
        self._cap_calls = _NO_LIMIT if max_calls is None else max_calls
        self._cap_call = _NO_LIMIT if max_argument_chars is None else max_argument_chars
        self._cap_total = _NO_LIMIT if max_chars is None else max_chars
        self._total = 0  # argument characters kept, all calls together
        self._empty_args = empty_args
        self._calls: list[Call] = []
        self._overflow: Call | None = None  # the one entry standing for refused calls
        self._ref_key: int | None = None  # key and id of the last refused call
        self._ref_id: str | None = None
        self._by_key: dict[int, Call] = {}
        self._by_id: dict[str, Call] = {}
        self._current: Call | None = None
        self._touched: list[Call] = []  # calls whose parser preview may have been replaced
        self._cgrown: list[Call] = []  # calls whose chunk entry's text may lag
        self._igrown: list[Call] = []  # invalid calls whose entry's text may lag
        self._tc: ViewList[ToolCall] = ViewList()
        self._inv: ViewList[InvalidToolCall] = ViewList()
        self._chunks: ViewList[ToolCallChunk] = ViewList()
        self._server: ViewList[ServerToolCall] = ViewList()
        self._finished = False
        self._finish_reason: str | None = None
        self._provider_finish_reason: str | None = None

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
        x: Any = chunk_or_chunks
        depth = self._depth
        if type(x) is dict or isinstance(x, Mapping):
            self._merge(read_chunk(x, "", depth), events)
            return events
        if isinstance(x, (str, bytes, bytearray)) or not isinstance(x, Sequence):
            raise ChunkValidationError(
                "feed() takes a tool call chunk (a mapping) or a sequence of them, "
                f"got {type(x).__name__}"
            )
        items = [read_chunk(c, f"chunk {j}: ", depth) for j, c in enumerate(x)]
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
        text, whole = args_text(args, "end_call: ", self._depth)
        call = self._find(key, id_, current=True)
        if call is None or call.ended:
            return []
        events: list[AssemblyEvent] = []
        if isinstance(text, JSONLimitError):  # an object too deep to take
            call.args_seen = True
            if call.state == OPEN:
                self._invalidate(call, _rejected(text), events)
        elif text and call.state == OPEN and not call.dropped:
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
        text, _whole = args_text(args, "fail_call: ", self._depth)
        if isinstance(text, JSONLimitError):
            error = f"{error}; {_rejected(text)}"
            text = None
        events: list[AssemblyEvent] = []
        call = self._find(key, id_, current=False)
        if call is None or call.ended:
            if len(self._calls) >= self._cap_calls:
                self._refuse(key, id_, name, events)
                return events
            call = self._new_call(key)
            if id_ is not None:
                self._set_id(call, id_, events)
            if name is not None:
                self._set_name(call, name, events)
        elif name is not None and call.name is None:
            self._set_name(call, name, events)
        if text and call.chars == 0 and not call.dropped:
            self._keep_raw(call, text)
            call.args_seen = True
        self._end(call)
        if call.state == OPEN:
            self._invalidate(call, error, events)
        elif call.state == INVALID:
            call.error = f"{call.error}; {error}"
            if call.inv_view is not None:
                call.inv_view["error"] = call.error
        return events

    def finish(
        self, reason: str | None = None, *, provider_reason: str | None = None
    ) -> list[AssemblyEvent]:
        """End the stream: give every open call its verdict, then ``StreamFinished``.

        ``reason`` is the provider's finish reason; ``"length"``, ``"max_tokens"`` and
        ``"max_output_tokens"`` (any case) mean the output was cut off by a token limit,
        so calls with incomplete or no arguments are reported as cut off.
        ``provider_reason`` is the word the provider itself sent, when ``reason`` was
        normalized from it (kept in :attr:`provider_finish_reason`).

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
        if provider_reason is not None and not isinstance(provider_reason, str):
            raise ChunkValidationError(
                "finish: provider_reason must be a str or None, "
                f"got {type(provider_reason).__name__}"
            )
        limit = reason if reason is not None and reason.lower() in TRUNCATION_REASONS else None
        events: list[AssemblyEvent] = []
        for call in self._calls:
            if not call.ended:
                self._settle(call, events, limit, at_finish=True)
        events.append(StreamFinished(reason=reason))
        self._finished = True
        self._finish_reason = reason
        self._provider_finish_reason = provider_reason
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
            self._place(call)
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
            self._merge(read_chunk(s, "", self._depth), events)
            return events
        if type(s) is dict or isinstance(s, Mapping):
            return self.feed(s)
        if isinstance(s, CallEnd):
            return self.end_call(index=s.index, id=s.id, args=s.args)
        if isinstance(s, CallFailure):
            return self.fail_call(s.error, index=s.index, id=s.id, name=s.name, args=s.args)
        if isinstance(s, StreamEnd):
            return self.finish(s.reason, provider_reason=s.provider_reason)
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

        The list is never modified after it is returned (a change copies it first),
        but its entries are the calls' own dicts, updated in place until the call is
        final: ``args`` is the live preview, which grows with later chunks (and name or
        id pieces, rare once text streams). Read the property again after each feed,
        ``copy.deepcopy`` to keep a snapshot, and do not mutate them. Cost: O(1) plus one
        preview check per call that received text since the last read (see the class
        docstring).
        """
        if self._touched:
            self._refresh_previews()
        view = self._tc
        view.out = True
        return view.items

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
        if self._igrown:
            self._refresh_invalid()
        view = self._inv
        view.out = True
        return view.items

    @property
    def server_tool_calls(self) -> list[ServerToolCall]:
        """Calls the provider runs itself (server-side tools), in order of start.

        Marked by a :class:`ServerToolUse` signal; they never appear in
        :attr:`tool_calls` or :attr:`invalid_tool_calls`. Lists and entries behave as in
        :attr:`tool_calls` (``args`` is the live preview, ``{}`` until it is an object or
        when the call turned out invalid). Cost: as :attr:`tool_calls`.
        """
        if self._touched:
            self._refresh_previews()
        view = self._server
        view.out = True
        return view.items

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
        if self._cgrown:
            self._refresh_chunks()
        view = self._chunks
        view.out = True
        return view.items

    def _refresh_previews(self) -> None:
        """Point entries at the parser's preview object where it was replaced."""
        touched = self._touched
        for call in touched:
            call.touched = False
            parser = call.parser
            if call.state != OPEN or parser is None:
                continue
            view = call.view
            srv = call.srv_view
            if view is None and srv is None:
                continue  # no entry yet: placed (and touched again) when it gets one
            value = parser.value
            if value is call.view_args:
                continue
            call.view_args = value
            if type(value) is dict:
                if view is not None:
                    view["args"] = value
                if srv is not None:
                    srv["args"] = value
        touched.clear()

    def _refresh_invalid(self) -> None:
        """Re-join the raw text of invalid entries that doubled (or whose call ended)."""
        grown = self._igrown
        for call in grown:
            call.igrown = False
            entry = call.inv_view
            if entry is not None and (
                call.ended or call.chars >= call.inext or call.chars <= _EXACT_CHARS
            ):
                entry["args"] = call.raw_or_none()
                call.inext = 2 * call.chars
        grown.clear()

    def _refresh_chunks(self) -> None:
        """Re-join the raw text of chunk entries that doubled (or whose call ended)."""
        grown = self._cgrown
        for call in grown:
            call.cgrown = False
            entry = call.chunk_view
            if entry is not None and (
                call.ended or call.chars >= call.cnext or call.chars <= _EXACT_CHARS
            ):
                entry["args"] = call.raw_or_none()
                call.cnext = 2 * call.chars
        grown.clear()

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

    # --- merging ------------------------------------------------------------------------

    def _merge(
        self,
        item: tuple[int | None, str | None, str | None, Args, bool],
        events: list[AssemblyEvent],
    ) -> None:
        """Apply one checked chunk (rules 1-7 of the class docstring)."""
        key, id_, name, text, whole = item
        if key is not None and not whole and text and not id_ and not name:
            # fast path: a keyed continuation carrying only text (rule 5 cannot apply)
            streaming = self._by_key.get(key)
            if streaming is not None and not streaming.ended:
                self._current = streaming
                self._add_text(streaming, text, events)  # type: ignore[arg-type]
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
        probe = text if text is None or type(text) is str else "{}"  # an object is content
        if call is None or self._starts_new_call(call, id_, name, probe, anonymous):
            if len(self._calls) >= self._cap_calls:
                self._refuse(key, id_, name, events)
                return
            call = self._new_call(key)
        elif call.ended:
            self._current = call
            return  # nothing new for an ended call (rule 5e)
        self._current = call
        if id_ is not None and id_ != call.id:
            self._set_id(call, id_, events)
        if name is not None and name != call.name:
            self._set_name(call, name, events)
            if not call.announced and call.state == OPEN and call.args_seen:
                self._announce(call, events)
        if text is None:
            return
        if isinstance(text, JSONLimitError):  # a decoded object nested beyond max_depth
            call.args_seen = call.whole = True
            if call.state == OPEN and not call.dropped:
                call.parts.clear()
                self._total -= call.chars
                call.chars = 0
                call.parser = None
                self._grew(call)
                self._invalidate(call, _rejected(text), events)
            return
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
        number = len(self._calls)
        call = Call(number, key)
        self._calls.append(call)
        if key is not None:
            self._by_key[key] = call
        entry: ToolCallChunk = {
            "name": None,
            "args": None,
            "id": None,
            "index": number,
            "type": "tool_call_chunk",
        }
        call.chunk_view = entry
        self._chunks.add(number, entry)
        return call

    def _refuse(
        self, key: int | None, id_: str | None, name: str | None, events: list[AssemblyEvent]
    ) -> None:
        """A call past ``max_calls``: store nothing of it, count it on the overflow entry.

        Its later chunks must not reach another call: its key is unmapped and it stops
        being the call being streamed. A call is counted at a chunk that brings a name or
        an id and is not a resend of the last refused call's key or id. Cost: O(1).
        """
        if key is not None:
            self._by_key.pop(key, None)
        self._current = None
        if id_ is None and name is None:
            return  # a continuation: its text is dropped
        if key is not None and key == self._ref_key and (id_ is None or id_ == self._ref_id):
            return
        if key is None and id_ is not None and id_ == self._ref_id:
            return
        self._ref_key = key
        self._ref_id = id_
        over = self._overflow
        if over is None:
            over = self._new_call(None)
            over.key = key
            self._overflow = over
            if id_ is not None:
                over.id = id_
                self._write(over, "id", id_)
            if name is not None:
                over.name = name
                self._write(over, "name", name)
            over.dropped = over.ended = True
            over.refused = 1
            self._invalidate(over, self._refused_error(1), events)
            return
        over.refused += 1
        over.error = self._refused_error(over.refused)
        if over.inv_view is not None:
            over.inv_view["error"] = over.error

    def _refused_error(self, count: int) -> str:
        later = "" if count == 1 else f" and {count - 1} later call(s)"
        return (
            f"too many tool calls (more than max_calls={self._max_calls}): this call{later} "
            "refused, their arguments discarded"
        )

    def _find(self, key: int | None, id_: str | None, *, current: bool) -> Call | None:
        """The call an end marker or failure names: by id, else by index, else current."""
        call = self._by_id.get(id_) if id_ else None
        if call is None and key is not None:
            call = self._by_key.get(key)
        if call is None and current and not id_ and key is None:
            call = self._current
        return call

    def _write(self, call: Call, field: Literal["name", "id"], value: str) -> None:
        """Write a new name or id into every entry of the call (views hold the dicts)."""
        shown: str | None = value
        view = call.view
        if view is not None:
            view[field] = value
        srv = call.srv_view
        if srv is not None:
            srv[field] = value
        inv = call.inv_view
        if inv is not None:
            inv[field] = shown
        chunk = call.chunk_view
        if chunk is not None:
            chunk[field] = shown

    def _name_too_long(self, call: Call, what: str, new: str, events: list[AssemblyEvent]) -> bool:
        """Whether ``new`` is over :data:`MAX_NAME_CHARS`; if so the call is invalid."""
        if len(new) <= MAX_NAME_CHARS:
            return False
        if call.state == OPEN:
            error = f"{what} longer than {MAX_NAME_CHARS} characters"
            self._invalidate(call, error, events)
        return True

    def _set_id(self, call: Call, id_: str, events: list[AssemblyEvent]) -> None:
        """Set or grow the call's id (a resent prefix replaces; a piece is appended).
        Cost: O(len) with both sides at most :data:`MAX_NAME_CHARS`."""
        old = call.id
        new = id_ if old is None or id_.startswith(old) else old + id_
        if self._name_too_long(call, "call id", new, events):
            return
        call.id = new
        by_id = self._by_id
        if old is not None and by_id.get(old) is call:
            del by_id[old]
        by_id[new] = call
        self._write(call, "id", new)

    def _set_name(self, call: Call, name: str, events: list[AssemblyEvent]) -> None:
        """Set or grow the call's name, as :meth:`_set_id` does."""
        old = call.name
        new = name if old is None or name.startswith(old) else old + name
        if self._name_too_long(call, "tool name", new, events):
            return
        call.name = new
        self._write(call, "name", new)
        if old is None:
            self._place(call)

    def _place(self, call: Call) -> None:
        """Enter or leave each view as the call's name, state and server flag say."""
        state = call.state
        want = state != INVALID and call.name is not None and not call.server
        if want != (call.view is not None):
            if want:
                view = call.view = call.tool_call()
                self._tc.add(call.number, view)
                if state == OPEN and call.parser is not None and not call.touched:
                    call.touched = True
                    self._touched.append(call)
            else:
                call.view = None
                self._tc.remove(call.number)
        want = state == INVALID and not call.server
        if want != (call.inv_view is not None):
            if want:
                inv = call.inv_view = call.invalid_tool_call()
                call.inext = 2 * call.chars
                self._inv.add(call.number, inv)
            else:
                call.inv_view = None
                self._inv.remove(call.number)
        want = call.server and call.name is not None
        if want != (call.srv_view is not None):
            if want:
                srv = call.srv_view = call.server_tool_call()
                self._server.add(call.number, srv)
                if state == OPEN and call.parser is not None and not call.touched:
                    call.touched = True
                    self._touched.append(call)
            else:
                call.srv_view = None
                self._server.remove(call.number)

    def _grew(self, call: Call) -> None:
        """The call's raw text changed: its chunk (and invalid) entry may lag."""
        if not call.cgrown:
            call.cgrown = True
            self._cgrown.append(call)
        if call.inv_view is not None and not call.igrown:
            call.igrown = True
            self._igrown.append(call)

    def _end(self, call: Call) -> None:
        """Mark the call ended: no more data; its entries show their complete text."""
        call.ended = True
        self._grew(call)

    def _keep_raw(self, call: Call, text: str) -> str | None:
        """Append raw text within the limits; None when kept, else the limit's error
        (the text is kept up to the limit and the call stops keeping text)."""
        size = len(text)
        room_call = self._cap_call - call.chars
        room_total = self._cap_total - self._total
        room = min(room_call, room_total)
        if size > room:
            if room > 0:
                call.parts.append(text[:room])
                call.chars += room
                self._total += room
            call.dropped = True
            self._grew(call)
            return self._too_long() if room_call <= room_total else self._stream_too_long()
        call.parts.append(text)
        call.chars += size
        self._total += size
        self._grew(call)
        return None

    # --- arguments ----------------------------------------------------------------------

    def _add_text(self, call: Call, text: str, events: list[AssemblyEvent]) -> None:
        """Append a fragment to the call's raw text and feed it to its parser (hot path)."""
        call.args_seen = True
        if call.dropped:
            return
        if not call.cgrown:
            call.cgrown = True
            self._cgrown.append(call)
        size = len(text)
        chars = call.chars + size
        total = self._total + size
        if chars > self._cap_call or total > self._cap_total:
            error = self._keep_raw(call, text)
            if call.state == OPEN:
                self._invalidate(call, error or self._too_long(), events)
            return
        self._total = total
        parts = call.parts
        parts.append(text)
        call.chars = chars
        loose = call.loose + 1
        if loose >= _BLOCK:  # bound the per-fragment overhead of long texts
            parts[-_BLOCK:] = ["".join(parts[-_BLOCK:])]
            loose = 0
        call.loose = loose
        if call.state != OPEN:  # invalid: the raw text grows, nothing else
            if not call.igrown and call.inv_view is not None:
                call.igrown = True
                self._igrown.append(call)
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
        self._total -= call.chars
        call.chars = 0
        call.cnext = 0  # the text changed, not grew: re-join at the next read
        call.buf_text = call.buf_changes = None
        call.parser = None
        error = self._keep_raw(call, text)
        if error is not None:
            self._invalidate(call, error, events)
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

    def _stream_too_long(self) -> str:
        return (
            f"arguments exceed the stream's limit max_chars={self._max_total} "
            "(all calls together; raw text kept up to the limit)"
        )

    # --- announcing and verdicts --------------------------------------------------------

    def _announce(self, call: Call, events: list[AssemblyEvent]) -> None:
        """Emit CallStarted, then the text buffered while the call had no name."""
        call.announced = True
        events.append(
            CallStarted(
                index=call.number,
                key=call.key,
                id=call.id,
                name=call.name or "",
                server=call.server,
            )
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
            view = call.view
            if view is None:  # a server call: not listed in tool_calls
                view = call.tool_call()
            events.append(CallDone(index=call.number, tool_call=view, server=call.server))
        else:
            entry = call.inv_view
            invalid: InvalidToolCall = call.invalid_tool_call() if entry is None else {**entry}
            events.append(
                CallInvalid(index=call.number, invalid_tool_call=invalid, server=call.server)
            )

    def _invalidate(self, call: Call, error: str, events: list[AssemblyEvent]) -> None:
        call.state = INVALID
        call.error = error
        call.buf_text = call.buf_changes = None
        srv = call.srv_view
        if srv is not None:
            srv["args"] = {}
        self._place(call)
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
        self._end(call)
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
                shown = call.view["args"] if call.view is not None else None
                self._done(call, shown if type(shown) is dict and not shown else {}, events)
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
        view = call.view
        if view is not None:
            view["args"] = value
        srv = call.srv_view
        if srv is not None:
            srv["args"] = value
        self._report(call, events)
