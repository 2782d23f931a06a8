"""Kimi K3 calls (``kimi_k3``): XTML, elements written with control tokens.

The shape (Kimi-K3's ``encoding_k3``; ``<|open|>X<|sep|>`` opens element ``X``,
``<|close|>X<|sep|>`` closes it)::

    reasoning<|close|>think<|sep|><|open|>response<|sep|>text<|close|>response<|sep|>
    <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>

(without the line breaks). The ``think`` element is the reasoning (the generation prompt
``<|open|>message role="assistant"<|sep|><|open|>think<|sep|>`` opens it; with thinking
off ``...<|open|>response<|sep|>`` opens the response instead); the ``response`` element
is the text; each ``call`` names its tool in an attribute (``&amp;`` and ``&quot;``
escaped) and holds one ``argument`` per key, its value raw. A value is typed by the
tool's schema (``tools=``), else by the ``type`` the model wrote for it (``string``,
``number``, ``boolean``, ``null``, ``array``, ``object``), else by
:data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`; a string value streams.

A value's text may hold ``<|close|>argument<|sep|>`` as ordinary text (only the token
ids differ): it ends the value only when the next element follows it (another
``argument``, or ``<|close|>call<|sep|>``). The elements around the calls (``response``,
``tools``, ``message``) and ``<|end_of_msg|>`` are dropped.

Cost: linear in the text; memory: the held tail, a non-string value until it ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._assembly.options import DEFAULT_MAX_ARGUMENT_CHARS, MAX_NAME_CHARS
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._raw_text import AGAIN, ENDED, GO_ON, MarkerReader, ValueWriter
from callstream.tool_parsers._values import ArgsWriter, param_schema, schema_types

__all__ = ("KimiK3Parser", "write")

SEP: Final = "<|sep|>"
THINK: Final = "<|open|>think<|sep|>"
THINK_END: Final = "<|close|>think<|sep|>"
RESPONSE: Final = "<|open|>response<|sep|>"
CALL: Final = "<|open|>call"
CALL_END: Final = "<|close|>call<|sep|>"
ARG: Final = "<|open|>argument"
ARG_END: Final = "<|close|>argument<|sep|>"

_ATTR: Final = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')
_HEAD_ENDS: Final = (SEP, "<|open|>", "<|close|>")
_MARKERS: Final = {
    "call_head": _HEAD_ENDS,
    "arg_head": _HEAD_ENDS,
    "body": (ARG, CALL_END, CALL),
    "value": (ARG_END,),
    "pending": (ARG, CALL_END, ARG_END),
    "broken": (CALL_END, CALL),
}
_MAX_PENDING: Final = 256


def unescape(text: str) -> str:
    """An XTML attribute's value: ``&quot;`` ``&lt;`` ``&gt;`` ``&apos;`` ``&amp;`` read."""
    if "&" not in text:
        return text
    for entity, char in (("&quot;", '"'), ("&lt;", "<"), ("&gt;", ">"), ("&apos;", "'")):
        text = text.replace(entity, char)
    return text.replace("&amp;", "&")


def escape(text: str) -> str:
    """``text`` as an XTML attribute's value (``&`` and ``"`` escaped)."""
    return text.replace("&", "&amp;").replace('"', "&quot;")


class K3Reader(MarkerReader):
    """Reads one Kimi K3 call, from just after ``<|open|>call``."""

    __slots__ = ("_args", "_head", "_head_size", "_pending", "_problem", "_size", "_value")

    def __init__(self, parser: ToolParser, index: int) -> None:
        # states: call_head, body, arg_head, value, pending, broken
        super().__init__(parser, index, "call_head")
        self._head: list[str] = []
        self._head_size = 0
        self._pending: list[str] = []
        self._problem: str | None = None
        self._args = ArgsWriter()
        self._value: ValueWriter | None = None
        self._size = 0  # of the value under way

    def markers(self, state: str) -> tuple[str, ...]:
        return _MARKERS[state]

    def on_text(self, text: str) -> None:
        state = self.state
        if state.endswith("head"):
            self._head.append(text)
            self._head_size = len(text) + (self._head_size if len(self._head) > 1 else 0)
            if self._head_size > MAX_NAME_CHARS:
                self._head = []
                self._broken(f"an element's header exceeds {MAX_NAME_CHARS} characters")
        elif state == "value":
            self._value_text(text)
        elif state == "pending":
            size = sum(len(p) for p in self._pending) + len(text)
            if text.strip() or size > _MAX_PENDING:
                self._refute(text)
            else:
                self._pending.append(text)
        elif state == "body" and text.strip():
            self._broken("text between the call's arguments")

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
        if state.endswith("head"):
            return self._header(state, marker)
        if state == "value":  # ARG_END: the value's end, or its text
            self._pending = []
            self.state = "pending"
            return GO_ON
        if state == "pending":
            if marker == ARG_END:
                self._refute("")
                self.state = "pending"
                return GO_ON
            self._end_value()
            self.state = "body"
        if marker == CALL:
            self.fail(self._problem or "a new call opened before this one ended")
            return AGAIN
        if self.state == "broken" or marker == CALL_END:
            self._complete()
            return ENDED
        self.state = "arg_head"  # ARG
        return GO_ON

    def _header(self, state: str, marker: str) -> int:
        """The header of a call or an argument ended (its ``<|sep|>``, else the call
        fails: see :meth:`on_marker`)."""
        if marker != SEP:
            self.fail("an element's header is not complete")
            return AGAIN
        head = "".join(self._head)
        self._head = []
        attrs = {k: unescape(v) for k, v in _ATTR.findall(head)}
        if state == "call_head":
            name = attrs.get("tool", "").strip()
            if not name:
                self._broken("the call has no tool name")
                return GO_ON
            self.state = "body"
            self.start(name)
            if self.done:  # an unknown tool: failed already; skip to the end
                self.state = "broken"
            return GO_ON
        if "key" not in attrs:
            self._broken("an argument without a key")
            return GO_ON
        if not self.done:
            key = attrs["key"]
            schema = param_schema(self.parser.schemas, self.name, key)
            if not schema_types(schema) and attrs.get("type"):
                schema = {"type": attrs["type"]}  # the type the model wrote
            self._size = 0
            self._value = ValueWriter(self._args, key, schema, self.args)
        self.state = "value"
        return GO_ON

    def _end_value(self) -> None:
        value, self._value = self._value, None
        if value is not None and not self.done:
            value.close()

    def _refute(self, text: str) -> None:
        """The ``<|close|>argument<|sep|>`` held inside a value was its text."""
        self.state = "value"
        self._value_text(ARG_END + "".join(self._pending) + text)
        self._pending = []

    def _complete(self) -> None:
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
        self.state = "broken"

    def close(self, interrupted: bool = False) -> None:
        if self._problem is not None and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the call")
            return
        super().close(interrupted)


class KimiK3Parser(ToolParser):
    """``tool_parser="kimi_k3"``: Kimi K3's XTML calls (the module docstring); see
    :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "kimi_k3"
    call_open: ClassVar[tuple[str, ...]] = (CALL,)
    call_close: ClassVar[tuple[str, ...]] = (CALL_END,)
    reasoning_open: ClassVar[tuple[str, ...]] = (THINK,)
    reasoning_close: ClassVar[tuple[str, ...]] = (THINK_END,)
    dropped: ClassVar[tuple[str, ...]] = (
        '<|open|>message role="assistant"<|sep|>',
        RESPONSE,
        "<|close|>response<|sep|>",
        "<|open|>tools<|sep|>",
        "<|close|>tools<|sep|>",
        "<|close|>message<|sep|>",
        "<|end_of_msg|>",
    )

    @classmethod
    def auto_markers(cls) -> tuple[str, ...]:
        return (CALL, THINK, THINK_END, RESPONSE)

    def on_marker(self, marker: str) -> None:
        """The ``response`` element opening inside the reasoning ends it (a model that
        skipped its ``think`` element after the prefill opened it)."""
        if marker == RESPONSE and self.mode == "reasoning":
            self.mode = "text"
            self.reasoning_seen = True
            return
        super().on_marker(marker)

    def open_call(self, marker: str, index: int) -> CallReader:
        return K3Reader(self, index)


def _value_text(value: Any) -> tuple[str, str]:
    """A value's raw text and its XTML type."""
    if isinstance(value, str):
        return value, "string"
    if isinstance(value, bool):
        kind = "boolean"
    elif value is None:
        kind = "null"
    elif isinstance(value, (int, float)):
        kind = "number"
    else:
        kind = "array" if isinstance(value, list) else "object"
    return dumps_bounded(value, max_depth=None, ensure_ascii=False), kind


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text Kimi K3 writes for ``calls`` (each ``{"name": ..., "args": {...}}``, as
    :class:`~callstream.ToolCall`) after its generation prompt: the ``think`` element if
    ``reasoning`` is given, the ``response`` with the text, then the ``tools`` element
    with a ``call`` per call. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"{THINK}{reasoning}{THINK_END}")
    parts.append(f"{RESPONSE}{text}<|close|>response<|sep|>")
    written = []
    for n, call in enumerate(calls, 1):
        written.append(f'{CALL} tool="{escape(call["name"])}" index="{n}"{SEP}')
        for key, value in call.get("args", {}).items():
            raw, kind = _value_text(value)
            written.append(f'{ARG} key="{escape(key)}" type="{kind}"{SEP}{raw}{ARG_END}')
        written.append(CALL_END)
    if written:
        parts.append("<|open|>tools<|sep|>" + "".join(written) + "<|close|>tools<|sep|>")
    parts.append("<|close|>message<|sep|>")
    return "".join(parts)
