"""gpt-oss (the harmony response format): calls as messages to ``functions.NAME``.

The shape (OpenAI's harmony format, ``docs/format.md`` of openai/harmony, and the
gpt-oss chat template): the output is a run of messages, each a header then a body::

    <|channel|>analysis<|message|>The user asks for the weather.<|end|>
    <|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
        <|message|>{"city": "Paris"}<|call|>
    <|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>

(one line per message here, the call's cut in two; the model writes them back to
back). The output starts just
after the generation prompt ``<|start|>assistant``, so its first header has no
``<|start|>``. A header is the role (``assistant``), the channel after ``<|channel|>``,
the content type (``<|constrain|>json``, or a plain ``json`` after the channel, or none)
and the recipient ``to=...``, written after the role (``<|start|>assistant
to=functions.get_weather<|channel|>commentary json``: the chat template's history) or
after the channel (``<|channel|>commentary to=functions.get_weather``: what the model
generates; read after the content type too); when a header names two channels, the last
one counts, and its recipient before the role's.

How each message is read:

- a recipient ``functions.NAME``: a call to ``NAME`` (on any channel); its body is the
  arguments, a JSON object, streamed as it arrives; it ends at ``<|call|>`` (or
  ``<|end|>``, ``<|return|>``, a new ``<|start|>``), or at the end of the text: servers
  cut the stop token ``<|call|>``, so a complete object there is a complete call, and an
  object the text cut short is an invalid call;
- another recipient (the built-in ``python``, ``browser.*`` tools): not a function
  call; its body is dropped;
- channel ``analysis``: reasoning; ``final`` and ``commentary`` (a preamble the user
  sees): text; an unknown channel: dropped;
- a header with no ``<|message|>`` (cut by the end, or garbled and ended by ``<|end|>``):
  dropped.

A message body (not a call's) ends at ``<|end|>``, ``<|return|>`` or a new
``<|start|>``; other marker strings inside it (``<|call|>``, ``<|channel|>``) are the
model quoting them, text of the body. Inside a call's JSON strings nothing is a marker.
Text before any header (a server that already took the headers out) is text. The values
are JSON, so they are typed as written (``tools=`` only checks the names). Prefill: the
generation prompt ``<|start|>assistant`` (or one that goes on into a header) is read for
the header it opens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import (
    TEXT_CALL_INDEX,
    CallReader,
    TextKind,
    ToolParser,
)
from callstream.tool_parsers._json_text import ANGLE, END, ValueScan
from callstream.tool_parsers._markers import MarkerSet

__all__ = ("HarmonyParser", "write")

START: Final = "<|start|>"
CHANNEL: Final = "<|channel|>"
CONSTRAIN: Final = "<|constrain|>"
MESSAGE: Final = "<|message|>"
END_: Final = "<|end|>"
CALL: Final = "<|call|>"
RETURN: Final = "<|return|>"
ROLE_RECIPIENT: Final = " to="  # the first output after <|start|>assistant, when the
# recipient is written in the role part of the header

#: characters of a header kept to read it (a header is a few words)
MAX_HEADER: Final = 1024

_HEADER_MARKERS: Final = (START, CHANNEL, CONSTRAIN, MESSAGE, END_, CALL, RETURN)
_BODY_ENDS: Final = (END_, RETURN, START)
_CALL_ENDS: Final = (CALL, END_, RETURN, START)
_RECIPIENT: Final = re.compile(r"\bto=([^\s<]+)")
_SPACE: Final = re.compile(r"[^ \t\r\n]")
FUNCTIONS: Final = "functions."

# a step of the call reader: the next position, or what its feed() returns (None: the
# text is read and the call goes on; (text, position): the call is over)
_Step = int | tuple[str, int] | None


class _ArgsReader(CallReader):
    """The body of a call message: its arguments, one JSON object (module docstring)."""

    __slots__ = ("_ends", "_held", "_problem", "_scan", "_state")

    _BEFORE: ClassVar[int] = 0
    _SCAN: ClassVar[int] = 1
    _AFTER: ClassVar[int] = 2
    _BROKEN: ClassVar[int] = 3

    def __init__(self, parser: ToolParser, index: int, name: str) -> None:
        super().__init__(parser, index)
        self._ends: Final = MarkerSet(_CALL_ENDS)
        self._held = ""
        self._state = self._BEFORE
        self._scan: ValueScan | None = None
        self._problem = ""
        if name:
            self.start(name)
        else:
            self._break("the call's recipient names no function")

    def _break(self, problem: str) -> None:
        if not self._problem:
            self._problem = problem
        self._state = self._BROKEN

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        pos = start
        while pos < len(text):
            if self._state == self._BROKEN:
                return self._skip(text, pos)
            if self._state == self._SCAN:
                step = self._in_object(text, pos)
            else:
                step = self._outside(text, pos)
            if not isinstance(step, int):
                return step
            pos = step
        return None

    def _in_object(self, text: str, pos: int) -> _Step:
        """Inside the arguments object: stream its text up to its end or a marker."""
        scan = self._scan
        assert scan is not None
        found, at = scan.scan(text, pos)
        if found == ANGLE:
            marker = self._ends.starts_at(text, at)
            if marker is None and self._ends.could_start_at(text, at):
                self._out(text[pos:at])
                self._held = text[at:]
                return None
            if marker is not None:
                self._out(text[pos:at])
                self.fail("the call's JSON object is not complete at its end marker")
                return self._after_marker(text, at, marker)
            at += 1  # a '<' in the JSON (malformed: the assembler says so)
        self._out(text[pos:at])
        if found == END:
            self._state = self._AFTER
        return at

    def _outside(self, text: str, pos: int) -> _Step:
        """Before the object (its ``{`` expected) or after it (an end marker expected)."""
        match = _SPACE.search(text, pos)
        if match is None:
            self.keep(text[pos:])
            return None
        self.keep(text[pos : match.start()])
        pos = match.start()
        char = text[pos]
        if char == "<":
            marker = self._ends.starts_at(text, pos)
            if marker is None and self._ends.could_start_at(text, pos):
                self._held = text[pos:]
                return None
            if marker is not None:
                if self._state == self._AFTER:
                    self.end()
                else:
                    self.fail("the call has no JSON arguments")
                return self._after_marker(text, pos, marker)
        if self._state == self._BEFORE and char == "{":
            self._scan = ValueScan(char)
            self._state = self._SCAN
        elif self._state == self._BEFORE:
            self._break("the call's arguments are not a JSON object")
        else:
            self._break("text after the call's JSON object")
        return pos

    def _out(self, piece: str) -> None:
        if piece:
            self.keep(piece)
            self.args(piece)

    @staticmethod
    def _after_marker(text: str, at: int, marker: str) -> tuple[str, int]:
        """Where the parser reads on: after an end marker; at a new ``<|start|>``."""
        return text, at if marker == START else at + len(marker)

    def _skip(self, text: str, pos: int) -> tuple[str, int] | None:
        at, marker = self._ends.find(text, pos)
        self.keep(text[pos:at])
        if marker is None:
            self._held = text[at:]
            return None
        self.fail(self._problem)
        return self._after_marker(text, at, marker)

    def close(self, interrupted: bool = False) -> None:
        if interrupted:
            super().close(interrupted)
        elif self._state == self._AFTER:
            self.end()  # the stop token <|call|> was cut by the server
        elif self._state == self._BROKEN:
            self.fail(f"{self._problem}, and the text ended inside the call")
        else:
            super().close()


class HarmonyParser(ToolParser):
    """``tool_parser="openai"`` (aliases ``harmony``, ``gpt-oss``): gpt-oss's harmony
    messages (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "openai"
    reasoning_open: ClassVar[tuple[str, ...]] = ()
    reasoning_close: ClassVar[tuple[str, ...]] = ()

    def __init__(self, tools: Any = None, prefill: str = "") -> None:
        self._segments: list[list[str]] = []  # the header: [kind, text] per part
        self._header_size = 0
        self._fresh = True  # nothing read yet: a leading " to=" is a header's
        super().__init__(tools=tools, prefill=prefill)

    @classmethod
    def auto_markers(cls) -> tuple[str, ...]:
        return (CHANNEL, START, CONSTRAIN, MESSAGE, ROLE_RECIPIENT + FUNCTIONS)

    def markers(self, mode: str) -> tuple[str, ...]:
        if mode == "text":
            return (*_HEADER_MARKERS, ROLE_RECIPIENT)
        if mode == "header":
            return _HEADER_MARKERS
        if mode in ("analysis", "final", "skip"):
            return _BODY_ENDS
        return ()

    def text_kind(self, mode: str) -> TextKind:
        if mode == "analysis":
            return "reasoning"
        if mode in ("text", "final"):
            return "text"
        return None

    def text(self, text: str) -> None:
        if self.mode == "header":
            self._header_text(text)
            return
        if text and not text.isspace():
            self._fresh = False
        super().text(text)

    def _header_text(self, text: str) -> None:
        room = MAX_HEADER - self._header_size
        if room > 0 and text and self._segments:
            self._segments[-1][1] += text[:room]
            self._header_size += min(room, len(text))

    def _header(self, kind: str, text: str = "") -> None:
        """A part of a header begins (``role``, ``channel``, ``constrain``)."""
        if self.mode != "header":
            self.mode = "header"
            self._segments = []
            self._header_size = 0
        self._segments.append([kind, ""])
        self._header_text(text)

    def on_marker(self, marker: str) -> None:
        mode = self.mode
        if marker == ROLE_RECIPIENT:  # only "text" has it
            if self._fresh:
                self._fresh = False
                self._header("role", "to=")
            else:
                self.text(marker)
            return
        self._fresh = False
        if marker == START:
            self.mode = "text"  # a new header, whatever came before
            self._header("role")
        elif mode in ("text", "header") and marker == CHANNEL:
            self._header("channel")
        elif mode in ("text", "header") and marker == CONSTRAIN:
            self._header("constrain")
        elif mode in ("text", "header") and marker == MESSAGE:
            if mode == "text":
                self._segments = []
            self._open_body()
        else:  # <|end|>, <|call|>, <|return|>: a message (or a header alone) ends
            self.mode = "text"

    def _open_body(self) -> None:
        """``<|message|>``: the header is whole; read it and choose the body's mode."""
        segments = self._segments
        self._segments = []
        role = "".join(text for kind, text in segments if kind == "role")
        channels = [text for kind, text in segments if kind == "channel"]
        channel_part = channels[-1] if channels else ""
        words = channel_part.split()
        channel = words[0] if words else ""
        others = "".join(text for kind, text in segments if kind == "constrain")
        found = (
            _RECIPIENT.search(channel_part) or _RECIPIENT.search(role) or _RECIPIENT.search(others)
        )
        recipient = found.group(1) if found else None
        if recipient is not None and recipient.startswith(FUNCTIONS):
            self._reader = _ArgsReader(
                self, TEXT_CALL_INDEX + self.calls, recipient[len(FUNCTIONS) :]
            )
            self.calls += 1
            self.mode = "call"
        elif recipient is not None:
            self.mode = "skip"  # a built-in tool's message (python, browser.search)
        elif channel == "analysis":
            self.mode = "analysis"
        elif channel in ("final", "commentary", ""):
            self.mode = "final"
        else:
            self.mode = "skip"  # a channel harmony does not have


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text gpt-oss writes after the generation prompt ``<|start|>assistant`` for
    ``calls`` (each ``{"name": ..., "args": {...}}``): the analysis message if
    ``reasoning`` is given, the text (a ``commentary`` preamble before calls, else the
    ``final`` message), then one message per call to ``functions.NAME``, each ended by
    ``<|call|>`` but the last (the server cuts the stop token). Cost: O(size of the
    calls)."""
    messages: list[str] = []
    if reasoning is not None:
        messages.append(f"{CHANNEL}analysis{MESSAGE}{reasoning}{END_}")
    calls = list(calls)
    if text:
        channel = "commentary" if calls else "final"
        messages.append(f"{CHANNEL}{channel}{MESSAGE}{text}" + (END_ if calls else ""))
    for i, call in enumerate(calls):
        body = dumps_bounded(call.get("args", {}), max_depth=None, ensure_ascii=False)
        tail = CALL if i + 1 < len(calls) else ""
        messages.append(
            f"{CHANNEL}commentary to={FUNCTIONS}{call['name']} {CONSTRAIN}json{MESSAGE}{body}{tail}"
        )
    return f"{START}assistant".join(messages)
