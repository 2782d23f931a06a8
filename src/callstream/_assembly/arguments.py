"""The argument text of one call: raw fragments within the limits, and its parser.

:class:`ArgumentText` keeps what a call's ``args`` brought: the raw text (as a list of
parts in blocks, :mod:`callstream._json.pieces`, joined lazily), the incremental parser
fed with it, and the text and changes that arrived before the call had a name (released
when it is announced). A :class:`TextBudget` shared by all calls of a stream enforces
``max_argument_chars`` and ``max_chars``. Plain slotted classes with typed attributes (a
shape a compiler can take as it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from callstream._json.changes import Change, StringExtended
from callstream._json.parser import PartialJSONParser
from callstream._json.pieces import Text, add_piece, joined

__all__ = ("NO_LIMIT", "ArgumentText", "TextBudget")

NO_LIMIT: Final = 1 << 62
"""Stands for a limit given as None (no limit): larger than any text in memory."""


class TextBudget:
    """The argument-text limits of one stream and the characters kept so far (internal).

    Invariant: ``used`` is the sum of ``chars`` over the stream's :class:`ArgumentText`
    objects, and never exceeds ``total``.
    """

    __slots__ = ("max_argument_chars", "max_chars", "per_call", "total", "used")

    def __init__(self, max_argument_chars: int | None, max_chars: int | None) -> None:
        self.max_argument_chars = max_argument_chars  # as given, for messages
        self.max_chars = max_chars
        self.per_call: int = NO_LIMIT if max_argument_chars is None else max_argument_chars
        self.total: int = NO_LIMIT if max_chars is None else max_chars
        self.used = 0  # argument characters kept, all calls together

    def call_error(self) -> str:
        """The error of a call whose text went past ``max_argument_chars``."""
        return (
            f"arguments longer than max_argument_chars={self.max_argument_chars} "
            "(raw text kept up to the limit)"
        )

    def stream_error(self) -> str:
        """The error of a call whose text went past the stream's ``max_chars``."""
        return (
            f"arguments exceed the stream's limit max_chars={self.max_chars} "
            "(all calls together; raw text kept up to the limit)"
        )


class ArgumentText:
    """The argument text of one call and the parser fed with it (internal).

    Invariants: ``"".join(parts)`` is the raw text kept (at most the budget's
    ``per_call`` characters) and ``chars`` its length; once ``dropped`` (a limit was hit)
    nothing more is kept; ``parser`` has been fed exactly the kept text, unless the call
    stopped parsing (turned invalid: the raw text may still grow); ``buffered_text`` /
    ``buffered_changes`` hold what was parsed before the call was announced.
    """

    __slots__ = (
        "budget",
        "buffered_changes",
        "buffered_string",
        "buffered_text",
        "chars",
        "dropped",
        "limit_error",
        "loose",
        "parser",
        "parser_options",
        "parts",
        "seen",
        "whole",
    )

    def __init__(self, budget: TextBudget, parser_options: dict[str, Any]) -> None:
        self.budget = budget
        self.parser_options = parser_options  # PartialJSONParser keywords (checked once)
        self.parts: list[str] = []
        self.loose = 0  # fragments appended to ``parts`` since they were last joined
        self.chars = 0
        self.seen = False  # non-empty argument text (or an object) has arrived
        self.whole = False  # the arguments came as a complete object
        self.dropped = False  # text is no longer kept (a limit was hit)
        self.limit_error: str | None = None  # which limit, once ``dropped``
        self.parser: PartialJSONParser | None = None
        self.buffered_text: Text | None = None
        self.buffered_changes: list[Change] | None = None
        # the text of the last held change while it is a StringExtended that later
        # ones extend (merged into it when something else is held, or taken)
        self.buffered_string: Text | None = None

    # --- raw text -------------------------------------------------------------------

    def keep(self, text: str) -> bool:
        """Append raw text within the limits (no parsing).

        Returns False when a limit was hit: the text is kept up to it, ``dropped`` and
        ``limit_error`` are set. Cost: O(1) amortized (fragments are kept in blocks:
        :func:`~callstream._json.pieces.add_piece`).
        """
        budget = self.budget
        size = len(text)
        room_call = budget.per_call - self.chars
        room_total = budget.total - budget.used
        if size > room_call or size > room_total:
            room = min(room_call, room_total)
            if room > 0:
                self.parts.append(text[:room])
                self.chars += room
                budget.used += room
            self.dropped = True
            self.limit_error = (
                budget.call_error() if room_call <= room_total else budget.stream_error()
            )
            return False
        budget.used += size
        self.chars += size
        self.loose = add_piece(self.parts, text, self.loose)
        return True

    def add(self, text: str) -> list[Change] | None:
        """Keep a fragment (see :meth:`keep`) and feed it to the parser (made at the
        first fragment). Returns the parser's changes, or None when a limit was hit.

        Cost: O(len(text)) (the parser never rescans).

        Raises:
            PartialJSONError: the parser rejected the fragment (the raw text is kept).
        """
        if not self.keep(text):
            return None
        parser = self.parser
        if parser is None:
            parser = self.parser = PartialJSONParser(**self.parser_options)
        return parser.feed(text)

    def replace(self, text: str) -> list[Change] | None:
        """Replace the text with ``text`` (the provider's authoritative arguments), parsed
        by a new parser; anything buffered is dropped. Returns the parser's changes, or
        None when a limit was hit. Cost: O(len(text)).

        Raises:
            PartialJSONError: the parser rejected the text.
        """
        self.clear()
        self.drop_buffered()
        if not self.keep(text):
            return None
        parser = self.parser = PartialJSONParser(**self.parser_options)
        return parser.feed(text)

    def clear(self) -> None:
        """Forget the text and the parser, and give the characters back to the budget."""
        self.parts.clear()
        self.budget.used -= self.chars
        self.chars = 0
        self.loose = 0
        self.parser = None

    def raw(self) -> str:
        """The raw text so far. Cost: O(length) when new parts arrived, else O(1)."""
        self.loose = 0
        return joined(self.parts)

    def raw_or_none(self) -> str | None:
        """The raw text, or None when none arrived."""
        return self.raw() if self.parts else None

    # --- parsed value ---------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Whether the arguments are already a complete value (a whole object, or text
        the parser has seen end)."""
        parser = self.parser
        return self.whole or (parser is not None and parser.complete)

    def same_as(self, text: str, obj: Mapping[str, Any] | None) -> bool:
        """Whether authoritative arguments (``text``, or the decoded ``obj`` it came
        from) agree with what was streamed. Cost: O(length)."""
        if obj is None:
            return self.raw() == text
        parser = self.parser
        if parser is None or not parser.complete:
            return False
        try:
            return bool(parser.value == dict(obj))
        except Exception:  # exotic values that refuse comparison: take the provider's
            return False

    # --- held until the call is announced ----------------------------------------------

    def buffer(self, text: str, changes: list[Change]) -> None:
        """Hold a parsed fragment until the call has a name.

        The text is kept in blocks, and a run of ``StringExtended`` changes is held as
        one (consecutive ones extend the same string: another string would begin with a
        ``ValueStarted``), so what is held is O(the text), not a change per fragment: the
        changes the parser reports for the held text fed whole.
        """
        held = self.buffered_text
        kept = self.buffered_changes
        if held is None or kept is None:
            held = self.buffered_text = Text()
            kept = self.buffered_changes = []
        held.add(text)
        for change in changes:
            if isinstance(change, StringExtended) and kept and isinstance(kept[-1], StringExtended):
                string = self.buffered_string
                if string is None:
                    string = self.buffered_string = Text()
                    string.add(kept[-1].text)
                string.add(change.text)
            else:
                self._settle_string()
                kept.append(change)

    def _settle_string(self) -> None:
        """Merge the held string's text into its change."""
        string = self.buffered_string
        kept = self.buffered_changes
        if string is not None and kept:
            kept[-1] = StringExtended(kept[-1].path, string.value())
        self.buffered_string = None

    def drop_buffered(self) -> None:
        """Forget what was held (the call got its verdict before it was announced)."""
        self.buffered_text = self.buffered_string = None
        self.buffered_changes = None

    def take_buffered(self) -> tuple[str, tuple[Change, ...]] | None:
        """What was held (text joined, changes in order), or None; nothing is held after."""
        self._settle_string()
        held = self.buffered_text
        changes = self.buffered_changes
        self.buffered_text = self.buffered_changes = None
        if held is None:
            return None
        return held.value(), tuple(changes or ())
