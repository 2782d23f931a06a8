"""Qwen3-Coder XML calls: Qwen3-Coder (30B-A3B, 480B-A35B, Next) and Qwen3.5 / 3.6 / 3.8,
whose chat templates write calls as XML with raw values.

The shape (the ``tool_calls`` loop of the Qwen3-Coder and Qwen3.5+ chat templates, e.g.
https://huggingface.co/Qwen/Qwen3-Coder-30B-A3B-Instruct/blob/main/chat_template.jinja)::

    <think>
    reasoning
    </think>

    text
    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

One ``<function=NAME>`` per ``<tool_call>`` block (several are read too); a parameter's
value is the raw text between ``<parameter=KEY>`` and ``</parameter>``, where exactly
one newline on each side is markup (``\\n#include\\n\\n</parameter>`` is ``"#include\\n"``).
Values are typed by the tool's schema (``tools=``), else by the documented rule
(:data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`); Python literals the older
templates write (``True``, ``None``) read as their JSON values where the schema says
boolean or null. Where a value ends, and what a model that forgets a closer still means
(the next ``<parameter=`` at a line start, ``</function>`` then ``</tool_call>``): see
:mod:`callstream.tool_parsers._xml`. A ``<function=`` with no ``<tool_call>`` before it
(Qwen3-Coder does this) is read as a call. Reasoning: ``<think>`` ... ``</think>``; the
Qwen3.5+ generation prompt ends inside ``<think>\\n`` (``prefill=``). A call written
inside a reasoning block the model never closed (llama.cpp #20837, vLLM #39056) is the
model's call when nothing but whitespace (and at most ``</think>``) follows it to the
end; otherwise it was quoted in the reasoning and stays reasoning (the open-weight models
guide). ``<|im_start|>``, ``<|im_end|>`` and ``<|endoftext|>`` are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._xml import Grammar, raw_value
from callstream.tool_parsers._xml_parser import XmlParser

__all__ = ("Qwen3CoderParser", "write")

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
FUNCTION = "<function="

GRAMMAR = Grammar(
    section_close=CLOSE,
    call_open=FUNCTION,
    call_close="</function>",
    param_open="<parameter=",
    param_close="</parameter>",
    strip_values=False,
)


class Qwen3CoderParser(XmlParser):
    """``tool_parser="qwen3_coder"`` (alias ``qwen3_xml``): Qwen3-Coder / Qwen3.5+ XML
    calls (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "qwen3_coder"
    grammar: ClassVar[Grammar] = GRAMMAR
    section_open: ClassVar[tuple[str, ...]] = (OPEN,)
    bare_open: ClassVar[tuple[str, ...]] = (FUNCTION,)
    call_open: ClassVar[tuple[str, ...]] = (OPEN, FUNCTION)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """A ``<tool_call>`` followed by ``<function=`` (Hermes writes JSON after it)."""
        if marker != OPEN:
            return True
        body = after.lstrip()
        if len(body) < len(FUNCTION):
            return None if FUNCTION.startswith(body) else False
        return body.startswith(FUNCTION)


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Qwen3.5+ model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``): the reasoning block if given, the text, then a ``<tool_call>`` block per
    call, as the Qwen3.8 template renders them. A value holding the family's own
    structure (``</parameter>`` then ``<parameter=``, a line starting ``<parameter=``)
    cannot be written unambiguously. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<think>\n{reasoning}\n</think>\n\n")
    parts.append(text)
    for i, call in enumerate(calls):
        params = "".join(
            f"<parameter={key}>\n{raw_value(value)}\n</parameter>\n"
            for key, value in call.get("args", {}).items()
        )
        sep = "\n\n" if (text and not i) else ("\n" if i else "")
        parts.append(f"{sep}{OPEN}\n{FUNCTION}{call['name']}>\n{params}</function>\n{CLOSE}")
    return "".join(parts)
