"""LangChain content-block protocol events written by us, in the shapes langchain-core's
bridge (``langchain_core.language_models._compat_bridge``) and LangGraph emit them, built
with the ``langchain_protocol`` TypedDicts where the package is installed (they are plain
dicts at run time, so the shapes are the same without it).

What the bridge sends for one message: ``message-start``; for each block the first time
it is seen, ``content-block-start`` (text blocks with ``""``, call chunks with their
``id``, ``name``, the provider's ``index`` and ``args: ""``); ``content-block-delta`` per
piece (``text-delta``, ``reasoning-delta``, ``tool-call-delta``); then every block's
``content-block-finish`` (a call chunk parsed into ``tool_call`` / ``server_tool_call``,
or ``invalid_tool_call`` when its text does not parse); last ``message-finish`` with the
message's ``response_metadata`` as ``metadata`` (the finish reason there) and ``usage``.
"""

from __future__ import annotations

import json
from typing import Any

from callstream.testing import sse_event

__all__ = (
    "CUT_EVENTS",
    "ERROR_EVENTS",
    "PARALLEL_EVENTS",
    "REASONING_EVENTS",
    "SERVER_EVENTS",
    "call_finish",
    "call_start",
    "delta",
    "envelope",
    "finish",
    "message_finish",
    "message_start",
    "sse",
    "start",
    "text_block",
)


def message_start(id_: str = "lc_run--1", **extra: Any) -> dict[str, Any]:
    return {"event": "message-start", "role": "ai", "id": id_, **extra}


def start(index: int, content: dict[str, Any]) -> dict[str, Any]:
    return {"event": "content-block-start", "index": index, "content": content}


def finish(index: int, content: dict[str, Any]) -> dict[str, Any]:
    return {"event": "content-block-finish", "index": index, "content": content}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    """A ``content-block-delta``: ``args=`` a ``tool-call-delta``, ``text=`` a
    ``text-delta``, ``reasoning=`` a ``reasoning-delta``."""
    if "args" in fields:
        body = {"type": "tool-call-delta", "args": fields["args"]}
    elif "text" in fields:
        body = {"type": "text-delta", "text": fields["text"]}
    else:
        body = {"type": "reasoning-delta", "reasoning": fields["reasoning"]}
    return {"event": "content-block-delta", "index": index, "delta": body}


def call_start(
    index: int, id_: str, name: str, *, server: bool = False, provider_index: Any = None
) -> dict[str, Any]:
    kind = "server_tool_call_chunk" if server else "tool_call_chunk"
    content: dict[str, Any] = {"type": kind, "id": id_, "name": name, "args": ""}
    content["index"] = index if provider_index is None else provider_index
    return start(index, content)


def call_finish(
    index: int, id_: str, name: str, text: str, *, server: bool = False
) -> dict[str, Any]:
    """The finished block the bridge sends for a call whose text was ``text``."""
    try:
        args = json.loads(text or "{}")
    except json.JSONDecodeError:
        return finish(
            index,
            {
                "type": "invalid_tool_call",
                "id": id_,
                "name": name,
                "args": text,
                "error": "Failed to parse tool call arguments as JSON",
            },
        )
    kind = "server_tool_call" if server else "tool_call"
    content: dict[str, Any] = {"type": kind, "id": id_, "name": name, "args": args}
    if server:
        content["index"] = index
    return finish(index, content)


def text_block(index: int, kind: str, pieces: list[str]) -> list[dict[str, Any]]:
    """A text or reasoning block's start and deltas (its finish comes at the end)."""
    events = [start(index, {"type": kind, kind: ""})]
    events += [delta(index, **{kind: piece}) for piece in pieces]
    return events


def message_finish(reason_key: str | None, reason: str | None, **usage: int) -> dict[str, Any]:
    metadata: dict[str, Any] = {"model_name": "test-model", "model_provider": "test"}
    if reason_key is not None:
        metadata[reason_key] = reason
    event: dict[str, Any] = {"event": "message-finish", "metadata": metadata}
    if usage:
        event["usage"] = usage
    return event


def call(
    index: int, id_: str, name: str, pieces: list[str], *, server: bool = False
) -> list[dict[str, Any]]:
    """A call's start and its argument deltas."""
    events = [call_start(index, id_, name, server=server)]
    events += [delta(index, args=piece) for piece in pieces if piece]
    return events


# --- the streams ------------------------------------------------------------------------

PARIS = ['{"ci', 'ty": "Pa', 'ris"}']
EDINBURGH = ['{"city": "Edin', 'burgh", "coun', 'try": "UK"}']

#: Text, then two parallel calls (ChatOpenAI's shape: the calls' blocks interleave nothing).
PARALLEL_EVENTS: list[dict[str, Any]] = [
    message_start(metadata={"provider": "openai", "model": "gpt-test"}),
    *text_block(0, "text", ["Checking ", "both."]),
    *call(1, "call_1", "get_weather", PARIS),
    *call(2, "call_2", "get_weather", EDINBURGH),
    finish(0, {"type": "text", "text": "Checking both.", "index": 0}),
    call_finish(1, "call_1", "get_weather", "".join(PARIS)),
    call_finish(2, "call_2", "get_weather", "".join(EDINBURGH)),
    message_finish("finish_reason", "tool_calls", input_tokens=5, output_tokens=9),
]

QUERY = ['{"query": "weat', 'her Paris"}']

#: A web search the provider runs itself, its result block, text, then a client call
#: (ChatAnthropic's shape under stream_events v3).
SERVER_EVENTS: list[dict[str, Any]] = [
    message_start(metadata={"provider": "anthropic", "model": "claude-test"}),
    *call(0, "srvtoolu_1", "web_search", QUERY, server=True),
    start(
        1,
        {
            "type": "server_tool_result",
            "tool_call_id": "srvtoolu_1",
            "status": "success",
            "index": 1,
        },
    ),
    *text_block(2, "text", ["It is sunny."]),
    *call(3, "toolu_1", "get_weather", PARIS),
    call_finish(0, "srvtoolu_1", "web_search", "".join(QUERY), server=True),
    finish(
        1,
        {
            "type": "server_tool_result",
            "tool_call_id": "srvtoolu_1",
            "status": "success",
            "output": [{"type": "web_search_result", "url": "https://example.com"}],
            "index": 1,
        },
    ),
    finish(2, {"type": "text", "text": "It is sunny.", "index": 2}),
    call_finish(3, "toolu_1", "get_weather", "".join(PARIS)),
    message_finish("stop_reason", "tool_use"),
]

CUT = ['{"filename": "taxes.txt", "lines": ["# Tax', ' guide", "Fil']

#: A complete call, then one cut by ``max_tokens`` mid-string: its finished block is
#: LangChain's ``invalid_tool_call`` (its text does not parse).
CUT_EVENTS: list[dict[str, Any]] = [
    message_start(),
    *call(0, "toolu_1", "get_weather", PARIS),
    *call(1, "toolu_2", "make_file", CUT),
    call_finish(0, "toolu_1", "get_weather", "".join(PARIS)),
    call_finish(1, "toolu_2", "make_file", "".join(CUT)),
    message_finish("stop_reason", "max_tokens"),
]

#: A finished call, then one whose arguments stop half-way: the provider reports an
#: error (a native event producer's ``error`` event; no message-finish follows).
ERROR_EVENTS: list[dict[str, Any]] = [
    message_start(),
    *call(0, "call_1", "get_weather", PARIS),
    call_finish(0, "call_1", "get_weather", "".join(PARIS)),
    *call(1, "call_2", "get_weather", EDINBURGH[:2]),
    {"event": "error", "message": "upstream connection reset", "code": "provider_error"},
]

#: Reasoning, text, a call (a reasoning model's message).
REASONING_EVENTS: list[dict[str, Any]] = [
    message_start(),
    *text_block(0, "reasoning", ["The user wants ", "the weather."]),
    *text_block(1, "text", ["Let me look."]),
    *call(2, "call_1", "get_weather", PARIS),
    finish(0, {"type": "reasoning", "reasoning": "The user wants the weather.", "index": 0}),
    finish(1, {"type": "text", "text": "Let me look.", "index": 1}),
    call_finish(2, "call_1", "get_weather", "".join(PARIS)),
    message_finish("finish_reason", "tool_calls"),
]


def envelope(event: Any, namespace: list[str] | None = None) -> dict[str, Any]:
    """A LangGraph protocol event as the server sends it over SSE (``params.data`` the
    content-block event itself)."""
    return {
        "type": "event",
        "method": "messages",
        "params": {"namespace": namespace or [], "timestamp": 1_700_000_000_000, "data": event},
    }


def sse(payloads: list[Any], *, event: str | None = None) -> str:
    return "".join(sse_event(p, event or None) for p in payloads)
