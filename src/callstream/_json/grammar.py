"""The JSON grammar as tables: ``Allow`` bits, lexical patterns, scanner and number states.

Pure data and pure helpers shared by the parser's modules (no parser state here): the
precompiled regexes that take runs of characters at a position, the states of the scanner
and of the number grammar (with its move table), the literals, and the small converters
(``\\u`` hex digits, a number's value, the digits-limit error).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Final, cast

from callstream._errors import JSONLimitError, MalformedJSONError

# Bit values of partial-json-parser's ``Allow`` flags (an IntFlag). They are repeated here so
# this layer needs only the standard library; a test checks that they match.
STR: Final = 1
NUM: Final = 2
ARR: Final = 4
OBJ: Final = 8
NULL: Final = 16
BOOL: Final = 32
NAN: Final = 64
INFINITY: Final = 128
NEG_INFINITY: Final = 256

ALLOW_ALL: Final = STR | NUM | ARR | OBJ | NULL | BOOL | NAN | INFINITY | NEG_INFINITY
"""Every flag (``Allow.ALL``): an ``allow`` with any other bit is refused."""

DEFAULT_ALLOW: Final = STR | ARR | OBJ
"""Partial strings and containers are shown; numbers and literals only when complete."""

DEFAULT_MAX_DEPTH: Final = 1000
"""Deepest nesting of arrays and objects accepted by default."""

# --- lexical patterns -------------------------------------------------------------------

_WS: Final = re.compile(r"[ \t\n\r]*")
STRING_RUN_STRICT: Final = re.compile(r'[^"\\\x00-\x1f]*')
STRING_RUN_LAX: Final = re.compile(r'[^"\\]*')
# Longest prefix of the text that can still begin a JSON number.
_NUMBER_PREFIX: Final = re.compile(
    r"-?(?:(?:0|[1-9][0-9]*)(?:(?:\.[0-9]+)?[eE][+-]?[0-9]*|\.[0-9]*)?)?"
)
# These patterns match the empty string too, so ``match`` never returns None.
Run = Callable[[str, int], "re.Match[str]"]
number_prefix: Final = cast(Run, _NUMBER_PREFIX.match)
ws_match: Final = cast(Run, _WS.match)
NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
digit_run: Final = cast(Run, re.compile(r"[0-9]*").match)
_HEX: Final = frozenset("0123456789abcdefABCDEF")
SIMPLE_ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}

# literal word -> (value, Allow bit that lets it show while partial)
LITERALS: Final[dict[str, tuple[str, Any, int]]] = {
    "t": ("true", True, BOOL),
    "f": ("false", False, BOOL),
    "n": ("null", None, NULL),
    "N": ("NaN", math.nan, NAN),
    "I": ("Infinity", math.inf, INFINITY),
    "-": ("-Infinity", -math.inf, NEG_INFINITY),
}

# --- scanner states -----------------------------------------------------------------------

VALUE: Final = 0  # a value is expected (start, after ':' or after ',' in an array)
ARRAY_FIRST: Final = 1  # just after '[': a value or ']'
OBJECT_FIRST: Final = 2  # just after '{': a key or '}'
KEY: Final = 3  # after ',' in an object: a key
COLON: Final = 4  # after a key: ':'
AFTER: Final = 5  # after a value in a container: ',' or the closer
STRING: Final = 6  # inside a string (a value or a key)
NUMBER_PENDING: Final = 7  # a number that may go on is in ``_num_parts`` (state ``_num_state``)
LITERAL_PENDING: Final = 8  # a literal that is not complete yet is in the carry
DONE: Final = 9  # the top-level value is complete: only whitespace may follow

# --- number grammar states (a number that may still go on, kept in ``_num_parts``) ---------

N_START: Final = 0  # nothing yet
N_MINUS: Final = 1  # "-"
N_ZERO: Final = 2  # "0" or "-0": only '.', 'e' or the end may follow
N_INT: Final = 3  # integer digits "12"  (a digit run)
_N_DOT: Final = 4  # "1."
_N_FRAC: Final = 5  # "1.5"  (a digit run)
_N_EXP: Final = 6  # "1e"
_N_EXP_SIGN: Final = 7  # "1e-"
_N_EXP_DIGITS: Final = 8  # "1e5"  (a digit run)
N_COMPLETE: Final = frozenset((N_ZERO, N_INT, _N_FRAC, _N_EXP_DIGITS))
N_RUNS: Final = frozenset((N_INT, _N_FRAC, _N_EXP_DIGITS))
_DIGIT_CHARS: Final = "0123456789"


def _number_moves() -> tuple[dict[str, int], ...]:
    """For each number state, the state that each possible next character leads to."""
    moves: list[dict[str, int]] = [{} for _ in range(9)]
    moves[N_START] = {"-": N_MINUS, "0": N_ZERO, **dict.fromkeys("123456789", N_INT)}
    moves[N_MINUS] = {"0": N_ZERO, **dict.fromkeys("123456789", N_INT)}
    moves[N_ZERO] = {".": _N_DOT, "e": _N_EXP, "E": _N_EXP}
    moves[N_INT] = {".": _N_DOT, "e": _N_EXP, "E": _N_EXP, **dict.fromkeys(_DIGIT_CHARS, N_INT)}
    moves[_N_DOT] = dict.fromkeys(_DIGIT_CHARS, _N_FRAC)
    moves[_N_FRAC] = {"e": _N_EXP, "E": _N_EXP, **dict.fromkeys(_DIGIT_CHARS, _N_FRAC)}
    moves[_N_EXP] = {
        "+": _N_EXP_SIGN,
        "-": _N_EXP_SIGN,
        **dict.fromkeys(_DIGIT_CHARS, _N_EXP_DIGITS),
    }
    moves[_N_EXP_SIGN] = dict.fromkeys(_DIGIT_CHARS, _N_EXP_DIGITS)
    moves[_N_EXP_DIGITS] = dict.fromkeys(_DIGIT_CHARS, _N_EXP_DIGITS)
    return tuple(moves)


NUMBER_MOVES: Final = _number_moves()

EXPECTED: Final = {
    VALUE: "expected a value",
    ARRAY_FIRST: "expected a value or ']'",
    OBJECT_FIRST: "expected a string key or '}'",
    KEY: "expected a string key",
    COLON: "expected ':' after the key",
}


def hex4(text: str, start: int, base: int) -> int:
    """Value of the 4 hex digits at ``start``; -1 if the text ends first; raises if not hex."""
    end = min(len(text), start + 4)
    for k in range(start, end):
        if text[k] not in _HEX:
            raise MalformedJSONError("invalid \\u escape (expected 4 hex digits)", base + k)
    if end - start < 4:
        return -1
    return int(text[start : start + 4], 16)


def count_digits(text: str, start: int, end: int) -> int:
    """Number of decimal digits in ``text[start:end]`` (a JSON number). O(end - start)."""
    signs = sum(text.count(c, start, end) for c in "-+.eE")
    return end - start - signs


def digits_error(limit: int, position: int) -> JSONLimitError:
    return JSONLimitError(
        f"number with more than {limit} digits (the limit of sys.get_int_max_str_digits())",
        position,
    )


def number_value(m: re.Match[str]) -> Any:
    """Convert a matched JSON number exactly as ``json.loads`` does."""
    text = m.group(0)
    if m.group(1) is None and m.group(2) is None:
        return int(text)
    return float(text)
