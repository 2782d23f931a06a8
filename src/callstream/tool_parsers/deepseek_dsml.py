"""DeepSeek V3.2, V4 and V4.1 calls: DSML, XML-ish markup with full-width bars, each
argument's value written raw.

The shape (DeepSeek's own encoders, ``encoding/encoding_dsv32.py`` of
deepseek-ai/DeepSeek-V3.2 and its V4 / V4.1 successors, which replace a Jinja
template)::

    text

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

V3.2 (``tool_parser="deepseek_v32"``) names the section ``function_calls``, V4
(``deepseek_v4``) ``tool_calls``, V4.1 (``deepseek_v41``) ``calls``, with a space after
the ``｜DSML｜`` token in every marker (``<｜DSML｜ calls>``, ``<｜DSML｜ invoke
name="x">``, ``</｜DSML｜ parameter>``). Each parser reads every spelling (and writes its
own); an invoke with no section around it is read as a call too. An invoke with no
parameter holds an empty line; ``<｜DSML｜invoke name="x"/>``
(reported by SGLang for V4) is a call with no arguments.

**Values.** ``string="true"``: the raw text is the string, exactly (whitespace, quotes,
``<``, newlines, marker text: only the parameter's closer ends it); it streams as a
growing JSON string. ``string="false"``: the text is JSON. With ``tools=``, the tool's
schema for the parameter decides when the model's word does not fit it: a
``string="false"`` value whose JSON is not of a type the schema allows, or a
``string="true"`` value of a parameter that allows no string, is typed by the schema
(:func:`~callstream.tool_parsers._values.type_value`); without a ``string`` attribute,
the schema, else the one rule of :data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`.
Reasoning: ``<think>`` ... ``</think>`` (the thinking prompt ends with
``<｜Assistant｜><think>``, the non-thinking one with ``<｜Assistant｜></think>``: pass it
as ``prefill``).

Text in the section that is no invoke is an invalid call; an invoke whose closer is
missing before the next invoke or the section's end is invalid; an invoke cut by the
end of the text is invalid, and the invokes before it are kept.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._markers import MarkerSet
from callstream.tool_parsers._section import TEMPLATE_TOKENS, SectionParser
from callstream.tool_parsers._values import (
    ArgsWriter,
    json_string_part,
    param_schema,
    schema_types,
    type_value,
)

__all__ = (
    "DeepSeekV4Parser",
    "DeepSeekV32Parser",
    "DeepSeekV41Parser",
    "write_v4",
    "write_v32",
    "write_v41",
)

_TOKENS: Final = ("｜DSML｜", "｜DSML｜ ")  # V3.2 / V4, V4.1
_SECTIONS: Final = ("function_calls", "tool_calls", "calls")  # V3.2, V4, V4.1


def _openers(word: str) -> tuple[str, ...]:
    return tuple(f"<{token}{word}" for token in _TOKENS)


def _closers(word: str) -> tuple[str, ...]:
    return tuple(f"</{token}{word}>" for token in _TOKENS)


SECTION_OPEN: Final = tuple(f"<{t}{s}>" for s in _SECTIONS for t in _TOKENS)
SECTION_CLOSE: Final = tuple(c for s in _SECTIONS for c in _closers(s))
INVOKE_OPEN: Final = _openers("invoke")
INVOKE_CLOSE: Final = _closers("invoke")
PARAM_OPEN: Final = _openers("parameter")
PARAM_CLOSE: Final = _closers("parameter")

_ATTR: Final = re.compile(r'([\w-]+)\s*=\s*"([^"]*)"')
MAX_ATTRS: Final = 1024
"""Characters of an invoke's or a parameter's attributes at most."""

_SPACE: Final = frozenset(" \t\r\n")
_INVOKE_MARKERS: Final = MarkerSet(
    INVOKE_OPEN + INVOKE_CLOSE + PARAM_OPEN + PARAM_CLOSE + SECTION_OPEN + SECTION_CLOSE
)
_INVOKE_STOPS: Final = MarkerSet(INVOKE_CLOSE + INVOKE_OPEN + SECTION_CLOSE)  # an invoke's end
_VALUE_END: Final = MarkerSet(PARAM_CLOSE)

# the reader's states
_INVOKE_ATTRS = 0  # the invoke's attributes, to its ">"
_BODY = 1  # between parameters: whitespace, a parameter or the invoke's closer
_PARAM_ATTRS = 2  # a parameter's attributes
_VALUE = 3  # a parameter's raw value, to its closer
_BROKEN = 4  # not a valid call: skip to the invoke's closer


def _fits(value: Any, kinds: tuple[str, ...]) -> bool:
    """Whether a JSON value is of one of the schema's types (any, when it names none)."""
    if not kinds:
        return True
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return "integer" in kinds or "number" in kinds
    if isinstance(value, float):
        return "number" in kinds
    kind = {str: "string", dict: "object", list: "array", type(None): "null"}.get(type(value))
    return kind in kinds


def typed(raw: str, declared: str | None, schema: Mapping[str, Any] | None) -> Any:
    """The value of a parameter's raw text (the module docstring's rule): ``declared``
    is its ``string`` attribute (``"true"``, ``"false"`` or None). Never raises."""
    kinds = schema_types(schema)
    if declared == "true" and (not kinds or "string" in kinds):
        return raw
    if declared == "false":
        try:
            value = json.loads(raw)
        except ValueError:
            pass
        else:
            finite = not isinstance(value, float) or math.isfinite(value)
            if finite and _fits(value, kinds):
                return value
    return type_value(raw, schema)


def _streams(declared: str | None, kinds: tuple[str, ...]) -> bool:
    """Whether the value is a string whatever its text: it streams as it grows."""
    if declared == "true":
        return not kinds or "string" in kinds
    return declared is None and bool(kinds) and all(k == "string" for k in kinds)


class InvokeReader(CallReader):
    """One ``<｜DSML｜invoke name="...">`` ... ``</｜DSML｜invoke>``, from just after
    the invoke's opener (the module docstring)."""

    __slots__ = (
        "_attrs",
        "_declared",
        "_done_at",
        "_from",
        "_held",
        "_key",
        "_markers",
        "_parts",
        "_problem",
        "_quoted",
        "_schema",
        "_state",
        "_stops",
        "_streaming",
        "_value_end",
        "_writer",
    )

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._markers: Final = _INVOKE_MARKERS
        self._stops: Final = _INVOKE_STOPS
        self._value_end: Final = _VALUE_END
        self._writer = ArgsWriter()
        self._state = _INVOKE_ATTRS
        self._attrs: list[str] = []
        self._quoted = False
        self._key = ""
        self._declared: str | None = None
        self._schema: Mapping[str, Any] | None = None
        self._streaming = False
        self._parts: list[str] = []
        self._held = ""
        self._problem: str | None = None
        self._done_at = -1
        self._from = 0

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        self._from = start
        pos = start
        end = len(text)
        while pos < end and self._done_at < 0:
            self._keep_to(text, pos)  # the raw text before a failure, however it was cut
            state = self._state
            if state == _VALUE:
                pos = self._value(text, pos)
            elif state == _BROKEN:
                pos = self._skip(text, pos)
            elif text[pos] == "<" and not (state != _BODY and self._quoted):
                marker = self._markers.starts_at(text, pos)
                if marker is not None:
                    pos = self._on_marker(marker, pos)
                elif self._markers.could_start_at(text, pos):
                    self._held = text[pos:]
                    pos = end
                else:
                    pos = self._char(text[pos], pos)
            else:
                pos = self._char(text[pos], pos)
        if self._done_at >= 0:
            self._keep_to(text, self._done_at)
            return text, self._done_at
        self._keep_to(text, end - len(self._held))
        return None

    # --- the parts ---------------------------------------------------------------------

    def _char(self, char: str, pos: int) -> int:
        """A character outside the values and the markers; returns the next position."""
        state = self._state
        if state == _BODY:
            if char not in _SPACE:
                self._broken("text in the invoke that is no parameter")
            return pos + 1
        # the attributes of the invoke or of a parameter
        if char == '"':
            self._quoted = not self._quoted
        elif char == ">" and not self._quoted:
            attrs = "".join(self._attrs)
            self._attrs = []
            if state == _INVOKE_ATTRS:
                self._invoke(attrs, pos + 1)
            else:
                self._param(attrs)
            return pos + 1
        self._attrs.append(char)
        if len(self._attrs) > MAX_ATTRS:
            self._broken("the attributes are too long, or their '>' is missing")
        return pos + 1

    def _invoke(self, attrs: str, after: int) -> None:
        """The invoke's opener is complete: announce the call."""
        name = dict(_ATTR.findall(attrs)).get("name", "")
        if not name:
            self._broken("the invoke has no name")
            return
        self.start(name)
        if not self.started:  # a tool not offered: failed; skip to its end
            self._broken("")
            return
        if attrs.rstrip().endswith("/"):  # <｜DSML｜invoke name="x"/>: no arguments
            self.args(self._writer.close())
            self.end()
            self._done_at = after
            return
        self._state = _BODY

    def _param(self, attrs: str) -> None:
        """A parameter's opener is complete: its value follows."""
        found = dict(_ATTR.findall(attrs))
        key = found.get("name", "")
        if not key:
            self._broken("a parameter has no name")
            return
        declared = found.get("string")
        self._key = key
        self._declared = declared if declared in ("true", "false") else None
        self._schema = param_schema(self.parser.schemas, self.name, key)
        self._streaming = _streams(self._declared, schema_types(self._schema))
        self._parts = []
        self._state = _VALUE
        if self._streaming:
            writer = self._writer
            self.args(writer.key(key) + writer.string_start())

    def _value(self, text: str, pos: int) -> int:
        """A parameter's raw value: everything up to its closer."""
        at, marker = self._value_end.find(text, pos)
        if at > pos:
            piece = text[pos:at]
            if self._streaming:
                self.args(json_string_part(piece))
            else:
                self._parts.append(piece)
        if marker is None:
            self._held = text[at:]
            return len(text)
        writer = self._writer
        if self._streaming:
            self.args(writer.string_end())
        else:
            value = typed("".join(self._parts), self._declared, self._schema)
            self._parts = []
            self.args(writer.key(self._key) + writer.value(value))
        self._state = _BODY
        return at + len(marker)

    def _on_marker(self, marker: str, pos: int) -> int:
        """A marker outside the values at ``pos``; returns the next position."""
        state = self._state
        if state == _BODY and marker in PARAM_OPEN:
            self._state = _PARAM_ATTRS
            return pos + len(marker)
        if state == _BODY and marker in INVOKE_CLOSE:
            self.args(self._writer.close())
            self.end()
            self._done_at = pos + len(marker)
            return self._done_at
        if marker in INVOKE_CLOSE:
            self.fail("the invoke ends inside a parameter's attributes")
            self._done_at = pos + len(marker)
            return self._done_at
        if marker in PARAM_OPEN or marker in PARAM_CLOSE or marker in SECTION_OPEN:
            self._broken(f"a misplaced {marker!r} in the invoke")
            return pos + len(marker)
        # a new invoke, or the section's end: this one never closed
        self.fail("the invoke's closer is missing: a new invoke or the section's end came first")
        self._done_at = pos
        return pos

    def _broken(self, problem: str) -> None:
        if self._problem is None:
            self._problem = problem
        self._state = _BROKEN

    def _skip(self, text: str, pos: int) -> int:
        """In a broken invoke: find its closer, or a new invoke or the section's end."""
        at, marker = self._stops.find(text, pos)
        if marker is None:
            self._held = text[at:]
            return len(text)
        self._keep_to(text, at)
        self.fail(self._problem or "malformed invoke")
        self._done_at = at + len(marker) if marker in INVOKE_CLOSE else at
        return self._done_at

    def _keep_to(self, text: str, at: int) -> None:
        if at > self._from:
            self.keep(text[self._from : at])
            self._from = at

    def close(self, interrupted: bool = False) -> None:
        if self._problem and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the invoke")
            return
        super().close(interrupted)


class DeepSeekV32Parser(SectionParser):
    """``tool_parser="deepseek_v32"``: DeepSeek V3.2's DSML calls (the module docstring);
    see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "deepseek_v32"
    token: ClassVar[str] = "｜DSML｜"  # as this version writes it
    section: ClassVar[str] = "function_calls"
    section_open: ClassVar[tuple[str, ...]] = SECTION_OPEN
    section_close: ClassVar[tuple[str, ...]] = SECTION_CLOSE
    section_call_open: ClassVar[tuple[str, ...]] = INVOKE_OPEN
    bare_call_open: ClassVar[tuple[str, ...]] = INVOKE_OPEN
    call_open: ClassVar[tuple[str, ...]] = SECTION_OPEN + INVOKE_OPEN
    # markers out of place in the text: dropped (a parameter's opener with them)
    call_close: ClassVar[tuple[str, ...]] = SECTION_CLOSE + INVOKE_CLOSE + PARAM_CLOSE + PARAM_OPEN
    dropped: ClassVar[tuple[str, ...]] = TEMPLATE_TOKENS

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """The section opener of this version."""
        return marker == f"<{cls.token}{cls.section}>"

    def open_call(self, marker: str, index: int) -> CallReader:
        return InvokeReader(self, index)


class DeepSeekV4Parser(DeepSeekV32Parser):
    """``tool_parser="deepseek_v4"``: DeepSeek V4's DSML calls (``tool_calls``)."""

    name: ClassVar[str] = "deepseek_v4"
    section: ClassVar[str] = "tool_calls"


class DeepSeekV41Parser(DeepSeekV32Parser):
    """``tool_parser="deepseek_v41"``: DeepSeek V4.1's DSML calls (``calls``, a space
    after the ``｜DSML｜`` token)."""

    name: ClassVar[str] = "deepseek_v41"
    token: ClassVar[str] = "｜DSML｜ "
    section: ClassVar[str] = "calls"


def _write(
    cls: type[DeepSeekV32Parser],
    calls: Iterable[Mapping[str, Any]],
    text: str,
    reasoning: str | None,
) -> str:
    """The text a DSML version writes (its encoder's rendering of an assistant turn)."""
    token = cls.token
    invokes: list[str] = []
    for call in calls:
        params = []
        for key, value in dict(call.get("args", {})).items():
            is_str = isinstance(value, str)
            raw = value if is_str else dumps_bounded(value, max_depth=None, ensure_ascii=False)
            params.append(
                f'<{token}parameter name="{key}" string="{"true" if is_str else "false"}">'
                f"{raw}</{token}parameter>"
            )
        body = "\n".join(params)
        invokes.append(f'<{token}invoke name="{call["name"]}">\n{body}\n</{token}invoke>\n')
    head = "" if reasoning is None else f"<think>{reasoning}</think>"
    section = f"\n\n<{token}{cls.section}>\n{''.join(invokes)}</{token}{cls.section}>"
    return head + text + (section if invokes else "")


def write_v32(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text DeepSeek V3.2 writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``): the reasoning closed by ``</think>`` (``<think>`` written here, though the
    prompt holds it), the text, then the ``function_calls`` section. Cost: O(size)."""
    return _write(DeepSeekV32Parser, calls, text, reasoning)


def write_v4(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text DeepSeek V4 writes for ``calls`` (as :func:`write_v32`, a ``tool_calls``
    section). Cost: O(size)."""
    return _write(DeepSeekV4Parser, calls, text, reasoning)


def write_v41(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text DeepSeek V4.1 writes for ``calls`` (as :func:`write_v32`, a ``calls``
    section, a space after each ``｜DSML｜``). Cost: O(size)."""
    return _write(DeepSeekV41Parser, calls, text, reasoning)
