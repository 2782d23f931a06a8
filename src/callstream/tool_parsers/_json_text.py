"""Reading JSON written inside model text, as it streams: the families whose calls are JSON.

:class:`ValueScan` follows the extent of one JSON value over pieces of text, aware of
strings (a ``</tool_call>`` or a ``}`` inside a string ends nothing) and of nesting; it
does not check the grammar (the assembler parses the argument text, and malformed text
makes the call invalid there). It stops at a ``<`` outside any string, which valid JSON
never holds there: the caller decides whether a marker starts at it.

:class:`EnvelopeReader` reads a call written as a JSON object ``{"name": ...,
"arguments": {...}}`` (keys in any order; ``"parameters"`` for ``"arguments"``; other
keys skipped): the name announces the call, then the arguments object's text streams as
it arrives, fragment by fragment. Arguments written before the name are kept until the
name arrives; arguments written as a JSON string holding an object (double-encoded) are
read when the string ends. The call ends at its end marker (``</tool_call>``), or for a
family without one when the object closes. A malformed envelope, text after the object,
a missing name, or a new call's opener before the end make the call invalid, with the
reason and the raw text; the text after it is read again by the parser.

Cost: linear in the call's text (a regex jumps to the next character that matters);
memory: the held tail, the name, arguments kept until the name, and the raw text kept
for a failure's reason (bounded).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, ClassVar, Final

from callstream._assembly.options import DEFAULT_MAX_ARGUMENT_CHARS, MAX_NAME_CHARS
from callstream.tool_parsers._base import CallReader
from callstream.tool_parsers._markers import MarkerSet

if TYPE_CHECKING:
    from callstream.tool_parsers._base import ToolParser

__all__ = ("EnvelopeReader", "ValueScan")

_IN_STRING: Final = re.compile(r'["\\]')
_IN_CONTAINER: Final = re.compile(r'["{}\[\]<]')
_SCALAR_END: Final = re.compile(r'[\s,:}\]<"{\[]')
_SPACE: Final = re.compile(r"[^ \t\r\n]")


def _skip_space(text: str, pos: int) -> int:
    """The position of the first character at or after ``pos`` that is not JSON space."""
    match = _SPACE.search(text, pos)
    return len(text) if match is None else match.start()


# what ValueScan.scan found
END: Final = 0  # the value ended
MORE: Final = 1  # the text ended inside the value
ANGLE: Final = 2  # a "<" outside any string


class ValueScan:
    """The extent of one JSON value, followed over pieces of text (see the module
    docstring). Start it at the value's first character."""

    __slots__ = ("depth", "escaped", "in_string", "kind")

    def __init__(self, first: str) -> None:
        self.kind: Final = "string" if first == '"' else "container" if first in "{[" else "scalar"
        self.depth = 0
        self.in_string = False
        self.escaped = False

    def scan(self, text: str, pos: int) -> tuple[int, int]:
        """Scan ``text`` from ``pos`` (the value's first character, the first time):
        ``(END, p)``: the value ends just before ``p``; ``(MORE, len(text))``: it goes
        on past the text; ``(ANGLE, p)``: ``text[p]`` is a ``<`` outside any string (scan
        again from ``p + 1`` to read it as part of the value)."""
        end = len(text)
        if self.kind == "scalar":
            match = _SCALAR_END.search(text, pos)
            return (MORE, end) if match is None else (END, match.start())
        if self.escaped:
            self.escaped = False
            pos += 1
        while pos < end:
            if self.in_string:
                pos = self._string(text, pos)
                if pos < 0:
                    return MORE, end
                if self.kind == "string":
                    return END, pos
            elif self.kind == "string":  # the opening quote
                self.in_string = True
                pos += 1
            else:
                found, pos = self._container(text, pos)
                if found != MORE:
                    return found, pos
        return MORE, end

    def _string(self, text: str, pos: int) -> int:
        """Inside a string: the position after its closing quote, or -1 (it goes on)."""
        end = len(text)
        while True:
            match = _IN_STRING.search(text, pos)
            if match is None:
                return -1
            at = match.start()
            if text[at] == '"':
                self.in_string = False
                return at + 1
            if at + 1 >= end:
                self.escaped = True
                return -1
            pos = at + 2

    def _container(self, text: str, pos: int) -> tuple[int, int]:
        """Outside strings in a container: the next character that matters."""
        match = _IN_CONTAINER.search(text, pos)
        if match is None:
            return MORE, len(text)
        at = match.start()
        char = text[at]
        if char == '"':
            self.in_string = True
        elif char in "{[":
            self.depth += 1
        elif char in "}]":
            self.depth -= 1
            if self.depth <= 0:
                return END, at + 1
        else:
            return ANGLE, at
        return MORE, at + 1


# the envelope's states
_BEFORE: Final = 0  # before the object's "{"
_KEY: Final = 1  # a key (or "}") expected
_COLON: Final = 2
_VALUE: Final = 3  # a value expected
_SCAN: Final = 4  # inside a key or a value (ValueScan)
_AFTER: Final = 5  # "," or "}" expected
_DONE: Final = 6  # the object closed: the end marker expected
_BROKEN: Final = 7  # not a valid envelope: skip to the end marker

#: the structural characters each state takes, and the state they lead to
_MOVES: Final = {
    _BEFORE: {"{": _KEY},
    _KEY: {"}": _DONE, ",": _KEY},
    _COLON: {":": _VALUE},
    _AFTER: {",": _KEY, "}": _DONE},
}
_EXPECTED: Final = {
    _BEFORE: "the call's text is not a JSON object",
    _KEY: "the call's JSON object is malformed (a key expected)",
    _COLON: "the call's JSON object is malformed (':' expected)",
    _AFTER: "the call's JSON object is malformed (',' or '}' expected)",
    _DONE: "text after the call's JSON object",
}

_NAME_KEYS: Final = frozenset({"name"})
_ARGS_KEYS: Final = frozenset({"arguments", "parameters"})


class EnvelopeReader(CallReader):
    """A call written as a JSON object with its name and arguments (module docstring).

    Args:
        parser: the tool parser it reports to.
        index: the call's key.
        end_markers: the markers that end the call (``("</tool_call>",)``); empty: the
            call ends when the object closes.

    The keys read as the name and as the arguments are the class attributes
    ``name_keys`` and ``args_keys`` (a family whose envelope names them otherwise,
    Cohere's ``"tool_name"``, subclasses with its own).

    Markers are looked for where the JSON has a ``<`` outside its strings, so the end
    marker, the parser's call openers and its dropped tokens must start with ``<`` (a
    family whose markers look otherwise, ``[TOOL_CALLS]``, reads its calls with a reader
    of its own, or ends them when the object closes).
    """

    __slots__ = (
        "_args_mode",
        "_args_seen",
        "_ends",
        "_held",
        "_key",
        "_parts",
        "_pending",
        "_pending_size",
        "_parts_size",
        "_problem",
        "_restart",
        "_scan",
        "_slot",
        "_state",
        "_stop",
        "_from",
    )

    name_keys: ClassVar[frozenset[str]] = _NAME_KEYS
    args_keys: ClassVar[frozenset[str]] = _ARGS_KEYS

    def __init__(self, parser: ToolParser, index: int, end_markers: tuple[str, ...]) -> None:
        super().__init__(parser, index)
        self._ends: Final = MarkerSet(end_markers)
        # a new call's opener ends this one too (two calls merged by a lost end marker),
        # and so does a template token (<|im_end|>: the message ended inside the call)
        self._restart: Final = MarkerSet(parser.call_open + parser.dropped)
        self._state = _BEFORE
        self._held = ""
        self._scan: ValueScan | None = None
        self._slot = ""  # what the scanned value is: key, name, args, skip
        self._key = ""
        self._parts: list[str] = []  # the raw text of a key, the name, string arguments
        self._pending: list[str] = []  # argument text read before the name
        self._pending_size = 0  # bounded by the assembler's default max_argument_chars
        self._parts_size = 0  # bounded by the assembler's name limit
        self._args_seen = False
        self._args_mode = ""  # "object" (streamed) or "string" (double-encoded)
        self._problem: str | None = None
        self._stop: int | None = None  # where feed() stops (see _angle), when it does
        self._from = 0  # the text before this position is kept (see CallReader.keep)

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        self._from = start
        pos = start
        end = len(text)
        while pos < end:
            state = self._state
            if state == _BROKEN:
                return self._skip(text, pos)
            if state == _SCAN:
                pos = self._value(text, pos)
            else:
                pos = _skip_space(text, pos)
                if pos >= end:
                    break
                char = text[pos]
                if char == "<":
                    stop = self._angle(text, pos)
                    if stop is None:
                        self._broken("a '<' that is no marker outside the call's JSON strings")
                        continue
                    self._stop = stop
                else:
                    pos = self._structure(text, pos, char)
                    if not self._ends and self._state == _DONE:
                        self._keep_to(text, pos)
                        self._finish()
                        return text, pos
            stop = self._stop
            if stop is not None:
                self._stop = None
                return None if stop < 0 else (text, stop)
        self._keep_to(text, end)
        return None

    # --- the parts ---------------------------------------------------------------------

    def _structure(self, text: str, pos: int, char: str) -> int:
        """A structural character of the envelope at ``text[pos]``; returns the next
        position (``pos`` itself when a key or value starts there, or the call broke)."""
        state = self._state
        if state == _VALUE:
            key = self._key
            slot = "name" if key in self.name_keys else "args" if key in self.args_keys else "skip"
            self._begin(text, pos, slot)
            return pos
        if state == _KEY and char == '"':
            self._begin(text, pos, "key")
            return pos
        moves = _MOVES.get(state, {})
        if char not in moves:
            self._broken(_EXPECTED[state])
            return pos
        self._state = moves[char]
        return pos + 1

    def _begin(self, text: str, pos: int, slot: str) -> None:
        """A key or a value starts at ``text[pos]``."""
        self._scan = ValueScan(text[pos])
        self._slot = slot
        self._parts = []
        self._parts_size = 0
        self._state = _SCAN
        if slot == "args":
            if self._args_seen:
                self._broken("the call has its arguments twice")
                return
            self._args_seen = True
            kind = self._scan.kind
            if kind == "container" and text[pos] == "[":
                self._broken("the call's arguments are a list, not an object")
            elif kind == "scalar":
                self._broken("the call's arguments are not a JSON object")
            self._args_mode = "object" if kind == "container" else "string"

    def _value(self, text: str, pos: int) -> int:
        """Scan the key or value under way from ``text[pos]``; returns the next position."""
        scan = self._scan
        assert scan is not None
        found, at = scan.scan(text, pos)
        while found == ANGLE:
            stop = self._angle(text, at)
            if stop is not None:  # an end marker, a new call, or held back
                self._take(text[pos:at])
                self._stop = stop
                return at
            found, at = scan.scan(text, at + 1)
        self._take(text[pos:at])
        if found == END and self._state == _SCAN:  # (_take may have broken the call)
            self._state = _AFTER
            self._complete()
        return at

    def _take(self, piece: str) -> None:
        """Text of the key or value under way."""
        if not piece:
            return
        slot = self._slot
        if slot == "args" and self._args_mode == "object":
            if self.started:
                self.args(piece)
            elif self.name is None:
                self._pending.append(piece)
                self._pending_size += len(piece)
                if self._pending_size > DEFAULT_MAX_ARGUMENT_CHARS:
                    self._broken(
                        f"the call's arguments exceed {DEFAULT_MAX_ARGUMENT_CHARS} characters"
                        " before its name"
                    )
        elif slot != "skip":
            self._parts.append(piece)
            self._parts_size += len(piece)
            limit = DEFAULT_MAX_ARGUMENT_CHARS if slot == "args" else MAX_NAME_CHARS
            if self._parts_size > limit:
                self._broken(f"a {slot} of the call exceeds {limit} characters")

    def _complete(self) -> None:
        """The key or value under way ended."""
        slot = self._slot
        raw = "".join(self._parts)
        self._parts = []
        if slot == "key":
            try:
                key = json.loads(raw)
            except ValueError:
                key = ""
            self._key = key if isinstance(key, str) else ""
            self._state = _COLON
        elif slot == "name":
            try:
                name = json.loads(raw)
            except ValueError:
                name = None
            if not isinstance(name, str) or not name:
                self._broken("the call's name is not a non-empty string")
                return
            self.start(name)
            if self.started and self._pending:
                self.args("".join(self._pending))
            self._pending = []
        elif slot == "args" and self._args_mode == "string":
            self._string_args(raw)

    def _string_args(self, raw: str) -> None:
        """Arguments written as a JSON string: an object's JSON text inside is read."""
        try:
            inner = json.loads(raw)
            value = json.loads(inner) if isinstance(inner, str) else None
        except ValueError:
            value = None
        if not isinstance(value, dict):
            self._broken("the call's arguments are not a JSON object")
            return
        self._args_mode = "object"
        if self.started:
            self.args(inner)
        else:
            self._pending = [inner]

    def _angle(self, text: str, at: int) -> int | None:
        """A ``<`` outside any string at ``text[at]``: the call's end marker (finish it;
        returns the position after it), a new call's opener (fail this one; returns the
        opener's position, for the parser to read; a template token likewise), the start
        of any of them at the end of the text (hold it back; returns -1), or None: no
        marker."""
        marker = self._ends.starts_at(text, at)
        if marker is not None:
            self._keep_to(text, at)
            self._finish()
            return at + len(marker)
        opener = self._restart.starts_at(text, at)
        if opener is not None:
            self._keep_to(text, at)
            self.fail(self._cut_by(opener))
            return at
        if self._ends.could_start_at(text, at) or self._restart.could_start_at(text, at):
            self._keep_to(text, at)
            self._held = text[at:]
            return -1
        return None

    def _cut_by(self, marker: str) -> str:
        """The reason of a call ended by ``marker``: a new call's opener or a template
        token where its end was due."""
        if self._problem is not None:
            return self._problem
        if marker in self.parser.dropped:
            return f"the message ended ({marker}) inside a call: the model did not finish it"
        return "a new call opened before this one ended"

    def _finish(self) -> None:
        """The end marker (or the object's end): the call is complete, or it fails."""
        if self._problem is not None:
            self.fail(self._problem)
        elif self._state != _DONE:
            self.fail("the call's JSON object is not complete at its end marker")
        elif self.name is None:
            self.fail("the call has no name")
        elif not self.started:
            return  # failed when the name came (an unknown tool)
        else:
            if not self._args_seen:
                self.args("{}")
            self.end()

    def _keep_to(self, text: str, at: int) -> None:
        """Keep the call's raw text up to ``at`` (for a failure's reason)."""
        if at > self._from:
            self.keep(text[self._from : at])
            self._from = at

    def _broken(self, problem: str) -> None:
        """The envelope cannot be a valid call: skip to the end marker, then fail."""
        if self._problem is None:
            self._problem = problem
        self._state = _BROKEN

    def _skip(self, text: str, pos: int) -> tuple[str, int] | None:
        """In a broken call: find the end marker (or a new call's opener)."""
        end_at, marker = self._ends.find(text, pos)
        open_at, opener = self._restart.find(text, pos)
        if opener is not None and (marker is None or open_at < end_at):
            self._keep_to(text, open_at)
            self.fail(self._cut_by(opener))
            return text, open_at
        if marker is not None:
            self._keep_to(text, end_at)
            self.fail(self._problem or "malformed call")
            return text, end_at + len(marker)
        held = min(end_at, open_at)
        self._keep_to(text, held)
        self._held = text[held:]
        return None

    def close(self, interrupted: bool = False) -> None:
        if self._problem is not None and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the call")
            return
        super().close(interrupted)
