"""Provider formats: pure translators from provider payloads to assembler signals.

Each wire format has one module with a translator class (see :class:`Translator`; the
dispatch and the never-raise rule every one follows: :mod:`callstream.providers._base`)
and a ``detect(payload) -> bool`` function. The format registry
(:mod:`callstream.providers._formats`) declares them, with their aliases and dialects;
modules are imported on first use, so ``import callstream`` does not pay for formats a
program never sees. :data:`FORMATS` maps each format name to its other names.

=====================  ===========================================================
format name            payloads
=====================  ===========================================================
openai-chat            Chat Completions chunks (OpenAI, Azure, Groq, DeepSeek, xAI,
                       Alibaba, Mistral, TGI, vLLM, llama.cpp, LM Studio, Ollama /v1)
openai-responses       Responses API stream events (OpenAI, DeepSeek, LM Studio)
anthropic              Anthropic Messages stream events (also via Bedrock / Vertex)
gemini                 Gemini / Vertex AI ``GenerateContentResponse`` chunks,
                       including Vertex streamed ``partialArgs``
bedrock                Bedrock ConverseStream events (as boto3 yields them)
cohere                 Cohere v2 chat stream events
ollama                 Ollama native ``/api/chat`` lines
langchain              LangChain ``AIMessageChunk`` objects, ``ToolCallChunk`` dicts,
                       content-block events (``stream_events(version="v3")``,
                       ``ChatModelStream``) and LangGraph's message streams
openai-completions     legacy Completions chunks, ``/v1/completions`` (OpenAI, vLLM,
                       llama.cpp, TGI, LM Studio, llama-cpp-python): raw text
ollama-generate        Ollama native ``/api/generate`` lines: raw text
llamacpp-completion    llama.cpp server's native ``/completion`` results: raw text
text                   the model's raw output as ``str`` / bytes pieces (transformers,
                       vLLM, MLX, llama-cpp-python in process); never auto-detected
=====================  ===========================================================

The last four are *raw-text formats* (:data:`RAW_TEXT_FORMATS`): the model's text and
no tool calls of their own; a tool parser reads the calls written in it.
"""

from __future__ import annotations

import importlib
from typing import Any

from callstream._assembly.types import (
    CallChunk,
    CallEnd,
    CallExtras,
    CallFailure,
    ServerToolUse,
    StreamEnd,
    TextDelta,
)
from callstream._errors import CallstreamError
from callstream.providers._base import Translator
from callstream.providers._fields import get, get_str
from callstream.providers._formats import (
    DETECTION_ORDER,
    FORMATS,
    RAW_TEXT_FORMATS,
    REGISTRY,
    WireFormat,
    lookup,
    resolve_format,
)

__all__ = (
    "FORMATS",
    "RAW_TEXT_FORMATS",
    "Translator",
    "detect_format",
    "get_translator",
    "has_evidence",
    "recognizes",
    "resolve_format",
    "unwrap_sdk_event",
)

#: Format name -> its registry entry, in detection order: the most specific shapes first,
#: LangChain's loosely shaped chunk dicts last (:data:`~._formats.DETECTION_ORDER`), then
#: the formats never detected (named only: ``text``).
_REGISTRY: dict[str, WireFormat] = {
    **{name: lookup(name) for name in DETECTION_ORDER},
    **{entry.name: entry for entry in REGISTRY if entry.detection_rank is None},
}


_MODULES: dict[str, Any] = {}
"""The translator modules imported so far, by format (``importlib.import_module`` is not
free even for a module already imported, and format detection asks for each format's
module once per stream)."""


def _module(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        module_name = _REGISTRY[name].module
        module = _MODULES[name] = importlib.import_module(f"{__name__}.{module_name}")
    return module


def get_translator(name: str) -> Translator:
    """Return a new translator (fresh state, for one stream) for format ``name``.

    Raises:
        UnknownFormatNameError: ``name`` is not a known format, dialect or alias.
    """
    key = resolve_format(name)
    translator: Translator = getattr(_module(key), _REGISTRY[key].translator)()
    return translator


#: ``type`` of the events of the openai SDK's ``chat.completions.stream()`` helper
#: (``openai.lib.streaming.chat``); only ``"chunk"`` carries data we read (``.chunk``).
_OPENAI_HELPER_EVENTS = frozenset(
    {
        "chunk",
        "content.delta",
        "content.done",
        "refusal.delta",
        "refusal.done",
        "tool_calls.function.arguments.delta",
        "tool_calls.function.arguments.done",
        "logprobs.content.delta",
        "logprobs.content.done",
        "logprobs.refusal.delta",
        "logprobs.refusal.done",
    }
)


def unwrap_sdk_event(payload: Any) -> Any:
    """The raw chunk inside an openai SDK ``ChunkEvent`` (``type="chunk"``, ``.chunk``),
    else ``payload`` itself. Plain dicts are never unwrapped. Cost: O(1)."""
    if type(payload) is dict:
        return payload
    if get_str(payload, "type") == "chunk":
        chunk = get(payload, "chunk")
        if chunk is not None:
            return chunk
    return payload


def detect_format(payload: Any) -> str | None:
    """Return the name of the format ``payload`` looks like, or None if it says nothing.

    This is a *weak* guess from the payload's shape (a ``choices`` list, a ``type`` of
    ``message_start``...): one stray payload can look like any format, so the pipeline
    commits to a format only on evidence (see :func:`has_evidence`). Payloads that fit
    several formats are resolved by checking the formats in a fixed order, most
    specific first. An openai SDK ``ChunkEvent`` is read as the chunk it carries.

    Evidence (:func:`has_evidence`) is a tool-call or end-of-stream field of a format.
    Per format:

    - openai-chat: ``choices[].delta.tool_calls`` / ``function_call`` with content, a
      ``finish_reason``, or a Groq ``error.failed_generation``;
    - openai-responses: ``response.output_item.added`` / ``done`` of a function call,
      ``response.function_call_arguments.*``, ``response.completed`` / ``incomplete`` /
      ``failed``;
    - anthropic: ``content_block_start`` of a ``tool_use`` block, ``message_delta`` with
      a ``stop_reason``, ``message_stop``;
    - gemini: a ``functionCall`` part or a ``finishReason``;
    - bedrock: ``contentBlockStart.start.toolUse``, ``messageStop``;
    - cohere: ``tool-call-start``, ``message-end``;
    - ollama: ``message.tool_calls``, ``done: true``;
    - ollama-generate: ``done: true``, an ``error``;
    - openai-completions: a ``finish_reason``, an ``error``;
    - llamacpp-completion: ``stop: true``, an ``error``;
    - langchain: a tool-call chunk with a name or arguments, or a finish reason; a
      ``content-block-start`` of a call, ``message-finish``, ``error``.

    Cost: a few field reads per format.
    """
    payload = unwrap_sdk_event(payload)
    for name in DETECTION_ORDER:
        if _module(name).detect(payload):
            return name
    return None


def has_evidence(name: str, payload: Any) -> bool:
    """Whether ``payload`` proves it belongs to format ``name``.

    Evidence is a tool-call or an end-of-stream field of that format, read by a fresh
    translator of the format: a tool-call piece carrying a name or arguments (an id
    alone is not enough: ``{"id": "chatcmpl-1"}`` is a LangChain chunk's shape), a
    call's end or failure, a provider-run tool, or the stream's end (a finish reason).
    What that is per format is listed in :func:`detect_format`.

    Shapes alone (``{"index": 0}``, ``{"type": "message_start"}``, ``{"candidates": []}``,
    ``{"done": false, "message": {}}``) and text (:class:`~callstream.TextDelta`) are not
    evidence. Cost: one translation of
    ``payload``; only called while the format is not known yet.
    """
    try:
        signals = get_translator(name).translate(payload)
    except CallstreamError:  # a LangChain chunk written wrong: no evidence for it
        return False
    for signal in signals:
        if isinstance(signal, (CallEnd, CallFailure, ServerToolUse, StreamEnd)):
            return True
        if isinstance(signal, (TextDelta, CallExtras)):
            continue  # text is no evidence (many formats carry it alike), nor are extras
        if isinstance(signal, CallChunk):
            if signal.name or signal.args:
                return True
        elif signal.get("name") or signal.get("args"):
            return True
    return False


def recognizes(name: str, payload: Any) -> bool:
    """Whether ``payload`` has any field of format ``name`` (the format module's own
    ``recognizes`` where it has one, else its shape test ``detect``; plus the events of
    the openai SDK's stream helper for ``openai-chat``). Used to notice a stream that
    stops matching its format. Cost: a few field reads."""
    if name == "openai-chat" and type(payload) is not dict:
        if get_str(payload, "type") in _OPENAI_HELPER_EVENTS:
            return True
    test = getattr(_module(name), _REGISTRY[name].recognizer)
    return bool(test(payload))
