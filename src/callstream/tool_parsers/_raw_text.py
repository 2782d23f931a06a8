"""Reading a call written with markers around raw text (the XML-ish families), as it streams.

:class:`MarkerReader` is the loop of such a call: the text between markers goes to
:meth:`~MarkerReader.on_text`, each marker to :meth:`~MarkerReader.on_marker`, which
says whether the call goes on, ended with this marker, or ended before it (a new call's
opener: the parser reads the marker again). The markers searched depend on the reader's
``state`` (:meth:`~MarkerReader.markers`), and a tail that may start one is held back as
in the parser's own loop (:mod:`callstream.tool_parsers._markers`).

:class:`ValueWriter` writes one raw parameter value into the call's arguments as it
streams (:mod:`callstream.tool_parsers._values`): a string parameter (by the tool's
schema) as a growing JSON string, any other value whole, typed, when it closes. A family
such as Qwen3-Coder (``<parameter=city>\\nParis\\n</parameter>``) reads with these two:
``on_marker("<parameter=")`` ... ``on_text`` feeds the value ... ``on_marker("</parameter>")``
closes it.

Cost: linear in the call's text; memory: the held tail, and a non-string value until it
closes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from callstream.tool_parsers._base import CallReader
from callstream.tool_parsers._markers import MarkerSet
from callstream.tool_parsers._values import ArgsWriter, json_string_part, schema_types, type_value

if TYPE_CHECKING:
    from callstream.tool_parsers._base import ToolParser

__all__ = ("AGAIN", "ENDED", "GO_ON", "MarkerReader", "ValueWriter")

GO_ON: Final = 0
"""What :meth:`MarkerReader.on_marker` returns when the call goes on after the marker."""
ENDED: Final = 1
"""... when the call ended with the marker (the parser reads on after it)."""
AGAIN: Final = 2
"""... when the call ended before the marker (the parser reads the marker again: a new
call's opener where this call's end was due)."""


class MarkerReader(CallReader):
    """A call read marker by marker (module docstring). Subclasses implement
    :meth:`markers`, :meth:`on_text` and :meth:`on_marker`; ``state`` is theirs."""

    __slots__ = ("_held", "_sets", "state")

    def __init__(self, parser: ToolParser, index: int, state: str = "start") -> None:
        super().__init__(parser, index)
        self.state = state
        self._held = ""
        self._sets: dict[str, MarkerSet] = {}

    def markers(self, state: str) -> tuple[str, ...]:
        """The markers searched in ``state``."""
        raise NotImplementedError

    def on_text(self, text: str) -> None:
        """Text between two markers (a piece of it: text arrives in pieces)."""
        raise NotImplementedError

    def on_marker(self, marker: str) -> int:
        """A marker: :data:`GO_ON`, :data:`ENDED` or :data:`AGAIN`."""
        raise NotImplementedError

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._held:
            text = self._held + text[start:]
            start = 0
            self._held = ""
        pos = start
        while True:
            found = self._sets.get(self.state)
            if found is None:
                found = self._sets[self.state] = MarkerSet(self.markers(self.state))
            at, marker = found.find(text, pos)
            if at > pos:
                self.keep(text[pos:at])
                self.on_text(text[pos:at])
            if marker is None:
                self._held = text[at:]
                return None
            verdict = self.on_marker(marker)
            if verdict == AGAIN:
                return text, at
            self.keep(marker)
            pos = at + len(marker)
            if verdict == ENDED:
                return text, pos

    def close(self, interrupted: bool = False) -> None:
        if self._held and not self.done:
            held, self._held = self._held, ""
            self.keep(held)
            self.on_text(held)  # the held tail was text: the call's, before it fails
        super().close(interrupted)


class ValueWriter:
    """One raw parameter value, written into the call's arguments as it streams.

    Args:
        args: the call's :class:`ArgsWriter`.
        key: the parameter's name.
        schema: the parameter's JSON schema (None: none known).
        emit: where the argument text goes (the reader's ``args``).
        trim_newline: drop one newline at the start and one at the end of the value
            (the families that write ``<parameter=x>\\nvalue\\n</parameter>``).

    A value whose schema allows only ``string`` streams as a growing JSON string; any
    other value is typed when it closes (:func:`~callstream.tool_parsers._values.type_value`).
    """

    __slots__ = ("_args", "_emit", "_first", "_newline", "_parts", "_schema", "_streams", "_trim")

    def __init__(
        self,
        args: ArgsWriter,
        key: str,
        schema: Mapping[str, Any] | None,
        emit: Callable[[str], None],
        *,
        trim_newline: bool = False,
    ) -> None:
        self._args = args
        self._schema = schema
        self._emit = emit
        self._trim = trim_newline
        self._first = True  # no character of the value yet
        self._newline = False  # a trailing newline held back (trim_newline)
        self._parts: list[str] = []
        self._streams = schema_types(schema) == ("string",)
        emit(args.key(key) + ('"' if self._streams else ""))

    def feed(self, raw: str) -> None:
        """A piece of the value's raw text."""
        if self._trim:
            if self._first and raw:
                self._first = False
                if raw[0] == "\n":
                    raw = raw[1:]
            if not raw:
                return
            if self._newline:
                raw = "\n" + raw
                self._newline = False
            if raw.endswith("\n"):
                raw = raw[:-1]
                self._newline = True
        if not raw:
            return
        if self._streams:
            self._emit(json_string_part(raw))
        else:
            self._parts.append(raw)

    def close(self) -> None:
        """The value ended: its end (a string's closing quote, or the whole value)."""
        if self._streams:
            self._emit('"')
        else:
            self._emit(self._args.value(type_value("".join(self._parts), self._schema)))
