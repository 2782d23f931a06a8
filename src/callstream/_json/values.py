"""The parser's handling of each kind of value: strings and escapes, containers, numbers
and literals.

:class:`ValueReader` adds to the parser's state the methods the scan loop calls when a
value begins, grows or ends: a string's parts and its escapes (a surrogate pair combined
as ``json.loads`` does), a container's frame, a number continued across fragments by its
grammar state (each digit scanned once), a literal carried while incomplete. Each reports
what it did as changes.
"""

from __future__ import annotations

import sys
from typing import Any

from callstream._errors import IncompleteJSONError, JSONLimitError, MalformedJSONError
from callstream._json.changes import (
    Change,
    ScalarSet,
    StringExtended,
    ValueClosed,
    ValueStarted,
)
from callstream._json.grammar import (
    ARR,
    ARRAY_FIRST,
    COLON,
    LITERAL_PENDING,
    LITERALS,
    N_COMPLETE,
    N_INT,
    N_MINUS,
    N_RUNS,
    N_ZERO,
    NUMBER_MOVES,
    NUMBER_PENDING,
    OBJ,
    OBJECT_FIRST,
    SIMPLE_ESCAPES,
    STR,
    digit_run,
    digits_error,
    hex4,
)
from callstream._json.parser_state import Frame, ParserState, place
from callstream._json.pieces import add_piece
from callstream._types import mypyc_attr

__all__ = ("ValueReader",)


@mypyc_attr(allow_interpreted_subclasses=True)  # for PartialJSONParser: docs/design.md
class ValueReader(ParserState):
    """Strings, escapes, containers, numbers and literals of the parser (internal)."""

    __slots__ = ()

    # --- strings ------------------------------------------------------------------------

    def _start_string(self, changes: list[Change]) -> None:
        path = self._value_path()
        container, slot = self._value_site()
        self._started = True
        self._str_parts = []
        self._str_kept = 0
        self._str_is_key = False
        self._str_path = path
        self._str_container = container
        self._str_slot = slot
        changes.append(ValueStarted(path, "string"))
        if self._allow & STR:
            self._str_placed = True
            place(self, container, slot, "")
        else:
            self._str_placed = False

    def _flush_string(self, changes: list[Change]) -> None:
        """Report the text the open value string gained since the last report."""
        new = self._str_new
        if new:
            added = new[0] if len(new) == 1 else "".join(new)
            new.clear()
            self._str_loose = 0
            self._str_kept = add_piece(self._str_parts, added, self._str_kept)
            if added:
                changes.append(StringExtended(self._str_path, added))

    def _end_string(self, changes: list[Change]) -> int:
        if self._str_is_key:
            new = self._str_new
            key = new[0] if len(new) == 1 else "".join(new)
            new.clear()
            self._str_loose = 0
            self._frames[-1].slot = key
            return COLON
        self._flush_string(changes)
        parts = self._str_parts
        value = parts[0] if len(parts) == 1 else "".join(parts)
        self._str_parts = []
        place(self, self._str_container, self._str_slot, value)
        changes.append(ValueClosed(self._str_path))
        return self._complete_value()

    def _escape(self, text: str, i: int, base: int) -> int:
        """Decode the escape at ``text[i]`` (a backslash) into the open string.

        Returns the index after it, or -1 when the text ends before the escape is
        complete (including a high surrogate whose low half may still follow).
        """
        n = len(text)
        if i + 1 >= n:
            return -1
        c = text[i + 1]
        simple = SIMPLE_ESCAPES.get(c)
        if simple is not None:
            self._str_loose = add_piece(self._str_new, simple, self._str_loose)
            return i + 2
        if c != "u":
            raise MalformedJSONError(f"invalid escape '\\{c}'", base + i + 1)
        code = hex4(text, i + 2, base)
        end = i + 6
        if 0xD800 <= code <= 0xDBFF:
            # A high surrogate: combine with a following \uDC00-\uDFFF, as json.loads does.
            low = _low_half(text, end, base)
            if low > 0:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                end += 6
            elif low < 0:
                return -1
        if code < 0:
            return -1
        self._str_loose = add_piece(self._str_new, chr(code), self._str_loose)
        return end

    # --- containers ---------------------------------------------------------------------

    def _open_container(self, is_obj: bool, changes: list[Change], position: int) -> int:
        frames = self._frames
        if len(frames) >= self._max_depth:
            raise JSONLimitError(f"nesting deeper than max_depth ({self._max_depth})", position)
        path = self._value_path()
        container, slot = self._value_site()
        self._started = True
        new: dict[str, Any] | list[Any] = {} if is_obj else []
        if self._allow & (OBJ if is_obj else ARR):  # shown while partial
            place(self, container, slot, new)
        frames.append(Frame(new, path, is_obj))
        changes.append(ValueStarted(path, "object" if is_obj else "array"))
        return OBJECT_FIRST if is_obj else ARRAY_FIRST

    def _close_container(self, changes: list[Change]) -> int:
        frame = self._frames.pop()
        if not self._allow & (OBJ if frame.is_obj else ARR):  # not shown yet: now it is
            container, slot = self._value_site()  # its parent's, unmoved while it was open
            place(self, container, slot, frame.container)
        changes.append(ValueClosed(frame.path))
        return self._complete_value()

    # --- numbers and literals -----------------------------------------------------------

    def _number_more(self, text: str, i: int, base: int, changes: list[Change]) -> tuple[int, int]:
        """Continue the number in progress with ``text[i:]``; return (index, next state).

        Runs the number grammar from ``_num_state``: digit runs by one regex call each,
        other characters by a table, so each character is looked at once. When the text
        ends inside the number, its part is kept (``NUMBER_PENDING``); when a character
        that cannot continue it arrives, the number is complete (or malformed) here.
        """
        n = len(text)
        state = self._num_state
        start = i
        digits = 0
        moves = NUMBER_MOVES
        if state == N_MINUS and self._allow_nan and i < n and text[i] == "I":
            # "-" then "I...": -Infinity, a literal (bounded: carried as a literal if cut).
            self._num_parts = []
            k, next_state = self._literal("-" + text[i:], 0, base + i - 1, changes, False)
            return i + k - 1, next_state
        while i < n:
            if state in N_RUNS:
                j = digit_run(text, i).end()
                if j > i:
                    digits += j - i
                    i = j
                    continue
            new = moves[state].get(text[i])
            if new is None:
                break
            if new in N_COMPLETE:  # a move into a digit state is on a digit
                digits += 1
            state = new
            i += 1
        if i > start:
            self._num_parts.append(text[start:i])
        self._num_state = state
        if digits:
            self._num_digits += digits
            if self._num_digits > self._max_digits > 0:
                self._check_digits(self._num_digits, self._num_start)
        if i == n:
            return n, NUMBER_PENDING
        if state not in N_COMPLETE or text[i] in "0123456789.eE+-":
            raise MalformedJSONError("invalid number", base + i)
        self._set_scalar(self._number_final(base + i), changes)
        return i, self._complete_value()

    def _number_text(self) -> str:
        """The text of the number in progress (its parts joined into one, kept so)."""
        parts = self._num_parts
        if len(parts) == 1:
            return parts[0]
        text = "".join(parts)
        parts[:] = [text]
        return text

    def _number_final(self, position: int) -> Any:
        """The value of the number in progress, which ends at ``position``.

        Raises:
            IncompleteJSONError: the number cannot end here (``-``, ``1.``, ``1e``).
            JSONLimitError: more digits than ``int()`` accepts.
        """
        if self._num_state not in N_COMPLETE:
            raise IncompleteJSONError("incomplete number", position)
        text = self._number_text()
        try:
            if self._num_state == N_INT or self._num_state == N_ZERO:
                return int(text)
            return float(text)
        except ValueError:
            raise digits_error(sys.get_int_max_str_digits(), self._num_start) from None

    def _check_digits(self, digits: int, position: int) -> None:
        if digits > self._max_digits > 0:
            raise digits_error(self._max_digits, position)

    def _set_scalar(self, value: Any, changes: list[Change]) -> None:
        self._started = True
        container, slot = self._value_site()
        place(self, container, slot, value)
        changes.append(ScalarSet(self._value_path(), value))

    def _literal(
        self, text: str, i: int, base: int, changes: list[Change], final: bool
    ) -> tuple[int, int]:
        word, value, _bit = LITERALS[text[i]]
        n = len(text)
        end = min(n, i + len(word))
        for k in range(i, end):
            if text[k] != word[k - i]:
                raise MalformedJSONError(f"invalid literal (expected {word!r})", base + k)
        if end - i < len(word):
            self._started = True
            if final:
                raise IncompleteJSONError("incomplete literal", base + n)
            self._carry = text[i:]
            return n, LITERAL_PENDING
        self._set_scalar(value, changes)
        return end, self._complete_value()


def _low_half(text: str, k: int, base: int) -> int:
    """The low surrogate escaped at ``text[k]`` (``\\uDC00``-``\\uDFFF``) after a high one.

    Returns its code; 0 when what follows is not a low surrogate escape (the high one then
    stands alone, as in ``json.loads``); -1 when the text ends before that is known.
    """
    if k + 1 >= len(text):
        return -1 if k >= len(text) or text[k] == "\\" else 0
    if not text.startswith("\\u", k):
        return 0
    low = hex4(text, k + 2, base)
    if 0xDC00 <= low <= 0xDFFF:
        return low
    return -1 if low < 0 else 0
