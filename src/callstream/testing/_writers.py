"""Tool calls written as the payloads of each provider wire format, argument text in given pieces.

Each writer takes the calls as :class:`WireCall` values (id, name, argument pieces), the
optional text and reasoning, and whether the stream ends with the provider's closing
payloads, and returns the decoded payload dicts the provider streams, in order. Quirks
(named in ``callstream.testing._stream``) are applied by the writers themselves, through
the :class:`Shape` they are given, so one writer knows every variation of its format and no
second copy of a format exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from callstream._errors import OptionValueError, UnwritableCallError
from callstream._json.parser import PartialJSONParser

__all__ = ("ITEM_TYPES", "WRITERS", "Shape", "WireCall", "read_json", "write_calls")


@dataclass(frozen=True)
class WireCall:
    """One call to write: its id, name, and argument text cut into pieces (joined, the
    pieces are the whole text; one empty piece for no text).

    ``item`` is the OpenAI Responses output item it is written as (one of
    :data:`ITEM_TYPES`; other formats write function calls only). What streams in
    ``pieces`` depends on it: the JSON argument text (``function_call``, ``mcp_call``),
    the input text (``custom_tool_call``), the code (``code_interpreter_call``); a
    ``shell_call`` streams ``commands`` (each command's text in pieces). ``fields`` are
    the item's other fields, written whole: ``action`` without its ``commands`` (shell),
    ``container_id`` (code interpreter), every field of the items that do not stream
    (``local_shell_call``, ``apply_patch_call``, ``computer_call``, ``web_search_call``,
    ``file_search_call``, ``image_generation_call``).
    """

    id: str
    name: str
    pieces: tuple[str, ...]
    item: str = "function_call"
    fields: Mapping[str, Any] = field(default_factory=dict, hash=False)
    commands: tuple[tuple[str, ...], ...] = ()

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass(frozen=True)
class Shape:
    """What a writer writes besides the calls: text, reasoning, the end, and the quirks."""

    text: str | None = None
    reasoning: str | None = None
    finish: bool = True
    quirks: frozenset[str] = field(default_factory=frozenset)
    #: the finish word: "tool_calls" (the usual), "stop" or "length"
    reason: str = "tool_calls"
    #: end with the provider's error payload, the last call left open (its text cut by
    #: the caller) or absent (see the ``provider-error`` quirk)
    error: bool = False

    @property
    def cuts_last(self) -> bool:
        """Whether the last call is left open (cut by the token limit, or by an error)."""
        return self.reason == "length" or self.error


def read_json(text: str) -> Any:
    """``json.loads(text)`` without recursion (callstream's parser, its default depth
    limit; no ``NaN``), for the writers, whatever the depth of the arguments.

    Raises:
        PartialJSONError: the text is not JSON (a ``ValueError``), or nests deeper than
            ``DEFAULT_MAX_DEPTH``.
    """
    parser = PartialJSONParser()
    parser.feed(text)
    return parser.close()


def _loads_or_text(text: str) -> Any:
    try:
        return read_json(text)
    except ValueError:
        return text


def _order(counts: Sequence[int], mixed: bool) -> list[tuple[int, int]]:
    """(call, piece) pairs for calls of ``counts`` pieces: call after call, or (``mixed``)
    round robin over the calls, parallel calls' fragments mixed."""
    if not mixed:
        return [(i, j) for i, count in enumerate(counts) for j in range(count)]
    order: list[tuple[int, int]] = []
    for j in range(max(counts, default=0)):
        order += [(i, j) for i, count in enumerate(counts) if j < count]
    return order


def _interleave(calls: list[WireCall]) -> list[tuple[int, int]]:
    """(call, piece) pairs, round robin over the calls: parallel calls' fragments mixed."""
    return _order([len(c.pieces) for c in calls], True)


def _in_order(calls: list[WireCall]) -> list[tuple[int, int]]:
    return _order([len(c.pieces) for c in calls], False)


# --- OpenAI Chat Completions (and Mistral, a Chat dialect) ---------------------------------

GROQ_TOOL_USE_FAILED = (
    "Failed to call a function. Please adjust your prompt. "
    "See 'failed_generation' for more details."
)


def _chat_key(entry: dict[str, Any], i: int, q: frozenset[str]) -> dict[str, Any]:
    if "missing-index" not in q:
        entry["index"] = 0 if "shared-index" in q else i
    return entry


def _chat_whole(calls: list[WireCall], q: frozenset[str]) -> list[dict[str, Any]]:
    """Every call whole: one ``tool_calls`` entry each (arguments as an object or text)."""
    entries = []
    for i, call in enumerate(calls):
        args: Any = _loads_or_text(call.text) if "arguments-object" in q else call.text
        function = {"name": call.name, "arguments": args}
        entries.append(_chat_key({"id": call.id, "type": "function", "function": function}, i, q))
    return entries


def _chat_fragments(calls: list[WireCall], q: frozenset[str]) -> list[dict[str, Any]]:
    """One ``tool_calls`` entry per argument fragment, in stream order."""
    out = []
    order = _interleave(calls) if "interleaved" in q else _in_order(calls)
    for i, j in order:
        call = calls[i]
        named = j == 0 or "resent-ids" in q
        if j == 0 and "empty-first-fragment" in q:
            function = {"name": call.name, "arguments": ""}
            out.append(_chat_key({"id": call.id, "type": "function", "function": function}, i, q))
            named = "resent-ids" in q
        # cumulative-arguments: the text so far on every chunk, not the new piece
        piece = "".join(call.pieces[: j + 1]) if "cumulative-arguments" in q else call.pieces[j]
        entry: dict[str, Any] = {"function": {"arguments": piece}}
        if named:
            entry.update(id=call.id, type="function")
            entry["function"]["name"] = call.name
        out.append(_chat_key(entry, i, q))
    return out


def _openai_chat(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        return {
            "id": "chatcmpl-t",
            "object": "chat.completion.chunk",
            "created": 1_760_000_000,
            "model": "test-model",
            "choices": [choice],
        }

    out = [chunk({"role": "assistant", "content": None})]
    if shape.reasoning:
        out.append(chunk({"reasoning_content": shape.reasoning}))
    if shape.text:
        out.append(chunk({"content": shape.text}))
    if "whole-calls" in q or "arguments-object" in q:
        # Groq and Mistral send every call of a turn in one delta
        out.append(chunk({"tool_calls": _chat_whole(calls, q)}))
    else:
        out += [chunk({"tool_calls": [entry]}) for entry in _chat_fragments(calls, q)]
    if shape.error:
        failed = calls[-1]
        error = {
            "message": GROQ_TOOL_USE_FAILED,
            "type": "invalid_request_error",
            "code": "tool_use_failed",
            "failed_generation": f"<function={failed.name}>{failed.text}</function>",
        }
        out.append({"error": error})
        return out
    if shape.finish:
        out.append(chunk({}, shape.reason))
    return out


# --- OpenAI Responses ----------------------------------------------------------------------

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


def _openai_responses(calls: list[WireCall], shape: Shape) -> list[Any]:
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
    order = _order([len(e.steps) for e in items], "interleaved" in q)
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


# --- Anthropic Messages --------------------------------------------------------------------

ANTHROPIC_OVERLOADED = {
    "type": "error",
    "error": {"type": "overloaded_error", "message": "Overloaded"},
}


def _anthropic(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks
    message: dict[str, Any] = {
        "id": "msg_t",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    out: list[Any] = [{"type": "message_start", "message": message}]
    index = 0
    if shape.reasoning:
        block: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "thinking_delta", "thinking": shape.reasoning},
            }
        )
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    if shape.text:
        block = {"type": "text", "text": ""}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": shape.text},
            }
        )
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    cut = shape.reason == "length"
    for n, call in enumerate(calls):
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        pieces = ("", *call.pieces) if "empty-first-fragment" in q else call.pieces
        for piece in pieces:
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        last = n == len(calls) - 1
        if shape.error and last:
            out.append(ANTHROPIC_OVERLOADED)
            return out
        if not (cut and last):
            out.append({"type": "content_block_stop", "index": index})
        index += 1
    if shape.finish:
        reason = "max_tokens" if cut else "tool_use"
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason},
                "usage": {"output_tokens": 1},
            }
        )
        out.append({"type": "message_stop"})
    return out


# --- Bedrock ConverseStream ----------------------------------------------------------------


BEDROCK_STREAM_ERROR = {
    "message": "The model failed while streaming its response.",
    "originalStatusCode": 500,
    "originalMessage": "internal error",
}
"""The ``modelStreamErrorException`` event the ``provider-error`` quirk ends a Bedrock
stream with (its members as botocore's ``bedrock-runtime`` model has them)."""


def _bedrock(calls: list[WireCall], shape: Shape) -> list[Any]:
    q = shape.quirks
    out: list[Any] = [{"messageStart": {"role": "assistant"}}]
    index = 0
    if shape.reasoning:
        delta = {"reasoningContent": {"text": shape.reasoning}}
        out.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}})
        out.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    if shape.text:
        out.append(
            {"contentBlockDelta": {"delta": {"text": shape.text}, "contentBlockIndex": index}}
        )
        out.append({"contentBlockStop": {"contentBlockIndex": index}})
        index += 1
    cut = shape.cuts_last
    order = _interleave(calls) if "interleaved" in q else _in_order(calls)
    for i, j in order:
        call = calls[i]
        if j == 0:
            start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
            out.append({"contentBlockStart": {"start": start, "contentBlockIndex": index + i}})
        delta = {"toolUse": {"input": call.pieces[j]}}
        out.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index + i}})
        if j == len(call.pieces) - 1 and not (cut and i == len(calls) - 1):
            out.append({"contentBlockStop": {"contentBlockIndex": index + i}})
    if shape.error:
        out.append({"modelStreamErrorException": dict(BEDROCK_STREAM_ERROR)})
    elif shape.finish:
        out.append({"messageStop": {"stopReason": "max_tokens" if cut else "tool_use"}})
    return out


# --- Cohere v2 -----------------------------------------------------------------------------


COHERE_ERROR = "an internal error occurred during generation"
"""The ``delta.error`` of the ``message-end`` event (``finish_reason`` ``ERROR``) the
``provider-error`` quirk ends a Cohere v2 stream with."""


def _cohere(calls: list[WireCall], shape: Shape) -> list[Any]:
    message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}
    out: list[Any] = [{"id": "m_t", "type": "message-start", "delta": {"message": message}}]
    if shape.reasoning:
        out.append(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"thinking": shape.reasoning}}},
            }
        )
    if shape.text:
        out.append(
            {
                "type": "content-start",
                "index": 0,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            }
        )
        out.append(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": shape.text}}},
            }
        )
        out.append({"type": "content-end", "index": 0})
    cut = shape.cuts_last
    for i, call in enumerate(calls):
        entry = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        out.append(
            {"type": "tool-call-start", "index": i, "delta": {"message": {"tool_calls": entry}}}
        )
        for piece in call.pieces:
            delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
            out.append({"type": "tool-call-delta", "index": i, "delta": delta})
        if not (cut and i == len(calls) - 1):
            out.append({"type": "tool-call-end", "index": i})
    if shape.error:
        failed = {"finish_reason": "ERROR", "error": COHERE_ERROR}
        out.append({"type": "message-end", "delta": failed})
    elif shape.finish:
        out.append(
            {
                "type": "message-end",
                "delta": {"finish_reason": "MAX_TOKENS" if cut else "TOOL_CALL"},
            }
        )
    return out


# --- Gemini (whole calls) and Vertex (streamed partialArgs) --------------------------------


def _gemini_chunk(parts: list[Any], reason: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if reason is not None:
        candidate["finishReason"] = reason
    return {"candidates": [candidate], "modelVersion": "test-model"}


def _gemini_text(shape: Shape) -> list[Any]:
    out: list[Any] = []
    if shape.reasoning:
        out.append(_gemini_chunk([{"text": shape.reasoning, "thought": True}]))
    if shape.text:
        out.append(_gemini_chunk([{"text": shape.text}]))
    return out


GEMINI_ERROR = {
    "code": 503,
    "message": "The model is overloaded. Please try again later.",
    "status": "UNAVAILABLE",
}
"""The Google API error the ``provider-error`` quirk ends a Gemini or Vertex stream with,
as one more chunk ``{"error": ...}`` (google-genai raises its ``APIError`` on such a
chunk of a stream)."""


def _gemini(calls: list[WireCall], shape: Shape) -> list[Any]:
    out = _gemini_text(shape)
    for call in calls:
        part = {
            "functionCall": {"id": call.id, "name": call.name, "args": _loads_or_text(call.text)}
        }
        out.append(_gemini_chunk([part]))
    if shape.error:
        out.append({"error": dict(GEMINI_ERROR)})
    elif shape.finish:
        out.append(_gemini_chunk([], "MAX_TOKENS" if shape.reason == "length" else "STOP"))
    return out


def path_text(path: tuple[str | int, ...]) -> str:
    """``path`` as a Gemini ``jsonPath`` (``$.a[0]['odd key']``)."""
    out = ["$"]
    for segment in path:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif segment.isidentifier() and segment.isascii():
            out.append("." + segment)
        else:
            out.append("['" + segment.replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(out)


def scalars_in_order(value: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """(path, scalar) pairs of ``value`` in document order. Raises ``ValueError`` on an
    empty container below the top: leaves cannot express one."""
    out: list[tuple[tuple[str | int, ...], Any]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            if not item and path:
                raise UnwritableCallError(
                    f"vertex partialArgs cannot express the empty object at {path_text(path)}"
                )
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            if not item and path:
                raise UnwritableCallError(
                    f"vertex partialArgs cannot express the empty array at {path_text(path)}"
                )
            stack.extend(((*path, i), child) for i, child in reversed(list(enumerate(item))))
        else:
            out.append((path, item))
    return out


def _leaf(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    key = (
        "nullValue"
        if value is None
        else "boolValue"
        if isinstance(value, bool)
        else "numberValue"
        if isinstance(value, (int, float))
        else "stringValue"
    )
    return {"jsonPath": path_text(path), key: None if value is None else value}


def _vertex(calls: list[WireCall], shape: Shape) -> list[Any]:
    out = _gemini_text(shape)
    cut = shape.reason == "length"
    for n, call in enumerate(calls):
        out.append(
            _gemini_chunk(
                [{"functionCall": {"id": call.id, "name": call.name, "willContinue": True}}]
            )
        )
        leaves = scalars_in_order(read_json(call.text))
        for path, value in leaves:
            if isinstance(value, str) and value:
                # a string streamed in pieces of the split's size
                pieces = [p for p in _cut_like(value, call) if p] or [value]
                for k, piece in enumerate(pieces):
                    leaf: dict[str, Any] = {"jsonPath": path_text(path), "stringValue": piece}
                    if k < len(pieces) - 1:
                        leaf["willContinue"] = True
                    out.append(
                        _gemini_chunk(
                            [{"functionCall": {"partialArgs": [leaf], "willContinue": True}}]
                        )
                    )
            else:
                out.append(
                    _gemini_chunk(
                        [
                            {
                                "functionCall": {
                                    "partialArgs": [_leaf(path, value)],
                                    "willContinue": True,
                                }
                            }
                        ]
                    )
                )
        if not (cut and n == len(calls) - 1):
            out.append(_gemini_chunk([{"functionCall": {}}]))
    if shape.error:
        out.append({"error": dict(GEMINI_ERROR)})
    elif shape.finish:
        out.append(_gemini_chunk([], "MAX_TOKENS" if cut else "STOP"))
    return out


def _cut_like(value: str, call: WireCall) -> list[str]:
    """``value`` cut into pieces as long as the call's argument pieces (the split)."""
    if len(call.pieces) <= 1:
        return [value]
    size = max(1, len(call.text) // len(call.pieces))
    return [value[i : i + size] for i in range(0, len(value), size)]


# --- Ollama /api/chat ----------------------------------------------------------------------


OLLAMA_ERROR = "an error was encountered while running the model"
"""The text of the ``{"error": ...}`` line the ``provider-error`` quirk ends an Ollama
``/api/chat`` stream with (the ollama client raises ``ResponseError`` on such a line)."""


def _ollama(calls: list[WireCall], shape: Shape) -> list[Any]:
    out: list[Any] = []

    def line(message: dict[str, Any], **more: Any) -> dict[str, Any]:
        return {
            "model": "test-model",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": False,
            **more,
        }

    if shape.reasoning:
        out.append(line({"thinking": shape.reasoning}))
    if shape.text:
        out.append(line({"content": shape.text}))
    # newer servers give each call an id and a function.index, arguments as an object; a
    # call comes in a line of its own as the server's parser closes it, or (the
    # whole-calls quirk, as a recorded stream shows) every call of a turn in one line
    entries = [
        {
            "id": call.id,
            "function": {"index": i, "name": call.name, "arguments": _loads_or_text(call.text)},
        }
        for i, call in enumerate(calls)
    ]
    if "whole-calls" in shape.quirks and entries:
        out.append(line({"tool_calls": entries}))
    else:
        out += [line({"tool_calls": [entry]}) for entry in entries]
    if shape.error:
        out.append({"error": OLLAMA_ERROR})
    elif shape.finish:
        out.append(
            line({}, done=True, done_reason="length" if shape.reason == "length" else "stop")
        )
    return out


# --- LangChain AIMessageChunk dumps --------------------------------------------------------


def _langchain(calls: list[WireCall], shape: Shape) -> list[Any]:
    def message(content: Any = "", chunks: list[Any] | None = None, **more: Any) -> dict[str, Any]:
        return {
            "type": "AIMessageChunk",
            "content": content,
            "tool_call_chunks": chunks or [],
            "additional_kwargs": {},
            "response_metadata": {},
            **more,
        }

    out: list[Any] = []
    if shape.reasoning:
        out.append(message([{"type": "reasoning", "reasoning": shape.reasoning}]))
    if shape.text:
        out.append(message(shape.text))
    order = _interleave(calls) if "interleaved" in shape.quirks else _in_order(calls)
    for i, j in order:
        call = calls[i]
        first = j == 0
        chunk = {
            "type": "tool_call_chunk",
            "index": i,
            "args": call.pieces[j],
            "id": call.id if first else None,
            "name": call.name if first else None,
        }
        out.append(message("", [chunk]))
    if shape.finish:
        reason = "length" if shape.reason == "length" else "tool_calls"
        out.append(message("", response_metadata={"finish_reason": reason}, chunk_position="last"))
    return out


def _mistral(calls: list[WireCall], shape: Shape) -> list[Any]:
    """Mistral's API: every call whole, without ``index`` or ``type``, all in the chunk
    that carries the finish reason (ids of 9 letters and digits)."""
    out = _openai_chat([], Shape(shape.text, shape.reasoning, False))
    entries = [
        {"id": call.id, "function": {"name": call.name, "arguments": call.text}} for call in calls
    ]
    last = out[-1]
    choice = {
        "index": 0,
        "delta": {"tool_calls": entries},
        "finish_reason": shape.reason if shape.finish else None,
    }
    if entries or shape.finish:
        out.append(dict(last, choices=[choice]))
    return out


# --- LangChain content-block protocol events ----------------------------------------------
# What langchain-core's bridge sends for one message (``stream_events(version="v3")``,
# ``ChatModelStream``): ``message-start``; a ``content-block-start`` the first time each
# block is seen; a ``content-block-delta`` per piece; every block's
# ``content-block-finish`` (a call parsed into ``tool_call``, or ``invalid_tool_call``
# when its text does not parse); ``message-finish`` with the finish reason in
# ``metadata``. Snapshots (``block-delta`` with the call chunk so far in ``fields``) are
# the ``cumulative-arguments`` quirk.


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


def _langchain_events(calls: list[WireCall], shape: Shape) -> list[Any]:
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
    order = _interleave(calls) if "interleaved" in q else _in_order(calls)
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


Writer = Callable[[list[WireCall], Shape], list[Any]]

WRITERS: dict[str, Writer] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "vertex": _vertex,
    "bedrock": _bedrock,
    "cohere": _cohere,
    "mistral": _mistral,
    "ollama": _ollama,
    "langchain": _langchain,
    "langchain-events": _langchain_events,
}
"""Every format written, by name."""


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
        ValueError: an unknown format or reason; an unknown ``item``, or an item other
            than ``function_call`` in a format other than ``openai-responses``.
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
