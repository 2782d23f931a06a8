"""IBM Granite 3.x calls: a JSON list after ``<|tool_call|>`` (Granite 3.0 / 3.1 / 3.2 /
3.3 Instruct), or after ``<tool_call>`` (the text a server leaves when it renders the
token as text, and the 3.0-era prompts that spell it so).

The shape (the ``tool_calls`` branch of the Granite 3.x chat templates, which render an
assistant's calls as ``<|tool_call|>`` and the list; vLLM's ``granite`` tool parser,
vllm/entrypoints/openai/tool_parsers/granite_tool_parser.py, strips either marker and
reads the JSON list after it)::

    text<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}},
     {"name": "get_time", "arguments": {}}]

No closing marker: the list ends the calls (a ``</tool_call>`` after it is dropped).
Each object is one call (keys in any order; ``"parameters"`` read as ``"arguments"``);
the values are JSON, typed as written (``tools=`` only checks the names). Reasoning:
``<think>`` ... ``</think>``. The chat template's role tokens (``<|start_of_role|>``,
``<|end_of_role|>``, ``<|end_of_text|>``) are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_list import EnvelopeListReader, json_calls

__all__ = ("GraniteParser", "write")

TOKEN: str = "<|tool_call|>"
TAG: str = "<tool_call>"


class GraniteParser(ToolParser):
    """``tool_parser="granite"``: a JSON list of calls after ``<|tool_call|>`` (the module
    docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "granite"
    call_open: ClassVar[tuple[str, ...]] = (TOKEN, TAG)
    call_close: ClassVar[tuple[str, ...]] = ("</tool_call>",)
    dropped: ClassVar[tuple[str, ...]] = ("<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>")

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """``<|tool_call|>`` is Granite's; after ``<tool_call>`` (Hermes' marker too) a
        JSON list."""
        if marker == TOKEN:
            return True
        body = after.lstrip()
        return None if not body else body[0] == "["

    def open_call(self, marker: str, index: int) -> CallReader:
        return EnvelopeListReader(self, index, ",")


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Granite 3.x model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``): the reasoning block if given, the text, then ``<|tool_call|>`` and the
    list. Cost: O(size of the calls)."""
    calls = list(calls)
    head = "" if reasoning is None else f"<think>\n{reasoning}\n</think>\n\n"
    return head + text + (TOKEN + json_calls(calls) if calls else "")
