"""Seed-OSS calls: ByteDance Seed-OSS-36B (Base, Instruct), whose chat template writes the
Qwen3-Coder XML grammar inside its own markers.

The shape (the ``tool_calls`` loop of the Seed-OSS chat template,
https://huggingface.co/ByteDance-Seed/Seed-OSS-36B-Instruct/blob/main/chat_template.jinja,
also llama.cpp's ``models/templates/ByteDance-Seed-OSS.jinja``)::

    <seed:think>reasoning</seed:think>
    text
    <seed:tool_call>
    <function=get_weather>
    <parameter=city>Paris</parameter>
    </function>
    </seed:tool_call>

The template writes a value with no newline around it; as in vLLM's and SGLang's
parsers, one newline on each side of a value is markup (the Qwen3-Coder rule), so a
model that writes ``<parameter=city>\\nParis\\n</parameter>`` means ``"Paris"``. Values
are typed by the tool's schema (``tools=``), else by the documented rule
(:data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`); where a value ends: see
:mod:`callstream.tool_parsers._xml`. Reasoning: ``<seed:think>`` ... ``</seed:think>``
(``<seed:cot_budget_reflect>`` notes inside it stay reasoning text); a call inside a
reasoning block never closed follows the Qwen3-Coder policy. ``<seed:bos>``,
``<seed:eos>`` and ``<seed:pad>`` are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._xml import Grammar, raw_value
from callstream.tool_parsers._xml_parser import XmlParser

__all__ = ("SeedOssParser", "write")

OPEN = "<seed:tool_call>"
CLOSE = "</seed:tool_call>"

GRAMMAR = Grammar(
    section_close=CLOSE,
    call_open="<function=",
    call_close="</function>",
    param_open="<parameter=",
    param_close="</parameter>",
    strip_values=False,
)


class SeedOssParser(XmlParser):
    """``tool_parser="seed_oss"``: Seed-OSS calls (the module docstring); see
    :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "seed_oss"
    grammar: ClassVar[Grammar] = GRAMMAR
    section_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    reasoning_open: ClassVar[tuple[str, ...]] = ("<seed:think>",)
    reasoning_close: ClassVar[tuple[str, ...]] = ("</seed:think>",)
    dropped: ClassVar[tuple[str, ...]] = ("<seed:bos>", "<seed:eos>", "<seed:pad>")


def _value(value: Any) -> str:
    text = raw_value(value)
    # a value starting or ending with a newline is wrapped in one more (markup)
    return f"\n{text}\n" if text.startswith("\n") or text.endswith("\n") else text


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Seed-OSS model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``), as its chat template renders them (non-string values as JSON). Cost:
    O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"<seed:think>{reasoning}</seed:think>\n")
    if text:
        parts.append(f"{text}\n")
    for call in calls:
        params = "".join(
            f"<parameter={key}>{_value(value)}</parameter>\n"
            for key, value in call.get("args", {}).items()
        )
        parts.append(f"\n{OPEN}\n<function={call['name']}>\n{params}</function>\n{CLOSE}")
    return "".join(parts)
