"""The state of one assembly: every call of a stream, merged from checked inputs, with events.

:class:`AssemblyState` is the machine behind :class:`~callstream.ToolCallAssembler`, as
h11 keeps ``_state.py`` apart from ``_connection.py``: the assembler checks what callers
hand it (types, the stream being open) and reads the views; the state applies inputs
that are already checked — chunks, end markers, failures, server marks, extras, the end
of the stream — and answers each with the events it caused. It routes a chunk to its call
(:mod:`~callstream._assembly.routing`), keeps the call's text
(:mod:`~callstream._assembly.arguments`), gives verdicts
(:mod:`~callstream._assembly.verdict`) and keeps the view entries current
(:mod:`~callstream._assembly.views`). No I/O; O(1) bookkeeping per input plus the text.

Long, but one state machine: the rules it applies live in the modules named above
(``docs/design.md``, "Style of the code").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callstream._assembly.arguments import NO_LIMIT, ArgumentText, TextBudget
from callstream._assembly.call import INVALID, UNDECIDED, VALID, Call
from callstream._assembly.options import MAX_NAME_CHARS
from callstream._assembly.routing import Routes, join_piece, starts_new_call
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
)
from callstream._assembly.verdict import rejected, verdict
from callstream._assembly.views import CallViews
from callstream._errors import JSONLimitError, PartialJSONError

__all__ = ("AssemblyState",)


class AssemblyState:
    """Every call of one stream and how to find it; applies checked inputs (internal).

    Invariants: ``calls[n].number == n``; at most ``call_cap`` calls are stored, plus
    the one ``overflow`` entry standing for refused calls; the calls' text is within
    ``budget``; each call's view entries are current (see :class:`CallViews`).
    """

    __slots__ = (
        "budget",
        "call_cap",
        "calls",
        "empty_args",
        "max_calls",
        "overflow",
        "parser_options",
        "refused_id",
        "refused_key",
        "routes",
        "server_next",
        "views",
    )

    def __init__(
        self,
        parser_options: dict[str, Any],
        *,
        max_calls: int | None,
        max_argument_chars: int | None,
        max_chars: int | None,
        empty_args: str,
    ) -> None:
        """Options as given to the assembler, already checked."""
        self.parser_options = parser_options
        self.max_calls = max_calls
        self.call_cap: int = NO_LIMIT if max_calls is None else max_calls
        self.budget = TextBudget(max_argument_chars, max_chars)
        self.empty_args = empty_args
        self.calls: list[Call] = []
        self.overflow: Call | None = None  # the one entry standing for refused calls
        self.refused_key: int | None = None  # provider index and id of the last refused call
        self.refused_id: str | None = None
        self.routes = Routes()
        # a server mark sent before its call's first chunk: (provider index, id), for the
        # next call that starts (see mark_server); one slot, so memory stays bounded
        self.server_next: tuple[int | None, str | None] | None = None
        self.views = CallViews()

    # --- inputs other than chunks -------------------------------------------------------

    def end_call(  # noqa: PLR0917 -- the assembler's checked arguments, in its order
        self,
        key: int | None,
        id_: str | None,
        text: str | None,
        whole: bool,
        too_deep: JSONLimitError | None,
        obj: Mapping[str, Any] | None,
    ) -> list[AssemblyEvent]:
        """An end marker: the call's input closes and it gets its verdict now (see
        :meth:`ToolCallAssembler.end_call`). ``obj`` is the decoded object ``text`` came
        from, if any; ``too_deep`` the limit error of an object that gave no text."""
        call = self.routes.find(key, id_, current=True)
        if call is None or call.input_closed:
            return []
        events: list[AssemblyEvent] = []
        arguments = call.arguments
        if too_deep is not None:  # an object too deep to take
            arguments.seen = True
            if call.verdict == UNDECIDED:
                self._invalidate(call, rejected(too_deep), events)
        elif text and call.verdict == UNDECIDED and not arguments.dropped:
            if arguments.chars == 0:
                arguments.whole = whole
                self._add_text(call, text, events)
            elif not arguments.same_as(text, obj):
                arguments.whole = whole
                self._replace_args(call, text, events)
        self._settle(call, events, None)
        return events

    def fail_call(  # noqa: PLR0917 -- the assembler's checked arguments, in its order
        self,
        error: str,
        key: int | None,
        id_: str | None,
        name: str | None,
        text: str | None,
        too_deep: JSONLimitError | None,
    ) -> list[AssemblyEvent]:
        """A provider-side failure (see :meth:`ToolCallAssembler.fail_call`)."""
        if too_deep is not None:
            error = f"{error}; {rejected(too_deep)}"
        events: list[AssemblyEvent] = []
        call = self.routes.find(key, id_, current=False)
        if call is None or call.input_closed:
            if len(self.calls) >= self.call_cap:
                self._refuse(key, id_, name, events)
                return events
            call = self._new_call(key, id_)
            self._set_identity(call, id_, name, events)
        elif name is not None and call.name is None:
            self._set_identity(call, None, name, events)
        arguments = call.arguments
        if text and arguments.chars == 0 and not arguments.dropped:
            arguments.keep(text)
            self.views.grew(call)
            arguments.seen = True
        self._close_input(call)
        if call.verdict == UNDECIDED:
            self._invalidate(call, error, events)
        elif call.verdict == INVALID:
            call.error = f"{call.error}; {error}"
            if call.invalid_view is not None:
                call.invalid_view["error"] = call.error
        return events

    def finish(self, limit_reason: str | None) -> list[AssemblyEvent]:
        """The end of the stream: every call whose input is open gets its verdict."""
        events: list[AssemblyEvent] = []
        for call in self.calls:
            if not call.input_closed:
                self._settle(call, events, limit_reason, at_finish=True)
        self.views.preview_changed.clear()
        return events

    def interrupt(self, cause: str) -> list[AssemblyEvent]:
        """The source failed: complete calls get their verdict, other open ones are
        invalid (see :meth:`ToolCallAssembler.interrupt`)."""
        error = f"the stream was interrupted before the call completed ({cause})"
        events: list[AssemblyEvent] = []
        for call in self.calls:
            if call.input_closed:
                continue
            parser = call.arguments.parser
            complete = parser is not None and parser.complete
            if call.verdict == UNDECIDED and call.name is not None and complete:
                self._settle(call, events, None, at_finish=True)
                continue
            call.input_closed = True
            if call.verdict == UNDECIDED:
                self._invalidate(call, error, events)
        self.views.preview_changed.clear()
        return events

    def mark_server(self, key: int | None, id_: str | None) -> None:
        """The call on ``key`` (or with ``id_``) is run by the provider itself.

        Sent before the call's first chunk (as the translators send it), the mark waits
        for the next call to start: when that call starts on ``key`` with ``id_`` (either
        may be None: not compared), it is a server call from its birth, so every event
        about it says so; any other call starting first drops the mark. Sent after it (a
        call found open, with that id or none), it marks that call from now on: the
        events already reported said ``server=False``. Cost: O(1).
        """
        call = self.routes.find(key, id_, current=False)
        if call is not None and not call.input_closed and (id_ is None or call.id in (None, id_)):
            if not call.server:
                call.server = True
                self.views.place(call)
            return
        if key is not None or id_ is not None:
            self.server_next = (key, id_)

    def add_extras(self, key: int | None, id_: str | None, extras: dict[str, Any]) -> None:
        """Merge ``extras`` into the extras record of the call on ``key`` (or with ``id_``):
        a new dict, so a record handed out (on an event, in a view) never changes."""
        call = self.routes.find(key, id_, current=False)
        if call is None or not extras:
            return
        old = call.extras
        merged = dict(extras) if old is None else {**old, **extras}
        call.extras = merged
        if old is None:
            self.views.extras_calls.append(call)
        server = call.server_view
        if server is not None:
            server["extras"] = merged

    # --- merging (rules in routing.py) --------------------------------------------------

    def merge(  # noqa: PLR0917 -- positional: no tuple per chunk
        self,
        key: int | None,
        id_: str | None,
        name: str | None,
        text: str | None,
        whole: bool,
        too_deep: JSONLimitError | None,
        events: list[AssemblyEvent],
    ) -> None:
        """Apply one checked chunk (the merge rules of :mod:`~callstream._assembly.routing`):
        the provider's ``key``, ``id``, ``name`` and argument ``text`` (``whole``: the
        complete arguments, serialized from an object; ``too_deep``: the limit error of an
        object too deep to serialize, which gave no text)."""
        routes = self.routes
        if key is not None and not whole and text and not id_ and not name:
            # fast path: a keyed continuation carrying only text (rule 5 cannot apply)
            streaming = routes.by_key.get(key)
            if streaming is not None and not streaming.input_closed:
                routes.current = streaming
                self._add_text(streaming, text, events)
                return
        self._merge_slowly(key, id_ or None, name or None, text or None, whole, too_deep, events)

    def _merge_slowly(  # noqa: PLR0917 -- merge()'s arguments, passed on as they are
        self,
        key: int | None,
        id_: str | None,
        name: str | None,
        text: str | None,
        whole: bool,
        too_deep: JSONLimitError | None,
        events: list[AssemblyEvent],
    ) -> None:
        """:meth:`merge` for every chunk but a keyed text continuation; empty fields are
        already None (rule 2)."""
        routes = self.routes
        if id_ is None and name is None and text is None and too_deep is None:
            if key is not None:
                known = routes.by_key.get(key)
                if known is not None:
                    routes.current = known
            return
        # an object too deep to take is content all the same (rule 5)
        call = self._route(key, id_, name, text if too_deep is None else "{}", events)
        if call is None:
            return
        routes.current = call
        renamed = name is not None and name != call.name
        if renamed or (id_ is not None and id_ != call.id):  # rules 3 and 4
            self._set_identity(call, id_, name, events)
            if renamed and not call.announced and call.verdict == UNDECIDED:
                if call.arguments.seen:
                    self._announce(call, events)  # rule 7
        if too_deep is not None:
            self._reject_too_deep(call, too_deep, events)
        elif text is None:
            return
        elif whole:
            self._merge_arguments(call, text, whole, events)
        else:
            self._add_text(call, text, events)  # rule 6, the common case

    def _route(
        self,
        key: int | None,
        id_: str | None,
        name: str | None,
        text: str | None,
        events: list[AssemblyEvent],
    ) -> Call | None:
        """The call a chunk merges into (rules 1 and 5): the one it continues, or a new
        one; None when nothing of it is to be merged (a refused call past ``max_calls``,
        or a call whose input is closed, rule 5e)."""
        routes = self.routes
        if key is not None and id_ is None:  # rule 1a, without a call (most keyed chunks)
            call = routes.by_key.get(key)
            anonymous = False
        else:
            call, anonymous = routes.continued(key, id_)  # rule 1
        if call is None or starts_new_call(call, id_, name, text, anonymous):  # rule 5
            if len(self.calls) >= self.call_cap:
                self._refuse(key, id_, name, events)
                return None
            return self._new_call(key, id_)
        if call.input_closed:
            routes.current = call
            return None  # nothing new for a call whose input is closed (rule 5e)
        return call

    def _reject_too_deep(
        self, call: Call, too_deep: JSONLimitError, events: list[AssemblyEvent]
    ) -> None:
        """Rule 6 for a decoded object nested beyond ``max_depth``: taken as the whole
        arguments, and the call invalid with the limit error."""
        arguments = call.arguments
        arguments.seen = arguments.whole = True
        if call.verdict == UNDECIDED and not arguments.dropped:
            arguments.clear()
            self.views.grew(call)
            self._invalidate(call, rejected(too_deep), events)

    def _merge_arguments(
        self, call: Call, text: str, whole: bool, events: list[AssemblyEvent]
    ) -> None:
        """Rule 6: text is appended; a whole object is taken, replacing any text."""
        arguments = call.arguments
        if whole:
            arguments.whole = True
            if arguments.chars:
                self._replace_args(call, text, events)
                return
        self._add_text(call, text, events)

    def _new_call(self, key: int | None, id_: str | None = None) -> Call:
        """Start call number ``len(calls)`` on provider index ``key`` (listed in chunks),
        for a chunk with id ``id_``: the one place a call's side is decided, before
        anything about it is reported (a server mark sent before the chunk, see
        :meth:`mark_server`)."""
        call = Call(len(self.calls), key, ArgumentText(self.budget, self.parser_options))
        mark = self.server_next
        if mark is not None:
            self.server_next = None
            if (mark[0] is None or mark[0] == key) and (mark[1] is None or mark[1] == id_):
                call.server = True
        self.calls.append(call)
        if key is not None:
            self.routes.by_key[key] = call
        self.views.add_call(call)
        return call

    def _refuse(
        self, key: int | None, id_: str | None, name: str | None, events: list[AssemblyEvent]
    ) -> None:
        """A call past ``max_calls``: store nothing of it, count it on the overflow entry.

        Its later chunks must not reach another call: its key is unmapped and it stops
        being the call being streamed. A call is counted at a chunk that brings a name or
        an id and is not a resend of the last refused call's key or id. Cost: O(1).
        """
        routes = self.routes
        self.server_next = None  # a mark for this call: it is not stored
        if key is not None:
            routes.by_key.pop(key, None)
        routes.current = None
        if id_ is None and name is None:
            return  # a continuation: its text is dropped
        last_key = self.refused_key
        last_id = self.refused_id
        if key is not None and key == last_key and (id_ is None or id_ == last_id):
            return
        if key is None and id_ is not None and id_ == last_id:
            return
        self.refused_key = key
        self.refused_id = id_
        overflow = self.overflow
        if overflow is None:
            overflow = self.overflow = self._new_call(None)
            overflow.key = key
            if id_ is not None:
                overflow.id = id_
                self.views.write(overflow, "id", id_)
            if name is not None:
                overflow.name = name
                self.views.write(overflow, "name", name)
            overflow.arguments.dropped = overflow.input_closed = True
            overflow.refused = 1
            self._invalidate(overflow, self._refused_error(1), events)
            return
        overflow.refused += 1
        overflow.error = self._refused_error(overflow.refused)
        if overflow.invalid_view is not None:
            overflow.invalid_view["error"] = overflow.error

    def _refused_error(self, count: int) -> str:
        later = "" if count == 1 else f" and {count - 1} later call(s)"
        return (
            f"too many tool calls (more than max_calls={self.max_calls}): this call{later} "
            "refused, their arguments discarded"
        )

    def _set_identity(
        self, call: Call, id_: str | None, name: str | None, events: list[AssemblyEvent]
    ) -> None:
        """Set or grow the call's id and name (rules 3 and 4), both before any verdict: a
        call whose id or name grows past :data:`MAX_NAME_CHARS` is invalid, reported
        with the other of the two it has (that one is not grown further)."""
        error = None
        if id_ is not None and id_ != call.id:
            error = self._set_id(call, id_)
        if name is not None and name != call.name:
            name_error = self._set_name(call, name)
            error = error or name_error
        if error is not None and call.verdict == UNDECIDED:
            self._invalidate(call, error, events)

    def _set_id(self, call: Call, id_: str) -> str | None:
        """Set or grow the call's id; the error when it would pass :data:`MAX_NAME_CHARS`
        (the id is then kept as it was). Cost: O(len) with both sides at most
        :data:`MAX_NAME_CHARS`."""
        old = call.id
        new = join_piece(old, id_)
        if len(new) > MAX_NAME_CHARS:
            return f"call id longer than {MAX_NAME_CHARS} characters"
        call.id = new
        self.routes.rename(call, old, new)
        self.views.write(call, "id", new)
        return None

    def _set_name(self, call: Call, name: str) -> str | None:
        """Set or grow the call's name, as :meth:`_set_id` does; a first name lists it."""
        old = call.name
        new = join_piece(old, name)
        if len(new) > MAX_NAME_CHARS:
            return f"tool name longer than {MAX_NAME_CHARS} characters"
        call.name = new
        self.views.write(call, "name", new)
        if old is None:
            self.views.place(call)
        return None

    def _close_input(self, call: Call) -> None:
        """No more data for the call; its entries show their complete text."""
        call.input_closed = True
        self.views.grew(call)

    # --- arguments (ArgumentText in arguments.py) ---------------------------------------

    def _add_text(self, call: Call, text: str, events: list[AssemblyEvent]) -> None:
        """Append a fragment to the call's text and feed it to its parser."""
        arguments = call.arguments
        arguments.seen = True
        if arguments.dropped:
            return
        if call.verdict != UNDECIDED:  # invalid: the raw text grows, nothing else
            self.views.grew(call)
            arguments.keep(text)
            return
        try:
            changes = arguments.add(text)
        except PartialJSONError as exc:
            self.views.grew(call)
            self._invalidate(call, rejected(exc), events)
            return
        if changes is None:
            self.views.grew(call)
            self._invalidate(call, arguments.limit_error or "", events)
            return
        self.views.parsed(call)
        if not call.announced:
            if call.name is None:
                arguments.buffer(text, changes)
                return
            self._announce(call, events)
        events.append(ArgumentsDelta(call.number, text, tuple(changes)))

    def _replace_args(self, call: Call, text: str, events: list[AssemblyEvent]) -> None:
        """Replace an undecided call's arguments with the provider's authoritative text."""
        arguments = call.arguments
        arguments.seen = True
        if call.verdict != UNDECIDED or arguments.dropped:
            return
        call.chunk_rejoin_at = 0  # the text changed, not grew: re-join at the next read
        self.views.grew(call)
        try:
            changes = arguments.replace(text)
        except PartialJSONError as exc:
            self._invalidate(call, rejected(exc), events)
            return
        if changes is None:
            self._invalidate(call, arguments.limit_error or "", events)
            return
        self.views.watch_preview(call)
        if call.announced:
            return  # a UI's incremental state cannot express a replacement: CallDone will
        if call.name is None:
            arguments.buffer(text, changes)
            return
        self._announce(call, events)
        events.append(ArgumentsDelta(call.number, text, tuple(changes)))

    # --- announcing and verdicts (verdict.py) -------------------------------------------

    def _announce(self, call: Call, events: list[AssemblyEvent]) -> None:
        """Emit CallStarted, then the text held while the call had no name (rule 7)."""
        call.announced = True
        events.append(
            CallStarted(
                index=call.number,
                key=call.key,
                id=call.id,
                name=call.name or "",
                server=call.server,
                extras=call.extras,
            )
        )
        arguments = call.arguments
        if arguments.buffered_text is not None:  # most calls hold nothing: no call then
            held = arguments.take_buffered()
            if held is not None:
                text, changes = held
                events.append(ArgumentsDelta(call.number, text, changes))

    def _report(self, call: Call, events: list[AssemblyEvent]) -> None:
        """Emit the call's final event (announcing it first if it has a name)."""
        if not call.announced and call.name is not None:
            self._announce(call, events)
        if call.verdict == VALID:
            view = call.view
            if view is None:  # a server call: not listed in tool_calls
                view = call.tool_call()
            events.append(
                CallDone(index=call.number, tool_call=view, server=call.server, extras=call.extras)
            )
        else:
            entry = call.invalid_view
            invalid: InvalidToolCall = call.invalid_tool_call() if entry is None else {**entry}
            events.append(
                CallInvalid(
                    index=call.number,
                    invalid_tool_call=invalid,
                    server=call.server,
                    extras=call.extras,
                )
            )

    def _invalidate(self, call: Call, error: str, events: list[AssemblyEvent]) -> None:
        """Give the call the verdict invalid with ``error``, and report it."""
        call.verdict = INVALID
        call.error = error
        if call.arguments.buffered_text is not None:
            call.arguments.drop_buffered()
        server = call.server_view
        if server is not None:
            server["args"] = {}
        self.views.place(call)
        self._report(call, events)

    def _settle(
        self,
        call: Call,
        events: list[AssemblyEvent],
        limit_reason: str | None,
        *,
        at_finish: bool = False,
    ) -> None:
        """Close the call's input and give its verdict (see :func:`verdict`)."""
        self._close_input(call)
        if call.verdict != UNDECIDED:
            return
        parser = call.arguments.parser
        outcome = verdict(
            named=call.name is not None,
            parser=parser,
            limit_reason=limit_reason,
            at_finish=at_finish,
            empty_args=self.empty_args,
        )
        if isinstance(outcome, str):
            self._invalidate(call, outcome, events)
            return
        if parser is None or not parser.started:  # no text: keep the {} the view shows
            shown = call.view["args"] if call.view is not None else None
            if type(shown) is dict and not shown:
                outcome = shown
        self._done(call, outcome, events)

    def _done(self, call: Call, value: dict[str, Any], events: list[AssemblyEvent]) -> None:
        """Give the call the verdict valid with arguments ``value``, and report it."""
        call.verdict = VALID
        call.final = value
        if call.arguments.buffered_text is not None:
            call.arguments.drop_buffered()
        view = call.view
        if view is not None:
            view["args"] = value
        server = call.server_view
        if server is not None:
            server["args"] = value
        self._report(call, events)
