"""Cohere Command calls written as text: Command R7B, Command A (03-2025, reasoning,
vision) -- a JSON list between ``<|START_ACTION|>`` and ``<|END_ACTION|>``.

The shape (the ``tool_use`` chat template of CohereLabs/c4ai-command-a-03-2025 and
c4ai-command-r7b-12-2024, which render an assistant's calls so; vLLM's ``command``
parser, vllm/entrypoints/openai/tool_parsers/command_tool_parser.py, and llama.cpp's
Command R7B format in common/chat.cpp read the list between the markers)::

    <|START_THINKING|>I will look up the weather.<|END_THINKING|><|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
    ]<|END_ACTION|>

and a text answer is ``<|START_RESPONSE|>text<|END_RESPONSE|>``. Each object is one
call: ``"tool_name"`` its name, ``"parameters"`` its arguments (JSON, typed as
written; ``tools=`` only checks the names), ``"tool_call_id"`` skipped. Reasoning:
``<|START_THINKING|>`` ... ``<|END_THINKING|>`` (the tool plan, and Command A
Reasoning's thinking). ``<|START_RESPONSE|>``, ``<|END_RESPONSE|>`` and the turn
tokens are dropped. Command R / R+ (2024) write ``Action: ```json`` blocks instead:
not this parser.

This is ``tool_parser="cohere"`` (alias ``"command"``, vLLM's name): the text a Command
model writes. ``provider="cohere"`` is another thing: Cohere's hosted v2 chat API,
whose stream already carries structured tool calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import CallReader, ToolParser
from callstream.tool_parsers._json_list import EnvelopeListReader
from callstream.tool_parsers._json_text import EnvelopeReader

__all__ = ("CohereParser", "write")

OPEN: str = "<|START_ACTION|>"
CLOSE: str = "<|END_ACTION|>"
THINK_OPEN: str = "<|START_THINKING|>"
THINK_CLOSE: str = "<|END_THINKING|>"
RESPONSE_OPEN: str = "<|START_RESPONSE|>"
RESPONSE_CLOSE: str = "<|END_RESPONSE|>"


class _CohereEnvelope(EnvelopeReader):
    """A Command call object: ``tool_name`` and ``parameters``."""

    __slots__ = ()
    name_keys: ClassVar[frozenset[str]] = frozenset({"tool_name"})
    args_keys: ClassVar[frozenset[str]] = frozenset({"parameters"})


class _CohereList(EnvelopeListReader):
    """The action's list, of Command call objects."""

    __slots__ = ()
    envelope: ClassVar[type[EnvelopeReader]] = _CohereEnvelope


class CohereParser(ToolParser):
    """``tool_parser="cohere"``: a JSON list of calls between ``<|START_ACTION|>`` and
    ``<|END_ACTION|>`` (the module docstring); see :class:`~callstream.tool_parsers.ToolParser`."""

    name: ClassVar[str] = "cohere"
    call_open: ClassVar[tuple[str, ...]] = (OPEN,)
    call_close: ClassVar[tuple[str, ...]] = (CLOSE,)
    reasoning_open: ClassVar[tuple[str, ...]] = (THINK_OPEN,)
    reasoning_close: ClassVar[tuple[str, ...]] = (THINK_CLOSE,)
    dropped: ClassVar[tuple[str, ...]] = (
        RESPONSE_OPEN,
        RESPONSE_CLOSE,
        "<|START_OF_TURN_TOKEN|>",
        "<|END_OF_TURN_TOKEN|>",
        "<|CHATBOT_TOKEN|>",
    )

    def open_call(self, marker: str, index: int) -> CallReader:
        return _CohereList(self, index, ",")


def write(
    calls: Iterable[Mapping[str, Any]], *, text: str = "", reasoning: str | None = None
) -> str:
    """The text a Command A model writes for ``calls`` (each ``{"name": ..., "args":
    {...}}``): the thinking block if given, the response if any text, then the action
    block. Cost: O(size of the calls)."""
    calls = list(calls)
    parts = ["" if reasoning is None else f"{THINK_OPEN}{reasoning}{THINK_CLOSE}"]
    if text:
        parts.append(f"{RESPONSE_OPEN}{text}{RESPONSE_CLOSE}")
    if calls:
        items = [
            dumps_bounded(
                {"tool_call_id": str(i), "tool_name": c["name"], "parameters": c.get("args", {})},
                max_depth=None,
                ensure_ascii=False,
            )
            for i, c in enumerate(calls)
        ]
        parts.append(OPEN + "[\n    " + ",\n    ".join(items) + "\n]" + CLOSE)
    return "".join(parts)
