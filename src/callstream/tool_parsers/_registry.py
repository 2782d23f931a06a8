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
    "openai": ("harmony", "HarmonyParser"),
    "gemma4": ("gemma4", "Gemma4Parser"),
    "deepseek_v3": ("deepseek", "DeepSeekV3Parser"),
    "deepseek_v31": ("deepseek", "DeepSeekV31Parser"),
    "deepseek_v32": ("deepseek_dsml", "DeepSeekV32Parser"),
    "deepseek_v4": ("deepseek_dsml", "DeepSeekV4Parser"),
    "deepseek_v41": ("deepseek_dsml", "DeepSeekV41Parser"),
    "glm45": ("glm", "Glm45Parser"),
    "glm47": ("glm", "Glm47Parser"),
    "kimi_k2": ("kimi", "KimiK2Parser"),
    "kimi_k3": ("kimi_k3", "KimiK3Parser"),
    "qwen3_coder": ("qwen3_coder", "Qwen3CoderParser"),
    "seed_oss": ("seed_oss", "SeedOssParser"),
    "minimax_m2": ("minimax_m2", "MinimaxM2Parser"),
    "step3": ("step3", "Step3Parser"),
    "mistral": ("mistral", "MistralParser"),
    "llama3_json": ("llama", "Llama3JsonParser"),
    "llama4_json": ("llama", "Llama4JsonParser"),
    "llama4_pythonic": ("pythonic", "Llama4PythonicParser"),
    "pythonic": ("pythonic", "PythonicParser"),
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
    "harmony": "openai",
    "gpt_oss": "openai",
    "deepseekv3": "deepseek_v3",  # SGLang
    "deepseekv31": "deepseek_v31",
    "deepseekv32": "deepseek_v32",
    "deepseekv4": "deepseek_v4",
    "deepseekv41": "deepseek_v41",
    "deepseek_r1": "deepseek_v3",  # llama.cpp's chat formats
    "deepseek_v3_1": "deepseek_v31",
    "glm": "glm45",
    "kimi": "kimi_k2",
    "qwen3_xml": "qwen3_coder",  # vLLM's second name for the same format
    "qwen3coder": "qwen3_coder",
    "minimax": "minimax_m2",  # llama.cpp / Ollama-style short names
    "seed": "seed_oss",
    "llama3": "llama3_json",  # SGLang
    "magistral": "mistral",  # llama.cpp's chat format name
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
