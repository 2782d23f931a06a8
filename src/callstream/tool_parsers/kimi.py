"""Kimi K2 calls: Kimi-K2-Instruct, K2-Thinking, K2.5 and K2.6 (``kimi_k2``).

The shape (the Kimi K2 chat templates; ``tokenization_kimi`` special tokens)::

    reasoning</think>text<|tool_calls_section_begin|>
    <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>
    {"city": "Paris"}<|tool_call_end|>
    <|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|>
    <|tool_calls_section_end|>

(without the line breaks).
One section of calls; each call is its id, ``functions.{name}:{n}`` (``n`` counts the
calls of the whole conversation), then its arguments as a JSON object. The name is read
from the id (without the ``functions.`` prefix, up to the last ``:``) and the id is kept
as the call's id. The arguments are JSON, typed as written (``tools=`` only checks the
names); a ``<|tool_call_end|>`` inside a JSON string ends nothing. Text inside the
section but outside a call is not the model's message (dropped); text after the section
is.

Reasoning: ``<think>`` ... ``</think>``; K2-Thinking, K2.5 and K2.6 prefill ``<think>``
(``<|im_assistant|>assistant<|im_middle|><think>``), and ``<think></think>`` with thinking
off. These models sometimes open their calls without closing the reasoning (vLLM's Kimi
K2 reasoning parser ends the reasoning at the calls for this): the section's opener (or
a call's) inside the reasoning ends the reasoning (these markers are special tokens a
model does not write as prose). The chat template's ``<|im_end|>``, ``<|im_assistant|>``,
``<|im_user|>``, ``<|im_system|>`` and ``<|im_middle|>`` are dropped where a server
leaves them in the text.

Cost: linear in the text; memory: the held tail and the call's id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._assembly.options import MAX_NAME_CHARS
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, TextKind, ToolParser
from callstream.tool_parsers._json_text import ANGLE, END, ValueScan
from callstream.tool_parsers._markers import MarkerSet

__all__ = ("KimiK2Parser", "write")

SECTION: Final = "<|tool_calls_section_begin|>"
SECTION_END: Final = "<|tool_calls_section_end|>"
CALL: Final = "<|tool_call_begin|>"
ARGS: Final = "<|tool_call_argument_begin|>"
CALL_END: Final = "<|tool_call_end|>"

_ID: Final = MarkerSet((ARGS, CALL_END, CALL, SECTION_END))
_AFTER: Final = MarkerSet((CALL_END, CALL, SECTION_END))
_JSON_ENDS: Final = MarkerSet((CALL_END, CALL, SECTION_END))


def name_of(call_id: str) -> str:
    """The tool name in a Kimi call id: ``functions.get_weather:0`` -> ``get_weather``
    (an id without the prefix or the counter is read too)."""
    name = call_id.rpartition(":")[0] if ":" in call_id else call_id
    return name.removeprefix("functions.").strip()


class KimiReader(CallReader):
    """Reads one Kimi K2 call, from just after ``<|tool_call_begin|>``."""

    __slots__ = ("_held", "_id", "_id_size", "_problem", "_scan", "_state")

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._state = "id"  # id, before (the JSON), json, after (the end marker), broken
        self._held = ""
        self._id: list[str] = []
        self._id_size = 0
        self._problem: str | None = None
        self._scan: ValueScan | None = None

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        pos = start
        end = len(text)
        while pos < end:
            state = self._state
            if state == "json":
                pos = self._json(text, pos)
                if pos < 0:
                    return None
                continue
            if state == "before":
                stripped = pos
                while stripped < end and text[stripped] in " \t\r\n":
                    stripped += 1
                self.keep(text[pos:stripped])
                pos = stripped
                if pos < end:
                    if text[pos] == "{":
                        self._scan = ValueScan("{")
                        self._state = "json"
                    else:
                        self._problem = "the call's arguments are not a JSON object"
                        self._state = "broken"
                continue
            found = _ID if state == "id" else _AFTER
            at, marker = found.find(text, pos)
            if at > pos:
                self.keep(text[pos:at])
                self._text(text[pos:at])
            if marker is None:
                self._held = text[at:]
                return None
            self.keep(marker)
            if self._marker(marker):
                return text, at + len(marker) if marker == CALL_END else at
            pos = at + len(marker)
        return None

    def _text(self, text: str) -> None:
        if self._state == "id":
            self._id.append(text)
            self._id_size += len(text)
            if self._id_size > MAX_NAME_CHARS:
                self._id = []
                self._problem = f"the call's id exceeds {MAX_NAME_CHARS} characters"
                self._state = "broken"
        elif self._state == "after" and text.strip() and self._problem is None:
            self._problem = "text after the call's JSON arguments"

    def _marker(self, marker: str) -> bool:
        """Read ``marker``; True when the call is over."""
        if self._state == "id" and marker == ARGS:
            call_id = "".join(self._id).strip()
            self._id = []
            name = name_of(call_id)
            if not name:
                self._problem = "the call has no name"
                self._state = "broken"
                return False
            self.start(name, call_id)
            self._state = "before"
            return False
        if marker == CALL_END and self._state == "after" and self._problem is None:
            self.end()
        elif marker == CALL_END and self._state == "id":
            self.fail("the call has no arguments")
        else:
            self.fail(self._problem or "the call did not end before the next marker")
        return True

    def _json(self, text: str, pos: int) -> int:
        """The arguments' JSON from ``text[pos]``: the next position, or -1 (held)."""
        scan = self._scan
        assert scan is not None
        found, at = scan.scan(text, pos)
        while found == ANGLE:
            if _JSON_ENDS.starts_at(text, at) is not None:
                break
            if _JSON_ENDS.could_start_at(text, at):
                self._take(text[pos:at])
                self._held = text[at:]
                return -1
            found, at = scan.scan(text, at + 1)
        self._take(text[pos:at])
        if found == END:
            self._state = "after"
        elif found == ANGLE:  # a marker before the JSON closed
            self._problem = "the call's JSON arguments are not complete"
            self._state = "after"
        return at

    def _take(self, piece: str) -> None:
        if piece:
            self.keep(piece)
            self.args(piece)

    def close(self, interrupted: bool = False) -> None:
        if self._problem is not None and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the call")
            return
        super().close(interrupted)


class KimiK2Parser(ToolParser):
    """``tool_parser="kimi_k2"``: Kimi K2 calls in a section of calls (the module
    docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "kimi_k2"
    call_open: ClassVar[tuple[str, ...]] = (CALL,)
    call_close: ClassVar[tuple[str, ...]] = (CALL_END, SECTION_END)
    dropped: ClassVar[tuple[str, ...]] = (
        "<|im_end|>",
        "<|im_assistant|>",
        "<|im_user|>",
        "<|im_system|>",
        "<|im_middle|>",
    )

    def __init__(self, tools: Any = None, prefill: str = "") -> None:
        self._in_section = False
        super().__init__(tools=tools, prefill=prefill)

    @classmethod
    def auto_markers(cls) -> tuple[str, ...]:
        return (SECTION, CALL)

    def markers(self, mode: str) -> tuple[str, ...]:
        if mode == "text":
            return (*super().markers(mode), SECTION)
        if mode == "section":
            return (CALL, SECTION_END, *self.dropped)
        if mode == "reasoning":
            return (*super().markers(mode), SECTION, CALL)
        return super().markers(mode)

    def text_kind(self, mode: str) -> TextKind:
        return None if mode == "section" else super().text_kind(mode)

    def on_marker(self, marker: str) -> None:
        """The section and its calls as modes; a section (or a call) opening inside the
        reasoning ends the reasoning first (module docstring)."""
        if self.mode == "reasoning" and marker in (SECTION, CALL):
            self.mode = "text"
            self.reasoning_seen = True
        mode = self.mode
        if marker == SECTION and mode == "text":
            self.mode = "section"
            self._in_section = True
        elif marker == SECTION_END:
            self.mode = "text"
            self._in_section = False
        elif marker == CALL and mode == "section":
            self.mode = "text"
            super().on_marker(marker)
        else:
            super().on_marker(marker)

    def after_call(self) -> str:
        return "section" if self._in_section else "text"

    def open_call(self, marker: str, index: int) -> CallReader:
        return KimiReader(self, index)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text Kimi K2 writes for ``calls`` (each ``{"name": ..., "args": {...}}``, as
    :class:`~callstream.ToolCall`): the reasoning block if given, the text, then one
    section with a call per call (ids ``functions.{name}:{n}``), as its chat template
    renders them. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<think>{reasoning}</think>")
    parts.append(text)
    body = []
    for n, call in enumerate(calls):
        args = dumps_bounded(call.get("args", {}), max_depth=None, ensure_ascii=False)
        body.append(f"{CALL}functions.{call['name']}:{n}{ARGS}{args}{CALL_END}")
    if body:
        parts.append(SECTION + "".join(body) + SECTION_END)
    return "".join(parts)
