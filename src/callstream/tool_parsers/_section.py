"""What the DeepSeek families share (V3 / V3.1 in :mod:`~callstream.tool_parsers.deepseek`,
the DSML versions in :mod:`~callstream.tool_parsers.deepseek_dsml`): the chat template's
tokens and :class:`SectionParser`, the loop of a family whose calls stand in a section
(text in the section that is no call is an invalid call; a call whose end marker is
missing fails, the calls around it stay). A shared module, so that no family imports
another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from callstream._assembly.types import CallFailure, Signal
from callstream.tool_parsers._base import (
    MAX_RAW_KEPT,
    TEXT_CALL_INDEX,
    ToolParser,
    excerpt,
)

__all__ = ("MISSING_END", "STRAY_REASON", "TEMPLATE_TOKENS", "SectionParser")

TEMPLATE_TOKENS: Final = (
    "<｜end▁of▁sentence｜>",
    "<｜begin▁of▁sentence｜>",
    "<｜Assistant｜>",
    "<｜User｜>",
)

STRAY_REASON: Final = "text in the section of calls that is no call"
MISSING_END: Final = (
    "the call's end marker is missing: a new call or the end of the section came first"
)


class SectionParser(ToolParser):
    """A family whose calls stand in a section (``<｜tool▁calls▁begin｜>`` ...
    ``<｜tool▁calls▁end｜>``, DSML's ``<｜DSML｜function_calls>`` ...).

    Extension points beside :class:`ToolParser`'s: ``section_open`` / ``section_close``
    (the section's markers, searched in the text), ``section_call_open`` (the markers
    that open a call inside the section), ``bare_call_open`` (call openers also read in
    the text, outside a section). ``call_open`` (the markers ``"auto"`` knows the family
    by) is the section openers plus the bare call openers.
    """

    section_open: ClassVar[tuple[str, ...]] = ()
    section_close: ClassVar[tuple[str, ...]] = ()
    section_call_open: ClassVar[tuple[str, ...]] = ()
    bare_call_open: ClassVar[tuple[str, ...]] = ()

    def __init__(self, tools: Sequence[Any] | None = None, prefill: str = "") -> None:
        self._stray: list[str] = []
        self._stray_size = 0
        self._stray_seen = False  # text that is not whitespace came in the section
        self._bare = False  # the open call was opened outside a section
        super().__init__(tools=tools, prefill=prefill)

    def markers(self, mode: str) -> tuple[str, ...]:
        if mode == "section":
            return self.section_call_open + self.section_close + self.dropped
        return super().markers(mode)

    def on_marker(self, marker: str) -> None:
        mode = self.mode
        if mode == "section":
            self._flush_stray()
            if marker in self.section_close:
                self.mode = "text"
            elif marker in self.section_call_open:
                self._open(marker, bare=False)
            return
        if mode == "text" and marker in self.section_open:
            self.mode = "section"
            return
        if mode == "text" and marker in self.bare_call_open:
            self._open(marker, bare=True)
            return
        super().on_marker(marker)

    def after_call(self) -> str:
        return "text" if self._bare else "section"

    def _open(self, marker: str, *, bare: bool) -> None:
        self._reader = self.open_call(marker, TEXT_CALL_INDEX + self.calls)
        self.calls += 1
        self._bare = bare
        self.mode = "call"

    def text(self, text: str) -> None:
        if self.mode != "section":
            super().text(text)
            return
        if not self._stray_seen and not text.isspace():
            self._stray_seen = True
        room = MAX_RAW_KEPT - self._stray_size
        if room > 0:
            self._stray.append(text[:room])
            self._stray_size += min(room, len(text))

    def _flush_stray(self, ended: bool = False) -> None:
        """Text that came in the section before this point, if not only whitespace:
        an invalid call with that text."""
        if self._stray_seen:
            raw = "".join(self._stray).strip()
            reason = STRAY_REASON + (" (and the text ended inside the section)" if ended else "")
            self.emit(
                CallFailure(
                    error=f"{reason}: {excerpt(raw)}",
                    index=TEXT_CALL_INDEX + self.calls,
                    name=None,
                    args=raw,
                )
            )
            self.calls += 1
        self._stray = []
        self._stray_size = 0
        self._stray_seen = False

    def close(self, interrupted: bool = False) -> list[Signal]:
        if self.mode == "section" and not self.closed:
            self._held = ""  # a marker cut by the end of the text: no call began
        out = super().close(interrupted)
        self._flush_stray(ended=True)
        out += self._out
        self._out = []
        return out


# the reader's states
