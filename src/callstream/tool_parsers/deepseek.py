"""DeepSeek V3 / R1 and V3.1 calls: a section of calls between full-width markers, the
arguments JSON; and the section machinery the DSML versions share.

The shapes (the chat templates of deepseek-ai/DeepSeek-V3-0324 and DeepSeek-R1, and of
DeepSeek-V3.1 / V3.1-Terminus, ``tokenizer_config.json``)::

    V3 / R1 (tool_parser="deepseek_v3"):
    text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜>
    <｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time
    ```json
    {}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

    V3.1 (tool_parser="deepseek_v31"), on one line:
    text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>
    {"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>

The markers use the full-width bar ``｜`` (U+FF5C) and ``▁`` (U+2581); a marker cut
anywhere, or a character cut inside its UTF-8 bytes, reads the same. Both parsers read
both call shapes (after ``<｜tool▁sep｜>``, a ``{`` is V3.1's arguments, anything else
V3's name line, then its optional ```` ```json ```` fence); they differ by their writer
and the family ``"auto"`` reports. The arguments are JSON, typed as written, read with
strings in mind: a marker or a fence inside a JSON string ends nothing. A call opener
with no section opener before it is read as a call too.

Text in the section that is no call (a call whose ``<｜tool▁call▁begin｜>`` was lost) is
an invalid call with that text; a call whose end marker is missing before the next call
or the section's end is invalid (the calls around it are kept). Reasoning: ``<think>``
... ``</think>`` (R1; V3.1's thinking mode, whose prompt ends with ``<think>``, and its
non-thinking prompt ``<｜Assistant｜></think>``: pass the prompt as ``prefill``). The
template's tokens ``<｜end▁of▁sentence｜>``, ``<｜Assistant｜>``, ``<｜User｜>`` and
``<｜begin▁of▁sentence｜>`` are dropped where a server leaves them in the text.

:class:`~callstream.tool_parsers._section.SectionParser` is the part the DSML versions reuse
(:mod:`callstream.tool_parsers.deepseek_dsml`): a mode ``"section"`` between a section's
opener and closer, where calls open, whitespace is the template's, and other text is an
invalid call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import (
    CallReader,
    ToolParser,
)
from callstream.tool_parsers._json_text import ANGLE, END, ValueScan
from callstream.tool_parsers._markers import MarkerSet
from callstream.tool_parsers._section import (
    MISSING_END,
    TEMPLATE_TOKENS,
    SectionParser,
)

__all__ = (
    "DeepSeekV3Parser",
    "DeepSeekV31Parser",
    "write_v3",
    "write_v31",
)

CALLS_BEGIN: Final = "<｜tool▁calls▁begin｜>"
CALLS_END: Final = "<｜tool▁calls▁end｜>"
CALL_BEGIN: Final = "<｜tool▁call▁begin｜>"
CALL_END: Final = "<｜tool▁call▁end｜>"
SEP: Final = "<｜tool▁sep｜>"
_HEAD = 0  # before <｜tool▁sep｜>: V3's type, or V3.1's name
_AFTER_SEP = 1  # after the separator: "{" (V3.1) or a name (V3)
_NAME = 2  # V3's name line
_FENCE = 3  # before the arguments: a fence or the JSON
_FENCE_LINE = 4  # the opening fence's line (```json)
_JSON = 5
_TAIL = 6  # after the JSON: a closing fence, then the end marker
_BROKEN = 7  # not a valid call: skip to the end marker

MAX_HEAD: Final = 512
"""Characters of a name, a type or a fence line at most: past that the call is broken."""

_SPACE: Final = frozenset(" \t\r\n")
_CALL_MARKERS: Final = MarkerSet((CALL_END, CALL_BEGIN, CALLS_END, SEP))
_CALL_STOPS: Final = MarkerSet((CALL_END, CALL_BEGIN, CALLS_END))  # where a call ends


class JsonCallReader(CallReader):
    """A V3 or V3.1 call, from just after ``<｜tool▁call▁begin｜>`` to
    ``<｜tool▁call▁end｜>`` (the module docstring gives both shapes)."""

    __slots__ = (
        "_buf",
        "_done_at",
        "_fenced",
        "_from",
        "_head",
        "_held",
        "_markers",
        "_problem",
        "_scan",
        "_size",
        "_state",
        "_stops",
        "_ticks",
    )

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._markers: Final = _CALL_MARKERS
        self._stops: Final = _CALL_STOPS
        self._state = _HEAD
        self._buf: list[str] = []
        self._size = 0
        self._head = ""
        self._fenced = False
        self._ticks = 0
        self._scan: ValueScan | None = None
        self._held = ""
        self._problem: str | None = None
        self._done_at = -1  # where the parser reads on, once the call is over
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
            if state == _BROKEN:
                pos = self._skip(text, pos)
            elif state == _JSON:
                pos = self._json(text, pos)
            elif text[pos] == "<" and (marker := self._marker_at(text, pos)) != "":
                if marker is None:  # a marker may start here: hold it
                    self._held = text[pos:]
                    pos = end
                else:
                    pos = self._on_marker(marker, pos)
            else:
                pos = self._char(text[pos], pos)
        if self._done_at >= 0:
            self._keep_to(text, self._done_at)
            return text, self._done_at
        self._keep_to(text, end - len(self._held))
        return None

    # --- the parts ---------------------------------------------------------------------

    def _marker_at(self, text: str, at: int) -> str | None:
        """The marker at ``text[at]``; None: one may start there (the text ends inside
        it); ``""``: none."""
        found = self._markers.starts_at(text, at)
        if found is not None:
            return found
        return None if self._markers.could_start_at(text, at) else ""

    def _add(self, char: str) -> None:
        self._buf.append(char)
        self._size += 1
        if self._size > MAX_HEAD:
            self._broken("the call's name (or its fence) is too long, or a marker is missing")

    def _take(self) -> str:
        out = "".join(self._buf).strip()
        self._buf = []
        self._size = 0
        return out

    def _char(self, char: str, pos: int) -> int:
        """A character outside the JSON and the markers; returns the next position."""
        state = self._state
        if state == _HEAD:
            self._add(char)
        elif state == _AFTER_SEP:
            return self._after_sep(char, pos)
        elif state == _NAME:
            if char in "\n`{":
                self._begin(self._take())
                return pos if char != "\n" else pos + 1
            self._add(char)
        elif state == _FENCE:
            return self._fence(char, pos)
        elif state == _FENCE_LINE:
            self._fence_line(char)
        elif char == "`" and self._ticks < 3:  # _TAIL: the closing fence
            self._ticks += 1
        elif char not in _SPACE:
            self._broken("text after the call's arguments")
        return pos + 1

    def _after_sep(self, char: str, pos: int) -> int:
        """After the separator: V3.1's JSON, or V3's name."""
        if char in _SPACE:
            return pos + 1
        if char == "{":  # V3.1: the head was the name
            self._begin(self._head)
        else:
            self._state = _NAME  # V3: the head was the type, the name follows
        return pos

    def _fence(self, char: str, pos: int) -> int:
        """Before the arguments: whitespace, the opening fence, or the JSON."""
        if char in _SPACE:
            return pos + 1
        if char == "{":
            self._state = _JSON
            self._scan = ValueScan("{")
            return pos
        if char == "`" and not self._fenced:
            self._state = _FENCE_LINE
            self._add(char)
        else:
            self._broken("the call's arguments are not a JSON object")
        return pos + 1

    def _fence_line(self, char: str) -> None:
        """The opening fence's line (```` ```json ````), to its newline."""
        if char != "\n":
            self._add(char)
            return
        if not self._take().startswith("```"):
            self._broken("the call's arguments fence is malformed")
            return
        self._fenced = True
        self._state = _FENCE

    def _begin(self, name: str) -> None:
        """The name is known: announce the call, read its arguments next."""
        if not name:
            self._broken("the call has no name")
            return
        self.start(name)
        if not self.started:  # failed: a tool not offered; skip to its end
            self._broken("")
            return
        self._state = _FENCE

    def _on_marker(self, marker: str, pos: int) -> int:
        """A marker outside the JSON at ``pos``; returns the next position."""
        state = self._state
        after = pos + len(marker)
        if marker == SEP:
            if state == _HEAD:
                self._head = self._take()
                self._state = _AFTER_SEP
            else:
                self._broken(f"a second {SEP} in the call")
            return after
        if marker != CALL_END:  # a new call, or the section's end
            self.fail(MISSING_END)
            self._done_at = pos
            return pos
        if state in (_HEAD, _AFTER_SEP):
            self.fail("the call ends before its name and arguments")
        elif state == _TAIL:
            self.end()
        else:  # a name and no arguments
            if state == _NAME:
                self._begin(self._take())
            if self.started:
                self.args("{}")
                self.end()
            else:
                self.fail(self._problem or "the call has no name")
        self._done_at = after
        return after

    def _json(self, text: str, pos: int) -> int:
        """Inside the arguments JSON: stream it to its end, or to a marker."""
        scan = self._scan
        assert scan is not None
        found, at = scan.scan(text, pos)
        marker: str | None = ""
        while found == ANGLE:
            marker = self._marker_at(text, at)
            if marker != "":
                break
            found, at = scan.scan(text, at + 1)
        self.args(text[pos:at])
        if found == END:
            self._state = _TAIL
        elif found == ANGLE:
            if marker is None:
                self._held = text[at:]
                return len(text)
            if marker == SEP:
                self._broken(f"a {SEP} in the call's arguments")
                return at + len(marker)
            self._keep_to(text, at)
            self.fail(
                "the call's arguments are not complete JSON at its end marker"
                if marker == CALL_END
                else MISSING_END
            )
            self._done_at = at + len(marker) if marker == CALL_END else at
        return at

    def _broken(self, problem: str) -> None:
        if self._problem is None:
            self._problem = problem
        self._state = _BROKEN

    def _skip(self, text: str, pos: int) -> int:
        """In a broken call: find its end marker, or a new call or the section's end."""
        at, marker = self._stops.find(text, pos)
        if marker is None:
            self._held = text[at:]
            return len(text)
        self._keep_to(text, at)
        self.fail(self._problem or "malformed call")
        self._done_at = at + len(marker) if marker == CALL_END else at
        return self._done_at

    def _keep_to(self, text: str, at: int) -> None:
        if at > self._from:
            self.keep(text[self._from : at])
            self._from = at

    def close(self, interrupted: bool = False) -> None:
        if self._problem and not interrupted:
            self.fail(f"{self._problem}, and the text ended inside the call")
            return
        super().close(interrupted)


def _after_sep(marker: str, after: str) -> str | None:
    """What follows the first ``<｜tool▁sep｜>`` (stripped of leading whitespace), or
    None while it is not known."""
    text = after if marker == CALL_BEGIN else after.partition(CALL_BEGIN)[2]
    _, sep, rest = text.partition(SEP)
    if not sep:
        return None
    rest = rest.lstrip()
    return rest or None


class DeepSeekV3Parser(SectionParser):
    """``tool_parser="deepseek_v3"``: DeepSeek V3 / R1 calls (the module docstring);
    see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "deepseek_v3"
    section_open: ClassVar[tuple[str, ...]] = (CALLS_BEGIN,)
    section_close: ClassVar[tuple[str, ...]] = (CALLS_END,)
    section_call_open: ClassVar[tuple[str, ...]] = (CALL_BEGIN,)
    bare_call_open: ClassVar[tuple[str, ...]] = (CALL_BEGIN,)
    call_open: ClassVar[tuple[str, ...]] = (CALLS_BEGIN, CALL_BEGIN)
    call_close: ClassVar[tuple[str, ...]] = (CALLS_END, CALL_END, SEP)
    dropped: ClassVar[tuple[str, ...]] = TEMPLATE_TOKENS

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A call whose separator is followed by a name (V3), not by JSON (V3.1)."""
        rest = _after_sep(marker, after)
        return None if rest is None else not rest.startswith("{")

    def open_call(self, marker: str, index: int) -> CallReader:
        return JsonCallReader(self, index)


class DeepSeekV31Parser(DeepSeekV3Parser):
    """``tool_parser="deepseek_v31"``: DeepSeek V3.1 calls (the module docstring); reads
    V3's shape too."""

    name: ClassVar[str] = "deepseek_v31"

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A call whose separator is followed by its JSON arguments."""
        rest = _after_sep(marker, after)
        return None if rest is None else rest.startswith("{")


def _json(args: Mapping[str, Any]) -> str:
    return dumps_bounded(dict(args), max_depth=None, ensure_ascii=False)


def write_v3(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text DeepSeek V3 / R1 writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``, as :class:`~callstream.ToolCall`): R1's reasoning block if given, the text,
    then the section of calls as the V3 template renders it. Cost: O(size of the calls)."""
    blocks = [
        f"{CALL_BEGIN}function{SEP}{call['name']}\n```json\n{_json(call.get('args', {}))}\n```"
        f"{CALL_END}"
        for call in calls
    ]
    head = "" if reasoning is None else f"<think>\n{reasoning}\n</think>\n\n"
    section = CALLS_BEGIN + "\n".join(blocks) + CALLS_END if blocks else ""
    return f"{head}{text}{section}"


def write_v31(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text DeepSeek V3.1 writes for ``calls``: the reasoning (thinking mode:
    ``<think>`` written here, though the template puts it in the prompt) closed by
    ``</think>``, the text, then the section of calls. Cost: O(size of the calls)."""
    blocks = [
        f"{CALL_BEGIN}{call['name']}{SEP}{_json(call.get('args', {}))}{CALL_END}" for call in calls
    ]
    head = "" if reasoning is None else f"<think>{reasoning}</think>"
    section = f"{CALLS_BEGIN}{''.join(blocks)}{CALLS_END}" if blocks else ""
    return f"{head}{text}{section}"
