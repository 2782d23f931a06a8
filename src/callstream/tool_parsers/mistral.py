"""Mistral's calls: Mistral 7B v0.3, Mixtral, Mistral Small / Medium / Large, Ministral,
Devstral, Magistral (every tokenizer version of mistral-common).

The shape depends on the tokenizer version (mistral-common's ``InstructTokenizer``
versions, and the canitoolcall ``mistral`` fixtures rendered through them):

- before v11 (v3: Mistral 7B Instruct v0.3, Mixtral 8x22B): one ``[TOOL_CALLS]`` then a
  JSON list of ``{"name": ..., "arguments": {...}}`` objects::

      [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, {...}]

- v11 (Mistral Small 3.2, Devstral 2507): ``[TOOL_CALLS]`` before each call, the name,
  an optional ``[CALL_ID]`` and the call's id (llama.cpp's Mistral Small 3.2 tests), then
  ``[ARGS]`` and the arguments object::

      [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}

- v13 and later (Ministral 3, Magistral 2509, Mistral Small 4, Devstral 2): the same
  without ``[CALL_ID]``.

Text may come before the calls. The values are JSON, typed as written (``tools=`` only
checks the names). A v11+ call ends when its arguments object closes; a ``[TOOL_CALLS]``
whose text is neither a name nor a JSON object is an invalid call. Reasoning:
``[THINK]`` ... ``[/THINK]`` (Magistral 2509, Ministral 3 Reasoning, Mistral Small 4: the
control tokens) and ``<think>`` ... ``</think>`` (Magistral 2506, as text); a call drafted
inside reasoning is reasoning. The chat template's ``</s>``, ``[INST]`` and ``[/INST]``
are dropped where a server leaves them in the text; the prefill is ``[/INST]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._assembly.options import MAX_NAME_CHARS
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_list import EnvelopeListReader
from callstream.tool_parsers._json_text import ANGLE, END, ValueScan
from callstream.tool_parsers._markers import MarkerSet

__all__ = ("MistralParser", "write")

CALLS: Final = "[TOOL_CALLS]"
ARGS: Final = "[ARGS]"
CALL_ID: Final = "[CALL_ID]"
_SPACE: Final = " \t\r\n"
_CALLS_SET: Final = MarkerSet((CALLS,))

# the reader's states
_DECIDE: Final = 0  # the first character after [TOOL_CALLS] tells the version
_NAME: Final = 1  # v11+: the name, up to [CALL_ID] or [ARGS]
_ID: Final = 2  # v11: the call's id, up to [ARGS]
_BEFORE_ARGS: Final = 3  # after [ARGS]: the object's "{" expected
_ARGS: Final = 4  # inside the arguments object
_BROKEN: Final = 5  # not a valid call: up to the next [TOOL_CALLS]


class _MistralReader(CallReader):
    """The text after one ``[TOOL_CALLS]`` (module docstring): a JSON list of calls
    (before v11), or ``name[CALL_ID]id[ARGS]{...}``."""

    __slots__ = ("_buf", "_held", "_list", "_marks", "_problem", "_scan", "_state")

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._state = _DECIDE
        self._list: EnvelopeListReader | None = None
        self._buf = ""  # the name or id read so far (and a held marker start)
        self._scan: ValueScan | None = None
        self._problem = ""
        self._held = ""  # a broken call's tail that may start [TOOL_CALLS]
        self._marks: Final = MarkerSet((ARGS, CALL_ID, CALLS))

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        pos = start
        while pos < len(text):
            if self._list is not None:
                return self._list.feed(text, pos)
            step = self._step(text, pos)
            if step is None or isinstance(step, tuple):
                return step
            pos = step
        return None

    def _step(self, text: str, pos: int) -> int | tuple[str, int] | None:
        """Read on from ``text[pos]`` in the current state: the next position, None
        (the text ended inside the call), or the text for the parser to read on."""
        state = self._state
        if state in (_NAME, _ID):
            moved = self._label(text, pos)
            return None if moved == -1 else moved
        if state == _ARGS:
            return self._args(text, pos)
        if state == _BROKEN:
            return self._skip(text, pos)
        end = len(text)
        while pos < end and text[pos] in _SPACE:
            pos += 1
        if pos >= end:
            return None
        char = text[pos]
        if state == _DECIDE:
            if char in "[{":
                self._list = EnvelopeListReader(self.parser, self.index, ",")
            else:
                self._state = _NAME
        elif char != "{":  # _BEFORE_ARGS
            self._broken("the call's arguments are not a JSON object")
        else:
            self._scan = ValueScan("{")
            self._state = _ARGS
        return pos

    def _label(self, text: str, pos: int) -> int | tuple[str, int]:
        """The name or the id, up to the next marker; returns the position after it,
        -1 (the text ended inside it: kept, a marker's start held), or the text for the
        parser to read on (a new call's marker before the arguments: this one failed)."""
        held = len(self._buf)
        buf = self._buf + text[pos:]
        at, marker = self._marks.find(buf, max(0, held - len(CALLS)))
        if marker is None:
            self._buf = buf
            if len(buf) > MAX_NAME_CHARS + len(CALLS):
                self.keep(buf)
                self._buf = ""
                self._broken(f"the call's name exceeds {MAX_NAME_CHARS} characters")
                return len(text)
            return -1
        self._buf = ""
        if marker == CALLS:  # a new call before this one's arguments
            self.keep(buf[:at])
            self.fail(self._problem or "a new call opened before this one's arguments")
            return buf, at
        self.keep(buf[: at + len(marker)])
        after = pos + (at + len(marker) - held)
        label = buf[:at].strip()
        if self._state == _ID:
            if marker == ARGS:
                self._state = _BEFORE_ARGS
            else:
                self._broken("the call has [CALL_ID] twice")
            return after
        if not label or any(c in label for c in _SPACE):
            self._broken(f"the call's name {label!r} is not a name")
            return after
        self.start(label)  # an unknown tool fails here; its arguments are read to their end
        self._state = _ID if marker == CALL_ID else _BEFORE_ARGS
        return after

    def _args(self, text: str, pos: int) -> tuple[str, int] | None:
        """Inside the arguments object: stream it until it closes."""
        scan = self._scan
        assert scan is not None
        found, at = scan.scan(text, pos)
        while found == ANGLE:  # a "<" outside strings: JSON's business, not ours
            found, at = scan.scan(text, at + 1)
        self.args(text[pos:at])
        if found != END:
            return None
        self.end()
        return text, at

    def _broken(self, problem: str) -> None:
        self._problem = self._problem or problem
        self._state = _BROKEN

    def _skip(self, text: str, pos: int) -> tuple[str, int] | None:
        """A broken call: its text up to the next ``[TOOL_CALLS]`` (or the end)."""
        found, marker = _CALLS_SET.find(text, pos)
        if marker is None:
            self.keep(text[pos:found])
            self._held = text[found:]
            return None
        self.keep(text[pos:found])
        self.fail(self._problem)
        return text, found

    def close(self, interrupted: bool = False) -> None:
        if self._list is not None:
            self._list.close(interrupted)
            self.done = True
        elif self._problem and not interrupted:
            self.keep(self._buf + self._held)
            self.fail(f"{self._problem}, and the text ended inside the call")
        else:
            self.keep(self._buf)
            super().close(interrupted)


class MistralParser(ToolParser):
    """``tool_parser="mistral"``: calls after ``[TOOL_CALLS]`` in every tokenizer
    version's shape (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "mistral"
    call_open: ClassVar[tuple[str, ...]] = (CALLS,)
    reasoning_open: ClassVar[tuple[str, ...]] = ("[THINK]", "<think>")
    reasoning_close: ClassVar[tuple[str, ...]] = ("[/THINK]", "</think>")
    dropped: ClassVar[tuple[str, ...]] = ("</s>", "[INST]", "[/INST]")

    def open_call(self, marker: str, index: int) -> CallReader:
        return _MistralReader(self, index)


def write(
    calls: Iterable[Mapping[str, Any]],
    *,
    text: str = "",
    reasoning: str | None = None,
    version: int = 13,
) -> str:
    """The text a Mistral model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``, as :class:`~callstream.ToolCall`): ``[THINK]`` reasoning if given, the
    text, then the calls in tokenizer ``version``'s shape (3: one JSON list; 11: with
    ``[CALL_ID]``; 13: ``name[ARGS]{...}``). Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"[THINK]{reasoning}[/THINK]")
    parts.append(text)
    calls = list(calls)
    if version < 11:
        if calls:
            body = [{"name": c["name"], "arguments": c.get("args", {})} for c in calls]
            parts.append(f"{CALLS} {_dump(body)}")
        return "".join(parts)
    for i, call in enumerate(calls):
        call_id = f"{CALL_ID}{i:09d}" if version == 11 else ""
        parts.append(f"{CALLS}{call['name']}{call_id}{ARGS}{_dump(call.get('args', {}))}")
    return "".join(parts)


def _dump(value: Any) -> str:
    return dumps_bounded(value, max_depth=None, ensure_ascii=False)
