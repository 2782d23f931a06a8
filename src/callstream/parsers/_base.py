"""What the tools parsers share: input normalization, per-call state, sessions, streaming.

Theory of operation. A parser object is configuration (which calls, which tools); its
work happens in a :class:`ParseSession`, a sans-I/O state machine for one stream. A
session takes items one at a time (:meth:`ParseSession.feed`): a ``StreamUpdate`` from
``callstream.stream()`` (its ``.events``), assembly events or lists of them (what
``ToolCallAssembler.feed`` returns), or raw ``ToolCallChunk`` dicts / signals or lists of
them, which the session assembles itself with its own ``ToolCallAssembler``. Each item's
events update per-call state; when an item changed what the parser shows, ``feed``
returns a fresh result (a list of :class:`~callstream.parsers.ParsedCall`), else None.
:meth:`ParseSession.close` ends the input and returns the final result.

Per call, a :class:`ClosedValueTree` rebuilds the arguments from the assembler's changes,
keeping only complete values. Parsers react to values closing (a number, literal or
string complete), never to bare text fragments; what a close triggers (a new snapshot,
a validation) is the parser's business (:meth:`ToolsParser._refresh`). A call's result
object is rebuilt only when that call changed; the result list is updated in place for
the calls that changed and handed out as a fresh copy (one C-speed pointer copy per call
shown). Those copies are bounded: a result is handed out only while all the results of
the session together copied at most :data:`RESULT_COPY_FACTOR` entries per event read,
so a stream of n calls costs O(n) in total, not O(n^2); past that bound (only streams
with well over a thousand calls reach it), a change waits for a later item (or the end)
before it is shown. The final result is always handed out.

``stream`` / ``astream`` are thin loops over a session, so the sync and async forms
cannot drift apart.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallEnd,
    CallFailure,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
    ServerToolUse,
    Signal,
    StreamEnd,
    StreamFinished,
    ToolCall,
)
from callstream._errors import ParserStateError, UsageError
from callstream.parsers._results import ParsedCall, Status
from callstream.parsers._tree import ClosedValueTree

__all__ = ("RESULT_COPY_FACTOR", "CallState", "ParseSession", "ToolsParser")

T = TypeVar("T")

_EVENT_TYPES = (CallStarted, ArgumentsDelta, CallDone, CallInvalid, StreamFinished)
_SIGNAL_TYPES = (CallEnd, CallFailure, StreamEnd, ServerToolUse)
_CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})

RESULT_COPY_FACTOR: Final = 256
"""The results of a session together copy at most this many entries (one per call shown,
per result) per assembly event read, plus the final result: linear in the number of
calls, however many there are. A stream under about a thousand calls never reaches it
(each change gets its own result); beyond that, results come at most every few items."""

NO_VERDICT = "the stream ended before this call was final (no end marker, no StreamFinished)"


class CallState:
    """One call inside a session (internal; parsers read and set its fields)."""

    __slots__ = (
        "adapter",
        "args",
        "chars",
        "checked_chars",
        "dirty",
        "error",
        "id",
        "index",
        "name",
        "raw_args",
        "result",
        "server",
        "status",
        "tree",
        "value",
        "work",
    )

    def __init__(self, index: int, name: str | None, id_: str | None) -> None:
        self.index = index
        self.name = name
        self.id = id_
        self.status: Status = "partial"
        self.tree = ClosedValueTree()
        self.chars = 0  # argument characters received
        self.dirty = False  # a value closed since the parser last looked
        self.checked_chars = 0  # ``chars`` when the parser last looked
        self.args: dict[str, Any] | None = None  # final (or best known) arguments
        self.value: Any = None
        self.error: str | None = None
        self.raw_args: str | None = None
        self.adapter: Any = None  # parser-specific (the pydantic parser's TypeAdapter)
        self.result: ParsedCall[Any] | None = None  # cached; None when stale
        self.server = False  # a server-side tool: listed apart, never validated
        self.work = 0  # the parser's cost counter (snapshot entries copied, text validated)

    def partial_args(self) -> dict[str, Any]:
        """The arguments complete so far (a snapshot); ``{}`` unless they are an object."""
        snapshot = self.tree.snapshot()
        return snapshot if isinstance(snapshot, dict) else {}


class ToolsParser(Generic[T]):
    """Base of the tools parsers: selection options, sessions, sync and async streaming.

    Subclasses decide what a call's ``value`` is (:meth:`_refresh`, :meth:`_finalize`).
    """

    def __init__(self, *, first_tool_only: bool = False, key_name: str | None = None) -> None:
        self.first_tool_only = first_tool_only
        self.key_name = key_name

    # --- subclass hooks ---------------------------------------------------------------

    def _start(self, call: CallState) -> None:
        """A call was announced (its name is known)."""

    def _refresh(self, call: CallState) -> bool:
        """After an input item gave ``call`` new argument text; True if its result changed.

        ``call.dirty`` says whether a value closed since the last refresh that returned.
        """
        raise NotImplementedError

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
        """The call is final and its arguments are a JSON object: set status and value."""
        raise NotImplementedError

    def _partial_value(self, call: CallState, args: dict[str, Any]) -> Any:
        """The ``value`` shown for a partial call whose current arguments are ``args``."""
        raise NotImplementedError

    # --- selection --------------------------------------------------------------------

    def _selects(self, call: CallState) -> bool:
        return self.key_name is None or call.name == self.key_name

    # --- public API -------------------------------------------------------------------

    def session(self, **assembler_options: Any) -> ParseSession[T]:
        """A sans-I/O session for one stream (``assembler_options`` configure the
        assembler used when the session is fed raw chunks)."""
        return ParseSession(self, assembler_options)

    def parse_session(self, result: Any) -> ParseSession[T]:
        """Like :meth:`parse`, but the closed session: its ``result`` (the calls) and its
        ``server_calls`` (server-side tools found in ``result``: its ``server_tool_calls``,
        or ``server_tool_call`` dicts in a list)."""
        return self._parse(result)

    def stream(
        self, source: Iterable[Any], **assembler_options: Any
    ) -> Iterator[list[ParsedCall[T]]]:
        """Yield the parsed calls each time an item of ``source`` changed them.

        Args:
            source: ``StreamUpdate`` s (from ``callstream.stream``), assembly events or
                lists of them, or ``ToolCallChunk`` dicts / signals or lists of them.
            **assembler_options: for the assembler that raw chunks go through.

        Yields:
            A fresh list of :class:`ParsedCall` per change; the last one is final (every
            call valid or invalid). At least one list is yielded.

        Raises:
            UsageError: an item of a kind the parser does not read.
        """
        session = self.session(**assembler_options)
        for item in source:
            result = session.feed(item)
            if result is not None:
                yield result
        final = session.close()
        if final is not None:
            yield final

    async def astream(
        self, source: AsyncIterable[Any] | Iterable[Any], **assembler_options: Any
    ) -> AsyncIterator[list[ParsedCall[T]]]:
        """The async form of :meth:`stream` (``source`` may be sync or async)."""
        if not isinstance(source, AsyncIterable):
            for calls in self.stream(source, **assembler_options):
                yield calls
            return
        session = self.session(**assembler_options)
        async for item in source:
            result = session.feed(item)
            if result is not None:
                yield result
        final = session.close()
        if final is not None:
            yield final

    def parse(self, result: Any) -> list[ParsedCall[T]]:
        """Parse a finished result: every call in it, final (valid or invalid).

        Calls keep the order given: a list's order; for an object, its valid calls then
        its invalid ones, unless every call carries an ``index`` (then by index).
        Server-side tools (``server_tool_call`` dicts, Anthropic ``srvtoolu_`` ids, an
        object's ``server_tool_calls``) are left out (see :meth:`parse_session`).

        Args:
            result: a list of ``ToolCall`` / ``InvalidToolCall`` dicts (an
                ``InvalidToolCall`` has an ``error`` key), or an object with
                ``tool_calls`` and ``invalid_tool_calls`` (a ``StreamResult``, a finished
                ``ToolCallAssembler``, a LangChain ``AIMessage``).

        Raises:
            UsageError: ``result`` is none of these, or an assembler not finished yet.
        """
        return self._parse(result).result

    def _parse(self, result: Any) -> ParseSession[T]:
        calls = _finished_calls(result)
        session = self.session()
        events: list[Any] = []
        for number, call in enumerate(calls):
            server = call.get("type") == "server_tool_call" or _is_server_id(call.get("id"))
            if "error" in call:
                bad: InvalidToolCall = call  # type: ignore[assignment]
                events.append(CallInvalid(index=number, invalid_tool_call=bad))
            else:
                good: ToolCall = call  # type: ignore[assignment]
                events.append(
                    CallStarted(index=number, key=number, id=good.get("id"), name=good["name"])
                )
                if server:
                    events.append(_ServerMark(number, None))
                events.append(CallDone(index=number, tool_call=good))
        events.append(StreamFinished(reason=None))
        session._mode = "events"
        session._apply(events, ())
        session.close()
        return session


class ParseSession(Generic[T]):
    """One stream through a parser: feed items, read results (sans-I/O, not thread-safe).

    Create with :meth:`ToolsParser.session`. Cost per item: O(its events and their
    changes) plus what the parser does when values close, plus O(calls changed) to
    update the result; a result handed out is a fresh list (one pointer copy per call
    shown, at C speed), handed out only within the copy budget
    (:data:`RESULT_COPY_FACTOR` entries per event read), so n calls cost O(n) in total.

    Server-side tools (run by the provider, marked by a ``ServerToolUse`` signal, a
    ``server`` flag on the events, or a ``StreamUpdate`` 's ``server_tool_calls``) never
    appear in the results and are never validated: they are listed apart in
    :attr:`server_calls` (``ParsedCall.server`` True, ``value`` None).
    """

    __slots__ = (
        "_assembler",
        "_assembler_options",
        "_by_id",
        "_by_key",
        "_calls",
        "_closed",
        "_conv",
        "_convert",
        "_copied",
        "_emitted",
        "_finished",
        "_first",
        "_held",
        "_include_server",
        "_mode",
        "_parser",
        "_pending_server",
        "_read",
        "_result",
        "_same",
        "_server",
        "_server_idx",
        "_server_list",
        "_server_stale",
        "_shown_idx",
        "_stale",
        "conv_changed",
        "server_version",
    )

    def __init__(self, parser: ToolsParser[T], assembler_options: Mapping[str, Any]) -> None:
        self._parser = parser
        self._assembler_options = dict(assembler_options)
        self._assembler: ToolCallAssembler | None = None
        self._calls: dict[int, CallState] = {}
        self._by_key: dict[int, CallState] = {}
        self._by_id: dict[str, CallState] = {}
        self._first: CallState | None = None
        self._mode: str | None = None
        self._finished = False
        self._closed = False
        self._emitted = False
        # Result copy budget: events read, entries copied into results handed out, and
        # whether a change is waiting for the budget (see RESULT_COPY_FACTOR).
        self._read = 0
        self._copied = 0
        self._held = False
        # The calls shown, in index order: their indexes and their current ParsedCalls.
        self._shown_idx: list[int] = []
        self._result: list[ParsedCall[T]] = []
        self._stale: dict[int, CallState] = {}  # shown calls whose ParsedCall is out of date
        # Server-side calls, in index order (same layout).
        self._server_idx: list[int] = []
        self._server: list[ParsedCall[Any]] = []
        self._server_stale: dict[int, CallState] = {}
        self._server_list: list[ParsedCall[Any]] | None = None
        self._pending_server: set[int | str] = set()  # marks for calls not announced yet
        # Integration hooks (the LangChain output parser): server calls kept in the
        # results, and a converted form of each result kept up to date call by call.
        self._include_server = False
        self._convert: Callable[[ParsedCall[Any]], Any] | None = None
        self._same: Callable[[ParsedCall[Any], ParsedCall[Any]], bool] | None = None
        self._conv: list[Any] = []
        self.conv_changed = False
        self.server_version = 0
        """Incremented each time :attr:`server_calls` changes (compare instead of lists)."""

    @property
    def result(self) -> list[ParsedCall[T]]:
        """The current result (a copy of the list; final after :meth:`close`).

        It includes changes whose result was held back by the copy budget. O(calls shown).
        """
        self._sync()
        return list(self._result)

    @property
    def server_calls(self) -> list[ParsedCall[Any]]:
        """The server-side tool calls so far, in order of start (``server`` True).

        Their ``args`` follow the same rules as a tool call's (complete values while
        streaming, final arguments once valid); ``value`` is None (the parser does not
        validate a tool it does not run). The list is not changed by later input.
        Cost: O(server calls changed) when one changed since the last read, else O(1).
        """
        self._refresh_server()
        listed = self._server_list
        if listed is None:
            listed = self._server_list = list(self._server)
        return listed

    @property
    def finished(self) -> bool:
        """Whether the stream finished (a ``StreamFinished`` event was seen)."""
        return self._finished

    def feed(self, item: Any) -> list[ParsedCall[T]] | None:
        """Take one input item; return the new result if it changed, else None.

        Raises:
            ParserStateError: the session was closed, or events arrived after the
                stream finished.
            UsageError: an item of a kind the parser does not read, or raw chunks and
                events mixed in one session.
        """
        if self._closed:
            raise ParserStateError("feed() after close(): this session is over")
        events = self._events_of(item)
        marks = _server_marks_of(item) if self._mode == "events" else ()
        return self._apply(events, marks)

    def close(self) -> list[ParsedCall[T]] | None:
        """End of input: finish the calls; return the final result if not returned yet.

        A session fed raw chunks finishes its assembler (open calls get their verdicts);
        a session fed events that never saw ``StreamFinished`` marks calls still open as
        invalid. Returns None when the last result returned is already final.

        Raises:
            ParserStateError: called twice.
        """
        if self._closed:
            raise ParserStateError("close() was already called")
        events: list[Any] = []
        if self._assembler is not None and not self._assembler.finished:
            events = self._assembler.finish()
        result = self._apply(events, ())
        self._closed = True
        changed = self._held  # a change held back by the copy budget: shown now
        for call in self._calls.values():
            if call.status == "partial":
                self._invalidate(call, NO_VERDICT, None)
                changed = self._touch(call) or changed
        if changed:
            result = self._publish()
        if result is None and not self._emitted:
            result = self._publish()
        return result

    # --- input ------------------------------------------------------------------------

    def _events_of(self, item: Any) -> Sequence[Any]:
        events = getattr(item, "events", None)
        if events is not None and not isinstance(item, Mapping):
            return self._checked_events(tuple(events))
        if isinstance(item, _EVENT_TYPES):
            return self._checked_events((item,))
        if isinstance(item, (Mapping, *_SIGNAL_TYPES)):
            return self._assemble([item])
        if isinstance(item, (list, tuple)):
            if not item:
                return ()
            if all(isinstance(x, _EVENT_TYPES) for x in item):
                return self._checked_events(tuple(item))
            if all(isinstance(x, (Mapping, *_SIGNAL_TYPES)) for x in item):
                return self._assemble(item)
            raise UsageError(
                "a list item must hold only assembly events or only tool-call chunks / "
                "signals, not a mix"
            )
        raise UsageError(
            f"cannot read a {type(item).__name__} item: expected a StreamUpdate, assembly "
            "events or ToolCallChunk dicts (wrap provider payloads with callstream.stream())"
        )

    def _checked_events(self, events: tuple[Any, ...]) -> tuple[AssemblyEvent, ...]:
        if self._mode == "chunks":
            raise UsageError("assembly events fed to a session that is assembling raw chunks")
        self._mode = "events"
        return events

    def _assemble(self, signals: Sequence[Any]) -> list[Any]:
        if self._mode == "events":
            raise UsageError("raw chunks fed to a session that is reading assembly events")
        self._mode = "chunks"
        for signal in signals:
            if isinstance(signal, Mapping) and not _CHUNK_KEYS.issuperset(signal):
                keys = ", ".join(repr(k) for k in list(signal)[:6])
                raise UsageError(
                    f"a dict with keys {keys} is not a ToolCallChunk (name, args, id, "
                    "index); wrap provider payloads with callstream.stream()"
                )
        if self._assembler is None:
            self._assembler = ToolCallAssembler(**self._assembler_options)
        assembler = self._assembler
        if assembler.finished:
            raise ParserStateError("chunks fed after the stream finished")
        events: list[Any] = []
        for signal in signals:
            one: Signal = signal
            events.extend(assembler.apply(one))
            if isinstance(signal, ServerToolUse):
                # in order with the events: the call it names may have just started
                events.append(_ServerMark(signal.index, signal.id or None))
        return events

    # --- events -----------------------------------------------------------------------

    def _apply(
        self, events: Sequence[Any], marks: Sequence[_ServerMark]
    ) -> list[ParsedCall[T]] | None:
        parser = self._parser
        touched: dict[int, CallState] = {}
        changed = False
        for mark in marks:  # before the events: a call they start is marked as it starts
            self._server_mark(mark)
        for event in events:
            if self._finished:
                raise ParserStateError(f"{type(event).__name__} after the stream finished")
            if isinstance(event, ArgumentsDelta):
                call = self._calls.get(event.index)
                if call is None or call.status != "partial":
                    continue
                call.chars += len(event.text)
                if call.tree.apply(event.changes):
                    call.dirty = True
                touched[call.index] = call
            elif isinstance(event, CallStarted):
                call = CallState(event.index, event.name, event.id)
                self._add(call, event.key)
                if getattr(event, "server", False) or self._pending_mark(call, event.key):
                    self._mark_server(call)
                else:
                    parser._start(call)
                changed = self._touch(call) or changed
            elif isinstance(event, CallDone):
                tool_call = event.tool_call
                call = self._call_for(event.index, tool_call.get("name"), tool_call.get("id"))
                call.name = tool_call.get("name")
                self._set_id(call, tool_call.get("id"))
                call.dirty = False
                if getattr(event, "server", False):
                    self._mark_server(call)
                args = tool_call.get("args")
                if not isinstance(args, dict):
                    kind = type(args).__name__
                    self._invalidate(call, f"arguments must be a JSON object, got {kind}", None)
                elif call.server:
                    call.args = args
                    call.status = "valid"
                    call.value = None
                else:
                    call.args = args
                    parser._finalize(call, tool_call)
                call.result = None
                touched.pop(call.index, None)
                changed = self._touch(call) or changed
            elif isinstance(event, CallInvalid):
                bad = event.invalid_tool_call
                name, id_ = bad.get("name"), bad.get("id")
                call = self._call_for(event.index, name, id_)
                call.name = name if name is not None else call.name
                self._set_id(call, id_)
                if getattr(event, "server", False):
                    self._mark_server(call)
                raw = bad.get("args")
                self._invalidate(
                    call,
                    bad.get("error") or "invalid tool call",
                    raw if isinstance(raw, str) else None,
                )
                touched.pop(call.index, None)
                changed = self._touch(call) or changed
            elif isinstance(event, _ServerMark):
                self._server_mark(event)
            elif isinstance(event, StreamFinished):
                self._finished = True
        for call in touched.values():
            if call.server:
                if call.dirty:
                    call.dirty = False
                    call.result = None
                    self._touch(call)
            elif parser._refresh(call):
                call.result = None
                changed = self._touch(call) or changed
        if self._finished:
            for call in self._calls.values():
                if call.status == "partial":
                    self._invalidate(call, NO_VERDICT, None)
                    changed = self._touch(call) or changed
        if self._stale:
            changed = True  # a call left the results (it turned out to be a server call)
        self._read += len(events) + len(marks)
        if not (changed or self._held):
            return None
        if self._finished or self._copied + len(self._result) <= RESULT_COPY_FACTOR * self._read:
            return self._publish()
        self._held = True  # over the copy budget: shown by a later item, or at the end
        return None

    def _add(self, call: CallState, key: int | None) -> None:
        """Register a new call (and show it when the parser selects it)."""
        self._calls[call.index] = call
        if key is not None:
            self._by_key[key] = call
        if call.id:
            self._by_id[call.id] = call
        if self._first is None and self._parser._selects(call):
            self._first = call
        if self._parser._selects(call) and not self._parser.first_tool_only:
            if _insert(self._shown_idx, self._result, call.index, _PLACEHOLDER) is not None:
                if self._convert is not None:  # filled (and flagged changed) at publish
                    self._conv.insert(_position(self._shown_idx, call.index) or 0, _PLACEHOLDER)

    def _set_id(self, call: CallState, id_: str | None) -> None:
        if id_ is not None and id_ != call.id:
            call.id = id_
            if id_:
                self._by_id[id_] = call

    def _call_for(self, index: int, name: str | None, id_: str | None) -> CallState:
        call = self._calls.get(index)
        if call is None:  # a call that was never announced (no name, over max_calls)
            call = CallState(index, name, id_)
            self._add(call, None)
        return call

    def _invalidate(self, call: CallState, error: str, raw_args: str | None) -> None:
        if call.args is None:
            call.args = call.partial_args()
        call.status = "invalid"
        call.error = error
        call.raw_args = raw_args
        call.value = None
        call.result = None

    # --- server-side calls ------------------------------------------------------------

    def _server_mark(self, mark: _ServerMark) -> None:
        """A server-side marker: mark the call it names, or remember it for later."""
        call = self._by_id.get(mark.id) if mark.id else None
        if call is None and mark.index is not None:
            call = self._by_key.get(mark.index)
        if call is not None:
            self._mark_server(call)
        elif mark.id:
            self._pending_server.add(mark.id)
        elif mark.index is not None:
            self._pending_server.add(mark.index)

    def _pending_mark(self, call: CallState, key: int | None) -> bool:
        pending = self._pending_server
        if not pending:
            return False
        if call.id and call.id in pending:
            pending.discard(call.id)
            return True
        if key is not None and key in pending:
            pending.discard(key)
            return True
        return False

    def _mark_server(self, call: CallState) -> None:
        """``call`` is a server-side tool: out of the results, into :attr:`server_calls`."""
        if call.server:
            return
        call.server = True
        call.adapter = None
        call.value = None
        call.result = None
        position = None if self._include_server else _position(self._shown_idx, call.index)
        if position is not None:
            del self._shown_idx[position]
            del self._result[position]
            if self._convert is not None:
                del self._conv[position]
                self.conv_changed = True
        self._stale[call.index] = call  # so the next feed publishes (without it, or as server)
        if call is self._first:
            self._first = None
            for other in sorted(self._calls.values(), key=_by_index):
                if not other.server and self._parser._selects(other):
                    self._first = other
                    break
            self._stale[call.index] = call
        _insert(self._server_idx, self._server, call.index, _PLACEHOLDER)
        self._server_stale[call.index] = call

    def _refresh_server(self) -> None:
        stale = self._server_stale
        if not stale:
            return
        for call in stale.values():
            position = _position(self._server_idx, call.index)
            if position is not None:
                if call.result is None:
                    call.result = self._make(call)
                self._server[position] = call.result
        stale.clear()
        self._server_list = None
        self.server_version += 1

    # --- results ----------------------------------------------------------------------

    def _touch(self, call: CallState) -> bool:
        """Note that ``call`` changed; True if it is shown (the result changes)."""
        if call.server:
            self._server_stale[call.index] = call
            if not self._include_server:
                return False
        if not self._shown(call):
            return False
        self._stale[call.index] = call
        return True

    def _shown(self, call: CallState) -> bool:
        if not self._parser._selects(call):
            return False
        if call.server:
            return self._include_server and not self._parser.first_tool_only
        return not self._parser.first_tool_only or call is self._first

    def _publish(self) -> list[ParsedCall[T]]:
        """Bring the result up to date and hand out a copy (counted against the budget)."""
        self._sync()
        self._held = False
        self._emitted = True
        self._copied += len(self._result)
        return list(self._result)

    def _sync(self) -> None:
        """Rebuild the results of the calls that changed. O(calls changed)."""
        self._refresh_server()
        convert = self._convert
        if self._parser.first_tool_only:
            first = self._first
            old = self._result[0] if self._result else _PLACEHOLDER
            if first is None:
                self._result = []
                if convert is not None and self._conv:
                    self._conv = []
                    self.conv_changed = True
            else:
                if first.result is None:
                    first.result = self._make(first)
                self._result = [first.result]
                if convert is not None:
                    self._update_conv(0, old, first.result, fresh=not self._conv)
        else:
            shown, result = self._shown_idx, self._result
            for call in self._stale.values():
                position = _position(shown, call.index)
                if position is not None:
                    if call.result is None:
                        call.result = self._make(call)
                    old = result[position]
                    result[position] = call.result
                    if convert is not None:
                        self._update_conv(position, old, call.result)
        self._stale.clear()

    def _update_conv(
        self, position: int, old: Any, new: ParsedCall[Any], *, fresh: bool = False
    ) -> None:
        """Keep the converted form of position ``position`` in step (O(1) per call)."""
        convert = self._convert
        assert convert is not None
        if fresh:
            self._conv = [convert(new)]
        elif old is new:
            return
        elif old is not _PLACEHOLDER and self._same is not None and self._same(old, new):
            return  # the converted form does not change (keep the object already handed out)
        else:
            self._conv[position] = convert(new)
        self.conv_changed = True

    def _make(self, call: CallState) -> ParsedCall[Any]:
        if call.status == "partial":
            args = call.partial_args()
            value = None if call.server else self._parser._partial_value(call, args)
        else:
            args = call.args if call.args is not None else {}
            value = call.value
        return ParsedCall(
            index=call.index,
            name=call.name,
            id=call.id,
            status=call.status,
            args=args,
            value=value,
            error=call.error,
            raw_args=call.raw_args,
            server=call.server,
        )


@dataclass(frozen=True, slots=True)
class _ServerMark:
    """Internal: a server-side marker, in order among a session's events."""

    index: int | None
    id: str | None


_PLACEHOLDER: Any = None  # a result slot filled at the next publish


def _insert(indexes: list[int], values: list[Any], index: int, value: Any) -> int | None:
    """Insert ``index`` (and ``value`` in the parallel list) keeping ``indexes`` sorted;
    return the position (None if it was there). O(1) at the end (calls usually start in
    order), else O(len) (a C memmove)."""
    if not indexes or indexes[-1] < index:
        indexes.append(index)
        values.append(value)
        return len(indexes) - 1
    position = bisect_left(indexes, index)
    if position < len(indexes) and indexes[position] == index:
        return None
    indexes.insert(position, index)
    values.insert(position, value)
    return position


def _position(indexes: list[int], index: int) -> int | None:
    """Where ``index`` is in the sorted ``indexes``, or None. O(log n)."""
    if indexes and indexes[-1] == index:
        return len(indexes) - 1
    position = bisect_left(indexes, index)
    if position < len(indexes) and indexes[position] == index:
        return position
    return None


def _server_marks_of(item: Any) -> tuple[_ServerMark, ...]:
    """Server-side markers carried by a ``StreamUpdate`` (its ``server_tool_calls`` ids)."""
    if isinstance(item, Mapping):
        return ()
    listed = getattr(item, "server_tool_calls", None)
    if not isinstance(listed, list) or not listed:
        return ()
    marks = []
    for entry in listed:
        id_ = entry.get("id") if isinstance(entry, Mapping) else None
        if isinstance(id_, str) and id_:
            marks.append(_ServerMark(None, id_))
    return tuple(marks)


def _by_index(call: CallState) -> int:
    return call.index


SERVER_ID_PREFIX = "srvtoolu_"
"""Anthropic's ids of server-side tool uses (web search, code execution...)."""


def _is_server_id(id_: Any) -> bool:
    return isinstance(id_, str) and id_.startswith(SERVER_ID_PREFIX)


def _finished_calls(result: Any) -> list[Mapping[str, Any]]:
    """The call dicts of a finished result, in order (see ``ToolsParser.parse``)."""
    if isinstance(result, (list, tuple)):
        return _checked_calls(result)
    valid, invalid = _finished_lists(result)
    calls = [*valid, *invalid]
    server = getattr(result, "server_tool_calls", None)
    if isinstance(server, list):
        calls.extend(c for c in server if isinstance(c, Mapping) and "name" in c and "args" in c)
    if calls and all(type(c.get("index")) is int for c in calls):
        calls.sort(key=_index_of)
    return calls


def _index_of(call: Mapping[str, Any]) -> int:
    index: int = call["index"]
    return index


def _finished_lists(result: Any) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The valid and invalid call dicts of a finished result object."""
    if isinstance(result, ToolCallAssembler) and not result.finished:
        raise UsageError("the assembler has not finished: call finish() before parse()")
    valid = getattr(result, "tool_calls", None)
    invalid = getattr(result, "invalid_tool_calls", None)
    if not isinstance(valid, list):
        raise UsageError(
            f"cannot parse a {type(result).__name__}: expected a list of ToolCall dicts or an "
            "object with tool_calls (StreamResult, finished ToolCallAssembler, AIMessage)"
        )
    invalid_list = _checked_calls(invalid) if isinstance(invalid, list) else []
    return _checked_calls(valid), [{**c, "error": c.get("error")} for c in invalid_list]


def _checked_calls(calls: Sequence[Any]) -> list[Mapping[str, Any]]:
    for call in calls:
        if not (isinstance(call, Mapping) and "name" in call and "args" in call):
            raise UsageError(
                f"parse() takes ToolCall / InvalidToolCall dicts (name, args, id), got {call!r:.80}"
            )
    return list(calls)
