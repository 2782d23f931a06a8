"""The parser's scan loop: the state machine run over each new fragment.

:class:`Scanner` is one method, ``_scan``, deliberately long: it is the hot loop, turning
once per token (runs of string characters and whitespace are taken by a regex each), and
every helper it would be split into would cost a Python call per token. What a value does
when it begins, grows or ends is in :mod:`~callstream._json.values`.
"""

from __future__ import annotations

import sys

from callstream._errors import IncompleteJSONError, MalformedJSONError
from callstream._json.changes import Change
from callstream._json.grammar import (
    AFTER,
    ARRAY_FIRST,
    COLON,
    DONE,
    EXPECTED,
    KEY,
    N_START,
    NUMBER,
    NUMBER_PENDING,
    OBJECT_FIRST,
    STRING,
    VALUE,
    count_digits,
    digits_error,
    number_prefix,
    number_value,
    ws_match,
)
from callstream._json.pieces import add_piece
from callstream._json.values import ValueReader
from callstream._types import mypyc_attr

__all__ = ("Scanner",)


@mypyc_attr(allow_interpreted_subclasses=True)  # for PartialJSONParser: docs/design.md
class Scanner(ValueReader):
    """The scan loop of the parser (internal)."""

    __slots__ = ()

    def _scan(  # noqa: PLR0912, PLR0915 -- the hot loop, long on purpose: one call per token less
        self, text: str, base: int, changes: list[Change], final: bool = False
    ) -> None:
        """Run the state machine over ``text`` (``base`` = its offset in the whole text)."""
        n = len(text)
        i = 0
        state = self._state
        frames = self._frames
        str_run = self._str_run
        try:
            if state == NUMBER_PENDING:  # only ever at the start: it ends a fragment
                i, state = self._number_more(text, 0, base, changes)
            while i < n:
                if state == STRING:
                    j = str_run(text, i).end()
                    if j > i:
                        self._str_loose = add_piece(self._str_new, text[i:j], self._str_loose)
                        i = j
                        if i == n:
                            break
                    c = text[i]
                    if c == '"':
                        i += 1
                        state = self._end_string(changes)
                        continue
                    if c == "\\":
                        k = self._escape(text, i, base)
                        if k < 0:  # incomplete escape: carry it
                            self._carry = text[i:]
                            i = n
                            break
                        i = k
                        continue
                    raise MalformedJSONError(f"invalid control character {c!r} in string", base + i)

                c = text[i]
                if c in " \t\n\r":
                    i = ws_match(text, i).end()
                    if i == n:
                        break
                    c = text[i]

                if state == AFTER:
                    top = frames[-1]
                    if c == ",":
                        state = KEY if top.is_obj else VALUE
                        i += 1
                    elif c == ("}" if top.is_obj else "]"):
                        state = self._close_container(changes)
                        i += 1
                    else:
                        closer = "'}'" if top.is_obj else "']'"
                        raise MalformedJSONError(f"expected ',' or {closer}", base + i)
                    continue

                if state == KEY or state == OBJECT_FIRST:
                    if c == '"':
                        self._str_is_key = True
                        state = STRING
                        i += 1
                    elif c == "}" and state == OBJECT_FIRST:
                        state = self._close_container(changes)
                        i += 1
                    else:
                        raise MalformedJSONError(EXPECTED[state], base + i)
                    continue

                if state == COLON:
                    if c != ":":
                        raise MalformedJSONError(EXPECTED[state], base + i)
                    state = VALUE
                    i += 1
                    continue

                if state == DONE:
                    raise MalformedJSONError("unexpected data after the JSON value", base + i)

                # VALUE, ARRAY_FIRST, NUMBER_PENDING, LITERAL_PENDING: a value begins.
                if c == '"':
                    self._start_string(changes)
                    state = STRING
                    i += 1
                elif c == "{" or c == "[":
                    state = self._open_container(c == "{", changes, base + i)
                    i += 1
                elif c == "-" or "0" <= c <= "9":
                    if self._allow_nan and text.startswith("-I", i):
                        i, state = self._literal(text, i, base, changes, final)
                        continue
                    j = number_prefix(text, i).end()
                    if j == n and not final:
                        # The number may go on in the next fragment: keep it, not rescan it.
                        self._started = True
                        self._num_parts = []
                        self._num_state = N_START
                        self._num_digits = 0
                        self._num_start = base + i
                        i, state = self._number_more(text, i, base, changes)
                        continue
                    full = NUMBER.fullmatch(text, i, j)
                    if full is None:
                        if j == n:  # only when final: the text ended inside the number
                            raise IncompleteJSONError("incomplete number", base + j)
                        raise MalformedJSONError("invalid number", base + j)
                    if j < n and text[j] in "0123456789.eE+-":
                        raise MalformedJSONError("invalid number", base + j)
                    if j - i > self._max_digits > 0:
                        self._check_digits(count_digits(text, i, j), base + i)
                    try:
                        value = number_value(full)
                    except ValueError:
                        raise digits_error(sys.get_int_max_str_digits(), base + i) from None
                    self._set_scalar(value, changes)
                    state = self._complete_value()
                    i = j
                elif c in "tfn" or (self._allow_nan and c in "NI"):
                    i, state = self._literal(text, i, base, changes, final)
                elif c == "]" and state == ARRAY_FIRST:
                    state = self._close_container(changes)
                    i += 1
                else:
                    reason = EXPECTED.get(state, "expected a value")
                    if c == "]" or c == "}":
                        reason = f"unexpected {c!r}: " + reason
                    raise MalformedJSONError(reason, base + i)
        finally:
            self._state = state
            if state == STRING and not self._str_is_key:
                self._flush_string(changes)
