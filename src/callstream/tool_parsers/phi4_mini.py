"""Phi-4-mini calls: ``functools[...]``, a JSON list of calls (Phi-4-mini-instruct).

The shape (Phi-4-mini-instruct's model card, "Tool-enabled function-calling format";
vLLM's ``phi4_mini_json`` parser, vllm/entrypoints/openai/tool_parsers/phi4mini_tool_parser.py,
reads ``functools\\[(.*?)\\]`` as a JSON list; SGLang's ``phi4_mini`` detector the same)::

    text functools[{"name": "get_weather", "arguments": {"city": "Paris"}},
     {"name": "get_time", "arguments": {}}]

``functools[`` opens the list (the ``[`` is part of the marker, so the word functools
alone stays text, and so does ``functools[`` when no object follows it: Python code
such as ``functools[key]``); the list's ``]`` ends the calls. Keys in any order (``"parameters"``
read as ``"arguments"``); values are JSON, typed as written (``tools=`` only checks the
names). Reasoning: ``<think>`` ... ``</think>`` (Phi-4-mini-reasoning, Phi-4-mini-flash).
The chat template's ``<|end|>``, ``<|assistant|>`` and ``<|endoftext|>`` are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_list import ListOrTextReader, json_calls

__all__ = ("Phi4MiniJsonParser", "write")

OPEN: str = "functools["


class Phi4MiniJsonParser(ToolParser):
    """``tool_parser="phi4_mini_json"``: a JSON list of calls after ``functools[`` (the
    module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "phi4_mini_json"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    dropped: ClassVar[tuple[str, ...]] = ("<|end|>", "<|assistant|>", "<|endoftext|>")

    def open_call(self, marker: str, index: int) -> CallReader:
        return ListOrTextReader(self, index, marker, bracketed=True)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text Phi-4-mini writes for ``calls`` (each ``{"name": ..., "args": {...}}``):
    the reasoning block if given, the text, then ``functools[...]``. Cost: O(size of the
    calls)."""
    calls = list(calls)
    head = "" if reasoning is None else f"<think>\n{reasoning}\n</think>\n\n"
    sep = " " if text and calls else ""
    return head + text + sep + ("functools" + json_calls(calls) if calls else "")
