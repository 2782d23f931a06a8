"""GLM calls: GLM-4.5 / 4.6 (``glm45``) and GLM-4.7 / GLM-5.x (``glm47``).

The shape (the ``tools`` section of the zai-org chat templates; GLM-4.5 and 4.6 put a
newline after the name and after each key and value, GLM-4.7 and 5.x write none)::

    <think>reasoning</think>
    text
    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    <arg_key>days</arg_key>
    <arg_value>3</arg_value>
    </tool_call>

    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>

The name follows ``<tool_call>``; each argument is an ``<arg_key>`` and an
``<arg_value>``; whitespace between the markers is the template's (both variants are
read by both parsers). The template writes a string value raw (no escaping, its
whitespace is data) and any other value as JSON, so a value is typed by the tool's schema
(``tools=``), and without one by :data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`.
A string value streams as it grows.

A value ends at ``</arg_value>``. A ``</tool_call>`` inside a value is the value's text
unless only whitespace follows it up to the end of the text or to the next
``<tool_call>``: then the model lost the ``</arg_value>`` (vLLM #57826) and the
``</tool_call>`` ends the value and the call.

Reasoning: ``<think>`` ... ``</think>``; GLM-4.7 and 5.x prefill ``<think>`` (the
generation prompt ``<|assistant|><think>``), GLM-4.5 / 4.6 open it themselves. The chat
template's role tokens (``<|assistant|>``, ``<|user|>``, ``<|observation|>``,
``<|system|>``) and ``<|endoftext|>`` are dropped where a server leaves them in the text.

Cost: linear in the text; memory: the held tail, a non-string value until it ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._assembly.options import DEFAULT_MAX_ARGUMENT_CHARS, MAX_NAME_CHARS
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._raw_text import AGAIN, ENDED, GO_ON, MarkerReader, ValueWriter
from callstream.tool_parsers._values import ArgsWriter, param_schema

__all__ = ("Glm45Parser", "Glm47Parser", "write45", "write47")

OPEN: Final = "<tool_call>"
CLOSE: Final = "</tool_call>"
KEY: Final = "<arg_key>"
KEY_END: Final = "</arg_key>"
VALUE: Final = "<arg_value>"
VALUE_END: Final = "</arg_value>"

# the reader's states
_NAME: Final = "name"  # the name, up to the first key or the end
_BETWEEN: Final = "between"  # whitespace, then a key or the end
_KEY: Final = "key"
_BEFORE_VALUE: Final = "before_value"
_VALUE: Final = "value"
_PENDING: Final = "pending"  # a </tool_call> inside a value: its end, or its text?
_BROKEN: Final = "broken"  # not a valid call: skip to its end

_MARKERS: Final = {
    _NAME: (KEY, CLOSE, OPEN),
    _BETWEEN: (KEY, CLOSE, OPEN),
    _KEY: (KEY_END, VALUE, CLOSE, OPEN),
    _BEFORE_VALUE: (VALUE, KEY, CLOSE, OPEN),
    _VALUE: (VALUE_END, CLOSE),
    _PENDING: (VALUE_END, CLOSE, OPEN),
    _BROKEN: (CLOSE, OPEN),
}

#: at most this much whitespace after a ``</tool_call>`` inside a value is held while
#: it may be the call's end
_MAX_PENDING: Final = 256


class GlmReader(MarkerReader):
    """Reads one GLM call, from just after ``<tool_call>`` (the module docstring)."""

    __slots__ = ("_args", "_key", "_name", "_pending", "_problem", "_size", "_value")

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index, _NAME)
        self._name: list[str] = []
        self._key: list[str] = []
        self._pending: list[str] = []
        self._size = 0  # of the name, key or value under way
        self._problem: str | None = None
        self._args = ArgsWriter()
        self._value: ValueWriter | None = None

    def markers(self, state: str) -> tuple[str, ...]:
        return _MARKERS[state]

    def on_text(self, text: str) -> None:
        state = self.state
        if state in (_NAME, _KEY):
            parts = self._name if state == _NAME else self._key
            parts.append(text)
            self._size = len(text) + (self._size if len(parts) > 1 else 0)
            if self._size > MAX_NAME_CHARS:
                parts.clear()
                self._broken(f"a {state} of the call exceeds {MAX_NAME_CHARS} characters")
        elif state == _VALUE:
            self._value_text(text)
        elif state == _PENDING:
            size = sum(len(p) for p in self._pending) + len(text)
            if text.strip() or size > _MAX_PENDING:
                self._refute(text)
            else:
                self._pending.append(text)
        elif state in (_BETWEEN, _BEFORE_VALUE) and text.strip():
            where = "before a value" if state == _BEFORE_VALUE else "between the arguments"
            self._broken(f"text {where} of the call")

    def _value_text(self, text: str) -> None:
        value = self._value
        if value is None or self.done:
            return
        self._size += len(text)
        if self._size > DEFAULT_MAX_ARGUMENT_CHARS:
            self._value = None
            self.fail(f"a value of the call exceeds {DEFAULT_MAX_ARGUMENT_CHARS} characters")
            return
        value.feed(text)

    def on_marker(self, marker: str) -> int:
        state = self.state
        if state in (_VALUE, _PENDING):
            return self._value_marker(marker)
        if marker == OPEN:
            self.fail(self._problem or "a new call opened before this one ended")
            return AGAIN
        if state == _NAME:
            self._start()
            state = self.state
        if state == _BROKEN:
            if marker == CLOSE:
                self.fail(self._problem or "malformed call")
                return ENDED
            return GO_ON
        if marker == CLOSE:
            if state in (_KEY, _BEFORE_VALUE):
                self.fail("a key without a value at the call's end")
            else:
                self._complete()
            return ENDED
        self._arg_marker(marker)
        return GO_ON

    def _arg_marker(self, marker: str) -> None:
        """A key's or a value's marker between the name and the end."""
        if marker == KEY:
            if self.state == _BEFORE_VALUE:
                self._broken("a key without a value")
            else:
                self._key = []
                self.state = _KEY
        elif marker == KEY_END:
            self.state = _BEFORE_VALUE
        else:  # VALUE (after a key, or a key missing its </arg_key>)
            key = "".join(self._key).strip()
            self._key = []
            self._size = 0
            if not self.done:
                schema = param_schema(self.parser.schemas, self.name, key)
                self._value = ValueWriter(self._args, key, schema, self.args)
            self.state = _VALUE

    def _value_marker(self, marker: str) -> int:
        """A marker inside a value (see :meth:`on_marker`)."""
        if marker == VALUE_END:
            if self.state == _PENDING:
                self._refute("")
            self._end_value()
            self.state = _BETWEEN
            return GO_ON
        if marker == CLOSE:  # the end of the value and the call, or the value's text
            if self.state == _PENDING:
                self._refute("")
            self._pending = []
            self.state = _PENDING
            return GO_ON
        self._complete()  # OPEN after a held </tool_call>: the lost </arg_value>
        return AGAIN

    def _end_value(self) -> None:
        value, self._value = self._value, None
        if value is not None and not self.done:
            value.close()

    def _start(self) -> None:
        name = "".join(self._name).strip()
        self._name = []
        if not name:
            self._broken("the call has no name")
            return
        self.state = _BETWEEN
        self.start(name)
        if self.done:  # an unknown tool: failed already; skip to the end
            self.state = _BROKEN

    def _refute(self, text: str) -> None:
        """The ``</tool_call>`` held inside a value was the value's text."""
        self.state = _VALUE
        self._value_text(CLOSE + "".join(self._pending) + text)
        self._pending = []

    def _complete(self) -> None:
        """The call's end: it is complete."""
        if self.done:
            return
        if self._problem is not None:
            self.fail(self._problem)
            return
        self._end_value()
        self.args(self._args.close())
        self.end()

    def _broken(self, problem: str) -> None:
        if self._problem is None:
            self._problem = problem
        self.state = _BROKEN

    def close(self, interrupted: bool = False) -> None:
        if self.state == _PENDING and not interrupted and not self._held:
            self._complete()  # the text ended after a </tool_call> that lost its </arg_value>
            return
        if self._problem is not None and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the call")
            return
        super().close(interrupted)


class Glm45Parser(ToolParser):
    """``tool_parser="glm45"``: GLM-4.5 / 4.6 calls (the module docstring); see
    :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "glm45"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = (
        "<|assistant|>",
        "<|user|>",
        "<|observation|>",
        "<|system|>",
        "<|endoftext|>",
    )

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A ``<tool_call>`` followed by a name (Hermes writes a JSON object after the
        same marker, Qwen3-Coder a ``<function=``)."""
        body = after.lstrip()
        return None if not body else body[0] not in "{[<\"'"

    def open_call(self, marker: str, index: int) -> CallReader:
        return GlmReader(self, index)


class Glm47Parser(Glm45Parser):
    """``tool_parser="glm47"``: GLM-4.7 and GLM-5.x calls, written without the newlines
    (the module docstring)."""

    name: ClassVar[str] = "glm47"


def value_text(value: Any) -> str:
    """A value as the template writes it: a string raw, any other value as JSON."""
    if isinstance(value, str):
        return value
    return dumps_bounded(value, max_depth=None, ensure_ascii=False)


def _write(calls: Iterable[Mapping[str, Any]], text: str, reasoning: str | None, sep: str) -> str:
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"{sep}<think>{reasoning}</think>{sep}")
    parts.append(text)
    for i, call in enumerate(calls):
        lead = sep if (i or text) else ""
        parts.append(f"{lead}{OPEN}{call['name']}{sep}")
        for key, value in call.get("args", {}).items():
            parts.append(f"{KEY}{key}{KEY_END}{sep}{VALUE}{value_text(value)}{VALUE_END}{sep}")
        parts.append(CLOSE)
    return "".join(parts)


def write45(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text GLM-4.5 / 4.6 write for ``calls`` (each ``{"name": ..., "args": {...}}``,
    as :class:`~callstream.ToolCall`): the reasoning block if given, the text, then one
    ``<tool_call>`` per call with newlines, as their chat template renders them (string
    values raw, others JSON). Cost: O(size of the calls)."""
    return _write(calls, text, reasoning, "\n")


def write47(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text GLM-4.7 / 5.x write for ``calls`` (as :func:`write45`, without the
    newlines). Cost: O(size of the calls)."""
    return _write(calls, text, reasoning, "")
