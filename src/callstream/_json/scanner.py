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
    _AFTER,
    _ARRAY_FIRST,
    _COLON,
    _DONE,
    _EXPECTED,
    _KEY,
    _N_START,
    _NUMBER,
    _NUMBER_PENDING,
    _OBJECT_FIRST,
    _STRING,
    _VALUE,
    _count_digits,
    _digits_error,
    _number_prefix,
    _number_value,
    _ws_match,
)
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
            if state == _NUMBER_PENDING:  # only ever at the start: it ends a fragment
                i, state = self._number_more(text, 0, base, changes)
            while i < n:
                if state == _STRING:
                    j = str_run(text, i).end()
                    if j > i:
                        self._str_parts.append(text[i:j])
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
                    i = _ws_match(text, i).end()
                    if i == n:
                        break
                    c = text[i]

                if state == _AFTER:
                    top = frames[-1]
                    if c == ",":
                        state = _KEY if top.is_obj else _VALUE
                        i += 1
                    elif c == ("}" if top.is_obj else "]"):
                        state = self._close_container(changes)
                        i += 1
                    else:
                        closer = "'}'" if top.is_obj else "']'"
                        raise MalformedJSONError(f"expected ',' or {closer}", base + i)
                    continue

                if state == _KEY or state == _OBJECT_FIRST:
                    if c == '"':
                        self._str_parts = []
                        self._str_is_key = True
                        state = _STRING
                        i += 1
                    elif c == "}" and state == _OBJECT_FIRST:
                        state = self._close_container(changes)
                        i += 1
                    else:
                        raise MalformedJSONError(_EXPECTED[state], base + i)
                    continue

                if state == _COLON:
                    if c != ":":
                        raise MalformedJSONError(_EXPECTED[state], base + i)
                    state = _VALUE
                    i += 1
                    continue

                if state == _DONE:
                    raise MalformedJSONError("unexpected data after the JSON value", base + i)

                # _VALUE, _ARRAY_FIRST, _NUMBER_PENDING, _LITERAL_PENDING: a value begins.
                if c == '"':
                    self._start_string(changes)
                    state = _STRING
                    i += 1
                elif c == "{" or c == "[":
                    state = self._open_container(c == "{", changes, base + i)
                    i += 1
                elif c == "-" or "0" <= c <= "9":
                    if self._allow_nan and text.startswith("-I", i):
                        i, state = self._literal(text, i, base, changes, final)
                        continue
                    j = _number_prefix(text, i).end()
                    if j == n and not final:
                        # The number may go on in the next fragment: keep it, not rescan it.
                        self._started = True
                        self._num_parts = []
                        self._num_state = _N_START
                        self._num_digits = 0
                        self._num_start = base + i
                        i, state = self._number_more(text, i, base, changes)
                        continue
                    full = _NUMBER.fullmatch(text, i, j)
                    if full is None:
                        if j == n:  # only when final: the text ended inside the number
                            raise IncompleteJSONError("incomplete number", base + j)
                        raise MalformedJSONError("invalid number", base + j)
                    if j < n and text[j] in "0123456789.eE+-":
                        raise MalformedJSONError("invalid number", base + j)
                    if j - i > self._max_digits > 0:
                        self._check_digits(_count_digits(text, i, j), base + i)
                    try:
                        value = _number_value(full)
                    except ValueError:
                        raise _digits_error(sys.get_int_max_str_digits(), base + i) from None
                    self._set_scalar(value, changes)
                    state = self._complete_value()
                    i = j
                elif c in "tfn" or (self._allow_nan and c in "NI"):
                    i, state = self._literal(text, i, base, changes, final)
                elif c == "]" and state == _ARRAY_FIRST:
                    state = self._close_container(changes)
                    i += 1
                else:
                    reason = _EXPECTED.get(state, "expected a value")
                    if c == "]" or c == "}":
                        reason = f"unexpected {c!r}: " + reason
                    raise MalformedJSONError(reason, base + i)
        finally:
            self._state = state
            if state == _STRING and not self._str_is_key:
                self._flush_string(changes)
