"""OpenAI Responses events (``openai-responses``): function calls and every other output item
a call can be written as (:data:`ITEM_TYPES`), reasoning summaries, messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from callstream.testing._formats._shared import Shape, WireCall, piece_order
from callstream.testing._formats.openai_chat import http_error

__all__ = ("ITEM_TYPES", "MCP_SERVER_LABEL", "RESPONSES_FAILED", "http_error", "write")


ITEM_TYPES: tuple[str, ...] = (
    "function_call",
    "custom_tool_call",
    "shell_call",
    "local_shell_call",
    "apply_patch_call",
    "computer_call",
    "mcp_call",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
)
"""The OpenAI Responses output items a call can be written as (:attr:`WireCall.item`)."""

#: the item id's prefix, per item type (a call the client runs keeps its id as ``call_id``)
_ITEM_PREFIX = {
    "function_call": "fc",
    "custom_tool_call": "ctc",
    "shell_call": "sh",
    "local_shell_call": "lsh",
    "apply_patch_call": "apc",
    "computer_call": "cu",
}

#: the status events of a hosted tool: (before its streamed text, after it)
_STATUS = {
    "web_search_call": (("in_progress", "searching"), ("completed",)),
    "file_search_call": (("in_progress", "searching"), ("completed",)),
    "code_interpreter_call": (("in_progress",), ("interpreting", "completed")),
    "image_generation_call": (("in_progress", "generating"), ("completed",)),
    "mcp_call": (("in_progress",), ("completed",)),
}

MCP_SERVER_LABEL = "test-server"
"""The ``server_label`` of the ``mcp_call`` items written."""


RESPONSES_FAILED = {
    "code": "server_error",
    "message": "The server had an error while processing your request.",
}
"""The ``error`` of the ``response.failed`` event the ``provider-error`` quirk ends an
OpenAI Responses stream with (``code`` from openai-python's ``ResponseError``)."""


def _response(status: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": "resp_t",
        "object": "response",
        "created_at": 1_760_000_000,
        "model": "test-model",
        "status": status,
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        **extra,
    }


@dataclass
class _ItemEvents:
    """One call item's events: ``opening`` (added, status), one list per argument piece
    (``steps``), ``closing`` (the ``.done`` events, status, ``output_item.done``)."""

    opening: list[dict[str, Any]]
    steps: list[list[dict[str, Any]]]
    closing: list[dict[str, Any]]


def _item_events(call: WireCall, index: int, n: int) -> _ItemEvents:
    """The events of ``call`` as item ``call.item`` at ``output_index`` ``index`` (``n``:
    its place among the calls, for the item id)."""
    kind = call.item
    prefix = _ITEM_PREFIX.get(kind)
    item_id = call.id if prefix is None else f"{prefix}_{n}"
    item: dict[str, Any] = {"type": kind, "id": item_id}
    if prefix is not None:
        item["call_id"] = call.id
    where = {"item_id": item_id, "output_index": index}

    def event(kind_: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind_, **where, **fields}

    before, after = _STATUS.get(kind, ((), ()))
    status_before = [event(f"response.{kind}.{word}") for word in before]
    status_after = [event(f"response.{kind}.{word}") for word in after]
    steps: list[list[dict[str, Any]]]
    if kind in ("function_call", "mcp_call"):
        delta = f"response.{kind}_arguments.delta"
        added = {**item, "name": call.name, "arguments": "", "status": "in_progress"}
        if kind == "mcp_call":
            added["server_label"] = MCP_SERVER_LABEL
        done = {**added, "arguments": call.text, "status": "completed"}
        steps = [[event(delta, delta=piece)] for piece in call.pieces]
        ends = [event(f"response.{kind}_arguments.done", arguments=call.text)]
    elif kind == "custom_tool_call":
        added = {**item, "name": call.name, "input": ""}
        done = {**added, "input": call.text}
        delta = "response.custom_tool_call_input.delta"
        steps = [[event(delta, delta=piece)] if piece else [] for piece in call.pieces]
        ends = [event("response.custom_tool_call_input.done", input=call.text)]
    elif kind == "code_interpreter_call":
        added = {**item, **call.fields, "code": "", "outputs": None, "status": "in_progress"}
        done = {**added, "code": call.text, "outputs": [], "status": "completed"}
        delta = "response.code_interpreter_call_code.delta"
        steps = [[event(delta, delta=piece)] if piece else [] for piece in call.pieces]
        ends = [event("response.code_interpreter_call_code.done", code=call.text)]
    elif kind == "shell_call":
        action = dict(call.fields.get("action", {}))
        added = {
            **item,
            "action": {**action, "commands": []},
            "environment": {"type": "local"},
            "status": "in_progress",
        }
        commands = ["".join(pieces) for pieces in call.commands]
        done = {**added, "action": {**action, "commands": commands}, "status": "completed"}
        steps = _shell_steps(call.commands, index)
        ends = []
    else:  # an item whose fields come whole, in its added and done events
        added = {**item, **call.fields, "status": "in_progress"}
        done = {**added, "status": "completed"}
        if kind == "image_generation_call":
            added["result"] = None
            done["result"] = ""
        steps = [[]]
        ends = []
    added_event = {"type": "response.output_item.added", "output_index": index, "item": added}
    done_event = {"type": "response.output_item.done", "output_index": index, "item": done}
    return _ItemEvents(
        [added_event, *status_before], steps or [[]], [*ends, *status_after, done_event]
    )


def _shell_steps(commands: tuple[tuple[str, ...], ...], index: int) -> list[list[dict[str, Any]]]:
    """A shell call's command events: each command added, its text in deltas, done."""
    steps: list[list[dict[str, Any]]] = []
    for number, pieces in enumerate(commands):
        where = {"output_index": index, "command_index": number}
        for k, piece in enumerate(pieces):
            step: list[dict[str, Any]] = []
            if k == 0:
                step.append({"type": "response.shell_call_command.added", **where, "command": ""})
            if piece:
                step.append({"type": "response.shell_call_command.delta", **where, "delta": piece})
            if k == len(pieces) - 1:
                command = "".join(pieces)
                step.append(
                    {"type": "response.shell_call_command.done", **where, "command": command}
                )
            steps.append(step)
    return steps


def _reasoning_events(text: str) -> list[dict[str, Any]]:
    """A reasoning item at ``output_index`` 0 whose summary streams ``text``."""
    where = {"item_id": "rs_t", "output_index": 0}
    item = {"type": "reasoning", "id": "rs_t", "summary": []}
    part = {"type": "summary_text", "text": ""}
    done_part = {**part, "text": text}
    done = {**item, "summary": [done_part]}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.reasoning_summary_part.added",
            **where,
            "summary_index": 0,
            "part": part,
        },
        {
            "type": "response.reasoning_summary_text.delta",
            **where,
            "summary_index": 0,
            "delta": text,
        },
        {"type": "response.reasoning_summary_text.done", **where, "summary_index": 0, "text": text},
        {
            "type": "response.reasoning_summary_part.done",
            **where,
            "summary_index": 0,
            "part": done_part,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
    ]


def _message_events(text: str, index: int) -> list[dict[str, Any]]:
    """An assistant message item at ``output_index`` ``index`` whose one ``output_text``
    part streams ``text``: added, the part added, the delta, the text and part done, done."""
    where = {"item_id": "msg_t", "output_index": index, "content_index": 0}
    item = {
        "type": "message",
        "id": "msg_t",
        "role": "assistant",
        "content": [],
        "status": "in_progress",
    }
    part = {"type": "output_text", "text": "", "annotations": []}
    done_part = {**part, "text": text}
    done = {**item, "content": [done_part], "status": "completed"}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": item},
        {"type": "response.content_part.added", **where, "part": part},
        {"type": "response.output_text.delta", **where, "delta": text, "logprobs": []},
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": done_part},
        {"type": "response.output_item.done", "output_index": index, "item": done},
    ]


def write(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks
    out: list[Any] = [{"type": "response.created", "response": _response("in_progress")}]
    base = 0
    if shape.reasoning:
        out += _reasoning_events(shape.reasoning)
        base += 1
    if shape.text:
        out += _message_events(shape.text, base)
        base += 1
    items = [_item_events(call, base + i, i) for i, call in enumerate(calls)]
    cut = shape.cuts_last
    order = piece_order([len(e.steps) for e in items], "interleaved" in q)
    for i, j in order:
        if j == 0:
            out += items[i].opening
        out += items[i].steps[j]
        if j == len(items[i].steps) - 1 and not (cut and i == len(calls) - 1):
            out += items[i].closing
    if shape.error:
        failed = _response("failed", error=dict(RESPONSES_FAILED))
        out.append({"type": "response.failed", "response": failed})
    elif shape.finish and shape.reason == "length":
        details = {"reason": "max_output_tokens"}
        out.append(
            {
                "type": "response.incomplete",
                "response": _response("incomplete", incomplete_details=details),
            }
        )
    elif shape.finish:
        # the finished items, in output order, as the server repeats them at the end
        finished = sorted(
            (e for e in out if e["type"] == "response.output_item.done"),
            key=lambda e: int(e["output_index"]),
        )
        output = [e["item"] for e in finished]
        out.append(
            {"type": "response.completed", "response": _response("completed", output=output)}
        )
    return [{**event, "sequence_number": n} for n, event in enumerate(out)]
