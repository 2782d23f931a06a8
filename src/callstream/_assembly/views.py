"""Append-only view lists: one entry per listed call, in order of call number.

The assembler's views (``tool_calls``, ``invalid_tool_calls``, ``server_tool_calls``,
``tool_call_chunks``) are read after every payload, so they must not be rebuilt per read.
A :class:`ViewList` keeps the list it last handed out and changes it as calls come and go:

- a call entering the view after every listed call (the common case: a new call) is
  appended to that same list, in place: O(1) amortized;
- any other change (a call leaving the view because it turned invalid or server-side, or
  entering out of order) builds a new list when the current one was handed out (a C-speed
  slice, O(listed calls)), so a list a caller holds never loses, reorders or replaces an
  entry; when it was not handed out since its last change, it is edited in place.

Entries themselves are the calls' own dicts, which the assembler updates in place until
the call is final.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Generic, TypeVar

__all__ = ("ViewList",)

T = TypeVar("T")


class ViewList(Generic[T]):
    """The entries of one view and the call numbers they belong to (internal)."""

    __slots__ = ("items", "numbers", "out")

    def __init__(self) -> None:
        self.items: list[T] = []  # what is handed out
        self.numbers: list[int] = []  # call number of each entry, ascending
        self.out = False  # ``items`` was handed out since it was last rebuilt

    def read(self) -> list[T]:
        """The list to hand out. Cost: O(1)."""
        self.out = True
        return self.items

    def add(self, number: int, entry: T) -> None:
        """List ``entry`` for call ``number``. Cost: O(1) amortized when ``number`` is the
        highest so far, else O(listed calls)."""
        numbers = self.numbers
        if not numbers or numbers[-1] < number:
            numbers.append(number)
            self.items.append(entry)
            return
        at = bisect_left(numbers, number)
        numbers.insert(at, number)
        if self.out:
            items = self.items
            self.items = [*items[:at], entry, *items[at:]]
            self.out = False
        else:
            self.items.insert(at, entry)

    def remove(self, number: int) -> None:
        """Unlist call ``number`` (if listed). Cost: O(listed calls), at C speed."""
        numbers = self.numbers
        at = bisect_left(numbers, number)
        if at == len(numbers) or numbers[at] != number:
            return
        del numbers[at]
        if self.out:
            items = self.items
            self.items = items[:at] + items[at + 1 :]
            self.out = False
        else:
            del self.items[at]
