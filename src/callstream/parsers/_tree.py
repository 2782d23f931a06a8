"""ClosedValueTree: the arguments of one call, rebuilt from parser changes, closed values only.

Theory of operation. The assembler passes on its JSON parser's changes (``ValueStarted``,
``StringExtended``, ``ScalarSet``, ``ValueClosed``, with paths). This tree applies them
and keeps a view that never shows a value that will still change: numbers, literals and
strings appear when they are complete (a string's text is buffered until it closes);
objects and arrays appear when they open and grow in place, holding only complete
values and open containers. So every view is a prefix-consistent picture of the final
arguments, and two fragmentations of the same text give the same view after the same
closed value.

The open containers form a spine (root, then the open child of each open container);
values are placed into the deepest one. :meth:`snapshot` copies that spine (shallow
copies, C speed) and shares the closed values, which are never touched again: a snapshot
is not changed by later changes. Cost: :meth:`apply` is O(number of changes + text
length); :meth:`snapshot` is O(total size of the open containers' own entries).

The pydantic tools parser's partial-object builder (:mod:`callstream.partial._builder`)
reads these containers as its ``raw`` view of the arguments: a container is the same
object from the moment it opens, it holds complete values only, and once it closed it is
complete and never changed again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from callstream._json.changes import Change, ScalarSet, StringExtended, ValueClosed, ValueStarted
from callstream._json.pieces import Text
from callstream._types import MISSING, JSONPath

__all__ = ("ClosedValueTree",)


class ClosedValueTree:
    """The complete values of one JSON text so far, in their open containers."""

    __slots__ = ("_spine", "_string_path", "_string_text", "placed", "root")

    def __init__(self) -> None:
        self.root: Any = MISSING
        self.placed = 0  # values placed so far (closed scalars and strings, containers)
        # (container, key in the parent container) for the root and each open child.
        self._spine: list[tuple[Any, str | int | None]] = []
        self._string_path: JSONPath | None = None
        self._string_text = Text()  # the open string's text (in blocks)

    def apply(self, changes: Iterable[Change]) -> bool:
        """Apply parser changes; return whether a complete value was placed (the view grew
        by a number, literal or string; opening and closing containers do not count).

        Changes that do not fit the current state (a path outside the open spine, which a
        well-formed change stream never produces) are ignored rather than raised.
        """
        closed = False
        for change in changes:
            if isinstance(change, StringExtended):
                if change.path == self._string_path:
                    self._string_text.add(change.text)
            elif isinstance(change, ScalarSet):
                self._place(change.path, change.value)
                closed = True
            elif isinstance(change, ValueStarted):
                if change.kind == "string":
                    self._remove(change.path)
                    self._string_path = change.path
                    self._string_text = Text()
                else:
                    container: Any = {} if change.kind == "object" else []
                    if self._place(change.path, container):
                        del self._spine[len(change.path) :]
                        key = change.path[-1] if change.path else None
                        self._spine.append((container, key))
            elif isinstance(change, ValueClosed):
                if change.path == self._string_path:
                    self._string_path = None
                    self._place(change.path, self._string_text.value())
                    self._string_text = Text()
                    closed = True
                else:  # a container closing shows nothing new
                    del self._spine[len(change.path) :]
        return closed

    def snapshot(self) -> Any:
        """A copy of the view that later changes will not alter (closed values are shared).

        Returns ``MISSING`` before any value began.
        """
        spine = self._spine
        if not spine:
            return self.root
        copies = [container.copy() for container, _ in spine]
        for depth in range(1, len(spine)):
            key = spine[depth][1]
            parent = copies[depth - 1]
            fits = isinstance(parent, dict) or (isinstance(key, int) and 0 <= key < len(parent))
            if fits:
                parent[key] = copies[depth]
        return copies[0]

    def open_entries(self) -> int:
        """What :meth:`snapshot` copies: the entries of the open containers. O(depth)."""
        return sum(len(container) for container, _ in self._spine)

    def _remove(self, path: JSONPath) -> None:
        """Drop the value a duplicate object key is about to replace."""
        if path and len(path) <= len(self._spine):
            parent = self._spine[len(path) - 1][0]
            if isinstance(parent, dict):
                parent.pop(path[-1], None)

    def _place(self, path: JSONPath, value: Any) -> bool:
        """Put ``value`` at ``path`` in the deepest open container; False if it does not fit."""
        self.placed += 1
        if not path:
            self.root = value
            self._spine.clear()
            return True
        depth = len(path) - 1
        if depth >= len(self._spine):
            return False
        del self._spine[depth + 1 :]
        parent = self._spine[depth][0]
        key = path[-1]
        if isinstance(parent, dict) and isinstance(key, str):
            parent.pop(key, None)  # a duplicate key moves to the end, with its new value
            parent[key] = value
            return True
        if isinstance(parent, list) and key == len(parent):
            parent.append(value)
            return True
        return False
