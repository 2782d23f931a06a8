"""Incremental partial-JSON parser: one JSON text, fed in fragments, previewed at any time.

Theory of operation
-------------------
The parser is a push scanner with an explicit stack: ``feed(text)`` runs a state machine
over the new text only, and never looks at consumed input again. Runs of ordinary
characters (string bodies, whitespace) are taken by precompiled regexes anchored at the
current position, so the Python loop turns once per token, not once per character.

Only a bounded tail is carried across a fragment boundary: an escape sequence that is not
complete yet (``\\``, ``\\u00e``, or a high surrogate ``\\ud83d`` waiting to see whether a
low half follows: at most 11 characters), or a literal that is not complete yet (``tr``,
``-Infin``: at most 8). The carry is prepended to the next fragment and scanned again;
nothing else is. A number that may still go on is not carried: its text so far is kept as
a list of parts together with the state of the number grammar it reached (after ``-``, in
the integer digits, after ``.``, ...), and the next fragment continues from that state, so
each digit is scanned once however long the number is. Strings, too, are kept as lists of
parts and joined only when a preview is read.

Paths are shared: a container at depth d keeps its own path as a parent link plus one key
(deeper than :data:`~callstream._json.changes.EAGER_DEPTH`; short paths are plain tuples),
and the changes refer to those links, building their ``path`` tuple only when it is read.
Memory is therefore O(depth) for the open containers, not O(depth²).

The preview is a tree of ordinary Python values built as the scan goes: containers are
created when they open and values are put into them when the ``allow`` flags say they may
be shown (strings and containers at once by default; numbers and literals only when
complete). ``value`` refreshes the one open string (joining its parts) and returns the
root: O(depth + length of the open string) per read, nothing else is copied. Containers
are therefore updated in place by later feeds; they only ever grow, never change what they
already show (except for a duplicate key, which replaces the earlier value as in
``json.loads``).

The strict verdict, ``close()``, is the tree itself once the text is complete: numbers are
converted exactly as ``json.loads`` converts them, strings decoded the same way, and
every grammar rule of RFC 8259 is checked at the first character that breaks it.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from typing import Any, Final, cast

from callstream._errors import (
    IncompleteJSONError,
    JSONLimitError,
    MalformedJSONError,
    OptionTypeError,
    OptionValueError,
    ParserStateError,
    PartialJSONError,
)
from callstream._json.changes import (
    EAGER_DEPTH,
    Change,
    PathNode,
    scalar_set,
    string_extended,
    value_closed,
    value_started,
)
from callstream._types import MISSING, JSONPath

__all__ = ("DEFAULT_ALLOW", "DEFAULT_MAX_DEPTH", "PartialJSONParser", "parse_partial_json")

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

DEFAULT_ALLOW: Final = STR | ARR | OBJ
"""Partial strings and containers are shown; numbers and literals only when complete."""

DEFAULT_MAX_DEPTH: Final = 1000
"""Deepest nesting of arrays and objects accepted by default."""

# --- lexical patterns -------------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_STRING_RUN_STRICT = re.compile(r'[^"\\\x00-\x1f]*')
_STRING_RUN_LAX = re.compile(r'[^"\\]*')
# Longest prefix of the text that can still begin a JSON number.
_NUMBER_PREFIX = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:(?:\.[0-9]+)?[eE][+-]?[0-9]*|\.[0-9]*)?)?")
# These patterns match the empty string too, so ``match`` never returns None.
_Run = Callable[[str, int], "re.Match[str]"]
_number_prefix = cast(_Run, _NUMBER_PREFIX.match)
_ws_match = cast(_Run, _WS.match)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_digit_run = cast(_Run, re.compile(r"[0-9]*").match)
_HEX = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES: Final = {
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
_LITERALS: Final[dict[str, tuple[str, Any, int]]] = {
    "t": ("true", True, BOOL),
    "f": ("false", False, BOOL),
    "n": ("null", None, NULL),
    "N": ("NaN", math.nan, NAN),
    "I": ("Infinity", math.inf, INFINITY),
    "-": ("-Infinity", -math.inf, NEG_INFINITY),
}

# --- scanner states -----------------------------------------------------------------------

_VALUE = 0  # a value is expected (start, after ':' or after ',' in an array)
_ARRAY_FIRST = 1  # just after '[': a value or ']'
_OBJECT_FIRST = 2  # just after '{': a key or '}'
_KEY = 3  # after ',' in an object: a key
_COLON = 4  # after a key: ':'
_AFTER = 5  # after a value in a container: ',' or the closer
_STRING = 6  # inside a string (a value or a key)
_NUMBER_PENDING = 7  # a number that may go on is in ``_num_parts`` (state ``_num_state``)
_LITERAL_PENDING = 8  # a literal that is not complete yet is in the carry
_DONE = 9  # the top-level value is complete: only whitespace may follow

# --- number grammar states (a number that may still go on, kept in ``_num_parts``) ---------

_N_START = 0  # nothing yet
_N_MINUS = 1  # "-"
_N_ZERO = 2  # "0" or "-0": only '.', 'e' or the end may follow
_N_INT = 3  # integer digits "12"  (a digit run)
_N_DOT = 4  # "1."
_N_FRAC = 5  # "1.5"  (a digit run)
_N_EXP = 6  # "1e"
_N_EXP_SIGN = 7  # "1e-"
_N_EXP_DIGITS = 8  # "1e5"  (a digit run)
_N_COMPLETE = frozenset((_N_ZERO, _N_INT, _N_FRAC, _N_EXP_DIGITS))
_N_RUNS = frozenset((_N_INT, _N_FRAC, _N_EXP_DIGITS))
_DIGIT_CHARS = "0123456789"


def _number_moves() -> tuple[dict[str, int], ...]:
    """For each number state, the state that each possible next character leads to."""
    moves: list[dict[str, int]] = [{} for _ in range(9)]
    moves[_N_START] = {"-": _N_MINUS, "0": _N_ZERO, **dict.fromkeys("123456789", _N_INT)}
    moves[_N_MINUS] = {"0": _N_ZERO, **dict.fromkeys("123456789", _N_INT)}
    moves[_N_ZERO] = {".": _N_DOT, "e": _N_EXP, "E": _N_EXP}
    moves[_N_INT] = {".": _N_DOT, "e": _N_EXP, "E": _N_EXP, **dict.fromkeys(_DIGIT_CHARS, _N_INT)}
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


_NUMBER_MOVES: Final = _number_moves()

_EXPECTED = {
    _VALUE: "expected a value",
    _ARRAY_FIRST: "expected a value or ']'",
    _OBJECT_FIRST: "expected a string key or '}'",
    _KEY: "expected a string key",
    _COLON: "expected ':' after the key",
}

# A frame of the container stack: [container, path (a tuple, or a PathNode when deep), is_object,
# key or next index, parent container, slot in the parent, placed in the parent?]
_C, _PATH, _IS_OBJ, _SLOT, _PARENT, _PSLOT, _PLACED = range(7)

_ROOT = None  # "parent" of the top-level value


class PartialJSONParser:
    """Incremental, tolerant parser for one JSON text, with honest previews.

    Feed fragments with :meth:`feed`; read :attr:`value` for the best-effort preview and
    the returned changes for what each fragment did; call :meth:`close` for the strict
    verdict.

    Preview semantics (every one is tested):

    - Each preview is consistent with the final value and extends the previous one:
      strings only grow and are prefixes of the final string; numbers, ``true``,
      ``false`` and ``null`` appear only once complete and final; no key or element
      appears that the final value lacks; nothing shown ever disappears or changes
      (except the earlier value of a duplicate key, replaced as ``json.loads`` does).
    - An incomplete escape (``\\``, ``\\u00e``) and a high surrogate waiting for its low
      half are held back: no preview contains a lone surrogate the final text lacks.
    - Trailing spaces inside an unfinished string are kept.
    - A key becomes visible together with its value; no placeholder (``None``, ``""`` for
      a number) is ever invented. Before any value has begun (including whitespace-only
      input) the preview is :data:`callstream.MISSING`.
    - ``allow`` (partial-json-parser's ``Allow`` flags) says which kinds may be shown
      while still partial. The default, ``STR | ARR | OBJ``, shows growing strings and
      containers. Adding ``NUM``, ``BOOL``, ``NULL``, ... shows unfinished numbers and
      literals too, at the cost of monotonicity (``1`` may then become ``12``). A kind
      left out is shown only once complete. ``allow`` shapes previews only; the changes
      and the verdict do not depend on it.

    Cost model: ``feed`` is O(len(text)) plus O(1) per token, with at most the bounded
    carry (an escape sequence of at most 11 characters or a literal of at most 8) scanned
    twice; a number still going on is continued, not rescanned, however long it is.
    ``value`` is O(depth + length of the open string) and returns a live view: its
    containers are updated in place by later feeds (they only grow); use
    ``copy.deepcopy`` to keep a snapshot, and do not mutate it. No recursion anywhere:
    nesting is limited by ``max_depth``, not by the Python stack.

    Errors: malformed text raises :class:`~callstream.MalformedJSONError` from the
    ``feed`` that contains the first impossible character (``[1 2``, ``{"a" 1``,
    ``trux``, ``]``, data after the value), with ``.position`` counted in the whole text.
    A limit (``max_depth``, ``max_chars``, digits of a number) raises
    :class:`~callstream.JSONLimitError`. After an error, ``feed`` raises
    :class:`~callstream.ParserStateError`. A bad option raises
    :class:`~callstream.OptionValueError` or :class:`~callstream.OptionTypeError` (also a
    ``ValueError`` / ``TypeError``).

    Limits: a number may have at most ``sys.get_int_max_str_digits()`` digits (the limit
    Python puts on ``int()``, 4300 by default, read when the parser is created; 0 means
    none), integers and floats alike, counted as they stream in: past it
    :class:`~callstream.JSONLimitError` names the limit. Memory is O(length of the text
    kept in the preview + depth), never O(depth²): paths are shared (see the changes).
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
        "_str_mark",
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
        self,
        *,
        allow: int = DEFAULT_ALLOW,
        strict: bool = True,
        allow_nan: bool = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        max_chars: int | None = None,
    ) -> None:
        """Create a parser for one JSON text.

        Args:
            allow: partial-json-parser ``Allow`` flags: kinds that previews may show while
                still partial.
            strict: as in ``json.loads``: reject control characters inside strings.
            allow_nan: accept ``NaN``, ``Infinity`` and ``-Infinity`` (as ``json.loads``
                does by default; RFC 8259 does not).
            max_depth: deepest nesting of arrays and objects accepted.
            max_chars: most characters of text accepted in total (``None``: no limit).

        Raises:
            OptionTypeError: ``allow`` is not an int, or ``strict`` / ``allow_nan`` is not a
                bool.
            OptionValueError: ``max_depth`` is not a positive integer, or ``max_chars`` is
                not a non-negative integer or ``None``.
        """
        if isinstance(allow, bool) or not isinstance(allow, int):
            raise OptionTypeError(f"allow must be Allow flags (an int), got {type(allow).__name__}")
        if type(strict) is not bool:
            raise OptionTypeError(f"strict must be a bool, got {type(strict).__name__}")
        if type(allow_nan) is not bool:
            raise OptionTypeError(f"allow_nan must be a bool, got {type(allow_nan).__name__}")
        if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
            raise OptionValueError(f"max_depth must be a positive integer, got {max_depth!r}")
        if max_chars is not None and (
            isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0
        ):
            raise OptionValueError(
                f"max_chars must be a non-negative integer or None, got {max_chars!r}"
            )
        self._allow = int(allow)
        self._strict = strict
        self._allow_nan = allow_nan
        self._max_depth = max_depth
        self._max_chars = max_chars
        self._max_digits = sys.get_int_max_str_digits()
        self._str_run = cast(_Run, (_STRING_RUN_STRICT if strict else _STRING_RUN_LAX).match)
        self._state = _VALUE
        self._carry = ""
        self._chars = 0
        self._frames: list[list[Any]] = []
        self._root: Any = MISSING
        self._root_placed = False
        self._started = False
        self._error: PartialJSONError | None = None
        self._closed = False
        self._verdict: Any = MISSING
        self._preview: Any = MISSING
        self._preview_fresh = True
        # The open string (value or key): its parts, and where it is shown.
        self._str_parts: list[str] = []
        self._str_is_key = False
        self._str_mark = 0
        self._str_path: JSONPath | PathNode = ()
        self._str_container: Any = _ROOT
        self._str_slot: Any = None
        self._str_placed = False
        # The number that may still go on: its text so far, grammar state, digits, start.
        self._num_parts: list[str] = []
        self._num_state = _N_START
        self._num_digits = 0
        self._num_start = 0

    # --- public state ---------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Whether the top-level value has closed (only whitespace may follow)."""
        return self._state == _DONE

    @property
    def started(self) -> bool:
        """Whether a value has begun (some non-whitespace text has arrived)."""
        return self._started

    @property
    def chars(self) -> int:
        """Number of characters fed so far."""
        return self._chars

    @property
    def failed(self) -> PartialJSONError | None:
        """The error that stopped the parser, or ``None``."""
        return self._error

    @property
    def value(self) -> Any:
        """The best-effort preview of the value so far (a live view; see the class doc).

        :data:`~callstream.MISSING` before any value has begun or while the top-level
        value is of a kind ``allow`` does not show partially. Cached until the next
        ``feed``; O(depth + length of the open string) to refresh.
        """
        if not self._preview_fresh:
            self._refresh_preview()
        return self._preview

    # --- feeding ----------------------------------------------------------------------

    def feed(self, text: str) -> list[Change]:
        """Scan the next fragment of the JSON text and return the changes it made.

        Cost: O(len(text)) plus the bounded carry from the previous fragment.

        Raises:
            MalformedJSONError: the text can no longer be JSON (at the first impossible
                character; ``position`` counts from the start of the whole text).
            JSONLimitError: ``max_depth``, ``max_chars`` or the digits limit of numbers
                (``sys.get_int_max_str_digits()``) was exceeded.
            ParserStateError: the parser already failed or was closed.
            OptionTypeError: ``text`` is not a ``str``.
        """
        if self._error is not None or self._closed or type(text) is not str or not text:
            if self._error is not None:
                raise ParserStateError(
                    f"the parser failed earlier ({self._error}) and accepts no more text"
                )
            if self._closed:
                raise ParserStateError("the parser is closed and accepts no more text")
            if not isinstance(text, str):
                raise OptionTypeError(f"feed() takes str, got {type(text).__name__}")
            if not text:
                return []
        total = self._chars + len(text)
        if self._max_chars is not None and total > self._max_chars:
            self._error = JSONLimitError(
                f"text longer than max_chars ({self._max_chars})", self._max_chars
            )
            raise self._error
        self._chars = total
        self._preview_fresh = False
        carry = self._carry
        if carry:
            text = carry + text
            self._carry = ""
        elif (
            self._state == _STRING
            and not self._str_is_key
            and self._str_run(text, 0).end() == len(text)
        ):
            # Fast path (most fragments of a long string): plain characters only.
            self._str_parts.append(text)
            self._str_mark = len(self._str_parts)
            return [string_extended(self._str_path, text)]
        changes: list[Change] = []
        try:
            self._scan(text, total - len(text), changes)
        except PartialJSONError as exc:
            self._error = exc
            raise
        return changes

    def close(self) -> Any:
        """Return the strict verdict: exactly what ``json.loads`` returns for the whole text.

        Idempotent: later calls return the same value (or raise the same error).

        Raises:
            IncompleteJSONError: the text ended before the value did (also for empty or
                whitespace-only text).
            MalformedJSONError: the text is not JSON (raised again if ``feed`` raised it).
        """
        if self._error is not None:
            raise self._error
        if self._closed:
            return self._verdict
        state = self._state
        end = self._chars
        try:
            if state == _NUMBER_PENDING:
                self._set_scalar(self._number_final(end), [])
                state = self._state = self._complete_value()
            elif state == _LITERAL_PENDING:
                text = self._carry
                self._scan(text, end - len(text), [], final=True)
                self._carry = ""
                state = self._state
            if state != _DONE:
                raise IncompleteJSONError(self._incomplete_reason(), end)
        except PartialJSONError as exc:
            self._error = exc
            raise
        self._closed = True
        self._verdict = self._root
        self._preview_fresh = False
        return self._verdict

    # --- internals --------------------------------------------------------------------

    def _incomplete_reason(self) -> str:
        state = self._state
        if not self._started:
            return "no JSON value (the text is empty or whitespace)"
        if state == _STRING:
            return "unterminated string" if not self._str_is_key else "unterminated object key"
        if state == _LITERAL_PENDING:
            return "incomplete literal"
        if self._frames:
            kind = "object" if self._frames[-1][_IS_OBJ] else "array"
            return f"unclosed {kind}"
        return "incomplete value"

    def _refresh_preview(self) -> None:
        """Bring the open string (and an allowed partial number) into the tree."""
        self._preview_fresh = True
        state = self._state
        if state == _STRING and self._str_placed and not self._str_is_key:
            self._preview = MISSING
            _place(self, self._str_container, self._str_slot, self._joined_string())
        elif (state == _NUMBER_PENDING or state == _LITERAL_PENDING) and self._allow & (
            NUM | NULL | BOOL | NAN | INFINITY | NEG_INFINITY
        ):
            self._place_partial_atom()
        self._preview = self._root if self._root_placed else MISSING

    def _joined_string(self) -> str:
        """Join the open string's parts into one (kept as its only part) and return it.

        The head is detached from the tree first, so that when nobody else holds it,
        CPython extends it in place (``head += tail`` on a string referenced once) and a
        long string growing by small fragments costs O(fragment) per read, not O(length).
        Where someone does hold it, Python copies it, and the held string is unchanged.
        """
        parts = self._str_parts
        if len(parts) <= 1:
            return parts[0] if parts else ""
        tail = parts[1] if len(parts) == 2 else "".join(parts[1:])
        head = parts[0]
        parts.clear()
        _place(self, self._str_container, self._str_slot, None)
        head += tail
        parts.append(head)
        self._str_mark = 1
        return head

    def _place_partial_atom(self) -> None:
        """Show an unfinished number or literal, if ``allow`` asks for it."""
        allow = self._allow
        if self._state == _NUMBER_PENDING:
            if not allow & NUM:
                return
            m = _NUMBER.match(self._number_text())
            if m is None:
                return
            try:
                value: Any = _number_value(m)
            except ValueError:  # over int()'s limit: nothing to show
                return
        else:
            text = self._carry
            if not text:
                return
            _word, value, bit = _LITERALS[text[0]]
            if not allow & bit:
                return
        container, slot = self._value_site()
        _place(self, container, slot, value)

    def _value_site(self) -> tuple[Any, Any]:
        """Where the value starting now goes: (container, slot) — the root when empty."""
        frames = self._frames
        if not frames:
            return _ROOT, None
        top = frames[-1]
        return top[_C], top[_SLOT]

    def _value_path(self) -> JSONPath | PathNode:
        """The path of the value starting now: a tuple, or a shared node when deep. O(1)."""
        frames = self._frames
        if not frames:
            return ()
        top = frames[-1]
        if len(frames) <= EAGER_DEPTH:
            return (*top[_PATH], top[_SLOT])
        return PathNode(top[_PATH], top[_SLOT])

    def _complete_value(self) -> int:
        """Bookkeeping after a value completed; returns the next state."""
        frames = self._frames
        if not frames:
            return _DONE
        top = frames[-1]
        if not top[_IS_OBJ]:
            top[_SLOT] += 1
        return _AFTER

    def _scan(self, text: str, base: int, changes: list[Change], final: bool = False) -> None:
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
                        state = _KEY if top[_IS_OBJ] else _VALUE
                        i += 1
                    elif c == ("}" if top[_IS_OBJ] else "]"):
                        state = self._close_container(changes)
                        i += 1
                    else:
                        closer = "'}'" if top[_IS_OBJ] else "']'"
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

    # --- strings ------------------------------------------------------------------------

    def _start_string(self, changes: list[Change]) -> None:
        path = self._value_path()
        container, slot = self._value_site()
        self._started = True
        self._str_parts = []
        self._str_is_key = False
        self._str_mark = 0
        self._str_path = path
        self._str_container = container
        self._str_slot = slot
        changes.append(value_started(path, "string"))
        if self._allow & STR:
            self._str_placed = True
            _place(self, container, slot, "")
        else:
            self._str_placed = False

    def _flush_string(self, changes: list[Change]) -> None:
        """Report the text the open value string gained since the last report."""
        parts = self._str_parts
        mark = self._str_mark
        if len(parts) > mark:
            added = parts[mark] if len(parts) == mark + 1 else "".join(parts[mark:])
            self._str_mark = len(parts)
            if added:
                changes.append(string_extended(self._str_path, added))

    def _end_string(self, changes: list[Change]) -> int:
        parts = self._str_parts
        if self._str_is_key:
            key = parts[0] if len(parts) == 1 else "".join(parts)
            self._frames[-1][_SLOT] = key
            self._str_parts = []
            return _COLON
        self._flush_string(changes)
        value = parts[0] if len(parts) == 1 else "".join(parts)
        self._str_parts = []
        _place(self, self._str_container, self._str_slot, value)
        changes.append(value_closed(self._str_path))
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
        simple = _SIMPLE_ESCAPES.get(c)
        if simple is not None:
            self._str_parts.append(simple)
            return i + 2
        if c != "u":
            raise MalformedJSONError(f"invalid escape '\\{c}'", base + i + 1)
        code = _hex4(text, i + 2, base)
        if code < 0:
            return -1
        if 0xD800 <= code <= 0xDBFF:
            # A high surrogate: combine with a following \uDC00-\uDFFF, as json.loads does.
            k = i + 6
            if k >= n:
                return -1
            if text[k] == "\\":
                if k + 1 >= n:
                    return -1
                if text[k + 1] == "u":
                    low = _hex4(text, k + 2, base)
                    if low < 0:
                        return -1
                    if 0xDC00 <= low <= 0xDFFF:
                        combined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        self._str_parts.append(chr(combined))
                        return k + 6
        self._str_parts.append(chr(code))
        return i + 6

    # --- containers ---------------------------------------------------------------------

    def _open_container(self, is_obj: bool, changes: list[Change], position: int) -> int:
        frames = self._frames
        if len(frames) >= self._max_depth:
            raise JSONLimitError(f"nesting deeper than max_depth ({self._max_depth})", position)
        path = self._value_path()
        container, slot = self._value_site()
        self._started = True
        new: dict[str, Any] | list[Any] = {} if is_obj else []
        placed = bool(self._allow & (OBJ if is_obj else ARR))
        if placed:
            _place(self, container, slot, new)
        frames.append([new, path, is_obj, None if is_obj else 0, container, slot, placed])
        changes.append(value_started(path, "object" if is_obj else "array"))
        return _OBJECT_FIRST if is_obj else _ARRAY_FIRST

    def _close_container(self, changes: list[Change]) -> int:
        frame = self._frames.pop()
        if not frame[_PLACED]:
            _place(self, frame[_PARENT], frame[_PSLOT], frame[_C])
        changes.append(value_closed(frame[_PATH]))
        return self._complete_value()

    # --- numbers and literals -----------------------------------------------------------

    def _number_more(self, text: str, i: int, base: int, changes: list[Change]) -> tuple[int, int]:
        """Continue the number in progress with ``text[i:]``; return (index, next state).

        Runs the number grammar from ``_num_state``: digit runs by one regex call each,
        other characters by a table, so each character is looked at once. When the text
        ends inside the number, its part is kept (``_NUMBER_PENDING``); when a character
        that cannot continue it arrives, the number is complete (or malformed) here.
        """
        n = len(text)
        state = self._num_state
        start = i
        digits = 0
        moves = _NUMBER_MOVES
        if state == _N_MINUS and self._allow_nan and i < n and text[i] == "I":
            # "-" then "I...": -Infinity, a literal (bounded: carried as a literal if cut).
            self._num_parts = []
            k, next_state = self._literal("-" + text[i:], 0, base + i - 1, changes, False)
            return i + k - 1, next_state
        while i < n:
            if state in _N_RUNS:
                j = _digit_run(text, i).end()
                if j > i:
                    digits += j - i
                    i = j
                    continue
            new = moves[state].get(text[i])
            if new is None:
                break
            if new in _N_COMPLETE:  # a move into a digit state is on a digit
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
            return n, _NUMBER_PENDING
        if state not in _N_COMPLETE or text[i] in "0123456789.eE+-":
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
        if self._num_state not in _N_COMPLETE:
            raise IncompleteJSONError("incomplete number", position)
        text = self._number_text()
        try:
            if self._num_state == _N_INT or self._num_state == _N_ZERO:
                return int(text)
            return float(text)
        except ValueError:
            raise _digits_error(sys.get_int_max_str_digits(), self._num_start) from None

    def _check_digits(self, digits: int, position: int) -> None:
        if digits > self._max_digits > 0:
            raise _digits_error(self._max_digits, position)

    def _set_scalar(self, value: Any, changes: list[Change]) -> None:
        self._started = True
        container, slot = self._value_site()
        _place(self, container, slot, value)
        changes.append(scalar_set(self._value_path(), value))

    def _literal(
        self, text: str, i: int, base: int, changes: list[Change], final: bool
    ) -> tuple[int, int]:
        word, value, _bit = _LITERALS[text[i]]
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
            return n, _LITERAL_PENDING
        self._set_scalar(value, changes)
        return end, self._complete_value()


def _place(parser: PartialJSONParser, container: Any, slot: Any, value: Any) -> None:
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


def _hex4(text: str, start: int, base: int) -> int:
    """Value of the 4 hex digits at ``start``; -1 if the text ends first; raises if not hex."""
    end = min(len(text), start + 4)
    for k in range(start, end):
        if text[k] not in _HEX:
            raise MalformedJSONError("invalid \\u escape (expected 4 hex digits)", base + k)
    if end - start < 4:
        return -1
    return int(text[start : start + 4], 16)


def _count_digits(text: str, start: int, end: int) -> int:
    """Number of decimal digits in ``text[start:end]`` (a JSON number). O(end - start)."""
    signs = sum(text.count(c, start, end) for c in "-+.eE")
    return end - start - signs


def _digits_error(limit: int, position: int) -> JSONLimitError:
    return JSONLimitError(
        f"number with more than {limit} digits (the limit of sys.get_int_max_str_digits())",
        position,
    )


def _number_value(m: re.Match[str]) -> Any:
    """Convert a matched JSON number exactly as ``json.loads`` does."""
    text = m.group(0)
    if m.group(1) is None and m.group(2) is None:
        return int(text)
    return float(text)


def parse_partial_json(
    text: str,
    *,
    allow: int = DEFAULT_ALLOW,
    strict: bool = True,
    allow_nan: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Preview a prefix of a JSON text in one call (for ``partial_json_parser.loads`` users).

    Returns what :attr:`PartialJSONParser.value` would show after feeding ``text``:
    the complete value when ``text`` is complete JSON, a best-effort honest preview when
    it is a prefix, and :data:`~callstream.MISSING` when no value has begun. A top-level
    number at the very end is taken as complete when it can end there (``"12"`` gives
    ``12``); one that cannot (``"12."``) is shown as ``allow`` says (``12`` with
    ``Allow.NUM``, else ``MISSING``). The options are :class:`PartialJSONParser`'s;
    ``allow_nan`` is needed for the ``Allow.NAN`` / ``INFINITY`` / ``NEG_INFINITY`` flags
    to matter.

    Cost: O(len(text)).

    Raises:
        MalformedJSONError: ``text`` is not a prefix of any JSON text.
        JSONLimitError: ``text`` nests deeper than ``max_depth``, or has a number over
            the digits limit.
        OptionTypeError, OptionValueError: an option (or ``text``) has a wrong type or value.
    """
    parser = PartialJSONParser(allow=allow, strict=strict, allow_nan=allow_nan, max_depth=max_depth)
    parser.feed(text)
    if parser._state == _NUMBER_PENDING and not parser._frames and parser._num_state in _N_COMPLETE:
        # A complete top-level number such as "12" is final at the end of the text.
        return parser._number_final(len(text))
    return parser.value
