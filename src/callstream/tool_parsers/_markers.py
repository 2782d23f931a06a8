"""Finding markers in text that arrives piece by piece, with hold-back.

A model writes its calls and its reasoning between markers (``<tool_call>``,
``</think>``, ``[TOOL_CALLS]`` ...), and a stream may cut a marker anywhere: a piece may
end with ``<tool_`` and the next start with ``call>``. :class:`MarkerSet` finds, in the
text not yet consumed, the earliest whole marker of a set; what follows the last whole
marker is **held back** when its tail is a proper prefix of some marker of the set (a
``<`` is not yet text: it may start ``<tool_call>``), and released as text as soon as
the next piece shows it is none, or at the end of the text (nothing held back is lost).

The hold-back rule: of the text after the last marker found, the longest tail that is a
proper prefix of a marker is held; all the text before it is free. At most the longest
marker's length minus one characters are ever held, so a reader that keeps only the
held tail between pieces scans each character a bounded number of times: the cost is
linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ("MarkerSet",)


class MarkerSet:
    """A set of markers, searched with hold-back (see the module docstring).

    Markers are matched exactly (case and all). When two markers start at the same
    place the longer wins (``<|im_end|>`` over ``<|im``). Cost: one regex search over
    the text from ``start``, plus O(longest marker) for the held tail.
    """

    __slots__ = ("_longest", "_pattern", "_prefixes", "markers")

    def __init__(self, markers: Iterable[str]) -> None:
        unique = sorted({m for m in markers if m}, key=lambda m: (-len(m), m))
        self.markers: Final[tuple[str, ...]] = tuple(unique)
        self._pattern: Final[re.Pattern[str] | None] = (
            re.compile("|".join(re.escape(m) for m in unique)) if unique else None
        )
        # every proper prefix of a marker: a tail equal to one is held back
        self._prefixes: Final[frozenset[str]] = frozenset(
            m[:k] for m in unique for k in range(1, len(m))
        )
        self._longest: Final[int] = max((len(m) for m in unique), default=0)

    def find(self, text: str, start: int = 0) -> tuple[int, str | None]:
        """The earliest whole marker in ``text[start:]``: ``(its position, the marker)``;
        or, when there is none, ``(end, None)`` where ``text[start:end]`` is free text
        and ``text[end:]`` is the held tail (a proper prefix of a marker, or empty)."""
        pattern = self._pattern
        if pattern is not None:
            match = pattern.search(text, start)
            if match is not None:
                return match.start(), match.group()
        return self.held_from(text, start), None

    def held_from(self, text: str, start: int = 0) -> int:
        """Where the held tail of ``text[start:]`` begins (``len(text)`` if none is)."""
        end = len(text)
        prefixes = self._prefixes
        for size in range(min(self._longest - 1, end - start), 0, -1):
            if text[end - size :] in prefixes:
                return end - size
        return end

    def starts_at(self, text: str, at: int) -> str | None:
        """The marker that starts exactly at ``text[at]``, if any (the longest)."""
        for marker in self.markers:
            if text.startswith(marker, at):
                return marker
        return None

    def could_start_at(self, text: str, at: int) -> bool:
        """Whether ``text[at:]`` (which reaches the end of the text) is a proper prefix
        of a marker: the text there is not yet known to be free."""
        return text[at:] in self._prefixes

    def __bool__(self) -> bool:
        return bool(self.markers)
