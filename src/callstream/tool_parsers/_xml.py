"""XML-ish calls: a section of calls, each a name and named parameters with raw values.

Qwen3-Coder (``<tool_call><function=f><parameter=k>v</parameter></function></tool_call>``),
Seed-OSS (the same inside ``<seed:tool_call>``), MiniMax-M2 (``<minimax:tool_call><invoke
name="f"><parameter name="k">v</parameter></invoke></minimax:tool_call>``) and Step3
(``<steptml:invoke name="f"><steptml:parameter name="k">v</steptml:parameter>...``) write
the same structure with different markers: a :class:`Grammar` names them, and one
reader (:class:`Section`) reads them all, piece by piece.

**Where a value ends.** A value is raw text, and models write markers inside values
(code that writes ``</parameter>``, docs about ``<tool_call>``). A value ends only at a
*structural* closer: the parameter closer followed (after whitespace) by what may follow
a parameter (the next parameter, the call's closer, the section's closer); or, when the
model forgot the parameter closer, a parameter opener at the start of a line, or the
call's closer followed by the section's closer. Anything else is the value's text. The
whitespace looked at after a closer is bounded (:data:`MAX_LOOKAHEAD`).

**Values.** Each value is typed by the tool's schema (``tools=``) with
:func:`~callstream.tool_parsers._values.type_value`; without a schema, by
:data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`. A value that can only be a
string (its schema says string, or it has no schema and does not start like a JSON
value) streams as a growing JSON string; others are written whole when they close. The
whitespace around a value follows the family (``strip_values``): either exactly one
newline on each side is markup (Qwen3-Coder, Seed-OSS), or all of it is (MiniMax, Step3).

**Calls inside reasoning** (``held``): a section opened inside a reasoning block is read,
its signals kept back; it is the model's call only if nothing but whitespace, more such
sections and the reasoning's closer follow it up to the end of the output. Anything else
after it (more reasoning, text, another call after the closer) shows it was quoted in
the reasoning: its text goes back to the reasoning. The policy is documented in the
open-weight models guide.

Cost: linear in the text; memory: the held tail (a marker, or a closer and the
whitespace after it, at most :data:`MAX_LOOKAHEAD`), a value that is not a string, and
for a section inside reasoning its text until it is decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, cast

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CUT_REASON, INTERRUPTED_REASON, CallReader
from callstream.tool_parsers._markers import MarkerSet
from callstream.tool_parsers._values import ArgsWriter, param_schema, schema_types, type_value

if TYPE_CHECKING:
    from callstream.tool_parsers._base import ToolParser

__all__ = ("MAX_LOOKAHEAD", "MAX_NAME", "Grammar", "Section", "raw_value")

MAX_LOOKAHEAD: Final = 256
"""Whitespace looked at after a closer inside a value before it is taken as text."""

MAX_NAME: Final = 256
"""The longest name (of a call or a parameter) read; a longer one makes the call invalid."""

_JSON_STARTS: Final = frozenset("{[-0123456789tfn")


@dataclass(frozen=True)
class Grammar:
    """The markers of one family's calls (see the module docstring)."""

    section_close: str  # </tool_call>
    call_open: str  # <function=   (the name follows, up to ">")
    call_close: str  # </function>
    param_open: str  # <parameter=
    param_close: str  # </parameter>
    strip_values: bool  # True: whitespace around a value is markup; False: one newline
    quoted_names: bool = False  # name="x" (the quotes are markup)
    noise: tuple[str, ...] = ()  # tokens skipped between calls (Step3's call wrappers)

    def followers(self) -> tuple[str, ...]:
        """What may follow a parameter's closer."""
        return (self.param_open, self.call_close, self.section_close, *self.noise)

    def after_call(self) -> tuple[str, ...]:
        """What may follow a call's closer (confirms a closer inside a value)."""
        return (self.section_close, self.call_open, *self.noise)


@lru_cache(maxsize=64)
def _closer_set(closer: str) -> MarkerSet:
    """A closer as a marker set (for its held tail)."""
    return MarkerSet((closer,))


def _skip_space(text: str, at: int) -> int:
    """The end of the whitespace run at ``at``; -1 past :data:`MAX_LOOKAHEAD`."""
    end = len(text)
    start = at
    while at < end and text[at] in " \t\r\n":
        at += 1
        if at - start > MAX_LOOKAHEAD:
            return -1
    return at


def _which(text: str, at: int, options: tuple[str, ...]) -> tuple[str | None, bool]:
    """The option that starts at ``text[at]`` (None), and whether the rest of the text
    is a proper prefix of one (undecided)."""
    rest = text[at : at + max(len(o) for o in options)]
    for option in options:
        if rest.startswith(option):
            return option, False
    return None, any(option.startswith(rest) for option in options if rest)


class _Value:
    """One parameter's value as it streams (see the module docstring, "Values")."""

    __slots__ = ("key", "kind", "lead", "parts", "schema", "section", "trail")

    def __init__(self, section: Section, key: str, schema: Mapping[str, Any] | None) -> None:
        self.section = section
        self.key = key
        self.schema = schema
        kinds = schema_types(schema)
        # "string": streams; "whole": typed when it closes; "?": no type known yet
        self.kind = "string" if kinds == ("string",) else ("whole" if kinds else "?")
        self.lead = True  # the leading markup not yet passed
        self.parts: list[str] = []
        self.trail: list[str] = []  # trailing whitespace held (it may be markup)
        if self.kind == "string":
            self._open_string()

    def _open_string(self) -> None:
        writer = self.section.writer
        self.section.args(writer.key(self.key) + writer.string_start())

    def add(self, text: str) -> None:
        if not text:
            return
        strip = self.section.grammar.strip_values
        if self.lead:
            if strip:
                text = text.lstrip()
                if not text:
                    return
            elif text[0] == "\n":
                text = text[1:]
            self.lead = False
        if self.kind == "?":
            self.parts.append(text)
            body = text.lstrip()  # the parts before it were whitespace
            if not body:
                return
            self.kind = "whole" if body[0] in _JSON_STARTS else "string"
            if self.kind == "whole":
                return
            text = "".join(self.parts)
            self.parts = []
            self._open_string()
        if self.kind == "whole":
            self.parts.append(text)
            return
        self._stream(text, strip)

    def _stream(self, text: str, strip: bool) -> None:
        """A string value's next text: written, but for its trailing whitespace (held:
        it may be markup)."""
        body = text.rstrip() if strip else (text[:-1] if text.endswith("\n") else text)
        if not body:
            if strip or not self.trail:  # a newline alone: held as the value's last
                self.trail.append(text)
                return
        tail = text[len(body) :]
        if self.trail:
            body = "".join(self.trail) + body
            self.trail.clear()
        if tail:
            self.trail.append(tail)
        if body:
            self.section.args(self.section.writer.string_part(body))

    def finish(self) -> None:
        section = self.section
        if self.kind == "string":
            section.args(section.writer.string_end())
            return
        raw = "".join(self.parts)
        if section.grammar.strip_values:
            raw = raw.strip()
        elif raw.endswith("\n"):
            raw = raw[:-1]
        value = type_value(raw, self.schema)
        section.args(section.writer.key(self.key) + section.writer.value(value))


class Section(CallReader):
    """Reads one section of calls (from just after its opener) for an :class:`XmlParser`.

    ``bare``: opened by a call's own opener (``<function=`` with no ``<tool_call>``);
    ``held``: opened inside reasoning (the module docstring, "Calls inside reasoning").
    Each call in the section gets its own index from the parser; this reader reports
    them through a plain :class:`CallReader` per call.
    """

    __slots__ = (
        "_call",
        "_calls_before",
        "_held_raw",
        "_name",
        "_state",
        "_step",
        "_tail",
        "_value",
        "bare",
        "grammar",
        "held",
        "owner",
        "writer",
    )

    def __init__(self, parser: ToolParser, marker: str, *, bare: bool, held: bool) -> None:
        super().__init__(parser, -1)
        # an XmlParser (callstream.tool_parsers._xml_parser, which imports this module:
        # read through Any, so the two modules do not import each other)
        self.owner: Final[Any] = cast(Any, parser)
        self.grammar: Final[Grammar] = self.owner.grammar
        self.bare = bare
        self.held = held
        self._calls_before: int = self.owner.calls
        self._tail = ""
        self._step = 0  # where the step being read started (see _fail)
        self._call: CallReader | None = None
        self._value: _Value | None = None
        self._name: list[str] = []
        self.writer = ArgsWriter()
        self._held_raw: list[str] | None = [marker] if held else None
        self._state = "between"
        if bare:
            self._begin_call(marker)

    # --- reporting the calls ---------------------------------------------------------

    def args(self, fragment: str) -> None:
        if self._call is not None:
            self._call.args(fragment)

    def _begin_call(self, marker: str) -> None:
        parser = self.owner
        self._call = CallReader(parser, parser.next_index())
        self._call.keep(marker)
        self.writer = ArgsWriter()
        self._name = []
        self._state = "name"

    def _fail(self, reason: str, buf: str, at: int) -> None:
        """The call is invalid at ``buf[at]``: its text up to there is kept first (so
        the reason reads the same however the text was cut)."""
        if self._call is None:  # nothing of a call came yet: its text starts here
            self._begin_call("")
        else:
            self._call.keep(buf[self._step : at])
        assert self._call is not None
        self._call.fail(reason)
        self._value = None
        self._state = "skip"

    def _end_call(self) -> None:
        call = self._call
        if call is not None:
            call.args(self.writer.close())
            call.end()
        self._call = None
        self._value = None
        self._state = "after" if self.bare else "between"

    # --- reading ---------------------------------------------------------------------

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        buf = self._tail + text[start:] if self._tail else text[start:]
        self._tail = ""
        pos = 0
        end = len(buf)
        while pos < end:
            self._step = pos
            got: int | tuple[int, str] | None = getattr(self, f"_read_{self._state}")(buf, pos)
            if got is None:  # the rest is held until more text comes
                self._consumed(buf[:pos])
                self._tail = buf[pos:]
                return None
            if isinstance(got, tuple):  # the section is over: hand the text back
                done_at, then = got
                self._consumed(buf[:done_at])
                self.owner.resume = then
                if then == "reasoning":
                    self._release()
                return buf, done_at
            if self._call is not None:
                self._call.keep(buf[pos:got])
            pos = got
        self._consumed(buf)
        return None

    def _consumed(self, text: str) -> None:
        if self._held_raw is not None and text:
            self._held_raw.append(text)

    def _read_between(self, buf: str, pos: int) -> int | tuple[int, str] | None:  # noqa: PLR0911 (one return per token met)
        g = self.grammar
        at = _skip_space(buf, pos)
        if at < 0:
            at = len(buf)
        if at == len(buf):
            return None if at == pos else at
        found, undecided = _which(buf, at, (g.call_open, g.section_close, *g.noise))
        if undecided:
            return None if at == pos else at
        if found == g.call_open:
            self._begin_call(found)
            return at + len(found)
        if found in g.noise:
            return at + len(found)
        if found == g.section_close:
            return self._section_over(at + len(found))
        # text that is no call
        if self.held:
            return at, "reasoning"
        if self.owner.calls == self._calls_before:
            self._fail(f"expected {g.call_open!r} after the section's opener", buf, at)
            return at
        self._fail("text that is no call between the calls", buf, at)
        return at

    def _read_after(self, buf: str, pos: int) -> int | tuple[int, str] | None:
        """After a bare call: its section's closer may follow, else the text goes on."""
        at = _skip_space(buf, pos)
        if at < 0:
            return self._section_over(pos)
        found, undecided = _which(buf, at, (self.grammar.section_close,))
        if found is not None:
            return self._section_over(at + len(found))
        if undecided or at == len(buf):
            return None
        return self._section_over(pos)

    def _take_name(self, buf: str, pos: int, opener: str) -> tuple[int, str | None]:
        """Read a name up to ``>``: (where reading goes on, the name once whole). A name
        with a newline or ``<`` in it, or too long, fails the call there."""
        close = buf.find(">", pos)
        chunk = buf[pos:] if close < 0 else buf[pos:close]
        bad = min((i for i in (chunk.find("\n"), chunk.find("<")) if i >= 0), default=-1)
        room = MAX_NAME - sum(len(p) for p in self._name)
        if bad >= 0 or len(chunk) > room:
            at = pos + (bad if bad >= 0 else max(room, 0))
            self._fail(f"a malformed name after {opener!r}", buf, at)
            return at, None
        self._name.append(chunk)
        if close < 0:
            return len(buf), None
        name = self._unquote("".join(self._name))
        self._name = []
        return close + 1, name

    def _read_name(self, buf: str, pos: int) -> int | None:
        at, name = self._take_name(buf, pos, self.grammar.call_open)
        if name is None:
            return at
        if not name:
            self._fail("a call with no name", buf, at)
            return at
        assert self._call is not None
        self._call.start(name)
        self._state = "body"
        return at

    def _unquote(self, name: str) -> str:
        name = name.strip()
        if self.grammar.quoted_names and len(name) >= 2 and name[0] == name[-1] in "\"'":
            name = name[1:-1].strip()
        return name

    def _read_body(self, buf: str, pos: int) -> int | tuple[int, str] | None:
        g = self.grammar
        at = _skip_space(buf, pos)
        if at < 0:
            at = len(buf)
        if at == len(buf):
            return None if at == pos else at
        found, undecided = _which(buf, at, (g.param_open, g.call_close, g.section_close))
        if undecided:
            return None if at == pos else at
        if found == g.param_open:
            self._state = "param"
            return at + len(found)
        if found == g.call_close:
            self._end_call()
            return at + len(found)
        if found == g.section_close:  # the call's closer is missing: the section ends it
            self._end_call()
            return self._section_over(at + len(found))
        expected = self.grammar.param_open
        self._fail(f"text that is no parameter inside the call (expected {expected!r})", buf, at)
        return at

    def _read_param(self, buf: str, pos: int) -> int | None:
        at, key = self._take_name(buf, pos, self.grammar.param_open)
        if key is None:
            return at
        call = self._call
        schemas = self.owner.schemas
        schema = param_schema(schemas, call.name if call is not None else None, key)
        self._value = _Value(self, key, schema)
        self._state = "value"
        return at

    def _read_value(self, buf: str, pos: int) -> int | None:
        value = self._value
        assert value is not None
        g = self.grammar
        finder: MarkerSet = self.owner.value_markers()
        search = pos
        while True:
            at, marker = finder.find(buf, search)
            if marker is None:  # free text up to a held partial marker
                value.add(buf[pos:at])
                return at if at > pos else None
            if marker == "\n" + g.param_open:  # a parameter at a line start: no closer came
                value.add(buf[pos : at + 1])
                self._close_value(g.param_open)
                return at + 1
            after = _skip_space(buf, at + len(marker))
            if after >= 0:
                options = g.followers() if marker == g.param_close else g.after_call()
                found, undecided = _which(buf, after, options)
                if undecided or after == len(buf):  # not known yet: hold from the closer
                    value.add(buf[pos:at])
                    return at if at > pos else None
                if found is not None:
                    value.add(buf[pos:at])
                    self._close_value(marker)
                    return at + len(marker)
            search = at + 1  # a closer inside the value: text

    def _close_value(self, marker: str) -> None:
        value = self._value
        assert value is not None
        value.finish()
        self._value = None
        if marker == self.grammar.call_close:
            self._end_call()
        else:
            self._state = "body"

    def _read_skip(self, buf: str, pos: int) -> int | tuple[int, str] | None:
        """After a failure: up to the section's closer (a bare call: the call's)."""
        closer = self.grammar.call_close if self.bare else self.grammar.section_close
        at = buf.find(closer, pos)
        if at < 0:
            held = _closer_set(closer).held_from(buf, pos)
            return held if held > pos else None
        self._call = None
        if self.bare:
            self._state = "after"
            return at + len(closer)
        return self._section_over(at + len(closer))

    # --- the end of a section --------------------------------------------------------

    def _section_over(self, at: int) -> int | tuple[int, str]:
        if not self.held:
            return at, "text"
        self._state = "gap"
        return at

    def _read_gap(self, buf: str, pos: int) -> int | tuple[int, str] | None:
        """A section inside reasoning is over: whitespace and template tokens are held;
        another section is read the same way; the reasoning's closer may come once; the
        end of the output makes the calls stand (:meth:`close`); anything else shows
        they were drafts (the module docstring)."""
        parser = self.owner
        at, closed = pos, False
        while True:
            at = _skip_space(buf, at)
            if at < 0 or at - pos > MAX_LOOKAHEAD:
                return pos, "reasoning"
            if at == len(buf):
                return None
            closers = () if closed else parser.reasoning_close
            options = (*parser.section_open, *closers, *parser.dropped)
            found, undecided = _which(buf, at, options)
            if undecided:
                return None
            if found is None or (closed and found in parser.section_open):
                return pos, "reasoning"
            at += len(found)
            if found in parser.section_open:
                self._state = "between"
                return at
            closed = closed or found in closers

    def _release(self) -> None:
        """The section was quoted inside the reasoning: its text is reasoning."""
        raw = "".join(self._held_raw or ())
        self._held_raw = None
        self.owner.release_held(raw, self._calls_before)

    def close(self, interrupted: bool = False) -> None:
        reason = INTERRUPTED_REASON if interrupted else CUT_REASON
        state = self._state
        if state in ("name", "body", "param", "value") and self._call is not None:
            self._call.fail(reason)
        elif state == "between" and self.owner.calls == self._calls_before:
            self._begin_call("")
            assert self._call is not None
            self._call.fail(reason)
        if self.held:
            self.owner.keep_held()


def raw_value(value: Any) -> str:
    """A value as the templates write it: a string as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return dumps_bounded(value, max_depth=None, ensure_ascii=False)
