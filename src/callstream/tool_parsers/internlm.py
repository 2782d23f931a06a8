"""InternLM2 / InternLM2.5 / InternLM3 calls: one JSON object between
``<|action_start|><|plugin|>`` and ``<|action_end|>``.

The shape (InternLM's chat template and its agent protocol, lagent's
``INTERNLM2_META``; vLLM's ``internlm`` parser,
vllm/entrypoints/openai/tool_parsers/internlm2_tool_parser.py, and lmdeploy's
``internlm`` parser read the object after ``<|action_start|><|plugin|>``)::

    text<|action_start|><|plugin|>
    {"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>

One object per call (``"parameters"``, or ``"arguments"``; keys in any order); values
are JSON, typed as written (``tools=`` only checks the names). Several calls are read
(the engines read one). ``<|im_start|>`` / ``<|im_end|>`` are dropped. Reasoning:
``<think>`` ... ``</think>``. A code-interpreter action
(``<|action_start|><|interpreter|>``) is no function call: it stays text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_text import EnvelopeReader

__all__ = ("InternLMParser", "write")

OPEN: str = "<|action_start|><|plugin|>"
CLOSE: str = "<|action_end|>"


class InternLMParser(ToolParser):
    """``tool_parser="internlm"``: a JSON call between ``<|action_start|><|plugin|>`` and
    ``<|action_end|>`` (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "internlm"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = ("<|im_start|>", "<|im_end|>")

    def open_call(self, marker: str, index: int) -> CallReader:
        return EnvelopeReader(self, index, self.call_close)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text InternLM2.5 writes for ``calls`` (each ``{"name": ..., "args": {...}}``):
    the reasoning block if given, the text, then one action block per call. Cost:
    O(size of the calls)."""
    parts = ["" if reasoning is None else f"<think>\n{reasoning}\n</think>\n\n", text]
    for call in calls:
        body = dumps_bounded(
            {"name": call["name"], "parameters": call.get("args", {})},
            max_depth=None,
            ensure_ascii=False,
        )
        parts.append(f"{OPEN}\n{body}{CLOSE}\n")
    return "".join(parts)
