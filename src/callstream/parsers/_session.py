"""ParseSession: one stream through a parser, a sans-I/O state machine (see ``_tools_parser``).

The session reads input items (:meth:`ParseSession.feed`), turns them into assembly
events (assembling raw chunks with its own ``ToolCallAssembler``), and applies each event
to its per-call state (:class:`~callstream.parsers._call_state.CallState`), asking the parser
to refresh the calls that received argument text. What is shown, and when a result is
handed out, is the business of its base class (:mod:`callstream.parsers._shown`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    ServerToolUse,
    Signal,
    StreamFinished,
)
from callstream._errors import ParserStateError, UsageError
from callstream._json.changes import Change
from callstream.parsers._call_state import NO_VERDICT, CallState, ServerMark, is_server_id
from callstream.parsers._hooks import ParserHooks
from callstream.parsers._parse_input import (
    EVENT_TYPES,
    RAW_TYPES,
    server_marks_of,
    unknown_chunk_keys,
)
from callstream.parsers._parsed_call import ParsedCall
from callstream.parsers._shown import ShownCalls

__all__ = ("ParseSession",)

T = TypeVar("T")


class ParseSession(ShownCalls[T]):
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
        "_closed",
        "_finished",
        "_mode",
        "_pending_server",
        "_provider_error",
        "_server_ids",
    )

    def __init__(self, parser: ParserHooks, assembler_options: Mapping[str, Any]) -> None:
        super().__init__(parser)
        self._assembler_options = dict(assembler_options)
        self._assembler: ToolCallAssembler | None = None
        self._by_key: dict[int, CallState] = {}
        self._by_id: dict[str, CallState] = {}
        self._mode: str | None = None
        self._finished = False
        self._provider_error: str | None = None
        self._closed = False
        self._pending_server: set[int | str] = set()  # marks for calls not announced yet
        # Integration hook (the LangChain output parser): a call with an Anthropic
        # ``srvtoolu_`` id is a server-side call (older integrations list them as tool calls).
        self._server_ids = False

    @property
    def finished(self) -> bool:
        """Whether the stream finished (a ``StreamFinished`` event was seen)."""
        return self._finished

    @property
    def provider_error(self) -> str | None:
        """What the provider said when it ended the stream with an error (the
        ``StreamFinished`` event's ``provider_error``, as on
        :attr:`callstream.StreamResult.provider_error`), else None."""
        return self._provider_error

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
        marks = server_marks_of(item) if self._mode == "events" else ()
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
        changed = self._fail_unfinished() or self._held  # a held change is shown now
        if changed:
            result = self._publish()
        if result is None and not self._emitted:
            result = self._publish()
        return result

    def _feed_signals(self, signals: Sequence[Any]) -> list[ParsedCall[T]] | None:
        """Take the signals a provider translator produced for one payload (already
        checked there: they go to the assembler as they are); like :meth:`feed`."""
        if self._closed:
            raise ParserStateError("feed() after close(): this session is over")
        return self._apply(self._assemble(signals, checked=True), ())

    # --- input ------------------------------------------------------------------------

    def _events_of(self, item: Any) -> Sequence[Any]:
        events = getattr(item, "events", None)
        if events is not None and not isinstance(item, Mapping):
            return self._checked_events(tuple(events))
        if isinstance(item, EVENT_TYPES):
            return self._checked_events((item,))
        if isinstance(item, RAW_TYPES):
            return self._assemble([item])
        if isinstance(item, (list, tuple)):
            if not item:
                return ()
            if all(isinstance(x, EVENT_TYPES) for x in item):
                return self._checked_events(tuple(item))
            if all(isinstance(x, RAW_TYPES) for x in item):
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

    def _assemble(self, signals: Sequence[Any], *, checked: bool = False) -> list[Any]:
        """The events of raw signals (a user's chunk dicts are checked first, unless
        ``checked``: a translator's output), through the session's own assembler."""
        if self._mode == "events":
            raise UsageError("raw chunks fed to a session that is reading assembly events")
        self._mode = "chunks"
        keys = None if checked else unknown_chunk_keys(signals)
        if keys is not None:
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
                mark: Any = signal  # its fields read as object to mypyc (_argtypes)
                events.append(ServerMark(mark.index, mark.id or None))
        return events

    # --- events -----------------------------------------------------------------------

    def _apply(
        self, events: Sequence[Any], marks: Sequence[ServerMark]
    ) -> list[ParsedCall[T]] | None:
        """Apply one item's events (``marks`` first), refresh the calls that received
        text, and publish the result if it changed (within the copy budget)."""
        touched: dict[int, CallState] = {}  # calls that received argument text
        changed = False
        for mark in marks:  # before the events: a call they start is marked as it starts
            self._server_mark(mark)
        for event in events:
            if self._finished:
                raise ParserStateError(f"{type(event).__name__} after the stream finished")
            if isinstance(event, ArgumentsDelta):  # the most frequent event, applied here
                call = self._calls.get(event.index)
                if call is None or call.status != "partial":
                    continue
                start = call.chars
                call.chars += len(event.text)
                closed = call.tree.apply(event.changes)
                if call.builder is not None and not call.server:
                    _build(call, event.changes, start)  # the pydantic parser's previews
                else:
                    call.builder = None  # a server-side call needs no partial object
                    if closed:
                        call.dirty = True
                touched[call.index] = call
            else:
                changed = self._on_event(event, touched) or changed
        changed = self._refresh_touched(touched) or changed
        if self._finished:
            changed = self._fail_unfinished() or changed
        if self._stale:
            changed = True  # a call left the results (it turned out to be a server call)
        return self._publish_within_budget(changed, len(events) + len(marks), self._finished)

    def _on_event(self, event: Any, touched: dict[int, CallState]) -> bool:
        """Apply one event other than an ``ArgumentsDelta``; True if the result changed."""
        if isinstance(event, CallStarted):
            call = CallState(event.index, event.name, event.id)
            self._add(call, event.key)
            marked = self._pending_mark(call, event.key)  # consumed, also when the event says so
            if getattr(event, "server", False) or marked or self._server_id(call):
                self._mark_server(call)
            else:
                self._parser._start(call)
            return self._touch(call)
        if isinstance(event, CallDone):
            call = self._on_done(event)
        elif isinstance(event, CallInvalid):
            call = self._on_invalid(event)
        else:
            if isinstance(event, ServerMark):
                self._server_mark(event)
            elif isinstance(event, StreamFinished):
                self._finished = True
                self._provider_error = getattr(event, "provider_error", None)
            return False
        touched.pop(call.index, None)  # final: nothing left to refresh
        return self._touch(call)

    def _on_done(self, event: CallDone) -> CallState:
        """A call is final and valid in the assembler's eyes: the parser's verdict."""
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
            self._parser._finalize(call, tool_call)
        call.result = None
        return call

    def _on_invalid(self, event: CallInvalid) -> CallState:
        """A call is final and invalid (the assembler's reason)."""
        bad = event.invalid_tool_call
        name, id_ = bad.get("name"), bad.get("id")
        call = self._call_for(event.index, name, id_)
        call.name = name if name is not None else call.name
        self._set_id(call, id_)
        if getattr(event, "server", False):
            self._mark_server(call)
        raw = bad.get("args")
        self._invalidate(
            call, bad.get("error") or "invalid tool call", raw if isinstance(raw, str) else None
        )
        return call

    def _refresh_touched(self, touched: dict[int, CallState]) -> bool:
        """Let the parser look at the calls that received text; True if one shown changed."""
        changed = False
        for call in touched.values():
            if call.server:
                if call.dirty:
                    call.dirty = False
                    call.result = None
                    self._touch(call)
            elif self._parser._refresh(call):
                call.result = None
                changed = self._touch(call) or changed
        return changed

    def _fail_unfinished(self) -> bool:
        """Every call still partial gets :data:`NO_VERDICT`; True if one shown changed."""
        changed = False
        for call in self._calls.values():
            if call.status == "partial":
                self._invalidate(call, NO_VERDICT, None)
                changed = self._touch(call) or changed
        return changed

    # --- calls ------------------------------------------------------------------------

    def _add(self, call: CallState, key: int | None) -> None:
        """Register a new call (and show it when the parser selects it)."""
        self._calls[call.index] = call
        if key is not None:
            self._by_key[key] = call
        if call.id:
            self._by_id[call.id] = call
        self._show(call)

    def _set_id(self, call: CallState, id_: str | None) -> None:
        if id_ is not None and id_ != call.id:
            call.id = id_
            if id_:
                self._by_id[id_] = call
                if self._server_id(call):
                    self._mark_server(call)

    def _call_for(self, index: int, name: str | None, id_: str | None) -> CallState:
        call = self._calls.get(index)
        if call is None:  # a call that was never announced (no name, over max_calls)
            call = CallState(index, name, id_)
            self._add(call, None)
            if self._server_id(call):
                self._mark_server(call)
        return call

    def _invalidate(self, call: CallState, error: str, raw_args: str | None) -> None:
        if call.args is None:
            call.args = call.partial_args()
        call.builder = None
        call.status = "invalid"
        call.error = error
        call.raw_args = raw_args
        call.value = None
        call.result = None

    # --- server-side marks ------------------------------------------------------------

    def _server_mark(self, mark: ServerMark) -> None:
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

    def _server_id(self, call: CallState) -> bool:
        """Whether ``call``'s id names it a server-side call (when the session reads ids
        that way: ``_server_ids``)."""
        return self._server_ids and is_server_id(call.id)

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


def _build(call: CallState, changes: Sequence[Change], start: int) -> None:
    """Feed one fragment's changes to ``call``'s partial-object builder (after its tree,
    whose containers the builder reads); ``start``: the argument characters before it.

    A change of what the partial object shows marks the call ``dirty``. A change stream
    the JSON parser never makes (hand-made events that do not fit together) ends the
    call's partial object (the last preview stays; the final validation of its arguments
    is unaffected)."""
    builder = call.builder
    assert builder is not None
    try:
        builder.apply(changes, call.root, call.chars, start)
    except Exception:  # changes that do not fit (never from the JSON parser)
        call.builder = None
        return
    if builder.changed:
        call.dirty = True
