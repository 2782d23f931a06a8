"""What a parse session shows: its result lists, kept up to date call by call.

The calls shown are kept in index order in two parallel lists (their indexes, their
current :class:`ParsedCall` s); server-side calls likewise, apart. A call that changed is
noted stale (:meth:`ShownCalls._touch`) and its ``ParsedCall`` is rebuilt only when the
result is next handed out, so a result costs O(calls changed) plus one C-speed pointer
copy per call shown. Those copies are bounded by :data:`RESULT_COPY_FACTOR` (see there).
An integration (the LangChain output parser) can also keep a converted form of each
result up to date call by call (``_convert``), told whether it changed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

from callstream.parsers._call_state import CallState, by_index
from callstream.parsers._hooks import ParserHooks
from callstream.parsers._parsed_call import ParsedCall

__all__ = ("RESULT_COPY_FACTOR", "ShownCalls")

T = TypeVar("T")

RESULT_COPY_FACTOR: Final = 256
"""The results of a session together copy at most this many entries (one per call shown,
per result) per assembly event read, plus the final result: linear in the number of
calls, however many there are. A stream under about a thousand calls never reaches it
(each change gets its own result); beyond that, results come at most every few items."""

PLACEHOLDER: Any = None  # a result slot filled at the next publish


class ShownCalls(Generic[T]):
    """The results half of a :class:`~callstream.parsers.ParseSession` (internal).

    Holds the session's calls (``_calls``, by index), which one is first (for
    ``first_tool_only``), the calls shown and the server-side calls, and the copy budget.
    """

    __slots__ = (
        "_calls",
        "_conv",
        "_convert",
        "_copied",
        "_emitted",
        "_first",
        "_held",
        "_include_server",
        "_parser",
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

    def __init__(self, parser: ParserHooks) -> None:
        self._parser = parser
        self._calls: dict[int, CallState] = {}
        self._first: CallState | None = None
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

    # --- calls coming and going -------------------------------------------------------

    def _show(self, call: CallState) -> None:
        """A new call: note it first if it is, and give it a slot when it is shown."""
        parser = self._parser
        if not parser._selects(call):
            return
        if self._first is None:
            self._first = call
        if parser.first_tool_only:
            return
        if _insert(self._shown_idx, self._result, call.index, PLACEHOLDER) is not None:
            if self._convert is not None:  # filled (and flagged changed) at publish
                self._conv.insert(_position(self._shown_idx, call.index) or 0, PLACEHOLDER)

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
            for other in sorted(self._calls.values(), key=by_index):
                if not other.server and self._parser._selects(other):
                    self._first = other
                    break
            self._stale[call.index] = call
        _insert(self._server_idx, self._server, call.index, PLACEHOLDER)
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

    def _publish_within_budget(
        self, changed: bool, read: int, finished: bool
    ) -> list[ParsedCall[T]] | None:
        """After ``read`` more events: the new result if something changed (or a change
        was held) and the copy budget allows it (always once ``finished``), else None."""
        self._read += read
        if not (changed or self._held):
            return None
        if finished or self._copied + len(self._result) <= RESULT_COPY_FACTOR * self._read:
            return self._publish()
        self._held = True  # over the copy budget: shown by a later item, or at the end
        return None

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
        if self._parser.first_tool_only:
            self._sync_first()
        else:
            convert = self._convert
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

    def _sync_first(self) -> None:
        """:meth:`_sync` with ``first_tool_only``: the result is the first call or nothing."""
        first = self._first
        old = self._result[0] if self._result else PLACEHOLDER
        if first is None:
            self._result = []
            if self._convert is not None and self._conv:
                self._conv = []
                self.conv_changed = True
            return
        if first.result is None:
            first.result = self._make(first)
        self._result = [first.result]
        if self._convert is not None:
            self._update_conv(0, old, first.result, fresh=not self._conv)

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
        elif old is not PLACEHOLDER and self._same is not None and self._same(old, new):
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
