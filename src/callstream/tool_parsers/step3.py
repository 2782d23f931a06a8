"""Step3 calls: StepFun Step-3, whose chat template writes calls as ``steptml`` XML inside
full-width DeepSeek-style tokens.

The shape (the Step-3 chat template, https://huggingface.co/stepfun-ai/step3/blob/main/chat_template.json,
and the markers vLLM's and SGLang's ``step3`` parsers read)::

    reasoning
    </think>
    text
    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
    <steptml:parameter name="city">Paris</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>

The bars are U+FF5C. Between calls, ``<｜tool_call_begin｜>``, ``function``,
``<｜tool_sep｜>`` and ``<｜tool_call_end｜>`` are wrappers (an ``invoke`` without them
is read too); names are quoted. The whitespace around a value is markup (vLLM and
SGLang strip it). Values are typed by the tool's schema (``tools=``), else by the
documented rule (:data:`~callstream.tool_parsers._values.NO_SCHEMA_RULE`); where a
value ends: see :mod:`callstream.tool_parsers._xml`. Reasoning: the generation prompt
opens it (``<|BOT|>assistant\\n<think>\\n``, ``prefill=``) and ``</think>`` ends it (without
the prefill, a ``</think>`` with no opener makes what came before it reasoning); a call
inside a reasoning block never closed follows the Qwen3-Coder policy. ``<|BOT|>`` and
``<|EOT|>`` are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream.tool_parsers._xml import Grammar, raw_value
from callstream.tool_parsers._xml_parser import XmlParser

__all__ = ("Step3Parser", "write")

BAR = "\uff5c"  # the full-width bar of the markers
OPEN = f"<{BAR}tool_calls_begin{BAR}>"
CLOSE = f"<{BAR}tool_calls_end{BAR}>"
CALL_BEGIN = f"<{BAR}tool_call_begin{BAR}>"
CALL_END = f"<{BAR}tool_call_end{BAR}>"
SEP = f"<{BAR}tool_sep{BAR}>"

GRAMMAR = Grammar(
    section_close=CLOSE,
    call_open="<steptml:invoke name=",
    call_close="</steptml:invoke>",
    param_open="<steptml:parameter name=",
    param_close="</steptml:parameter>",
    strip_values=True,
    quoted_names=True,
    noise=(CALL_BEGIN, CALL_END, SEP, "function"),
)


class Step3Parser(XmlParser):
    """``tool_parser="step3"``: Step-3 calls (the module docstring); see
    :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "step3"
    grammar: ClassVar[Grammar] = GRAMMAR
    section_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = ("<|BOT|>", "<|EOT|>")


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Step-3 model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``) after the ``<think>`` of its generation prompt: the reasoning and
    ``</think>`` if given, the text, then the calls' block. The whitespace around a
    string value is markup, so a value that starts or ends with whitespace cannot be
    written. Cost: O(size of the calls)."""
    parts: list[str] = []
    if reasoning is not None:
        parts.append(f"{reasoning}\n</think>\n")
    parts.append(text)
    calls = list(calls)
    if calls:
        parts.append(f"\n{OPEN}\n")
        for call in calls:
            params = "".join(
                f'<steptml:parameter name="{key}">{raw_value(value)}</steptml:parameter>\n'
                for key, value in call.get("args", {}).items()
            )
            parts.append(
                f'{CALL_BEGIN}function{SEP}<steptml:invoke name="{call["name"]}">\n'
                f"{params}</steptml:invoke>{CALL_END}\n"
            )
        parts.append(CLOSE)
    return "".join(parts)
