"""The format registry: every wire format callstream reads or writes, declared once.

One :class:`WireFormat` per format a translator reads (``openai-chat``, ``anthropic``...),
holding what every layer needs to know about it: its aliases, the translator that reads
it and the test that recognizes its payloads (:mod:`callstream.providers`), how the
command re-cuts its argument text (:mod:`callstream.cli._split`), the tool-result
messages that answer its calls (:mod:`callstream.runner._messages`), and its
:class:`Dialect` s: the wires a server sends it in, each with its writer, framing and
endpoint (:mod:`callstream.testing`). A format's first dialect is the format itself; the
others (``vertex``: Gemini's streamed ``partialArgs``; ``mistral``: Chat Completions with
every call whole; ``langchain-events``: LangChain's content-block protocol) are read by
their format's translator.

Every per-format table in the layers is keyed by these entries or built from them, and
``tests/providers/test_formats.py`` keeps them in step. Names are matched by one rule
(:func:`normalize`); a name that is none of them raises :class:`UnknownFormatNameError`
everywhere, listing the names. Cost of a look-up: one normalization and one dict read.
This module imports nothing it describes: the modules are named by strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from callstream._errors import UnknownFormatNameError

__all__ = (
    "CONTENT_TYPES",
    "RAW_TEXT_FORMATS",
    "DETECTION_ORDER",
    "DIALECTS",
    "FORMATS",
    "REGISTRY",
    "Dialect",
    "Framing",
    "WireFormat",
    "lookup",
    "lookup_dialect",
    "normalize",
    "resolve_format",
)

Framing = Literal["sse", "sse-named", "ndjson", "eventstream"]
"""How a dialect's server frames its payloads: server-sent events (``sse-named``: each
event named after the payload's ``type``), NDJSON lines, or AWS eventstream messages."""

CONTENT_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "sse": "text/event-stream",
        "sse-named": "text/event-stream",
        "ndjson": "application/x-ndjson",
        "eventstream": "application/vnd.amazon.eventstream",
    }
)
"""The response ``content-type`` of each framing."""


@dataclass(frozen=True)
class Dialect:
    """One wire of a format: the payloads a server sends, as the testing writers write them.

    Attributes:
        name: the dialect's name (a format's first dialect bears the format's name).
        format: the name of the format whose translator reads it.
        writer: the module of ``callstream.testing`` that writes it (dotted name); None
            for a raw-text format (its calls are written by a tool parser family).
        framing: how its server frames the payloads; None: no wire (Python objects).
        endpoint: the path its streaming endpoint ends with; None: no HTTP endpoint.
        aliases: other names for this dialect.
    """

    name: str
    format: str
    writer: str | None
    framing: Framing | None
    endpoint: str | None
    aliases: tuple[str, ...] = ()

    @property
    def content_type(self) -> str | None:
        """The ``content-type`` of its streamed response (None without a wire)."""
        return None if self.framing is None else CONTENT_TYPES[self.framing]


@dataclass(frozen=True)
class WireFormat:
    """One format a translator reads.

    Attributes:
        name: the canonical name (what ``StreamResult.provider`` says).
        aliases: other names people use for it (provider and server names).
        module: its module in :mod:`callstream.providers` (and, for its first dialect,
            in ``callstream.testing._formats``).
        translator: the translator class in that module.
        recognizer: the module's test that a payload has a field of the format
            (``recognizes``, or the shape test ``detect`` where there is no other).
        detection_rank: its place in detection (lowest first: most specific shapes);
            None: never detected, only named (``text``).
        tool_results: the tool-result messages :func:`callstream.runner.tool_messages`
            writes for it; None for a raw-text format (its chat template writes them).
        recut: how ``--split`` re-cuts its argument text: ``"chat"`` (a Chat
            Completions tool-call entry), ``"slot"`` (one fragment per event, in a fixed
            field), None (whole argument objects: replayed unchanged).
        dialects: its wires, itself first.
        raw_text: the format carries the model's raw text and no calls of its own (a
            tool parser reads the calls written in it: ``tool_parser=``).
    """

    name: str
    aliases: tuple[str, ...]
    module: str
    translator: str
    recognizer: str
    detection_rank: int | None
    tool_results: str | None
    recut: Literal["chat", "slot"] | None
    dialects: tuple[Dialect, ...]
    raw_text: bool = False

    @property
    def reader(self) -> str:
        """The translator's dotted name."""
        return f"callstream.providers.{self.module}.{self.translator}"


def _writer(module: str) -> str:
    return f"callstream.testing._formats.{module}"


def _entry(
    name: str,
    module: str,
    translator: str,
    *,
    rank: int | None,
    aliases: tuple[str, ...] = (),
    framing: Framing | None,
    endpoint: str | None,
    tool_results: str | None,
    recut: Literal["chat", "slot"] | None = None,
    recognizer: str = "detect",
    dialects: tuple[tuple[str, str, Framing | None, str | None, tuple[str, ...]], ...] = (),
) -> WireFormat:
    raw_text = tool_results is None
    own = Dialect(name, name, None if raw_text else _writer(module), framing, endpoint)
    more = tuple(Dialect(d, name, _writer(m), f, e, a) for d, m, f, e, a in dialects)
    return WireFormat(
        name,
        aliases,
        module,
        translator,
        recognizer,
        rank,
        tool_results,
        recut,
        (own, *more),
        raw_text,
    )


REGISTRY: tuple[WireFormat, ...] = (
    _entry(
        "openai-chat",
        "openai_chat",
        "OpenAIChatTranslator",
        rank=8,
        aliases=(
            "openai",
            "chat",
            "chat-completions",
            "azure",
            "groq",
            "deepseek",
            "xai",
            "grok",
            "alibaba",
            "qwen",
            "dashscope",
            "tgi",
            "vllm",
            "llama.cpp",
            "llamacpp",
            "lmstudio",
            "openrouter",
            "together",
            "fireworks",
        ),
        framing="sse",
        endpoint="/chat/completions",
        tool_results='one {"role": "tool"} message per result',
        recut="chat",
        dialects=(("mistral", "mistral", "sse", "/v1/chat/completions", ()),),
    ),
    _entry(
        "openai-responses",
        "openai_responses",
        "OpenAIResponsesTranslator",
        rank=0,
        aliases=("responses",),
        framing="sse-named",
        endpoint="/responses",
        tool_results="one input item per result (function_call_output, ...)",
        recut="slot",
    ),
    _entry(
        "anthropic",
        "anthropic",
        "AnthropicTranslator",
        rank=1,
        aliases=("anthropic-messages", "claude"),
        framing="sse-named",
        endpoint="/v1/messages",
        tool_results="one user message of tool_result blocks",
        recut="slot",
        recognizer="recognizes",
    ),
    _entry(
        "gemini",
        "gemini",
        "GeminiTranslator",
        rank=6,
        aliases=("google",),
        framing="sse",
        endpoint=":streamGenerateContent",
        tool_results="one Content of functionResponse parts",
        dialects=(
            (
                "vertex",
                "vertex",
                "sse",
                ":streamGenerateContent",
                ("vertex-ai", "gemini-partialargs"),
            ),
        ),
    ),
    _entry(
        "bedrock",
        "bedrock",
        "BedrockTranslator",
        rank=3,
        aliases=("bedrock-converse", "converse"),
        framing="eventstream",
        endpoint="/model/{modelId}/converse-stream",
        tool_results="one user message of toolResult blocks",
        recut="slot",
    ),
    _entry(
        "cohere",
        "cohere",
        "CohereTranslator",
        rank=2,
        aliases=("cohere-v2",),
        framing="sse-named",
        endpoint="/v2/chat",
        tool_results='one {"role": "tool"} message per result, content as documents',
        recut="slot",
    ),
    _entry(
        "ollama",
        "ollama",
        "OllamaTranslator",
        rank=4,
        aliases=("ollama-native",),
        framing="ndjson",
        endpoint="/api/chat",
        tool_results='one {"role": "tool"} message per result, with tool_name',
    ),
    _entry(
        "langchain",
        "langchain",
        "LangChainTranslator",
        rank=10,
        framing=None,
        endpoint=None,
        tool_results="one ToolMessage per result",
        dialects=(("langchain-events", "langchain_events", None, None, ()),),
    ),
    _entry(
        "openai-completions",
        "openai_completions",
        "OpenAICompletionsTranslator",
        rank=7,  # before openai-chat, which takes any ``choices`` list
        aliases=("completions", "openai-completion", "legacy-completions"),
        framing="sse",
        endpoint="/completions",
        tool_results=None,
        recognizer="recognizes",
    ),
    _entry(
        "ollama-generate",
        "ollama_generate",
        "OllamaGenerateTranslator",
        rank=5,
        aliases=("ollama-completion",),
        framing="ndjson",
        endpoint="/api/generate",
        tool_results=None,
        recognizer="recognizes",
    ),
    _entry(
        "llamacpp-completion",
        "llamacpp_completion",
        "LlamaCppCompletionTranslator",
        rank=9,
        aliases=("llama.cpp-completion", "llamacpp-native"),
        framing="sse",
        endpoint="/completion",
        tool_results=None,
        recognizer="recognizes",
    ),
    _entry(
        "text",
        "text",
        "TextTranslator",
        rank=None,  # raw text has no shape to recognize: named only
        framing=None,
        endpoint=None,
        tool_results=None,
        recognizer="recognizes",
    ),
)
"""Every format, in the order the documentation lists them."""

_BY_NAME: dict[str, WireFormat] = {entry.name: entry for entry in REGISTRY}

RAW_TEXT_FORMATS: frozenset[str] = frozenset(e.name for e in REGISTRY if e.raw_text)
"""The formats that carry the model's raw text and no tool calls of their own: the calls
written in their text are read by a tool parser (``tool_parser=``). They have no
tool-result message shape (:func:`callstream.runner.tool_messages` refuses them) and no
writer of their own in :mod:`callstream.testing`."""

FORMATS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        entry.name: (
            *(d.name for d in entry.dialects[1:]),
            *entry.aliases,
            *(a for d in entry.dialects for a in d.aliases),
        )
        for entry in REGISTRY
    }
)
"""Every format name, with the other names that read it (its dialects, then aliases)."""

DIALECTS: Mapping[str, Dialect] = MappingProxyType(
    {d.name: d for entry in REGISTRY for d in entry.dialects}
)
"""Every dialect by name (the formats themselves among them)."""

DETECTION_ORDER: tuple[str, ...] = tuple(
    entry.name
    for entry in sorted(REGISTRY, key=lambda e: e.detection_rank or 0)
    if entry.detection_rank is not None
)
"""The format names in the order detection tries them: the most specific shapes first,
LangChain's loosely shaped chunk dicts last."""

# every name and alias -> (format, dialect): an alias of a format names its first dialect
_NAMES: dict[str, tuple[WireFormat, Dialect]] = {}
for _format in REGISTRY:
    for _alias in (_format.name, *_format.aliases):
        _NAMES[_alias] = (_format, _format.dialects[0])
    for _dialect in _format.dialects:
        for _alias in (_dialect.name, *_dialect.aliases):
            _NAMES[_alias] = (_format, _dialect)
del _format, _alias, _dialect


def normalize(name: object) -> str:
    """``name`` as the registry keys it: stripped, lower case, ``_`` read as ``-``
    (``""`` for anything but a ``str``)."""
    return name.strip().lower().replace("_", "-") if isinstance(name, str) else ""


def _unknown(name: object) -> UnknownFormatNameError:
    names = ", ".join(
        f"{entry.name} ({', '.join(d.name for d in entry.dialects[1:])})"
        if len(entry.dialects) > 1
        else entry.name
        for entry in REGISTRY
    )
    return UnknownFormatNameError(
        f"unknown format name {name!r}; the formats (and dialects) are: {names}, or one "
        "of their aliases (callstream.providers.FORMATS lists them all)"
    )


def lookup(name: object) -> WireFormat:
    """The format ``name`` (a format, dialect or alias name; see :func:`normalize`) is
    read as. Cost: O(len(name)).

    Raises:
        UnknownFormatNameError: ``name`` is no name of the registry.
    """
    found = _NAMES.get(normalize(name))
    if found is None:
        raise _unknown(name)
    return found[0]


def lookup_dialect(name: object) -> Dialect:
    """The dialect ``name`` writes: the dialect of that name, or the first dialect of the
    format it names. Cost: O(len(name)).

    Raises:
        UnknownFormatNameError: ``name`` is no name of the registry.
    """
    found = _NAMES.get(normalize(name))
    if found is None:
        raise _unknown(name)
    return found[1]


def resolve_format(name: str) -> str:
    """Return the canonical format name for ``name`` or one of its aliases or dialects.

    Matching ignores case and treats ``_`` like ``-``.

    Raises:
        UnknownFormatNameError: ``name`` is not a known format or alias (a
            :class:`~callstream.OptionValueError`, so a ``ValueError`` and a
            :class:`~callstream.UsageError`).
    """
    return lookup(name).name
