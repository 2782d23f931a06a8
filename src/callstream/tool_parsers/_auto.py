"""``tool_parser="auto"``: the family recognized from the first marker the text holds.

Until a family's marker appears (:meth:`ToolParser.auto_markers` of every family in the
registry), the text is read as text, with ``<think>`` reasoning and the families'
dropped tokens; a text with no marker stays text. At the first marker, the families that
claim it are asked in the registry's order (:meth:`ToolParser.claims`: several share
``<tool_call>``, and tell theirs by what follows it); the text after the marker is held
until one claims it (at most :data:`MAX_UNDECIDED` characters, or the end of the text:
then the first family that did not refuse). The chosen family's parser then reads the
marker and everything after it, in the state the text left (inside or after reasoning).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Final

from callstream._assembly.types import Signal, TextDelta
from callstream.tool_parsers._base import CallReader, TextKind, ToolParser

__all__ = ("MAX_UNDECIDED", "AutoParser")

MAX_UNDECIDED: Final = 256
"""Characters after a shared marker held while no family has claimed it."""


class AutoParser(ToolParser):
    """Recognizes the family from the first marker, then reads as it (module docstring).

    ``families``: the families' classes, in the order they are asked (the registry's).
    """

    name: ClassVar[str] = "auto"

    def __init__(
        self,
        families: Iterable[type[ToolParser]],
        tools: Sequence[Any] | None = None,
        prefill: str = "",
    ) -> None:
        self._families = list(families)
        self._owners: dict[str, list[type[ToolParser]]] = {}
        # the families that read calls inside reasoning, by the marker that opens one
        self._reasoning_owners: dict[str, list[type[ToolParser]]] = {}
        self._detected_in = "text"  # the mode the marker being decided was met in
        dropped: list[str] = []
        closers: list[str] = []
        for family in self._families:
            for marker in family.auto_markers():
                self._owners.setdefault(marker, []).append(family)
            for marker in family.reasoning_call_open():
                self._reasoning_owners.setdefault(marker, []).append(family)
            dropped.extend(family.dropped)
            closers.extend(family.call_close)
        self._dropped = tuple(dict.fromkeys(dropped))
        # a call closer with no call open is no text, whichever family it is of
        self._closers = tuple(m for m in dict.fromkeys(closers) if m not in self._owners)
        self._delegate: ToolParser | None = None
        self._marker: str | None = None  # the marker seen, while no family claimed it
        self._after: list[str] = []
        self._after_size = 0
        self._delegate_flagged = False  # the last feed of the family raised the flag
        super().__init__(tools=tools, prefill=prefill)

    def markers(self, mode: str) -> tuple[str, ...]:
        if mode == "text":
            return (
                self.reasoning_open
                + self.reasoning_close
                + tuple(self._owners)
                + self._closers
                + self._dropped
            )
        if mode == "reasoning":
            return (
                self.reasoning_close
                + self.reasoning_open
                + tuple(self._reasoning_owners)
                + self._dropped
            )
        return ()

    def text_kind(self, mode: str) -> TextKind:
        return None if mode == "detect" else super().text_kind(mode)

    def on_marker(self, marker: str) -> None:
        if marker in self._dropped:
            return
        owners = self._owners if self.mode == "text" else self._reasoning_owners
        if self.mode in ("text", "reasoning") and marker in owners:
            self._marker = marker
            self._detected_in = self.mode
            self.mode = "detect"
            return
        super().on_marker(marker)

    def text(self, text: str) -> None:
        if self.mode == "detect":
            self._after.append(text)
            self._after_size += len(text)
            return
        super().text(text)

    def open_call(self, marker: str, index: int) -> CallReader:  # pragma: no cover
        raise AssertionError("auto hands every call to the family it recognizes")

    def feed(self, piece: str) -> list[Signal]:
        delegate = self._delegate
        if delegate is not None:
            out = delegate.feed(piece)
            self._take_flag(delegate)
            return out
        out = super().feed(piece)
        if self._marker is not None:
            decided = self._decide(final=False)
            if self._delegate is not None and self._delegate_flagged:
                # the family read a reasoning closer with no opener: the text this feed
                # reported before it was reasoning too
                out = [
                    TextDelta(s.text, reasoning=True) if type(s) is TextDelta else s for s in out
                ]
            out += decided
        return out

    def close(self, interrupted: bool = False) -> list[Signal]:
        delegate = self._delegate
        if delegate is None and self._marker is not None and not self.closed:
            out = self._decide(final=True)
            delegate = self._delegate
            if delegate is None:  # a marker inside reasoning no family claimed
                return out + super().close(interrupted)
            self._closed_by_delegate()
            return out + delegate.close(interrupted)
        if delegate is not None:
            self._closed_by_delegate()
            return delegate.close(interrupted)
        return super().close(interrupted)

    @property
    def family(self) -> str | None:
        """The family recognized, None until a marker was seen."""
        return None if self._delegate is None else self._delegate.name

    def _take_flag(self, delegate: ToolParser) -> None:
        """The family's "the text so far was reasoning" becomes this parser's (once: the
        reader of the flag clears this one, so the family's is cleared as it moves)."""
        self._delegate_flagged = delegate.text_was_reasoning
        if delegate.text_was_reasoning:
            delegate.text_was_reasoning = False
            self.text_was_reasoning = True

    def _closed_by_delegate(self) -> None:
        super().close()  # marks this parser closed; nothing of its own is held

    def _decide(self, *, final: bool) -> list[Signal]:
        """Choose the family of the marker seen, when one claims it (or must)."""
        marker = self._marker
        assert marker is not None
        after = "".join(self._after)
        chosen: type[ToolParser] | None = None
        in_reasoning = self._detected_in == "reasoning"
        owners = (self._reasoning_owners if in_reasoning else self._owners)[marker]
        for family in owners:
            verdict = family.claims(marker, after)
            if verdict:
                chosen = family
                break
            if verdict is None:
                if not final and self._after_size < MAX_UNDECIDED:
                    self._after = [after]
                    return []
                chosen = family
                break
        if chosen is None and in_reasoning:  # no family's call: the reasoning goes on
            self._marker = None
            self._after = []
            self.mode = "reasoning"
            self.text(marker)
            return self.feed(after) if after else []
        if chosen is None:
            chosen = owners[0]
        delegate = chosen()
        delegate.mode = self._detected_in
        delegate.schemas = self.schemas
        delegate.reasoning_seen = self.reasoning_seen
        delegate.carry_text_state(self)
        self._delegate = delegate
        self._marker = None
        self._after = []
        out = delegate.feed(marker + after)
        self._take_flag(delegate)
        return out
