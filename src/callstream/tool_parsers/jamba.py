"""AI21 Jamba calls: a JSON list between ``<tool_calls>`` and ``</tool_calls>`` (Jamba 1.5
Mini / Large, Jamba 1.6, Jamba 1.7).

The shape (the ``tool_calls`` branch of the Jamba 1.5 / 1.6 chat templates; vLLM's
``jamba`` parser, vllm/entrypoints/openai/tool_parsers/jamba_tool_parser.py, reads
``<tool_calls>(.*?)</tool_calls>`` as a JSON list)::

    text
    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}},
     {"name": "get_time", "arguments": {}}]</tool_calls>

Each object is one call (keys in any order; ``"parameters"`` read as ``"arguments"``);
values are JSON, typed as written (``tools=`` only checks the names). Reasoning:
``<think>`` ... ``</think>`` (Jamba Reasoning, whose ChatML generation prompt opens
``<think>\\n``: ``prefill=``). The template's message tokens (``<|bom|>``,
``<|assistant|>``, ``<|eom|>``, ``<|startoftext|>``; ``<|im_end|>``) are dropped, so
``prefill="<|bom|><|assistant|>"`` reads as the template renders it. The calls stand
after the assistant's role token: ``<|bom|><|assistant|> <tool_calls>[...]</tool_calls><|eom|>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_list import EnvelopeListReader, json_calls

__all__ = ("JambaParser", "write")

OPEN: str = "<tool_calls>"
CLOSE: str = "</tool_calls>"


class JambaParser(ToolParser):
    """``tool_parser="jamba"``: a JSON list of calls between ``<tool_calls>`` markers (the
    module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "jamba"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = (
        "<|bom|>",
        "<|eom|>",
        "<|assistant|>",
        "<|startoftext|>",
        "<|im_end|>",
    )

    def open_call(self, marker: str, index: int) -> CallReader:
        return EnvelopeListReader(self, index, ",")


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Jamba model writes for ``calls`` (each ``{"name": ..., "args": {...}}``):
    the reasoning block if given, the text, then the ``<tool_calls>`` block. Cost:
    O(size of the calls)."""
    calls = list(calls)
    head = "" if reasoning is None else f"<think>\n{reasoning}\n</think>\n\n"
    block = f"{OPEN}{json_calls(calls)}{CLOSE}" if calls else ""
    return head + text + ("\n" if text and block else "") + block
