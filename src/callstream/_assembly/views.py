"""View lists: one entry per listed call, in order of call number, copied on write.

The assembler's views (``tool_calls``, ``invalid_tool_calls``, ``server_tool_calls``,
``tool_call_chunks``) are read after every payload, so they must not be rebuilt per read
(a Python loop over every call). A :class:`ViewList` keeps its list up to date as calls
come and go (a new call is appended, O(1) amortized; a call leaving or entering out of
order is a C-speed insert or delete) and hands that list out. A list handed out is never
modified: the first change after a read copies it first (copy on write, a C-speed
``list.copy``, about a nanosecond per listed call), so a stream pays at most one copy per
payload that changed a view, whatever number of changes the payload made.

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
        self.out = False  # ``items`` was handed out: copy before the next change

    def read(self) -> list[T]:
        """The list to hand out. Cost: O(1)."""
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
