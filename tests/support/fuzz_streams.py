"""Streams of our own in each provider's wire shape, and mutations of them, for fuzzing.

``write(format, calls, cuts, finish)`` renders tool calls (id, name, argument text) into
the payload dicts that format streams, argument text cut at the given points. Mutations
damage a stream the way a bad server or a broken proxy would: payloads dropped,
duplicated, reordered or cut off, a field replaced by a value of another type or
deleted, a string cut or grown, a stray payload inserted.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

Call = tuple[str, str, str]  # id, name, argument text


def _pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:], strict=False)] or [""]


def _openai_chat(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        return {"id": "chatcmpl-f", "object": "chat.completion.chunk", "choices": [choice]}

    out = [chunk({"role": "assistant", "content": None})]
    for i, (id_, name, text) in enumerate(calls):
        for j, piece in enumerate(_pieces(text, cuts)):
            call: dict[str, Any] = {"index": i, "function": {"arguments": piece}}
            if j == 0:
                call.update(id=id_, type="function")
                call["function"]["name"] = name
            out.append(chunk({"tool_calls": [call]}))
    out.append(chunk({}, "length" if finish == "length" else "tool_calls"))
    return out


def _openai_responses(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    out: list[Any] = [
        {"type": "response.created", "response": {"id": "resp_f", "status": "in_progress"}}
    ]
    for i, (id_, name, text) in enumerate(calls):
        item = {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": id_,
            "name": name,
            "arguments": "",
        }
        out.append({"type": "response.output_item.added", "output_index": i, "item": item})
        for piece in _pieces(text, cuts):
            out.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": f"fc_{i}",
                    "output_index": i,
                    "delta": piece,
                }
            )
        if finish != "length":
            out.append(
                {
                    "type": "response.output_item.done",
                    "output_index": i,
                    "item": dict(item, arguments=text, status="completed"),
                }
            )
    if finish == "length":
        details = {"reason": "max_output_tokens"}
        response = {"id": "resp_f", "status": "incomplete", "incomplete_details": details}
        out.append({"type": "response.incomplete", "response": response})
    else:
        out.append(
            {"type": "response.completed", "response": {"id": "resp_f", "status": "completed"}}
        )
    return out


def _anthropic(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    message = {"id": "msg_f", "type": "message", "role": "assistant", "content": []}
    out: list[Any] = [{"type": "message_start", "message": message}]
    for i, (id_, name, text) in enumerate(calls):
        block = {"type": "tool_use", "id": id_, "name": name, "input": {}}
        out.append({"type": "content_block_start", "index": i, "content_block": block})
        for piece in _pieces(text, cuts):
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append({"type": "content_block_delta", "index": i, "delta": delta})
        if finish != "length" or i < len(calls) - 1:
            out.append({"type": "content_block_stop", "index": i})
    reason = "max_tokens" if finish == "length" else "tool_use"
    out.append({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {}})
    out.append({"type": "message_stop"})
    return out


def _bedrock(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    out: list[Any] = [{"messageStart": {"role": "assistant"}}]
    for i, (id_, name, text) in enumerate(calls):
        start = {"toolUse": {"toolUseId": id_, "name": name}}
        out.append({"contentBlockStart": {"start": start, "contentBlockIndex": i}})
        for piece in _pieces(text, cuts):
            delta = {"toolUse": {"input": piece}}
            out.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": i}})
        if finish != "length" or i < len(calls) - 1:
            out.append({"contentBlockStop": {"contentBlockIndex": i}})
    reason = "max_tokens" if finish == "length" else "tool_use"
    out.append({"messageStop": {"stopReason": reason}})
    return out


def _cohere(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}
    out: list[Any] = [{"id": "m_f", "type": "message-start", "delta": {"message": message}}]
    for i, (id_, name, text) in enumerate(calls):
        call = {"id": id_, "type": "function", "function": {"name": name, "arguments": ""}}
        start = {"message": {"tool_calls": call}}
        out.append({"type": "tool-call-start", "index": i, "delta": start})
        for piece in _pieces(text, cuts):
            delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
            out.append({"type": "tool-call-delta", "index": i, "delta": delta})
        if finish != "length" or i < len(calls) - 1:
            out.append({"type": "tool-call-end", "index": i})
    reason = "MAX_TOKENS" if finish == "length" else "TOOL_CALL"
    out.append({"type": "message-end", "delta": {"finish_reason": reason}})
    return out


def _loads_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _gemini(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    out: list[Any] = []
    for _, name, text in calls:
        part = {"functionCall": {"name": name, "args": _loads_or_text(text)}}
        out.append({"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]})
    reason = "MAX_TOKENS" if finish == "length" else "STOP"
    out.append(
        {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": reason}]}
    )
    return out


def _ollama(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
    out: list[Any] = []
    for _, name, text in calls:
        call = {"function": {"name": name, "arguments": _loads_or_text(text)}}
        message = {"role": "assistant", "content": "", "tool_calls": [call]}
        out.append(
            {"model": "m", "created_at": "2026-01-01T00:00:00Z", "message": message, "done": False}
        )
    message = {"role": "assistant", "content": ""}
    reason = "length" if finish == "length" else "stop"
    out.append({"model": "m", "message": message, "done": True, "done_reason": reason})
    return out


WRITERS: dict[str, Callable[[list[Call], list[int], str], list[Any]]] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "bedrock": _bedrock,
    "cohere": _cohere,
    "gemini": _gemini,
    "ollama": _ollama,
}
"""Every format we write, by provider name."""


def raw_text(provider: str, payloads: list[Any]) -> str:
    """The payloads as the bytes a server sends: NDJSON for Ollama, else SSE."""
    if provider == "ollama":
        return "".join(json.dumps(p) + "\n" for p in payloads)
    return "".join(f"data: {json.dumps(p)}\n\n" for p in payloads)


# --- strategies -----------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.one_of(
    st.dictionaries(st.text(max_size=6), json_values, max_size=4).map(json.dumps),
    st.sampled_from(["", "{}", '{"a": [1, {"b": "c\\u00e9"}]}', "[1, 2]", '{"a": 1', '{"a" 1}']),
)
calls = st.lists(
    st.tuples(
        st.text("abcdef0123", min_size=1, max_size=6).map(lambda s: "call_" + s),
        st.sampled_from(["get_weather", "search", "write_file"]),
        arguments,
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda c: c[0],
)
odd_values = st.sampled_from(
    [None, True, False, 0, -1, 1.5, "", "abc", "0", [], [0], {}, {"a": 1}, "x" * 50, "\udc80"]
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    stack = [(value, prefix)]
    while stack:
        node, path = stack.pop()
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, child in items:
            out.append((*path, key))
            stack.append((child, (*path, key)))
    return out


@st.composite
def mutated(draw: st.DrawFn, payloads: list[Any]) -> list[Any]:
    """``payloads`` with one to three mutations applied (a deep copy; the input is kept)."""
    out = copy.deepcopy(payloads)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not out:
            break
        kind = draw(
            st.sampled_from(["drop", "dup", "swap", "cut", "field", "delete", "string", "insert"])
        )
        i = draw(st.integers(min_value=0, max_value=len(out) - 1))
        if kind == "drop":
            del out[i]
        elif kind == "dup":
            out.insert(i, copy.deepcopy(out[i]))
        elif kind == "swap" and i + 1 < len(out):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif kind == "cut":
            del out[i:]
        elif kind == "insert":
            out.insert(
                i,
                draw(
                    st.dictionaries(
                        st.sampled_from(["type", "index", "choices", "delta", "id"]),
                        json_values,
                        max_size=3,
                    )
                ),
            )
        else:
            paths = [p for p in _paths(out[i]) if p]
            if not paths:
                continue
            path = draw(st.sampled_from(paths))
            parent = out[i]
            for key in path[:-1]:
                parent = parent[key]
            last = path[-1]
            if kind == "field":
                parent[last] = draw(odd_values)
            elif kind == "delete" and isinstance(parent, dict):
                del parent[last]
            elif kind == "string" and isinstance(parent[last], str):
                text = parent[last]
                at = draw(st.integers(min_value=0, max_value=len(text)))
                parent[last] = (
                    text[:at]
                    + draw(st.sampled_from(["", '"', "}", "{", "\\", "é", "\x00"]))
                    + text[at + 1 :]
                )
    return out
