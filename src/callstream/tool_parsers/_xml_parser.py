"""The tool parser of the XML-ish families (Qwen3-Coder, Seed-OSS, MiniMax-M2, Step3):
the section openers in the text and inside reasoning, each section read by
:class:`~callstream.tool_parsers._xml.Section`; a section inside reasoning has its
signals kept back until it is decided (:mod:`callstream.tool_parsers._xml`)."""

from __future__ import annotations

from typing import Any, ClassVar

from callstream._assembly.types import Signal
from callstream.tool_parsers._base import TEXT_CALL_INDEX, CallReader, ToolParser
from callstream.tool_parsers._markers import MarkerSet
from callstream.tool_parsers._xml import Grammar, Section

__all__ = ("XmlParser",)


class XmlParser(ToolParser):
    """A tool parser for a family of XML-ish calls (the module docstring); a family
    sets :attr:`grammar`, :attr:`section_open` (the markers that open a section of
    calls), :attr:`bare_open` (a call's own opener, read as a section of one call when
    a model leaves the section's opener out) and the :class:`ToolParser` class
    attributes (reasoning markers, dropped tokens)."""

    grammar: ClassVar[Grammar]
    section_open: ClassVar[tuple[str, ...]] = ()
    bare_open: ClassVar[tuple[str, ...]] = ()

    def __init__(self, tools: Any = None, prefill: str = "") -> None:
        self._capture: list[Signal] | None = None
        self.resume = "text"  # the mode after the section being read (see after_call)
        self._value_markers: MarkerSet | None = None
        super().__init__(tools=tools, prefill=prefill)

    @classmethod
    def auto_markers(cls) -> tuple[str, ...]:
        return (
            cls.section_open
            + cls.bare_open
            + tuple(m for m in cls.reasoning_open if m != "<think>")
        )

    @classmethod
    def reasoning_call_open(cls) -> tuple[str, ...]:
        return cls.section_open

    def markers(self, mode: str) -> tuple[str, ...]:
        found = super().markers(mode)
        if mode == "reasoning":
            return found + self.section_open
        if mode == "text":
            return found + self.bare_open
        return found

    def on_marker(self, marker: str) -> None:
        mode = self.mode
        if marker in self.dropped:
            return
        if mode == "text" and marker in self.section_open + self.bare_open:
            self._reader = Section(self, marker, bare=marker in self.bare_open, held=False)
            self.mode = "call"
            return
        if mode == "reasoning" and marker in self.section_open:
            self._capture = []
            self._reader = Section(self, marker, bare=False, held=True)
            self.mode = "call"
            return
        super().on_marker(marker)

    def open_call(self, marker: str, index: int) -> CallReader:
        return Section(self, marker, bare=marker in self.bare_open, held=False)

    def after_call(self) -> str:
        """The mode once a section is read: the text, or the reasoning a section quoted
        inside it goes back to."""
        mode, self.resume = self.resume, "text"
        return mode

    def next_index(self) -> int:
        """The index of the next call (a section may hold several)."""
        index = TEXT_CALL_INDEX + self.calls
        self.calls += 1
        return index

    def value_markers(self) -> MarkerSet:
        """The closers searched inside a value."""
        found = self._value_markers
        if found is None:
            g = self.grammar
            found = MarkerSet((g.param_close, g.call_close, "\n" + g.param_open))
            self._value_markers = found
        return found

    def emit(self, signal: Signal) -> None:
        if self._capture is not None:
            self._capture.append(signal)
        else:
            super().emit(signal)

    def release_held(self, raw: str, calls_before: int) -> None:
        """A section inside reasoning was a draft: its signals are dropped and its text
        ``raw`` is reasoning."""
        self._capture = None
        self.calls = calls_before
        self.mode = "reasoning"
        self.text(raw)

    def keep_held(self) -> None:
        """The output ended after a section inside reasoning: its calls stand."""
        held, self._capture = self._capture or [], None
        for signal in held:
            self.emit(signal)
