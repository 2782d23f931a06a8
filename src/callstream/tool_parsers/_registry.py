"""The text formats by name: one line per family, the aliases, and the lookup.

A family is added with one line in :data:`TEXT_FORMATS` (its name -> its module and
class) and, when other engines call it something else, lines in :data:`ALIASES`. The
names are vLLM's ``--tool-call-parser`` names (the ones users type); SGLang's names are
aliases. ``"auto"`` recognizes the family from the first marker seen
(:mod:`callstream.tool_parsers._auto`).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from callstream._errors import OptionTypeError, OptionValueError

if TYPE_CHECKING:
    from callstream.tool_parsers._base import ToolParser

__all__ = ("ALIASES", "TEXT_FORMATS", "get_tool_parser", "parser_class", "resolve_tool_parser")

TEXT_FORMATS: Final[dict[str, tuple[str, str]]] = {
    # name: (module in callstream.tool_parsers, class) -- one line per family
    "hermes": ("hermes", "HermesParser"),
    "granite": ("granite", "GraniteParser"),
    "phi4_mini_json": ("phi4_mini", "Phi4MiniJsonParser"),
    "jamba": ("jamba", "JambaParser"),
    "internlm": ("internlm", "InternLMParser"),
    "cohere": ("cohere", "CohereParser"),
    "xlam": ("xlam", "XlamParser"),
}
"""Every tool parser by its canonical name, in the order ``"auto"`` tries them."""

ALIASES: Final[dict[str, str]] = {
    # other engines' names for a family -> its name
    "qwen25": "hermes",
    "qwen": "hermes",
    "granite3": "granite",  # (llama.cpp's chat format name)
    "phi4_mini": "phi4_mini_json",  # SGLang
    "internlm2": "internlm",
    "command": "cohere",  # vLLM's name for the Command parser
    "command_r7b": "cohere",  # llama.cpp
    "command_a": "cohere",
}
"""Other names for the families (SGLang's ``--tool-call-parser`` names ...)."""


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def resolve_tool_parser(name: str) -> str:
    """The canonical name of tool parser ``name`` (or ``"auto"``); matching ignores case
    and reads ``-`` as ``_``.

    Raises:
        OptionValueError: not a known name or alias (the message lists the names).
        OptionTypeError: ``name`` is not a str.
    """
    if not isinstance(name, str):
        raise OptionTypeError(f"tool_parser must be a name (a str), got {type(name).__name__}")
    key = _key(name)
    if key == "auto":
        return key
    key = ALIASES.get(key, key)
    if key not in TEXT_FORMATS:
        raise OptionValueError(
            f"unknown tool_parser {name!r}; use 'auto' or one of: {', '.join(TEXT_FORMATS)}"
            f" (aliases: {', '.join(sorted(ALIASES))})"
        )
    return key


def parser_class(name: str) -> type[ToolParser]:
    """The class of the tool parser named ``name`` (canonical). Imports its module."""
    module_name, class_name = TEXT_FORMATS[name]
    module = importlib.import_module(f"callstream.tool_parsers.{module_name}")
    found: type[ToolParser] = getattr(module, class_name)
    return found


def get_tool_parser(
    name: str, *, tools: Sequence[Any] | None = None, prefill: str = ""
) -> ToolParser:
    """A new tool parser (for one model output) for family ``name``, or ``"auto"``.

    Args:
        name: a name of :data:`TEXT_FORMATS`, an alias, or ``"auto"``.
        tools: the tools offered to the model (see :class:`ToolParser`).
        prefill: the generation prompt as the chat template renders it.

    Raises:
        OptionValueError: an unknown name.
        OptionTypeError: a wrong type of option.
        ToolDefinitionError: a tool that cannot be described.
    """
    key = resolve_tool_parser(name)
    if key == "auto":
        from callstream.tool_parsers._auto import AutoParser

        families = [parser_class(family) for family in TEXT_FORMATS]
        return AutoParser(families, tools=tools, prefill=prefill)
    return parser_class(key)(tools=tools, prefill=prefill)
