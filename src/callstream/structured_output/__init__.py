"""Structured output, streamed: the JSON a model writes as text (OpenAI
``response_format`` / Responses ``text.format``, Anthropic structured outputs, Gemini
``responseSchema``, Ollama ``format``, LangChain ``with_structured_output``), read from any
provider stream into a partial object, then validated once.

Sync: :func:`structured`, :func:`collect_structured`. Async:
:func:`~callstream.structured_output._async.astructured`,
:func:`~callstream.structured_output._async.acollect_structured` (loaded on first use). The
sans-I/O reader they feed is :class:`callstream.partial.StructuredParser`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from callstream.structured_output._sync import (
    StructuredResult,
    StructuredStream,
    StructuredUpdate,
    collect_structured,
    structured,
)

if TYPE_CHECKING:
    from callstream.structured_output._async import (
        AsyncStructuredStream,
        acollect_structured,
        astructured,
    )

__all__ = (
    "AsyncStructuredStream",
    "StructuredResult",
    "StructuredStream",
    "StructuredUpdate",
    "acollect_structured",
    "astructured",
    "collect_structured",
    "structured",
)

_ASYNC = frozenset({"AsyncStructuredStream", "acollect_structured", "astructured"})


def __getattr__(name: str) -> Any:
    """The async names, loaded on first use (the async driver loads anyio)."""
    if name not in _ASYNC:
        raise AttributeError(f"module 'callstream.structured_output' has no attribute {name!r}")
    value = getattr(importlib.import_module("callstream.structured_output._async"), name)
    globals()[name] = value
    return value
