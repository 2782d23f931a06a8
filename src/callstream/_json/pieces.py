"""Text that arrives in pieces, kept in blocks: the one rule, for every text callstream keeps.

A text kept as one list entry per piece costs a string object (about 50 bytes) and a list
slot per piece: for pieces of a few characters (argument fragments, text deltas, the runs
between the escapes of a JSON string) many times the text itself. Instead, every
:data:`BLOCK` pieces appended are joined into one string (:func:`add_piece`), so a text
costs O(1) objects per ``BLOCK`` pieces beyond its characters, and each character is
copied once into its block, at C speed. The whole text is joined when read
(:func:`joined`), and kept as the one piece left.

Users: the partial-JSON parser's open string (``_json/values.py``) and one call's raw
argument text (``_assembly/arguments.py``) call :func:`add_piece` on lists of their own;
every other text kept in pieces is a :class:`Text` (the stream's text in the pipeline, a
structured output's, the open strings of the previews rebuilt from changes, a raw line
spread over transport chunks, the CLI's view).
"""

from __future__ import annotations

from typing import Final

__all__ = ("BLOCK", "Text", "add_piece", "joined")

BLOCK: Final = 256
"""Consecutive pieces joined into one string."""


def add_piece(pieces: list[str], text: str, loose: int) -> int:
    """Append ``text`` to ``pieces``, the last ``loose`` of which are pieces appended since
    the last join; the ``BLOCK``-th loose piece is joined with those before it into one
    string. Returns the new count of loose pieces. Cost: O(1) amortized."""
    pieces.append(text)
    if loose + 1 < BLOCK:
        return loose + 1
    pieces[-BLOCK:] = ["".join(pieces[-BLOCK:])]
    return 0


def joined(pieces: list[str]) -> str:
    """The pieces joined into one string, kept as the one piece left (so the caller's
    count of loose pieces is then 0). Cost: O(length) when there was more than one."""
    if len(pieces) > 1:
        whole = "".join(pieces)
        pieces.clear()
        pieces.append(whole)
        return whole
    return pieces[0] if pieces else ""


class Text:
    """A text that is only appended to and read whole, kept by :func:`add_piece`.

    Cost: :meth:`add` O(1) amortized (each character copied once into its block);
    :meth:`value` O(length) when pieces were added since the last read, else O(1).
    """

    __slots__ = ("length", "loose", "pieces")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.loose = 0  # pieces appended since the last join
        self.length = 0  # characters appended

    def add(self, text: str) -> None:
        """Append a piece."""
        self.loose = add_piece(self.pieces, text, self.loose)
        self.length += len(text)

    def value(self) -> str:
        """The whole text."""
        self.loose = 0
        return joined(self.pieces)

    def clear(self) -> None:
        """Forget the text."""
        self.pieces.clear()
        self.loose = 0
        self.length = 0
