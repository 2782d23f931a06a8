"""Follow-up messages carrying tool results back to the model (placeholder)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from callstream.runner._results import ToolResult

__all__ = ("MessageFormat", "tool_messages")

MessageFormat: TypeAlias = Literal[
    "openai", "openai-responses", "anthropic", "gemini", "bedrock", "langchain"
]


def tool_messages(results: Sequence[ToolResult], format: MessageFormat) -> list[Any]:
    """Placeholder."""
    raise NotImplementedError
