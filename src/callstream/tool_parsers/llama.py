"""Llama's JSON calls: Llama 3.1, 3.2, 3.3 (``llama3_json``) and Llama 4 with a JSON chat
template (``llama4_json``).

The shape (the Llama 3.1 / 3.3 chat template's custom tool calling, Meta's Llama 3.1
prompt-format docs, and the canitoolcall ``llama`` fixtures)::

    {"name": "get_weather", "parameters": {"city": "Paris"}}

The whole message is the call: a JSON object with the name and ``"parameters"`` (or
``"arguments"``; a ``"type": "function"`` key is skipped). Several calls are separated by
``;``. The model may start the call with ``<|python_tag|>`` (Llama 3.1's tag for tool code,
which Llama 3.3 also writes before JSON calls), and then text may come before it.

A message that merely starts with ``{`` is not always a call: a JSON answer
(``{"capital": "Paris"}``, ``{}``, ``{"a": 1} is a dict``) is text (the bug behind vLLM
issue 58824, where such content was lost). So a message starting with ``{`` is held until
it is known: it is a call as soon as it begins ``{"name": "<string>", "parameters": {``
(a ``"type"`` key may come first; the arguments then stream as they arrive), and
otherwise when the whole object is a call (``name`` a non-empty string, an arguments
object, no other keys but ``type``); anything else is released as text. A ``{`` later in
the text starts no call (without ``<|python_tag|>``).

The values are JSON, typed as written (``tools=`` only checks the names). Llama has no
reasoning markers (``<think>`` is read as for every family). The end and header tokens
(``<|eom_id|>``, ``<|eot_id|>``, ``<|start_header_id|>`` ... and Llama 4's ``<|eot|>``,
``<|eom|>``, ``<|header_start|>`` ...) are dropped where a server leaves them in the text;
the prefill is ``<|start_header_id|>assistant<|end_header_id|>\\n\\n``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from callstream._assembly.types import Signal
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import TEXT_CALL_INDEX, CallReader, ToolParser
from callstream.tool_parsers._json_list import EnvelopeListReader
from callstream.tool_parsers._json_text import ANGLE, END, ValueScan
from callstream.tool_parsers._llama import LLAMA3_TOKENS, LLAMA4_TOKENS

__all__ = ("Llama3JsonParser", "Llama4JsonParser", "write")

PYTHON_TAG: Final = "<|python_tag|>"

#: the start of a message that is surely a call: its name, then its arguments object
_CALL_START: Final = re.compile(
    r'\s*\{\s*(?:"type"\s*:\s*"[^"\\]*"\s*,\s*)?"name"\s*:\s*"(?:[^"\\]|\\.)+"\s*,'
    r'\s*"(?:parameters|arguments)"\s*:\s*\{'
)
#: the start is looked for within this many characters of the message
CALL_START_WITHIN: Final = 4096
_ENVELOPE_KEYS: Final = frozenset({"name", "parameters", "arguments", "type"})


def is_call(text: str) -> bool:
    """Whether ``text`` (one whole JSON object) is a call: a non-empty string name, an
    arguments object, no other keys but ``type``."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if not isinstance(value, dict) or not set(value) <= _ENVELOPE_KEYS:
        return False
    name = value.get("name")
    args = value.get("parameters", value.get("arguments"))
    return isinstance(name, str) and bool(name) and isinstance(args, dict)


class Llama3JsonParser(ToolParser):
    """``tool_parser="llama3_json"``: JSON calls as the whole message or after
    ``<|python_tag|>`` (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "llama3_json"
    call_open: ClassVar[tuple[str, ...]] = (PYTHON_TAG,)
    dropped: ClassVar[tuple[str, ...]] = LLAMA3_TOKENS

    def __init__(self, tools: Sequence[Any] | None = None, prefill: str = "") -> None:
        self._starting = False  # the prefill is read as it is
        self._head: list[str] = []  # the message's start, held while undecided
        self._head_size = 0
        self._scan: ValueScan | None = None
        super().__init__(tools=tools, prefill=prefill)
        self._starting = True

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A JSON object after the marker (Llama 4's ``<|python_start|>`` may open a
        pythonic list instead)."""
        body = after.lstrip()
        return None if not body else body[0] == "{"

    def open_call(self, marker: str, index: int) -> CallReader:
        return EnvelopeListReader(self, index, ";")

    def feed(self, piece: str) -> list[Signal]:
        if not self._starting or not isinstance(piece, str) or self.closed:
            return super().feed(piece)
        head = self._head
        size = self._head_size
        head.append(piece)
        self._head_size += len(piece)
        scan = self._scan
        if scan is None:
            if not piece.lstrip():  # only the whitespace before the message so far
                return []
            joined = "".join(head)
            first = joined.lstrip()
            if first[0] != "{":
                return self._decided(call=False)
            scan = self._scan = ValueScan("{")
            size = len(joined) - len(first)  # the object's "{"
            piece = joined
        if size < CALL_START_WITHIN:
            match = _CALL_START.match("".join(head))
            if match is not None and match.end() <= CALL_START_WITHIN:
                return self._decided(call=True)
        found, at = scan.scan(piece, size - (self._head_size - len(piece)))
        while found == ANGLE:
            found, at = scan.scan(piece, at + 1)
        if found != END:
            return []
        joined = "".join(head)
        end = self._head_size - len(piece) + at
        return self._decided(call=is_call(joined[:end]))

    def _decided(self, *, call: bool) -> list[Signal]:
        """The message's start is known: read what was held as a call or as text."""
        self._starting = False
        held = "".join(self._head)
        self._head = []
        self._scan = None
        if call:
            self._reader = self.open_call("", TEXT_CALL_INDEX + self.calls)
            self.calls += 1
            self.mode = "call"
        return super().feed(held)

    def close(self, interrupted: bool = False) -> list[Signal]:
        out: list[Signal] = []
        if self._starting and not self.closed:
            out = self._decided(call=False)  # an object never closed: text
        return out + super().close(interrupted)


class Llama4JsonParser(Llama3JsonParser):
    """``tool_parser="llama4_json"``: Llama 4 with a JSON tool-calling template: the
    calls of ``llama3_json``, which may also stand between ``<|python_start|>`` and
    ``<|python_end|>``, and Llama 4's end and header tokens dropped."""

    name: ClassVar[str] = "llama4_json"
    call_open: ClassVar[tuple[str, ...]] = ("<|python_start|>", PYTHON_TAG)
    call_close: ClassVar[tuple[str, ...]] = ("<|python_end|>",)
    dropped: ClassVar[tuple[str, ...]] = tuple(dict.fromkeys(LLAMA4_TOKENS + LLAMA3_TOKENS))


def write(
    calls: Iterable[Mapping[str, Any]],
    *,
    text: str = "",
    reasoning: str | None = None,
    tag: bool = False,
) -> str:
    """The text a Llama 3 model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``): the calls as ``{"name": ..., "parameters": {...}}`` objects separated by
    ``; ``, after ``<|python_tag|>`` when ``tag`` or when there is text before them
    (without calls: the text alone). ``reasoning`` (Llama has none) is written as a
    ``<think>`` block. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<think>\n{reasoning}\n</think>\n\n")
    parts.append(text)
    bodies = [
        dumps_bounded(
            {"name": c["name"], "parameters": c.get("args", {})}, max_depth=None, ensure_ascii=False
        )
        for c in calls
    ]
    if bodies:
        if tag or text or reasoning is not None:
            parts.append(PYTHON_TAG)
        parts.append("; ".join(bodies))
    return "".join(parts)
