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

Modules. The parser is one class built in layers, a module each, every layer adding
methods only (one ``__slots__``, in the base): :mod:`~callstream._json.grammar` (tables and
pure helpers), :mod:`~callstream._json.parser_state` (``ParserState``: the attributes, the frame
stack, where a value goes), :mod:`~callstream._json.values` (``ValueReader``: strings and
escapes, containers, numbers, literals), :mod:`~callstream._json.scanner` (``Scanner``: the
scan loop), and this module: the public class (options, ``feed``, ``close``, previews).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from callstream._errors import (
    IncompleteJSONError,
    JSONLimitError,
    OptionTypeError,
    OptionValueError,
    ParserStateError,
    PartialJSONError,
)
from callstream._json.changes import Change, StringExtended
from callstream._json.grammar import (
    ALLOW_ALL,
    ARR,
    BOOL,
    DEFAULT_ALLOW,
    DEFAULT_MAX_DEPTH,
    DONE,
    INFINITY,
    LITERAL_PENDING,
    LITERALS,
    N_COMPLETE,
    NAN,
    NEG_INFINITY,
    NULL,
    NUM,
    NUMBER,
    NUMBER_PENDING,
    OBJ,
    STR,
    STRING,
    number_value,
)
from callstream._json.parser_state import place
from callstream._json.pieces import add_piece
from callstream._json.scanner import Scanner
from callstream._types import MISSING, mypyc_attr

if TYPE_CHECKING:
    from callstream._argtypes import BoolArg, IntArg, OptIntArg, StrArg

__all__ = (
    "DEFAULT_ALLOW",
    "DEFAULT_MAX_DEPTH",
    "PartialJSONParser",
    "parse_partial_json",
    # partial-json-parser's ``Allow`` bits, from grammar (kept importable here)
    "ARR",
    "BOOL",
    "INFINITY",
    "NAN",
    "NEG_INFINITY",
    "NULL",
    "NUM",
    "OBJ",
    "STR",
)


@mypyc_attr(allow_interpreted_subclasses=True)  # subclassable: docs/design.md
class PartialJSONParser(Scanner):
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

    __slots__ = ()

    def __init__(
        self,
        *,
        allow: IntArg = DEFAULT_ALLOW,
        strict: BoolArg = True,
        allow_nan: BoolArg = False,
        max_depth: IntArg = DEFAULT_MAX_DEPTH,
        max_chars: OptIntArg = None,
    ) -> None:
        """Create a parser for one JSON text.

        The options are checked here, also in the compiled build, where their types read
        as ``object`` (``callstream._argtypes``): a wrong type raises the precise errors
        below, not a bare ``TypeError``.

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
            OptionValueError: ``allow`` has a bit no ``Allow`` flag has (or is negative),
                ``max_depth`` is not a positive integer, or ``max_chars`` is not a
                non-negative integer or ``None``.
        """
        if isinstance(allow, bool) or not isinstance(allow, int):
            raise OptionTypeError(f"allow must be Allow flags (an int), got {type(allow).__name__}")
        if allow < 0 or allow & ~ALLOW_ALL:
            raise OptionValueError(
                f"allow must be a combination of Allow flags (0 to {ALLOW_ALL}), got {allow!r}"
            )
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
        super().__init__(int(allow), strict, allow_nan, max_depth, max_chars)

    # --- public state ---------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Whether the top-level value has closed (only whitespace may follow)."""
        return self._state == DONE

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

    def feed(self, text: StrArg) -> list[Change]:
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
        # ``text`` reads as ``object`` in the compiled build (callstream._argtypes), so
        # that a non-str raises our OptionTypeError there too, not mypyc's TypeError.
        if type(text) is not str or not text or self._error is not None or self._closed:
            self._refuse(text)
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
            self._state == STRING
            and not self._str_is_key
            and self._str_run(text, 0).end() == len(text)
        ):
            # Fast path (most fragments of a long string): plain characters only.
            self._str_kept = add_piece(self._str_parts, text, self._str_kept)
            return [StringExtended(self._str_path, text)]
        changes: list[Change] = []
        try:
            self._scan(text, total - len(text), changes)
        except PartialJSONError as exc:
            self._error = exc
            raise
        return changes

    def _refuse(self, text: object) -> None:
        """Raise what :meth:`feed` raises for ``text`` now; return for an empty str."""
        if self._error is not None:
            raise ParserStateError(
                f"the parser failed earlier ({self._error}) and accepts no more text"
            )
        if self._closed:
            raise ParserStateError("the parser is closed and accepts no more text")
        if not isinstance(text, str):
            raise OptionTypeError(f"feed() takes str, got {type(text).__name__}")

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
            if state == NUMBER_PENDING:
                self._set_scalar(self._number_final(end), [])
                state = self._state = self._complete_value()
            elif state == LITERAL_PENDING:
                text = self._carry
                self._scan(text, end - len(text), [], final=True)
                self._carry = ""
                state = self._state
            if state != DONE:
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
        if state == STRING:
            return "unterminated string" if not self._str_is_key else "unterminated object key"
        if state == LITERAL_PENDING:
            return "incomplete literal"
        if self._frames:
            kind = "object" if self._frames[-1].is_obj else "array"
            return f"unclosed {kind}"
        return "incomplete value"

    def _refresh_preview(self) -> None:
        """Bring the open string (and an allowed partial number) into the tree."""
        self._preview_fresh = True
        state = self._state
        if state == STRING and self._str_placed and not self._str_is_key:
            self._preview = MISSING
            place(self, self._str_container, self._str_slot, self._joined_string())
        elif (state == NUMBER_PENDING or state == LITERAL_PENDING) and self._allow & (
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
        place(self, self._str_container, self._str_slot, None)
        head += tail
        parts.append(head)
        self._str_kept = 0
        return head

    def _place_partial_atom(self) -> None:
        """Show an unfinished number or literal, if ``allow`` asks for it."""
        allow = self._allow
        if self._state == NUMBER_PENDING:
            if not allow & NUM:
                return
            m = NUMBER.match(self._number_text())
            if m is None:
                return
            try:
                value: Any = number_value(m)
            except ValueError:  # over int()'s limit: nothing to show
                return
        else:
            text = self._carry
            if not text:
                return
            _word, value, bit = LITERALS[text[0]]
            if not allow & bit:
                return
        container, slot = self._value_site()
        place(self, container, slot, value)


def parse_partial_json(
    text: StrArg,
    *,
    allow: IntArg = DEFAULT_ALLOW,
    strict: BoolArg = True,
    allow_nan: BoolArg = False,
    max_depth: IntArg = DEFAULT_MAX_DEPTH,
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
    if parser._state == NUMBER_PENDING and not parser._frames and parser._num_state in N_COMPLETE:
        # A complete top-level number such as "12" is final at the end of the text.
        return parser._number_final(parser.chars)  # feed took a str: all of it
    return parser.value
