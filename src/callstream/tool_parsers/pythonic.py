"""Calls written as a Python list of function calls: Llama 3.2 (1B, 3B), Llama 4 Scout /
Maverick, ToolACE and the models trained on their templates (``pythonic``,
``llama4_pythonic``).

The shape (vLLM's ``tool_chat_template_llama3.2_pythonic`` and Llama 4's chat template,
Meta's Llama 4 prompt-format docs, and the canitoolcall ``llama`` fixtures)::

    [get_weather(city="San Francisco", unit='celsius'), get_time()]

The whole message is a list of calls; each argument is ``name=value`` with a Python
literal value (strings in either quote, numbers, ``True`` / ``False`` / ``None``, lists,
tuples and dicts of them), written into the arguments as JSON (``None`` -> ``null``, a
tuple -> a list). A string value streams as it grows (its escapes decoded as Python
reads them); other values appear when complete. Llama 4 may wrap the list in
``<|python_start|>`` ... ``<|python_end|>``. A message that starts with ``[`` is a list
of calls only when it begins ``[name(``: anything else (``[1, 2] are numbers``) is text.
A positional argument, a value that is no literal (a variable, an expression), or a list
cut by the end make that call invalid, with the reason. ``tools=`` checks the names (the
values are typed as written). The end and header tokens of Llama 3 and 4 are dropped.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from callstream._assembly.options import DEFAULT_MAX_ARGUMENT_CHARS, MAX_NAME_CHARS
from callstream._assembly.types import Signal
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import TEXT_CALL_INDEX, CallReader, ToolParser
from callstream.tool_parsers._llama import LLAMA3_TOKENS, LLAMA4_TOKENS
from callstream.tool_parsers._markers import MarkerSet

__all__ = ("Llama4PythonicParser", "PythonicParser", "to_json_value", "write")

#: a message's start that may still become ``[name(`` is held this many characters at most
CALL_START_WITHIN: Final = 4096
_CALL_START: Final = re.compile(r"\s*\[\s*[A-Za-z_][\w.]*\s*\(")
_MAYBE_START: Final = re.compile(r"\s*(?:\[\s*(?:[A-Za-z_][\w.]*\s*)?)?")
_NAME: Final = re.compile(r"[A-Za-z_][\w.]*")
_WORD: Final = re.compile(r"[\w.]+")
_SPACE: Final = " \t\r\n"
CUT_LIST_REASON: Final = (
    "the text ended before the list of calls closed (cut by max_tokens or the end of the"
    " stream): the model did not finish it"
)
_ESCAPE_SIZE: Final = {"x": 3, "u": 5, "U": 9}

# the reader's states
_LIST: Final = 0  # the list's "[" expected
_CALL: Final = 1  # a call's name, up to "("
_KEY: Final = 2  # an argument's name up to "=", or ")"
_VALUE: Final = 3  # an argument's value, up to "," or ")" outside brackets and strings
_STRING: Final = 4  # a string value, streaming
_AFTER_VALUE: Final = 5  # "," or ")" after a value
_AFTER_CALL: Final = 6  # "," or "]" after a call
_BROKEN: Final = 7  # not a valid list: to its end


def to_json_value(value: Any) -> Any:
    """A Python literal's value as JSON data (tuples as lists); raises ValueError for
    what JSON cannot hold (sets, bytes, complex, non-finite floats)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a float JSON cannot hold")
        return value
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: to_json_value(v) for k, v in value.items()}
    raise ValueError(f"a {type(value).__name__} value")


def _decode(escape: str) -> str:
    """One backslash escape of a Python string, decoded (kept as written when Python
    would not read it)."""
    try:
        value = ast.literal_eval(f"'{escape}'")
    except (ValueError, SyntaxError):
        return escape
    return value if isinstance(value, str) else escape


def _dump(value: Any) -> str:
    return dumps_bounded(value, max_depth=None, ensure_ascii=False)


class _PythonicReader(CallReader):
    """The list of calls (module docstring); each call reported under its own key."""

    __slots__ = (
        "_call",
        "_depth",
        "_ends",
        "_escaped",
        "_held",
        "_pending",
        "_first_arg",
        "_quote",
        "_raw_value",
        "_raw_size",
        "_state",
        "_token",
        "_tail",
        "_used",
    )

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._state = _LIST
        self._call: CallReader | None = None
        self._token = ""  # a name or key being read
        self._raw_value: list[str] = []
        self._raw_size = 0
        self._depth = 0
        self._quote = ""  # the quote of the string the value scan is in
        self._tail = ""  # a string value's escape held until complete
        self._first_arg = True
        self._used = False
        self._escaped = False  # the value scan is just after a backslash in a string
        self._held = ""  # a broken list's tail that may start an end marker
        self._pending: list[CallReader] = []  # calls complete, ended when the list closes
        self._ends: Final = MarkerSet(parser.call_close + parser.dropped)

    # --- the calls -------------------------------------------------------------------

    def _new_call(self, name: str) -> None:
        if self._used:
            parser = self.parser
            index = TEXT_CALL_INDEX + parser.calls
            parser.calls += 1
        else:
            index = self.index
            self._used = True
        call = self._call = CallReader(self.parser, index)
        call.keep(name)
        call.start(name)
        call.args("{")
        self._first_arg = True

    def _fail(self, reason: str) -> None:
        """The call under way (or the list) is not valid: it fails, the rest of the list
        is skipped."""
        self._end_pending()
        call = self._call
        if call is not None:
            call.fail(reason)
            self._call = None
        elif not self._used:
            self.fail(reason)
        self._state = _BROKEN

    def _end_pending(self) -> None:
        for call in self._pending:
            call.end()
        self._pending = []

    # --- reading -----------------------------------------------------------------------

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        pos = start
        end = len(text)
        while pos < end:
            state = self._state
            if state == _STRING:
                pos = self._string(text, pos)
            elif state == _VALUE:
                pos = self._value(text, pos)
            elif state == _BROKEN:
                return self._skip(text, pos)
            elif state in (_CALL, _KEY) and (text[pos].isalnum() or text[pos] in "_."):
                match = _WORD.match(text, pos)
                assert match is not None
                self._token += match.group()
                pos = match.end()
                if len(self._token) > MAX_NAME_CHARS:
                    self._fail(f"a name in the call list exceeds {MAX_NAME_CHARS} characters")
            elif text[pos] in _SPACE:
                pos += 1
            else:
                done = self._structure(text[pos])
                pos += 1
                if done:
                    self.done = True
                    return text, pos
        return None

    def _structure(self, char: str) -> bool:
        """A structural character; True when the list closed."""
        state = self._state
        if state == _LIST and char == "[":
            self._state = _CALL
        elif state == _CALL and char == "(" and _NAME.fullmatch(self._token):
            self._new_call(self._token)
            self._token = ""
            self._state = _KEY
        elif state == _KEY and char == "=" and _NAME.fullmatch(self._token):
            call = self._call
            assert call is not None
            key = self._token
            self._token = ""
            call.args(("" if self._first_arg else ", ") + _dump(key) + ": ")
            self._first_arg = False
            self._state = _VALUE
        elif state in (_KEY, _AFTER_VALUE) and char == ")" and not self._token:
            self._end_call()
        elif state == _AFTER_VALUE and char == ",":
            self._state = _KEY
        elif state == _AFTER_CALL and char == ",":
            self._state = _CALL
        elif state == _AFTER_CALL and char == "]":
            self._end_pending()
            return True
        elif state == _KEY and self._token:
            self._fail("a positional argument in a call (only name=value is read)")
        else:
            self._fail(f"the call list is malformed at {char!r}")
        return False

    def _end_call(self) -> None:
        call = self._call
        assert call is not None
        call.args("}")
        if call.started:
            self._pending.append(call)  # ended when the list closes: a cut list is no call
        self._call = None
        self._state = _AFTER_CALL

    def _value(self, text: str, pos: int) -> int:
        """A value other than a streamed string, up to its end."""
        if not self._raw_value and self._depth == 0 and not self._quote:
            while pos < len(text) and text[pos] in _SPACE:
                pos += 1
            if pos < len(text) and text[pos] in "'\"":
                self._quote = text[pos]
                self._state = _STRING
                call = self._call
                assert call is not None
                call.args('"')
                return pos + 1
        start = pos
        end = len(text)
        pos = self._scan_value(text, pos)
        self._raw_value.append(text[start:pos])
        self._raw_size += pos - start
        if self._raw_size > DEFAULT_MAX_ARGUMENT_CHARS:
            self._fail(f"an argument exceeds {DEFAULT_MAX_ARGUMENT_CHARS} characters")
            return pos
        if pos < end:
            self._close_value()
        return pos

    def _scan_value(self, text: str, pos: int) -> int:
        """Where the value under way ends in ``text`` (a ``,`` or a closing bracket
        outside strings and brackets), or the end of the text."""
        end = len(text)
        while pos < end:
            char = text[pos]
            if self._escaped:
                self._escaped = False
            elif self._quote:
                if char == "\\":
                    self._escaped = True
                elif char == self._quote:
                    self._quote = ""
            elif char in "'\"":
                self._quote = char
            elif char in "([{":
                self._depth += 1
            elif char in ")]}":
                if self._depth == 0:
                    break
                self._depth -= 1
            elif char == "," and self._depth == 0:
                break
            pos += 1
        return pos

    def _close_value(self) -> None:
        raw = "".join(self._raw_value).strip()
        self._raw_value = []
        self._raw_size = 0
        try:
            value = to_json_value(ast.literal_eval(raw))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            self._fail(f"an argument's value is not a Python literal JSON can hold: {raw[:80]!r}")
            return
        call = self._call
        assert call is not None
        call.args(_dump(value))
        self._state = _AFTER_VALUE

    def _string(self, text: str, pos: int) -> int:
        """A string value: its text written as it streams, escapes decoded."""
        call = self._call
        assert call is not None
        end = len(text)
        out: list[str] = []
        if self._tail:  # an escape begun in the last piece
            tail = self._tail
            combined = tail + text[pos : pos + 16]
            size = self._escape_size(combined, 0)
            if size > len(combined):
                self._tail = tail + text[pos:]
                return end
            self._tail = ""
            out.append(_decode(combined[:size]))
            pos += size - len(tail)
        quote = self._quote
        while pos < end:
            stop = pos
            while stop < end and text[stop] != quote and text[stop] != "\\":
                stop += 1
            out.append(text[pos:stop])
            if stop >= end:
                pos = end
                break
            if text[stop] == quote:
                self._quote = ""
                pos = stop + 1
                self._state = _AFTER_VALUE
                break
            size = self._escape_size(text, stop)
            if stop + size > end:
                self._tail = text[stop:]
                pos = end
                break
            out.append(_decode(text[stop : stop + size]))
            pos = stop + size
        piece = "".join(out)
        if piece:
            call.args(_dump(piece)[1:-1])
        if self._state == _AFTER_VALUE:
            call.args('"')
        return pos

    @staticmethod
    def _escape_size(text: str, at: int) -> int:
        """The length of the escape sequence at ``text[at]`` (a backslash); past the
        end of the text when it is not complete yet."""
        if at + 1 >= len(text):
            return 2
        kind = text[at + 1]
        if kind in _ESCAPE_SIZE:
            return _ESCAPE_SIZE[kind] + 1
        if kind == "N":
            close = text.find("}", at)
            return close - at + 1 if close >= 0 else len(text) - at + 1
        return 2

    def _skip(self, text: str, pos: int) -> tuple[str, int] | None:
        """A broken list: the rest of the message is its text, up to an end marker
        (the parser drops it)."""
        if self._held:
            text = self._held + text[pos:]
            pos = 0
            self._held = ""
        at, marker = self._ends.find(text, pos)
        if marker is None:
            self._held = text[at:]
            return None
        self.done = True
        return text, at

    def close(self, interrupted: bool = False) -> None:
        for pending in self._pending:
            pending.fail(CUT_LIST_REASON)
        self._pending = []
        call = self._call
        if call is not None:
            self._call = None
            call.close(interrupted)
        elif not self._used and self._state != _BROKEN:
            super().close(interrupted)
        self.done = True


class PythonicParser(ToolParser):
    """``tool_parser="pythonic"``: a message that is a Python list of calls (the
    module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "pythonic"
    dropped: ClassVar[tuple[str, ...]] = LLAMA3_TOKENS

    def __init__(self, tools: Sequence[Any] | None = None, prefill: str = "") -> None:
        self._starting = False  # the prefill is read as it is
        self._head: list[str] = []
        super().__init__(tools=tools, prefill=prefill)
        self._starting = True

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A list after the marker (``<|python_start|>`` may open a JSON call)."""
        body = after.lstrip()
        return None if not body else body[0] == "["

    def open_call(self, marker: str, index: int) -> CallReader:
        return _PythonicReader(self, index)

    def feed(self, piece: str) -> list[Signal]:
        if not self._starting or not isinstance(piece, str) or self.closed:
            return super().feed(piece)
        self._head.append(piece)
        joined = "".join(self._head)
        if _CALL_START.match(joined):
            return self._decided(call=True)
        if len(joined) <= CALL_START_WITHIN and _MAYBE_START.fullmatch(joined):
            self._head = [joined]
            return []
        return self._decided(call=False)

    def _decided(self, *, call: bool) -> list[Signal]:
        self._starting = False
        held = "".join(self._head)
        self._head = []
        if call:
            self._reader = self.open_call("", TEXT_CALL_INDEX + self.calls)
            self.calls += 1
            self.mode = "call"
        return super().feed(held)

    def close(self, interrupted: bool = False) -> list[Signal]:
        out: list[Signal] = []
        if self._starting and not self.closed:
            out = self._decided(call=False)
        return out + super().close(interrupted)


class Llama4PythonicParser(PythonicParser):
    """``tool_parser="llama4_pythonic"``: Llama 4's pythonic calls, the list also
    between ``<|python_start|>`` and ``<|python_end|>``; Llama 4's tokens dropped."""

    name: ClassVar[str] = "llama4_pythonic"
    call_open: ClassVar[tuple[str, ...]] = ("<|python_start|>",)
    call_close: ClassVar[tuple[str, ...]] = ("<|python_end|>",)
    dropped: ClassVar[tuple[str, ...]] = tuple(dict.fromkeys(LLAMA4_TOKENS + LLAMA3_TOKENS))


def _literal(value: Any) -> str:
    """``value`` written as a Python literal."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def write(
    calls: Iterable[Mapping[str, Any]],
    *,
    text: str = "",
    reasoning: str | None = None,
    tags: bool = False,
) -> str:
    """The text a pythonic model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}`` whose argument names are identifiers): ``[f(a=1), g()]``, between
    ``<|python_start|>`` and ``<|python_end|>`` when ``tags`` (Llama 4) or after text;
    without calls, the text alone. ``reasoning`` is written as a ``<think>`` block.
    Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<think>\n{reasoning}\n</think>\n\n")
    parts.append(text)
    written = [
        f"{c['name']}(" + ", ".join(f"{k}={_literal(v)}" for k, v in c.get("args", {}).items())
        for c in calls
    ]
    written = [f"{w})" for w in written]
    if written:
        body = "[" + ", ".join(written) + "]"
        if tags or text or reasoning is not None:
            body = f"<|python_start|>{body}<|python_end|>"
        parts.append(body)
    return "".join(parts)
