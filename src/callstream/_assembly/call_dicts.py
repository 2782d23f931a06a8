"""The LangChain-shaped tool-call dicts: ``ToolCallChunk``, ``ToolCall``,
``InvalidToolCall`` and ``ServerToolCall``.

The first three have exactly the keys of LangChain's ``ToolCallChunk``, ``ToolCall`` and
``InvalidToolCall``, so results drop into LangChain messages unchanged. A leaf module,
interpreted in both builds: pydantic reads these ``TypedDict`` s and needs
typing_extensions' ``TypedDict`` on 3.10-3.11. Re-exported by
:mod:`callstream._assembly.types`.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict

__all__ = ("InvalidToolCall", "ServerToolCall", "ToolCall", "ToolCallChunk")


class ToolCallChunk(TypedDict):
    """A fragment of a tool call, as streamed (LangChain's keys; any value may be None).

    ``args`` is a text fragment of the JSON arguments; callstream also accepts a whole
    ``dict`` (servers that send the arguments as an object).
    """

    name: str | None
    args: str | dict[str, Any] | None
    id: str | None
    index: int | None
    type: NotRequired[Literal["tool_call_chunk"]]


class ToolCall(TypedDict):
    """A tool call whose arguments are a JSON object (LangChain's keys)."""

    name: str
    args: dict[str, Any]
    id: str | None
    type: NotRequired[Literal["tool_call"]]


class InvalidToolCall(TypedDict):
    """A tool call that could not be completed, with the raw arguments and a reason."""

    name: str | None
    args: str | None
    id: str | None
    error: str | None
    type: NotRequired[Literal["invalid_tool_call"]]


class ServerToolCall(TypedDict):
    """A tool the provider ran itself (LangChain's ``server_tool_call`` content block).

    Server-side tools (Anthropic ``server_tool_use`` such as web search or code execution,
    Bedrock server tools) are executed by the provider: they are reported here, never in
    ``tool_calls``, so an agent loop does not run them again. ``args`` is the arguments
    object (the live preview while streaming, ``{}`` when they were not a valid object).
    ``extras``, present only for a call that has any (LangChain's key for provider
    metadata), is the call's :class:`CallExtras` record: for OpenAI Responses items the
    item kind, its ``status`` and the like (see ``ToolCallAssembler.call_extras``).
    """

    type: Literal["server_tool_call"]
    name: str
    args: dict[str, Any]
    id: str | None
    extras: NotRequired[dict[str, Any]]
