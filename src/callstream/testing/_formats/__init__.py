"""The payload writers of ``callstream.testing``, one module per format written (the
dialect names of :data:`WRITERS`, ``-`` in a name being ``_`` in its module's), as
``callstream.providers`` has one reader per format.

Each module exposes ``write(calls, shape) -> list[Any]`` (the decoded payloads the provider
streams, in order) and the constants of its format (the error payload its
``provider-error`` quirk ends with). What the writers share (:class:`WireCall`,
:class:`Shape`, the piece orders, :func:`read_json`) is in ``_shared``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from callstream._errors import OptionValueError
from callstream.testing._formats import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    langchain,
    langchain_events,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
    vertex,
)
from callstream.testing._formats._shared import Shape, WireCall, read_json
from callstream.testing._formats.openai_responses import ITEM_TYPES

__all__ = (
    "HTTP_ERRORS",
    "ITEM_TYPES",
    "WRITERS",
    "HttpError",
    "Shape",
    "WireCall",
    "Writer",
    "read_json",
    "write_calls",
)

Writer = Callable[[list[WireCall], Shape], list[Any]]
"""A format's ``write(calls, shape)``: the payloads, in order."""

WRITERS: dict[str, Writer] = {
    "openai-chat": openai_chat.write,
    "openai-responses": openai_responses.write,
    "anthropic": anthropic.write,
    "gemini": gemini.write,
    "vertex": vertex.write,
    "bedrock": bedrock.write,
    "cohere": cohere.write,
    "mistral": mistral.write,
    "ollama": ollama.write,
    "langchain": langchain.write,
    "langchain-events": langchain_events.write,
}
"""Every format written, by dialect name (its module: the name with ``_`` for ``-``)."""

HttpError = Callable[[int, str], tuple[dict[str, str], Any]]
"""A format's ``http_error(status, message)``: the extra headers and the body of its HTTP
error reply."""

HTTP_ERRORS: dict[str, HttpError] = {
    "openai-chat": openai_chat.http_error,
    "openai-responses": openai_responses.http_error,
    "anthropic": anthropic.http_error,
    "gemini": gemini.http_error,
    "vertex": vertex.http_error,
    "bedrock": bedrock.http_error,
    "ollama": ollama.http_error,
}
"""The formats whose HTTP error reply is written (a ``MockProvider`` error turn without a
body of its own); the others (``cohere``, ``mistral``) need the turn's body."""


def write_calls(
    calls: list[WireCall],
    *,
    format: str,
    text: str | None = None,
    reasoning: str | None = None,
    finish: bool = True,
    reason: str = "tool_calls",
) -> list[Any]:
    """The payloads of ``calls`` in ``format`` (one of :data:`WRITERS`), their argument
    text already cut into pieces: the writer beneath
    :func:`~callstream.testing.stream_of`, for argument text of your own (invalid JSON
    included; ``gemini`` and ``ollama`` send text that is not JSON as a string, ``vertex``
    needs JSON).

    Args:
        calls: the calls, their argument text in pieces.
        format: the format.
        text: assistant text before the calls.
        reasoning: reasoning text before the text.
        finish: end with the provider's closing payloads.
        reason: ``"tool_calls"``, ``"stop"`` (a stop finish after the calls, where the
            format has one) or ``"length"`` (the last call left open, the finish saying
            the token limit was reached).

    Raises:
        OptionValueError: (a ``ValueError``) an unknown format or reason; an unknown
            ``item``, or an item other than ``function_call`` in a format other than
            ``openai-responses``.
        UnwritableCallError: (an ``OptionValueError``) ``vertex`` arguments with an empty
            object or array below the top (its leaves cannot carry one).
    """
    if format not in WRITERS:
        raise OptionValueError(f"unknown format {format!r}: one of {', '.join(WRITERS)}")
    if reason not in ("tool_calls", "stop", "length"):
        raise OptionValueError(f"reason must be 'tool_calls', 'stop' or 'length', not {reason!r}")
    for call in calls:
        if call.item not in ITEM_TYPES:
            raise OptionValueError(f"unknown item {call.item!r}: one of {', '.join(ITEM_TYPES)}")
        if call.item != "function_call" and format != "openai-responses":
            raise OptionValueError(f"{call.item} items are written in openai-responses only")
    return WRITERS[format](list(calls), Shape(text, reasoning, finish, frozenset(), reason))
