"""Provider formats: pure translators from provider payloads to assembler signals.

Each wire format has one module with a translator class (see :class:`Translator`) and a
``detect(payload) -> bool`` function. The registry below names them; modules are imported
on first use, so ``import callstream`` does not pay for formats a program never sees.

=================  ===========================================================
format name        payloads
=================  ===========================================================
openai-chat        Chat Completions chunks (OpenAI, Azure, Groq, DeepSeek, xAI,
                   Alibaba, Mistral, TGI, vLLM, llama.cpp, LM Studio, Ollama /v1)
openai-responses   Responses API stream events (OpenAI, DeepSeek, LM Studio)
anthropic          Anthropic Messages stream events (also via Bedrock / Vertex)
gemini             Gemini / Vertex AI ``GenerateContentResponse`` chunks,
                   including Vertex streamed ``partialArgs``
bedrock            Bedrock ConverseStream events (as boto3 yields them)
cohere             Cohere v2 chat stream events
ollama             Ollama native ``/api/chat`` lines
langchain          LangChain ``AIMessageChunk`` objects and ``ToolCallChunk`` dicts
=================  ===========================================================
"""

from __future__ import annotations

import importlib
from typing import Any

from callstream._errors import UsageError
from callstream.providers._base import Translator

__all__ = ("FORMATS", "Translator", "detect_format", "get_translator", "resolve_format")

#: Format name -> (module in this package, translator class), in detection order: the
#: most specific shapes first, LangChain's loosely shaped chunk dicts last.
_REGISTRY: dict[str, tuple[str, str]] = {
    "openai-responses": ("openai_responses", "OpenAIResponsesTranslator"),
    "anthropic": ("anthropic", "AnthropicTranslator"),
    "cohere": ("cohere", "CohereTranslator"),
    "bedrock": ("bedrock", "BedrockTranslator"),
    "ollama": ("ollama", "OllamaTranslator"),
    "gemini": ("gemini", "GeminiTranslator"),
    "openai-chat": ("openai_chat", "OpenAIChatTranslator"),
    "langchain": ("langchain", "LangChainTranslator"),
}

FORMATS: tuple[str, ...] = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "cohere",
    "ollama",
    "langchain",
)
"""The supported format names, accepted as ``provider=`` by the drivers."""

#: Other names people use for a format (provider names, the recordings' format labels).
_ALIASES: dict[str, str] = {
    "openai": "openai-chat",
    "chat": "openai-chat",
    "chat-completions": "openai-chat",
    "azure": "openai-chat",
    "groq": "openai-chat",
    "deepseek": "openai-chat",
    "xai": "openai-chat",
    "grok": "openai-chat",
    "alibaba": "openai-chat",
    "qwen": "openai-chat",
    "dashscope": "openai-chat",
    "mistral": "openai-chat",
    "tgi": "openai-chat",
    "vllm": "openai-chat",
    "llama.cpp": "openai-chat",
    "llamacpp": "openai-chat",
    "lmstudio": "openai-chat",
    "openrouter": "openai-chat",
    "together": "openai-chat",
    "fireworks": "openai-chat",
    "responses": "openai-responses",
    "anthropic-messages": "anthropic",
    "claude": "anthropic",
    "google": "gemini",
    "vertex": "gemini",
    "vertex-ai": "gemini",
    "gemini-partialargs": "gemini",
    "bedrock-converse": "bedrock",
    "converse": "bedrock",
    "cohere-v2": "cohere",
    "ollama-native": "ollama",
}


def resolve_format(name: str) -> str:
    """Return the canonical format name for ``name`` or one of its aliases.

    Matching ignores case and treats ``_`` like ``-``.

    Raises:
        UsageError: ``name`` is not a known format or alias.
    """
    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else ""
    key = _ALIASES.get(key, key)
    if key not in _REGISTRY:
        raise UsageError(
            f"unknown provider format {name!r}; use 'auto' or one of: {', '.join(FORMATS)}"
        )
    return key


def _module(name: str) -> Any:
    module_name, _ = _REGISTRY[name]
    return importlib.import_module(f"{__name__}.{module_name}")


def get_translator(name: str) -> Translator:
    """Return a new translator (fresh state, for one stream) for format ``name``.

    Raises:
        UsageError: ``name`` is not a known format or alias.
    """
    key = resolve_format(name)
    translator: Translator = getattr(_module(key), _REGISTRY[key][1])()
    return translator


def detect_format(payload: Any) -> str | None:
    """Return the name of the format ``payload`` belongs to, or None if it says nothing.

    Payloads that fit every format (a role-only chunk fits only OpenAI Chat; a ``ping``
    only Anthropic) are resolved by checking the formats in a fixed order, most specific
    first. Cost: a few field reads per format.
    """
    for name in _REGISTRY:
        if _module(name).detect(payload):
            return name
    return None
