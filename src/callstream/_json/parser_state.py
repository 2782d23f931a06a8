"""The parser's state: its slots, the stack of open containers, and where a value goes.

:class:`ParserState` holds every attribute of :class:`~callstream.PartialJSONParser` (one
``__slots__`` for the whole class chain) and the O(1) bookkeeping that every kind of value
shares: where the value starting now is placed in the preview tree, its path, and what
comes after a completed value. :class:`Frame` is one open container of the stack.
"""

from __future__ import annotations

import sys
from typing import Any, Final, cast

from callstream._errors import PartialJSONError
from callstream._json.changes import EAGER_DEPTH, PathNode
from callstream._json.grammar import (
    AFTER,
    DONE,
    N_START,
    STRING_RUN_LAX,
    STRING_RUN_STRICT,
    VALUE,
    Run,
)
from callstream._types import MISSING, JSONPath, mypyc_attr

__all__ = ("Frame", "ParserState", "place")


class Frame:
    """One open container of the stack (internal; mutable: ``slot`` moves on).

    A slotted class, not a list indexed by constants: a field read is one slot load, and
    it names its fields. It holds only what cannot be derived (one frame per open level
    is the parser's memory per level of nesting): where the container goes in its parent
    is the frame below's ``container`` and ``slot`` (the parent's slot moves on only once
    this value is complete), and whether it is already shown is the parser's ``allow``.
    """

    __slots__ = ("container", "is_obj", "path", "slot")

    def __init__(
        self, container: dict[str, Any] | list[Any], path: JSONPath | PathNode, is_obj: bool
    ) -> None:
        self.container = container  # the dict or list being filled
        self.path = path  # its path: a tuple, or a PathNode when deep
        self.is_obj = is_obj
        # the current key (object; None before the first) or the next index (array)
        self.slot: Any = None if is_obj else 0


_ROOT: Final = None  # "parent" of the top-level value


@mypyc_attr(allow_interpreted_subclasses=True)  # for PartialJSONParser: docs/design.md
class ParserState:
    """Every attribute of the parser, and the bookkeeping shared by all values (internal).

    The subclasses (:class:`~callstream._json.values.ValueReader`, the scanner, the public
    :class:`~callstream.PartialJSONParser`) add methods only (``__slots__ = ()``).
    """

    __slots__ = (
        "_allow",
        "_allow_nan",
        "_carry",
        "_chars",
        "_error",
        "_frames",
        "_max_chars",
        "_max_depth",
        "_max_digits",
        "_num_digits",
        "_num_parts",
        "_num_start",
        "_num_state",
        "_preview",
        "_preview_fresh",
        "_root",
        "_root_placed",
        "_state",
        "_str_container",
        "_str_is_key",
        "_str_kept",
        "_str_loose",
        "_str_new",
        "_str_parts",
        "_str_path",
        "_str_placed",
        "_str_run",
        "_str_slot",
        "_closed",
        "_verdict",
        "_strict",
        "_started",
    )

    def __init__(
        self, allow: int, strict: bool, allow_nan: bool, max_depth: int, max_chars: int | None
    ) -> None:
        """The state of a parser that has read nothing yet (options already checked)."""
        self._allow = int(allow)
        self._strict = strict
        self._allow_nan = allow_nan
        self._max_depth = max_depth
        self._max_chars = max_chars
        self._max_digits = sys.get_int_max_str_digits()
        self._str_run = cast(Run, (STRING_RUN_STRICT if strict else STRING_RUN_LAX).match)
        self._state = VALUE
        self._carry = ""
        self._chars = 0
        self._frames: list[Frame] = []
        self._root: Any = MISSING
        self._root_placed = False
        self._started = False
        self._error: PartialJSONError | None = None
        self._closed = False
        self._verdict: Any = MISSING
        self._preview: Any = MISSING
        self._preview_fresh = True
        # The open string (value or key): its text, and where it is shown. Kept in blocks
        # (_json/pieces.py): ``_str_parts`` the text reported in changes (``_str_kept``
        # of its pieces loose), ``_str_new`` the pieces this fragment added (a key's
        # pieces: keys are not reported; ``_str_loose`` of them loose), empty between
        # fragments of a value string and outside strings.
        self._str_parts: list[str] = []
        self._str_kept = 0
        self._str_new: list[str] = []
        self._str_loose = 0
        self._str_is_key = False
        self._str_path: JSONPath | PathNode = ()
        self._str_container: Any = _ROOT
        self._str_slot: Any = None
        self._str_placed = False
        # The number that may still go on: its text so far, grammar state, digits, start.
        self._num_parts: list[str] = []
        self._num_state = N_START
        self._num_digits = 0
        self._num_start = 0

    def _value_site(self) -> tuple[Any, Any]:
        """Where the value starting now goes: (container, slot) — the root when empty."""
        frames = self._frames
        if not frames:
            return _ROOT, None
        top = frames[-1]
        return top.container, top.slot

    def _value_path(self) -> JSONPath | PathNode:
        """The path of the value starting now: a tuple, or a shared node when deep. O(1)."""
        frames = self._frames
        if not frames:
            return ()
        top = frames[-1]
        if len(frames) <= EAGER_DEPTH:
            return (*top.path, top.slot)  # type: ignore[misc]  # this shallow: a tuple
        return PathNode(top.path, top.slot)

    def _complete_value(self) -> int:
        """Bookkeeping after a value completed; returns the next state."""
        frames = self._frames
        if not frames:
            return DONE
        top = frames[-1]
        if not top.is_obj:
            top.slot += 1
        return AFTER


def place(parser: ParserState, container: Any, slot: Any, value: Any) -> None:
    """Put ``value`` at ``slot`` of ``container`` (the root when ``container`` is None)."""
    if container is None:
        parser._root = value
        parser._root_placed = True
    elif type(container) is list:
        if slot < len(container):
            container[slot] = value
        else:
            container.append(value)
    else:
        container[slot] = value
