"""Gemma 4: calls written in its own object notation, ``<|tool_call>call:NAME{...}<tool_call|>``.

The shape (the ``tool_calls`` section of the Gemma 4 chat template, google/gemma-4-*-it)::

    <|channel>thought
    The user wants the weather in Paris.
    <channel|><|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>

After ``call:`` the tool's name, then its arguments as an object whose keys are bare
(``key with space:1`` is the key ``"key with space"``; a key between ``<|"|>`` quotes is
read too) and whose values are:

- a string between ``<|"|>`` quotes, unescaped (newlines, ``"``, ``{`` and the markers'
  text are the string's own characters);
- a bare number, ``true``, ``false`` or ``null`` (Python's ``str()`` of a float:
  ``1e-05``);
- an object ``{...}`` or a list ``[...]`` of the same, items split by ``,`` (a space
  after it is allowed).

Typing: without ``tools=``, a quoted value is a string and a bare one is read by the
rule of :data:`callstream.tool_parsers._values.NO_SCHEMA_RULE` (a JSON number or literal,
else the text as a string). With ``tools=``, each value is typed by its schema (the
tool's parameter, and inside objects and lists their ``properties`` and ``items``): a
bare ``42`` for a string parameter is ``"42"``, a quoted ``<|"|>3<|"|>`` for an integer
one is ``3``. Strings stream as they grow.

Several calls follow each other; text may stand before and after them (the template
renders a message's text after its calls). Reasoning: the thought channel
``<|channel>thought`` ... ``<channel|>``; the thinking-off generation prompt
``<|turn>model\\n<|channel>thought\\n<channel|>`` closes it in the prefill. A call ends at
``<tool_call|>``: a call the text ends before it is cut (``<tool_call|>`` is not a stop
token: the stop is the ``<|tool_response>`` after it). The template's tokens
``<|turn>``, ``<turn|>``, ``<|tool_response>`` ... are dropped outside calls.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._markers import MarkerSet
from callstream.tool_parsers._values import json_string_part, schema_types, type_value

__all__ = ("Gemma4Parser", "write")

OPEN: Final = "<|tool_call>"
CLOSE: Final = "<tool_call|>"
QUOTE: Final = '<|"|>'
THOUGHT_OPEN: Final = "<|channel>thought"
THOUGHT_CLOSE: Final = "<channel|>"

#: characters of a name or a bare key or value kept (longer: the call is malformed)
MAX_BARE: Final = 4096

_STRUCTURE: Final = re.compile(r"[{}\[\],:<]")
_SPACE: Final = re.compile(r"[^ \t\r\n]")

# what the innermost container expects next
_KEY: Final = 0  # a key (or the container's end)
_COLON: Final = 1  # ":" after a quoted key
_VALUE: Final = 2
_AFTER: Final = 3  # "," or the container's end


def _child(schema: Mapping[str, Any] | None, key: str | None) -> Mapping[str, Any] | None:
    """The schema of a member (``key``) or an item (``key`` None) of ``schema``."""
    if not isinstance(schema, Mapping):
        return None
    if key is None:
        items = schema.get("items")
        return items if isinstance(items, Mapping) else None
    properties = schema.get("properties")
    found = properties.get(key) if isinstance(properties, Mapping) else None
    return found if isinstance(found, Mapping) else None


class _Frame:
    """An open object or list of the arguments."""

    __slots__ = ("count", "expect", "is_object", "schema")

    def __init__(self, is_object: bool, schema: Mapping[str, Any] | None) -> None:
        self.is_object = is_object
        self.schema = schema
        self.count = 0
        self.expect = _KEY if is_object else _VALUE


class _CallReader(CallReader):
    """Reads ``call:NAME{...}`` up to ``<tool_call|>``, writing the arguments' JSON text
    as it streams (module docstring)."""

    __slots__ = (
        "_bare",
        "_bare_size",
        "_done",
        "_ends",
        "_held",
        "_key",
        "_markers",
        "_problem",
        "_quotes",
        "_stack",
        "_string",
        "_string_parts",
    )

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._markers: Final = MarkerSet((QUOTE, CLOSE, OPEN))
        self._quotes: Final = MarkerSet((QUOTE,))
        self._ends: Final = MarkerSet((CLOSE, OPEN))
        self._held = ""
        self._bare: list[str] = []  # the name, or a bare key or value, under way
        self._bare_size = 0
        self._stack: list[_Frame] = []
        self._key: str | None = None  # the member whose value comes next
        self._string: str | None = None  # inside quotes: "key", "stream" or "typed"
        self._string_parts: list[str] = []  # a quoted key, or a value typed when whole
        self._done = False  # the arguments object closed
        self._problem = ""

    # --- the loop ----------------------------------------------------------------------

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        pos = start
        end = len(text)
        while pos < end:
            if self._problem:
                return self._skip(text, pos)
            if self._string is not None:
                pos = self._in_string(text, pos)
                continue
            if self._done:
                match = _SPACE.search(text, pos)
                if match is None:
                    self.keep(text[pos:])
                    return None
                self.keep(text[pos : match.start()])
                pos = match.start()
                if text[pos] != "<":
                    self._broken("text after the call's arguments")
                    continue
            match = _STRUCTURE.search(text, pos)
            at = end if match is None else match.start()
            if at > pos:
                self._take_bare(text[pos:at])
                self.keep(text[pos:at])
            if at >= end:
                return None
            if text[at] == "<":
                step = self._angle(text, at)
                if step is None or isinstance(step, tuple):
                    return step
                pos = step
            else:
                self.keep(text[at])
                self._structure(text[at])
                pos = at + 1
        return None

    def _angle(self, text: str, at: int) -> int | tuple[str, int] | None:
        """A ``<`` outside strings: a quote, the end, a new call, held, or bare text."""
        marker = self._markers.starts_at(text, at)
        if marker is None:
            if self._markers.could_start_at(text, at):
                self._held = text[at:]
                return None
            self._take_bare("<")
            self.keep("<")
            return at + 1
        if marker == QUOTE:
            self.keep(marker)
            self._open_string()
            return at + len(marker)
        if marker == OPEN:
            self.fail("a new call opened before this one ended")
            return text, at
        if self._done:
            self.end()
        elif self._stack or self.name is not None:
            self.fail("the call's arguments are not complete at its end marker")
        else:
            self.fail("the call has no arguments object after its name")
        return text, at + len(marker)

    def _skip(self, text: str, pos: int) -> tuple[str, int] | None:
        """In a malformed call: up to its end marker (or a new call), then fail."""
        at, marker = self._ends.find(text, pos)
        self.keep(text[pos:at])
        if marker is None:
            self._held = text[at:]
            return None
        self.fail(self._problem)
        return text, at if marker == OPEN else at + len(marker)

    def _broken(self, problem: str) -> None:
        if not self._problem:
            self._problem = problem

    def close(self, interrupted: bool = False) -> None:
        if self._problem and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the call")
        else:
            super().close(interrupted)

    # --- the parts ---------------------------------------------------------------------

    def _take_bare(self, piece: str) -> None:
        if self._bare_size + len(piece) > MAX_BARE:
            self._broken("a name, key or bare value too long")
            return
        if not self._stack or self._stack[-1].expect in (_KEY, _VALUE):
            self._bare.append(piece)
            self._bare_size += len(piece)
        elif piece.strip():
            self._broken("text where ',' or the end of an object or list was expected")

    def _pop_bare(self) -> str:
        bare = "".join(self._bare).strip()
        self._bare = []
        self._bare_size = 0
        return bare

    def _structure(self, char: str) -> None:
        """A ``{ } [ ] , :`` outside strings."""
        if not self._stack and self.name is None:
            if char == "{":
                self._begin()
            else:
                self._take_bare(char)  # a name's own character (or a malformed one)
            return
        if self._done:
            self._broken("text after the call's arguments")
            return
        frame = self._stack[-1]
        if char == ":" and frame.is_object and frame.expect in (_KEY, _COLON):
            key = self._pop_bare() if frame.expect == _KEY else self._key
            if not key:
                self._broken("an argument without a key")
                return
            self._member(frame, key)
        elif char == ":" and frame.expect == _VALUE and not frame.is_object:
            self._take_bare(char)
        elif char == ":" and frame.expect == _VALUE and self._bare:
            self._take_bare(char)  # a bare value with a ':' in it (a time)
        elif char in "{[":
            if frame.expect != _VALUE or self._pop_bare():
                self._broken(f"a {char!r} where no value was expected")
                return
            self._open(char == "{", _child(frame.schema, self._key if frame.is_object else None))
        elif char in ",}]":
            self._end_value(frame, char)
        else:
            self._broken(f"a {char!r} out of place in the arguments")

    def _begin(self) -> None:
        """The ``{`` after the name: the call is announced, its arguments begin."""
        name = self._pop_bare()
        if name.startswith("call:"):
            name = name[len("call:") :].strip()
        if not name:
            self._broken("the call has no name")
            return
        self.start(name)
        schemas = self.parser.schemas
        self._open(True, schemas.get(name) if schemas is not None else None)

    def _open(self, is_object: bool, schema: Mapping[str, Any] | None) -> None:
        lead = ""
        if self._stack:
            parent = self._stack[-1]
            parent.expect = _AFTER
            lead = self._lead(parent)
        self.args(lead + ("{" if is_object else "["))
        self._stack.append(_Frame(is_object, schema))

    def _member(self, frame: _Frame, key: str) -> None:
        """A key: written with its colon; its value comes next."""
        lead = ", " if frame.count else ""
        frame.count += 1
        frame.expect = _VALUE
        self._key = key
        self.args(f"{lead}{dumps_bounded(key, max_depth=None, ensure_ascii=False)}: ")

    def _value_schema(self, frame: _Frame) -> Mapping[str, Any] | None:
        return _child(frame.schema, self._key if frame.is_object else None)

    def _lead(self, frame: _Frame) -> str:
        """The separator before a list's item (a member's was written with its key)."""
        if frame.is_object:
            return ""
        lead = ", " if frame.count else ""
        frame.count += 1
        return lead

    def _end_value(self, frame: _Frame, char: str) -> None:
        """A ``,`` or a container's end: the bare value under way (if any) is whole."""
        bare = self._pop_bare()
        if frame.expect == _VALUE and bare:
            value = type_value(bare, self._value_schema(frame))
            self.args(self._lead(frame) + dumps_bounded(value, max_depth=None, ensure_ascii=False))
            frame.expect = _AFTER
        elif bare or (frame.expect in (_VALUE, _COLON) and frame.is_object):
            self._broken("an argument without its value" if not bare else "a key without ':'")
            return
        if char == ",":
            if frame.expect != _AFTER:
                self._broken("a ',' where no value came before it")
                return
            frame.expect = _KEY if frame.is_object else _VALUE
            return
        if (char == "}") != frame.is_object:
            self._broken(f"a {char!r} closing the wrong kind of container")
            return
        self._stack.pop()
        self.args(char)
        if not self._stack:
            self._done = True

    # --- strings -----------------------------------------------------------------------

    def _open_string(self) -> None:
        """A ``<|"|>`` outside strings: a quoted key or value begins."""
        if not self._stack or self._done or self._pop_bare():
            self._broken("a quoted string out of place")
            return
        frame = self._stack[-1]
        if frame.is_object and frame.expect == _KEY:
            self._string = "key"
        elif frame.expect == _VALUE:
            kinds = schema_types(self._value_schema(frame))
            typed = bool(kinds) and "string" not in kinds
            self._string = "typed" if typed else "stream"
            if not typed:
                self.args(self._lead(frame) + '"')
        else:
            self._broken("a quoted string out of place")
            return
        self._string_parts = []

    def _in_string(self, text: str, pos: int) -> int:
        """Inside quotes: up to the closing ``<|"|>``; returns the next position."""
        at = text.find(QUOTE, pos)
        stop = self._quotes.held_from(text, pos) if at < 0 else at
        piece = text[pos:stop]
        self.keep(piece)
        if piece:
            if self._string == "stream":
                self.args(json_string_part(piece))
            else:
                self._string_parts.append(piece)
        if at < 0:
            self._held = text[stop:]
            return len(text)
        self.keep(QUOTE)
        self._close_string()
        return at + len(QUOTE)

    def _close_string(self) -> None:
        kind = self._string
        self._string = None
        raw = "".join(self._string_parts)
        self._string_parts = []
        frame = self._stack[-1]
        if kind == "key":
            self._key = raw  # written with its ':'
            frame.expect = _COLON
            return
        if kind == "typed":
            value = type_value(raw, self._value_schema(frame))
            self.args(self._lead(frame) + dumps_bounded(value, max_depth=None, ensure_ascii=False))
        else:
            self.args('"')
        frame.expect = _AFTER


class Gemma4Parser(ToolParser):
    """``tool_parser="gemma4"``: Gemma 4's ``<|tool_call>call:NAME{...}<tool_call|>``
    calls (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "gemma4"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    reasoning_open: ClassVar[tuple[str, ...]] = (THOUGHT_OPEN,)
    reasoning_close: ClassVar[tuple[str, ...]] = (THOUGHT_CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = (
        "<|turn>",
        "<turn|>",
        "<|tool_response>",
        "<tool_response|>",
        "<|think|>",
        "<eos>",
    )

    def open_call(self, marker: str, index: int) -> CallReader:
        return _CallReader(self, index)


def _notation(value: Any) -> str:
    """``value`` in Gemma 4's notation (as its chat template's ``format_argument``)."""
    if isinstance(value, str):
        return f"{QUOTE}{value}{QUOTE}"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_notation(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_notation(v) for v in value) + "]"
    return dumps_bounded(value, max_depth=None)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text Gemma 4 writes for ``calls`` (each ``{"name": ..., "args": {...}}``): the
    thought channel if ``reasoning`` is given, one ``<|tool_call>`` per call, then the
    text (the template renders a message's text after its calls). Keys are written bare,
    so a key holding ``:``, ``,``, braces or ``<|"|>`` cannot be written. Cost: O(size of
    the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"{THOUGHT_OPEN}\n{reasoning}\n{THOUGHT_CLOSE}")
    for call in calls:
        parts.append(f"{OPEN}call:{call['name']}{_notation(call.get('args', {}))}{CLOSE}")
    parts.append(text)
    return "".join(parts)
