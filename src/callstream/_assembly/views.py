"""The assembler's views: one entry per listed call, in order of call number, copied on write.

The assembler's views (``tool_calls``, ``invalid_tool_calls``, ``server_tool_calls``,
``tool_call_chunks``) are read after every payload, so they must not be rebuilt per read
(a Python loop over every call). A :class:`ViewList` keeps its list up to date as calls
come and go (a new call is appended, O(1) amortized; a call leaving or entering out of
order is a C-speed insert or delete) and hands that list out. A list handed out is never
modified: the first change after a read copies it first (copy on write, a C-speed
``list.copy``), so a stream pays at most one copy per
payload that changed a view, whatever number of changes the payload made.

Entries themselves are the calls' own dicts, updated in place until the call is final
(:class:`CallViews` keeps the four lists of one assembler and writes into the entries).
Raw text in ``invalid_tool_calls`` and ``tool_call_chunks`` is re-joined at every read
while it is short (:data:`EXACT_CHARS`), then only when it has doubled since the last
join, and exactly once the call's input has closed, so reading after every fragment
stays linear.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Final, Generic, Literal, TypeVar

from callstream._assembly.call import INVALID, UNDECIDED, Call
from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall, ToolCallChunk

__all__ = ("EXACT_CHARS", "CallViews", "ViewList")

EXACT_CHARS: Final = 4096
"""Raw text up to this length is re-joined for the views at every read after it grew (a
bounded cost per fragment); longer text each time it has doubled, and once at the end."""

T = TypeVar("T")


class ViewList(Generic[T]):
    """The entries of one view and the call numbers they belong to (internal).

    :meth:`hand_out` gives ``items`` and sets ``out``: the next change then copies the
    list, so a list handed out is never modified.
    """

    __slots__ = ("items", "numbers", "out")

    def __init__(self) -> None:
        self.items: list[T] = []  # what is handed out
        self.numbers: list[int] = []  # call number of each entry, ascending
        self.out = False  # ``items`` was handed out: copy before the next change

    def hand_out(self) -> list[T]:
        """``items``, to give to a reader (never modified after). Cost: O(1)."""
        self.out = True
        return self.items

    def add(self, number: int, entry: T) -> None:
        """List ``entry`` for call ``number``. Cost: O(1) amortized, plus one copy of the
        list when it was handed out since the last change; O(listed calls) at C speed
        when ``number`` is not the highest so far."""
        if self.out:
            self.items = self.items.copy()
            self.out = False
        numbers = self.numbers
        if not numbers or numbers[-1] < number:
            numbers.append(number)
            self.items.append(entry)
            return
        at = bisect_left(numbers, number)
        numbers.insert(at, number)
        self.items.insert(at, entry)

    def remove(self, number: int) -> None:
        """Unlist call ``number`` (if listed). Cost: O(listed calls), at C speed."""
        numbers = self.numbers
        at = bisect_left(numbers, number)
        if at == len(numbers) or numbers[at] != number:
            return
        if self.out:
            self.items = self.items.copy()
            self.out = False
        del numbers[at]
        del self.items[at]


class CallViews:
    """The four views of one assembler and the calls whose entries may lag (internal).

    ``tool_calls`` lists named calls not known invalid (not server-side);
    ``invalid_calls`` invalid ones; ``server_calls`` server-side calls, once named or
    invalid (name ``""`` when the call has none);
    ``chunks`` every call. ``preview_changed`` holds calls whose parser preview may have
    been replaced since the last read; ``lagging_chunks`` / ``lagging_invalid`` calls
    whose chunk / invalid entry's raw text may lag; ``extras_calls`` the calls that have
    a :class:`~callstream.CallExtras` record. A call's flag (``preview_changed``,
    ``chunk_lags``, ``invalid_lags``) is True exactly while it is in that list.
    """

    __slots__ = (
        "chunks",
        "extras_calls",
        "invalid_calls",
        "lagging_chunks",
        "lagging_invalid",
        "preview_changed",
        "server_calls",
        "tool_calls",
    )

    def __init__(self) -> None:
        self.tool_calls: ViewList[ToolCall] = ViewList()
        self.invalid_calls: ViewList[InvalidToolCall] = ViewList()
        self.chunks: ViewList[ToolCallChunk] = ViewList()
        self.server_calls: ViewList[ServerToolCall] = ViewList()
        self.preview_changed: list[Call] = []
        self.lagging_chunks: list[Call] = []
        self.lagging_invalid: list[Call] = []
        self.extras_calls: list[Call] = []  # calls with an extras record, in order of its
        # first merge

    def extras_by_id(self) -> dict[str, dict[str, Any]]:
        """The extras record of every call that has one and an id, by id (a new dict; a
        later call wins an id two calls share). Cost: O(calls with extras)."""
        return {
            call.id: call.extras
            for call in self.extras_calls
            if call.id is not None and call.extras is not None
        }

    def add_call(self, call: Call) -> None:
        """List a new call in ``chunks`` (its entry without name, id or text yet)."""
        number = call.number
        entry: ToolCallChunk = {
            "name": None,
            "args": None,
            "id": None,
            "index": number,
            "type": "tool_call_chunk",
        }
        call.chunk_view = entry
        self.chunks.add(number, entry)

    def place(self, call: Call) -> None:
        """Enter or leave each view as the call's name, verdict and server flag say.
        Cost: O(1) amortized (see :class:`ViewList`)."""
        verdict = call.verdict
        want = verdict != INVALID and call.name is not None and not call.server
        if want != (call.view is not None):
            if want:
                view = call.view = call.tool_call()
                self.tool_calls.add(call.number, view)
                self.watch_preview(call)
            else:
                call.view = None
                self.tool_calls.remove(call.number)
        want = verdict == INVALID and not call.server
        if want != (call.invalid_view is not None):
            if want:
                invalid = call.invalid_view = call.invalid_tool_call()
                call.invalid_rejoin_at = 2 * call.arguments.chars
                self.invalid_calls.add(call.number, invalid)
            else:
                call.invalid_view = None
                self.invalid_calls.remove(call.number)
        # a server call the provider ran: listed once named, or once invalid without a
        # name (its name was refused or never came), never dropped from every view
        want = call.server and (call.name is not None or verdict == INVALID)
        if want != (call.server_view is not None):
            if want:
                server = call.server_view = call.server_tool_call()
                self.server_calls.add(call.number, server)
                self.watch_preview(call)
            else:
                call.server_view = None
                self.server_calls.remove(call.number)

    def watch_preview(self, call: Call) -> None:
        """Check the call's preview object at the next read (an undecided call with a
        parser whose entries were just made)."""
        if call.verdict == UNDECIDED and call.arguments.parser is not None:
            if not call.preview_changed:
                call.preview_changed = True
                self.preview_changed.append(call)

    @staticmethod
    def write(call: Call, field: Literal["name", "id"], value: str) -> None:
        """Write a new name or id into every entry of the call (views hold the dicts)."""
        view = call.view
        if view is not None:
            view[field] = value
        server = call.server_view
        if server is not None:
            server[field] = value
        invalid = call.invalid_view
        if invalid is not None:
            invalid[field] = value
        chunk = call.chunk_view
        if chunk is not None:
            chunk[field] = value

    def grew(self, call: Call) -> None:
        """The call's raw text changed (or its input closed): its chunk (and invalid)
        entry may lag."""
        if not call.chunk_lags:
            call.chunk_lags = True
            self.lagging_chunks.append(call)
        if call.invalid_view is not None and not call.invalid_lags:
            call.invalid_lags = True
            self.lagging_invalid.append(call)

    def parsed(self, call: Call) -> None:
        """An undecided call's parser took a fragment: :meth:`grew` and
        :meth:`watch_preview` in one call (once per fragment)."""
        # their bodies folded for this case (with Pipeline.feed's guard: -3 % pure, 200 B)
        if not call.chunk_lags:
            call.chunk_lags = True
            self.lagging_chunks.append(call)
        if not call.preview_changed:
            call.preview_changed = True
            self.preview_changed.append(call)

    def refresh_previews(self) -> None:
        """Point entries at the parser's preview object where it was replaced."""
        changed = self.preview_changed
        for call in changed:
            call.preview_changed = False
            parser = call.arguments.parser
            if call.verdict != UNDECIDED or parser is None:
                continue
            view = call.view
            server = call.server_view
            if view is None and server is None:
                continue  # no entry yet: placed (and watched again) when it gets one
            value = parser.value
            if value is call.view_args:
                continue
            call.view_args = value
            if type(value) is dict:
                if view is not None:
                    view["args"] = value
                if server is not None:
                    server["args"] = value
        changed.clear()

    def refresh_invalid(self) -> None:
        """Re-join the raw text of invalid entries that doubled (or whose input closed)."""
        lagging = self.lagging_invalid
        for call in lagging:
            call.invalid_lags = False
            call.invalid_rejoin_at = _rejoin(call, call.invalid_view, call.invalid_rejoin_at)
        lagging.clear()

    def refresh_chunks(self) -> None:
        """Re-join the raw text of chunk entries that doubled (or whose input closed)."""
        lagging = self.lagging_chunks
        for call in lagging:
            call.chunk_lags = False
            call.chunk_rejoin_at = _rejoin(call, call.chunk_view, call.chunk_rejoin_at)
        lagging.clear()


def _rejoin(call: Call, entry: InvalidToolCall | ToolCallChunk | None, rejoin_at: int) -> int:
    """Write the call's whole raw text into ``entry`` when it doubled since the last
    re-join (or the input closed, or it is short); return the next threshold. Re-joining
    on doubling keeps the total cost of these reads O(text)."""
    chars = call.arguments.chars
    if entry is not None and (call.input_closed or chars >= rejoin_at or chars <= EXACT_CHARS):
        entry["args"] = call.arguments.raw_or_none()
        return 2 * chars
    return rejoin_at
