"""Salesforce xLAM calls: a JSON list of calls, as the whole message, in a ```json fence,
after ``[TOOL_CALLS]`` or between ``<tool_call>`` markers (xLAM-2 fc-r models:
Llama-xLAM-2-8b / 70b, xLAM-2-1b / 3b / 32b).

The shape (the xLAM-2 chat templates, which render an assistant's calls as the bare
JSON list; vLLM's ``xlam`` parser, vllm/entrypoints/openai/tool_parsers/xlam_tool_parser.py,
also reads the list in a fenced code block, after ``[TOOL_CALLS]``, between
``<tool_call>`` tags, and after ``</think>``)::

    [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]

    text
    ```json
    [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    ```

A message whose first characters (after white space) are ``[`` and then ``{`` is a list
of calls (held until that is known: ``[1]`` or ``[see below]`` stay text). Each object
is one call (keys in any order; ``"parameters"`` read as ``"arguments"``); values are
JSON, typed as written (``tools=`` only checks the names). A fence holds calls when
its list starts with an object (``[{``); any other fence (a JSON example in the
answer) is text. The fence's closing ``````` after the list is dropped. Reasoning: ``<think>`` ...
``</think>`` (a bare list right after ``</think>`` stays text: write it in a fence).
The base models' end tokens (``<|eot_id|>``, ``<|im_end|>``, ``<|endoftext|>``) are
dropped. ``"auto"`` recognizes the fenced form when the fence holds a list of calls.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from callstream._assembly.types import Signal
from callstream.tool_parsers._base import TEXT_CALL_INDEX, CallReader, TextKind, ToolParser
from callstream.tool_parsers._json_list import EnvelopeListReader, ListOrTextReader, json_calls

__all__ = ("XlamParser", "write")

FENCE: str = "```json"
FENCE_END: str = "```"
_AFTER_FENCE: Final = "after_fence"  # the mode after a fenced list: its ``` is dropped
_FENCED_CALLS: Final = re.compile(r'\s*\[\s*\{\s*"name"')


class XlamParser(ToolParser):
    """``tool_parser="xlam"``: a JSON list of calls (the module docstring); see
    :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "xlam"
    call_open: ClassVar[tuple[str, ...]] = (FENCE, "[TOOL_CALLS]", "<tool_call>")
    call_close: ClassVar[tuple[str, ...]] = ("</tool_call>",)
    dropped: ClassVar[tuple[str, ...]] = ("<|eot_id|>", "<|im_end|>", "<|endoftext|>")

    def __init__(self, tools: Sequence[Any] | None = None, prefill: str = "") -> None:
        self._starting = False  # the prefill is read as it is
        self._head: list[str] = []  # the message's start, held while undecided
        self._bracket = False  # its "[" was read
        self._fenced = False
        self._mode = "text"
        super().__init__(tools=tools, prefill=prefill)
        self._starting = True

    @property
    def mode(self) -> str:
        """The channel (see :class:`ToolParser`); a fenced list's call returns to
        the mode where its closing fence is dropped."""
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        if value == "text" and self._fenced and getattr(self, "_mode", "") == "call":
            self._fenced = False
            value = _AFTER_FENCE
        self._mode = value

    @classmethod
    def auto_markers(cls) -> tuple[str, ...]:
        """Only the fence: ``[TOOL_CALLS]`` and ``<tool_call>`` are other families'."""
        return (FENCE,)

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A fence holding a list of calls (a fence of other JSON is text)."""
        if _FENCED_CALLS.match(after):
            return True
        body = after.lstrip()
        probe = '[{"name"'
        squeezed = "".join(body.split())[: len(probe)]
        return None if probe.startswith(squeezed) else False

    def markers(self, mode: str) -> tuple[str, ...]:
        if mode == _AFTER_FENCE:
            return (FENCE_END, *super().markers("text"))
        return super().markers(mode)

    def text_kind(self, mode: str) -> TextKind:
        return "text" if mode == _AFTER_FENCE else super().text_kind(mode)

    def on_marker(self, marker: str) -> None:
        if self.mode == _AFTER_FENCE:
            self.mode = "text"
            if marker == FENCE_END:
                return
        if marker == FENCE_END:  # (never a marker in the text mode)
            return
        super().on_marker(marker)
        self._fenced = marker == FENCE

    def text(self, text: str) -> None:
        if self.mode == _AFTER_FENCE and text.strip():
            self.mode = "text"  # text after the list: the fence was left open
        super().text(text)

    def open_call(self, marker: str, index: int) -> CallReader:
        if marker == FENCE:  # a fence of anything else is text
            return ListOrTextReader(self, index, marker, bracketed=False)
        return EnvelopeListReader(self, index, ",")

    def feed(self, piece: str) -> list[Signal]:
        if not self._starting or not isinstance(piece, str) or self.closed:
            return super().feed(piece)
        self._head.append(piece)
        for char in piece:  # (each character read once: only the new piece is looked at)
            if char in " \t\r\n":
                continue
            if char == "[" and not self._bracket:
                self._bracket = True
                continue
            return self._decided(call=self._bracket and char == "{")
        return []

    def _decided(self, *, call: bool) -> list[Signal]:
        """The message's start is known: read what was held as a call or as text."""
        self._starting = False
        held = "".join(self._head)
        self._head = []
        if call:
            self._reader = self.open_call("", TEXT_CALL_INDEX + self.calls)
            self.calls += 1
            self.mode = "call"
        return super().feed(held)

    def close(self, interrupted: bool = False) -> list[Signal]:
        out: list[Signal] = []
        if self._starting and not self.closed:
            out = self._decided(call=False)
        return out + super().close(interrupted)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text an xLAM-2 model writes for ``calls`` (each ``{"name": ..., "args": {...}}``):
    the bare list when there is no text (the chat template's shape), else the text and
    the list in a ```json fence; the reasoning block first if given. Cost: O(size of
    the calls)."""
    calls = list(calls)
    head = "" if reasoning is None else f"<think>\n{reasoning}\n</think>\n\n"
    if not calls:
        return head + text
    if not text and reasoning is None:
        return json_calls(calls)
    return f"{head}{text}\n{FENCE}\n{json_calls(calls)}\n{FENCE_END}"
