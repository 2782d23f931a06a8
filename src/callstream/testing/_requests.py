"""What a request to a :class:`~callstream.testing.MockProvider` carries, read in its
format's shape: :class:`RecordedRequest` (one request as the mock kept it), the tools it
offered, its conversation, and the tool results sent back (:class:`SentToolResult`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ("RecordedRequest", "SentToolResult", "tool_names")


@dataclass(frozen=True)
class SentToolResult:
    """A tool result a client sent back: the call's ``id`` (``None`` where the format has
    none: Ollama, Gemini without ids), the tool's ``name`` where the format says it, and
    the ``content`` as the request carried it (a string, a list of blocks, an object)."""

    id: str | None
    name: str | None
    content: Any


@dataclass(frozen=True)
class RecordedRequest:
    """One request a client sent to a :class:`MockProvider`.

    Attributes:
        method: ``POST``, ...
        path: the URL path (no query).
        query: the query string, credentials (``key=``) left out.
        headers: lower-cased names to values, credentials left out (``authorization``,
            ``x-api-key``, ``api-key``, ``x-goog-api-key``, ``cookie``,
            ``x-amz-security-token``: never stored).
        body: the JSON body, decoded (``None`` for an empty body).
        format: the format of the provider it was sent to.
        turn: the index of the turn that answered it, ``None`` when none did (the client
            got an error reply naming what was expected).
    """

    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: Any
    format: str
    turn: int | None

    @property
    def tools(self) -> tuple[str, ...]:
        """The names of the tools the request offered, in order (hosted tools without a
        name by their ``type``). Cost: O(tools)."""
        return tuple(tool_names(self.body, self.format))

    @property
    def messages(self) -> list[Any]:
        """The conversation the request carried, as sent: ``messages`` (``contents`` for
        Gemini, ``input`` for Responses, as a list). Cost: O(1)."""
        return _messages(self.body, self.format)

    @property
    def tool_results(self) -> list[SentToolResult]:
        """Every tool result in the conversation, in order, read in the format's shape
        (``role: "tool"`` messages, ``tool_result`` / ``toolResult`` blocks,
        ``functionResponse`` parts, ``*_call_output`` items). Cost: O(messages)."""
        return _tool_results(self.messages, self.format)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def tool_names(body: Any, format: str) -> list[str]:
    """The names of the tools a request body offers, in order (hosted tools by their
    ``type``); none when the body is not an object. Cost: O(tools)."""
    if not isinstance(body, dict):
        return []
    if format == "bedrock":
        config = body.get("toolConfig")
        tools = _list(config.get("tools")) if isinstance(config, dict) else []
        return [
            t["toolSpec"]["name"]
            for t in tools
            if isinstance(t, dict)
            and isinstance(t.get("toolSpec"), dict)
            and isinstance(t["toolSpec"].get("name"), str)
        ]
    if format in ("gemini", "vertex"):
        names = []
        for tool in _list(body.get("tools")):
            if not isinstance(tool, dict):
                continue
            declared = tool.get("functionDeclarations", tool.get("function_declarations"))
            names += [d["name"] for d in _list(declared) if isinstance(d, dict) and "name" in d]
        return names
    names = []
    for tool in _list(body.get("tools")):
        if not isinstance(tool, dict):
            continue
        inner = tool.get(tool.get("type", "function"))
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            names.append(inner["name"])  # {"type": "function", "function": {"name": ...}}
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])  # Anthropic, Responses functions
        elif isinstance(tool.get("type"), str):
            names.append(tool["type"])  # a hosted tool: web_search, ...
    return names


def _messages(body: Any, format: str) -> list[Any]:
    if not isinstance(body, dict):
        return []
    if format in ("gemini", "vertex"):
        return _list(body.get("contents"))
    if format == "openai-responses":
        given = body.get("input")
        return [{"role": "user", "content": given}] if isinstance(given, str) else _list(given)
    return _list(body.get("messages"))


def _tool_results(messages: list[Any], format: str) -> list[SentToolResult]:
    found: list[SentToolResult] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        if format == "openai-responses":
            kind = message.get("type")
            if isinstance(kind, str) and kind.endswith("_call_output"):
                found.append(SentToolResult(message.get("call_id"), None, message.get("output")))
            continue
        if message.get("role") == "tool":  # Chat Completions, Mistral, Cohere, Ollama
            found.append(
                SentToolResult(
                    message.get("tool_call_id"),
                    message.get("tool_name", message.get("name")),
                    message.get("content"),
                )
            )
            continue
        for part in _list(message.get("content", message.get("parts"))):
            if not isinstance(part, dict):
                continue
            if part.get("type") == "tool_result":  # Anthropic
                found.append(SentToolResult(part.get("tool_use_id"), None, part.get("content")))
            elif isinstance(part.get("toolResult"), dict):  # Bedrock
                result = part["toolResult"]
                found.append(SentToolResult(result.get("toolUseId"), None, result.get("content")))
            elif isinstance(part.get("functionResponse"), dict):  # Gemini
                response = part["functionResponse"]
                found.append(
                    SentToolResult(
                        response.get("id"), response.get("name"), response.get("response")
                    )
                )
    return found
