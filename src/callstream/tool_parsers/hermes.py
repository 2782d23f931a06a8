"""Hermes-style calls: Hermes 2 Pro / 3, Qwen2.5, Qwen3 (hybrid, Instruct-2507, Thinking-2507),
QwQ and the models trained on their chat template.

The shape (the ``tools`` section of the Qwen3 / Qwen2.5 chat templates, and NousResearch's
Hermes function-calling format)::

    <think>
    reasoning
    </think>

    text
    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>
    <tool_call>
    {"name": "get_time", "arguments": {}}
    </tool_call>

One JSON object per call between ``<tool_call>`` and ``</tool_call>``; its keys in any
order (``"parameters"`` is read as ``"arguments"``; arguments written as a JSON string
holding an object are read too). The values are JSON, so they are typed as written
(``tools=`` only checks the names). Reasoning: ``<think>`` ... ``</think>``; a prefill
ending inside ``<think>\\n`` (Qwen3-Thinking-2507) starts in reasoning. The chat
template's tokens ``<|im_start|>``, ``<|im_end|>`` and ``<|endoftext|>`` are dropped
where a server leaves them in the text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_text import EnvelopeReader

__all__ = ("HermesParser", "write")

OPEN: str = "<tool_call>"
CLOSE: str = "</tool_call>"


class HermesParser(ToolParser):
    """``tool_parser="hermes"``: calls as JSON between ``<tool_call>`` markers (the
    module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "hermes"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A ``<tool_call>`` followed by a JSON object (other families write XML-ish
        calls after the same marker)."""
        body = after.lstrip()
        return None if not body else body[0] == "{"

    def open_call(self, marker: str, index: int) -> CallReader:
        return EnvelopeReader(self, index, self.call_close)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Hermes-style model writes for ``calls`` (each ``{"name": ...,
    "args": {...}}``, as :class:`~callstream.ToolCall`): the reasoning block if given,
    the text, then one ``<tool_call>`` block per call, as the Qwen3 template renders
    them. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<think>\n{reasoning}\n</think>\n\n")
    parts.append(text)
    for i, call in enumerate(calls):
        body = dumps_bounded(
            {"name": call["name"], "arguments": call.get("args", {})},
            max_depth=None,
            ensure_ascii=False,
        )
        sep = "\n" if (i or text) else ""
        parts.append(f"{sep}{OPEN}\n{body}\n{CLOSE}")
    return "".join(parts)
