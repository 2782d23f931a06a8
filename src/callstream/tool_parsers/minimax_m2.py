"""MiniMax-M2 calls: MiniMax-M2, M2.1 and M2.5, whose chat template writes calls as XML
``invoke`` elements with raw values.

The shape (the ``tool_calls`` loop of the MiniMax-M2 chat template,
https://huggingface.co/MiniMaxAI/MiniMax-M2/blob/main/chat_template.jinja, and MiniMax's
tool calling guide, https://github.com/MiniMax-AI/MiniMax-M2/blob/main/docs/tool_calling_guide.md)::

    <think>
    reasoning
    </think>

    text
    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    </invoke>
    <invoke name="get_time">
    </invoke>
    </minimax:tool_call>

One ``<minimax:tool_call>`` block holds every call of the turn; names are quoted (``"``
or ``'``). The whitespace around a value is markup (MiniMax's own parser and vLLM's
strip it). The template writes a string as it is and other values as JSON; they are
typed by the tool's schema (``tools=``), else by the documented rule
(:data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`); where a value ends: see
:mod:`callstream.tool_parsers._xml`. Reasoning: ``<think>`` ... ``</think>``; the
generation prompt ends inside ``<think>\\n`` (``]~b]ai\\n<think>\\n``, ``prefill=``), and a
call inside a reasoning block never closed follows the Qwen3-Coder policy. The template's
tokens ``]~!b[``, ``]~b]`` and ``[e~[`` are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._xml import Grammar, raw_value
from callstream.tool_parsers._xml_parser import XmlParser

__all__ = ("MinimaxM2Parser", "write")

OPEN = "<minimax:tool_call>"
CLOSE = "</minimax:tool_call>"

GRAMMAR = Grammar(
    section_close=CLOSE,
    call_open="<invoke name=",
    call_close="</invoke>",
    param_open="<parameter name=",
    param_close="</parameter>",
    strip_values=True,
    quoted_names=True,
)


class MinimaxM2Parser(XmlParser):
    """``tool_parser="minimax_m2"``: MiniMax-M2 calls (the module docstring); see
    :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "minimax_m2"
    grammar: ClassVar[Grammar] = GRAMMAR
    section_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = ("]~!b[", "]~b]", "[e~[")


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a MiniMax-M2 model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``), as its chat template renders them: every call in one block. The
    whitespace around a string value is markup, so a value that starts or ends with
    whitespace cannot be written. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<think>\n{reasoning}\n</think>\n\n")
    parts.append(text)
    calls = list(calls)
    if calls:
        parts.append(f"\n{OPEN}\n")
        for call in calls:
            parts.append(f'<invoke name="{call["name"]}">\n')
            for key, value in call.get("args", {}).items():
                parts.append(f'<parameter name="{key}">{raw_value(value)}</parameter>\n')
            parts.append("</invoke>\n")
        parts.append(CLOSE)
    return "".join(parts)
