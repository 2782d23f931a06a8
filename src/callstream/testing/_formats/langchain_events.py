"""LangChain content-block protocol events (``langchain-events``).

What langchain-core's bridge sends for one message (``stream_events(version="v3")``,
``ChatModelStream``): ``message-start``; a ``content-block-start`` the first time each
block is seen; a ``content-block-delta`` per piece; every block's
``content-block-finish`` (a call parsed into ``tool_call``, or ``invalid_tool_call``
when its text does not parse); ``message-finish`` with the finish reason in
``metadata``. Snapshots (``block-delta`` with the call chunk so far in ``fields``) are
the ``cumulative-arguments`` quirk.
"""

from __future__ import annotations

from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, in_order, interleave, read_json

__all__ = ("write",)


def _lc_finish(index: int, call: WireCall) -> dict[str, Any]:
    try:
        args = read_json(call.text or "{}")
    except ValueError:
        content: dict[str, Any] = {
            "type": "invalid_tool_call",
            "id": call.id,
            "name": call.name,
            "args": call.text,
            "error": "Failed to parse tool call arguments as JSON",
        }
    else:
        content = {"type": "tool_call", "id": call.id, "name": call.name, "args": args}
    return {"event": "content-block-finish", "index": index, "content": content}


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks
    out: list[Any] = [{"event": "message-start", "role": "ai", "id": "lc_run--t"}]
    finishes: list[Any] = []
    index = 0
    for kind, text in (("reasoning", shape.reasoning), ("text", shape.text)):
        if text:
            out.append(
                {
                    "event": "content-block-start",
                    "index": index,
                    "content": {"type": kind, kind: ""},
                }
            )
            text_delta = {"type": f"{kind}-delta", kind: text}
            out.append({"event": "content-block-delta", "index": index, "delta": text_delta})
            finishes.append(
                {
                    "event": "content-block-finish",
                    "index": index,
                    "content": {"type": kind, kind: text},
                }
            )
            index += 1
    order = interleave(calls) if "interleaved" in q else in_order(calls)
    sent = ["" for _ in calls]
    for i, j in order:
        call = calls[i]
        if j == 0:
            content = {
                "type": "tool_call_chunk",
                "id": call.id,
                "name": call.name,
                "args": "",
                "index": i,
            }
            out.append({"event": "content-block-start", "index": index + i, "content": content})
        sent[i] += call.pieces[j]
        if "cumulative-arguments" in q:
            fields = {
                "type": "tool_call_chunk",
                "id": call.id,
                "name": call.name,
                "args": sent[i],
                "index": i,
            }
            body: dict[str, Any] = {"type": "block-delta", "fields": fields}
        else:
            body = {"type": "tool-call-delta", "args": call.pieces[j]}
        if call.pieces[j]:
            out.append({"event": "content-block-delta", "index": index + i, "delta": body})
    if not shape.finish:
        return out
    out += finishes
    out += [_lc_finish(index + i, call) for i, call in enumerate(calls)]
    reason = "length" if shape.reason == "length" else shape.reason
    metadata = {"model_name": "test-model", "model_provider": "test", "finish_reason": reason}
    out.append({"event": "message-finish", "metadata": metadata})
    return out
