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
object is rebuilt only when that call changed; the result list is rebuilt when any call
it shows changed (O(calls shown)).

``stream`` / ``astream`` are thin loops over a session, so the sync and async forms
cannot drift apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

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
    Signal,
    StreamEnd,
    StreamFinished,
    ToolCall,
)
from callstream._errors import ParserStateError, UsageError
from callstream.parsers._results import ParsedCall, Status
from callstream.parsers._tree import ClosedValueTree

__all__ = ("CallState", "ParseSession", "ToolsParser")

T = TypeVar("T")

_EVENT_TYPES = (CallStarted, ArgumentsDelta, CallDone, CallInvalid, StreamFinished)
_SIGNAL_TYPES = (CallEnd, CallFailure, StreamEnd)
_CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})

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
        "status",
        "tree",
        "value",
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

        Args:
            result: a list of ``ToolCall`` / ``InvalidToolCall`` dicts (an
                ``InvalidToolCall`` has an ``error`` key), or an object with
                ``tool_calls`` and ``invalid_tool_calls`` (a ``StreamResult``, a finished
                ``ToolCallAssembler``, a LangChain ``AIMessage``).

        Raises:
            UsageError: ``result`` is none of these, or an assembler not finished yet.
        """
        valid, invalid = _finished_calls(result)
        session = self.session()
        events: list[AssemblyEvent] = []
        for number, call in enumerate([*valid, *invalid]):
            if "error" in call:
                bad: InvalidToolCall = call  # type: ignore[assignment]
                events.append(CallInvalid(index=number, invalid_tool_call=bad))
            else:
                good: ToolCall = call  # type: ignore[assignment]
                events.append(
                    CallStarted(index=number, key=None, id=good.get("id"), name=good["name"])
                )
                events.append(CallDone(index=number, tool_call=good))
        events.append(StreamFinished(reason=None))
        session.feed(events)
        return session.result


class ParseSession(Generic[T]):
    """One stream through a parser: feed items, read results (sans-I/O, not thread-safe).

    Create with :meth:`ToolsParser.session`. Cost per item: O(its events and their
    changes) plus what the parser does when values close, plus O(calls shown) when the
    result changed.
    """

    __slots__ = (
        "_assembler",
        "_assembler_options",
        "_calls",
        "_closed",
        "_emitted",
        "_finished",
        "_first",
        "_mode",
        "_parser",
        "_result",
    )

    def __init__(self, parser: ToolsParser[T], assembler_options: Mapping[str, Any]) -> None:
        self._parser = parser
        self._assembler_options = dict(assembler_options)
        self._assembler: ToolCallAssembler | None = None
        self._calls: dict[int, CallState] = {}
        self._first: CallState | None = None
        self._mode: str | None = None
        self._finished = False
        self._closed = False
        self._emitted = False
        self._result: list[ParsedCall[T]] = []

    @property
    def result(self) -> list[ParsedCall[T]]:
        """The current result (a copy of the list; final after :meth:`close`)."""
        return list(self._result)

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
        return self._apply(self._events_of(item))

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
        events: list[AssemblyEvent] = []
        if self._assembler is not None and not self._assembler.finished:
            events = self._assembler.finish()
        result = self._apply(events)
        self._closed = True
        changed = False
        for call in self._calls.values():
            if call.status == "partial":
                self._invalidate(call, NO_VERDICT, None)
                changed = changed or self._shown(call)
        if changed:
            result = self._publish()
        if result is None and not self._emitted:
            result = self._publish()
        return result

    # --- input ------------------------------------------------------------------------

    def _events_of(self, item: Any) -> Sequence[AssemblyEvent]:
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

    def _assemble(self, signals: Sequence[Any]) -> list[AssemblyEvent]:
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
        events: list[AssemblyEvent] = []
        for signal in signals:
            one: Signal = signal
            events.extend(assembler.apply(one))
        return events

    # --- events -----------------------------------------------------------------------

    def _apply(self, events: Sequence[AssemblyEvent]) -> list[ParsedCall[T]] | None:
        parser = self._parser
        touched: dict[int, CallState] = {}
        changed = False
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
                self._calls[event.index] = call
                if self._first is None and parser._selects(call):
                    self._first = call
                parser._start(call)
                changed = changed or self._shown(call)
            elif isinstance(event, CallDone):
                tool_call = event.tool_call
                call = self._call_for(event.index, tool_call.get("name"), tool_call.get("id"))
                call.name = tool_call.get("name")
                call.id = tool_call.get("id")
                call.dirty = False
                if isinstance(tool_call.get("args"), dict):
                    call.args = tool_call["args"]
                    parser._finalize(call, tool_call)
                else:
                    kind = type(tool_call.get("args")).__name__
                    self._invalidate(call, f"arguments must be a JSON object, got {kind}", None)
                call.result = None
                touched.pop(call.index, None)
                changed = changed or self._shown(call)
            elif isinstance(event, CallInvalid):
                bad = event.invalid_tool_call
                name, id_ = bad.get("name"), bad.get("id")
                call = self._call_for(event.index, name, id_)
                call.name = name if name is not None else call.name
                call.id = id_ if id_ is not None else call.id
                raw = bad.get("args")
                self._invalidate(
                    call,
                    bad.get("error") or "invalid tool call",
                    raw if isinstance(raw, str) else None,
                )
                touched.pop(call.index, None)
                changed = changed or self._shown(call)
            elif isinstance(event, StreamFinished):
                self._finished = True
        for call in touched.values():
            if parser._refresh(call):
                call.result = None
                changed = changed or self._shown(call)
        if self._finished:
            for call in self._calls.values():
                if call.status == "partial":
                    self._invalidate(call, NO_VERDICT, None)
                    changed = changed or self._shown(call)
        return self._publish() if changed else None

    def _call_for(self, index: int, name: str | None, id_: str | None) -> CallState:
        call = self._calls.get(index)
        if call is None:  # a call that was never announced (no name, over max_calls)
            call = CallState(index, name, id_)
            self._calls[index] = call
            if self._first is None and self._parser._selects(call):
                self._first = call
        return call

    def _invalidate(self, call: CallState, error: str, raw_args: str | None) -> None:
        if call.args is None:
            call.args = call.partial_args()
        call.status = "invalid"
        call.error = error
        call.raw_args = raw_args
        call.value = None
        call.result = None

    def _shown(self, call: CallState) -> bool:
        if not self._parser._selects(call):
            return False
        return not self._parser.first_tool_only or call is self._first

    def _publish(self) -> list[ParsedCall[T]]:
        parser = self._parser
        if parser.first_tool_only:
            calls = [] if self._first is None else [self._first]
        else:
            calls = [c for c in sorted(self._calls.values(), key=_by_index) if parser._selects(c)]
        result: list[ParsedCall[T]] = []
        for call in calls:
            cached = call.result
            if cached is None:
                cached = call.result = self._make(call)
            result.append(cached)
        self._result = result
        self._emitted = True
        return list(result)

    def _make(self, call: CallState) -> ParsedCall[Any]:
        if call.status == "partial":
            args = call.partial_args()
            value = self._parser._partial_value(call, args)
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
        )


def _by_index(call: CallState) -> int:
    return call.index


def _finished_calls(result: Any) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The valid and invalid call dicts of a finished result (see ``ToolsParser.parse``)."""
    if isinstance(result, (list, tuple)):
        calls = _checked_calls(result)
        return [c for c in calls if "error" not in c], [c for c in calls if "error" in c]
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
