"""Streams of our own in the wire shapes of the server quirks reported this year (issue
23), each a list of payloads as the server sends them, with the raw bytes it sends.

The facts each stream is built on are stated where it is defined; the SSE writers are
those of ``tests/support/real_clients.py`` (re-exported here); the tests are in
``tests/providers/test_quirks.py`` (dicts, one payload at a time, raw bytes cut anywhere) and
``tests/real_clients/test_real_clients_quirks.py`` (the real anthropic and openai clients).
"""

from __future__ import annotations

import json
from typing import Any

from callstream.testing import ndjson_line
from tests.support.real_clients import anthropic_sse, chat_sse

__all__ = (
    "ANTHROPIC_UNKNOWN",
    "EAGER_LINES",
    "KIMI_GROQ",
    "KIMI_REPEATED_ID",
    "KIMI_TURN_1",
    "KIMI_TURN_2",
    "KIMI_VLLM",
    "MISTRAL_WHOLE",
    "OLLAMA_NATIVE",
    "OLLAMA_NATIVE_LINES",
    "OLLAMA_V1",
    "QWEN_PREFIXES",
    "RESPONSES_WS",
    "RESPONSES_WS_ERROR",
    "anthropic_eager",
    "anthropic_sse",
    "chat_sse",
    "ndjson",
    "vllm_chat_cut",
    "vllm_responses_cut",
    "ws_frames",
)


def ndjson(payloads: list[Any]) -> bytes:
    """One JSON object per line (Ollama's native stream)."""
    return "".join(ndjson_line(p) for p in payloads).encode()


def ws_frames(events: list[dict[str, Any]]) -> list[str]:
    """WebSocket text frames: one JSON message per frame, no SSE ``data:`` framing, no
    line ends."""
    return [json.dumps(e, separators=(",", ":")) for e in events]


# --- Kimi K2 -------------------------------------------------------------------------------
# Moonshot's API and the kimi_k2 tool parsers (vLLM, SGLang, Groq-hosted Kimi) give each call
# the id `functions.<name>:<idx>`, the form the model itself writes. Kimi documents the ids
# as unique within one assistant turn only: the counter starts again, so a later turn
# reuses `functions.get_weather:0`. Moonshot's last chunk carries `usage` inside the choice.


def _moonshot(delta: dict[str, Any], finish: str | None = None, **choice: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-6870c0d1b1f2a4c3e2d1",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": "kimi-k2-0905-preview",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}],
    }


def _kimi_call(index: int, counter: int, name: str, pieces: list[str]) -> list[dict[str, Any]]:
    """A call as Moonshot streams it: the id and name with ``arguments: ""``, then the
    argument text in fragments under the same ``index``."""
    first = {
        "index": index,
        "id": f"functions.{name}:{counter}",
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    out = [_moonshot({"tool_calls": [first]})]
    out += [
        _moonshot({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        for piece in pieces
    ]
    return out


_KIMI_USAGE = {"prompt_tokens": 212, "completion_tokens": 48, "total_tokens": 260}

KIMI_TURN_1: list[dict[str, Any]] = [
    _moonshot({"role": "assistant", "content": ""}),
    _moonshot({"content": "I'll check both cities."}),
    *_kimi_call(0, 0, "get_weather", ['{"city": "', "Beijing", '", "unit": "c"}']),
    *_kimi_call(1, 1, "get_weather", ['{"city":', ' "Shang', 'hai", "unit": "c"}']),
    _moonshot({}, "tool_calls", usage=_KIMI_USAGE),
]
"""Turn 1: two calls, `functions.get_weather:0` and `:1`, on indexes 0 and 1."""

KIMI_TURN_2: list[dict[str, Any]] = [
    _moonshot({"role": "assistant", "content": ""}),
    *_kimi_call(0, 0, "get_weather", ['{"city": "Hang', 'zhou", "unit": "c"}']),
    _moonshot({}, "tool_calls", usage=_KIMI_USAGE),
]
"""Turn 2 of the same conversation: the counter started again at `:0`."""

KIMI_REPEATED_ID: list[dict[str, Any]] = [
    _moonshot({"role": "assistant", "content": ""}),
    *_kimi_call(0, 0, "get_weather", ['{"city": "Xi', "'an\"}"]),
    *_kimi_call(1, 0, "get_weather", ['{"city": "Chengdu"}']),
    _moonshot({}, "tool_calls", usage=_KIMI_USAGE),
]
"""One stream whose two calls (indexes 0 and 1) both carry `functions.get_weather:0`: a
model repeating its counter, as Kimi's own text sometimes does."""


def _vllm_kimi(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-3f1c2d9e8b7a4c5d",
        "object": "chat.completion.chunk",
        "created": 1_760_000_050,
        "model": "moonshotai/Kimi-K2-Instruct",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def _vllm_kimi_call(index: int, name: str, pieces: list[str]) -> list[dict[str, Any]]:
    """vLLM's kimi_k2 parser: the id and name first with ``arguments: null``, then the
    text as the model wrote it (a leading space), in small pieces."""
    first = {
        "index": index,
        "id": f"functions.{name}:{index}",
        "type": "function",
        "function": {"name": name, "arguments": None},
    }
    return [
        _vllm_kimi({"tool_calls": [first]}),
        *[
            _vllm_kimi({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in pieces
        ],
    ]


KIMI_VLLM: list[dict[str, Any]] = [
    _vllm_kimi({"role": "assistant", "content": ""}),
    *_vllm_kimi_call(0, "get_current_weather", [' {"', "city", '":', ' "', "Ber", 'lin"}']),
    *_vllm_kimi_call(1, "get_forecast", [' {"city": "Berlin",', ' "days": 5}']),
    _vllm_kimi({}, "tool_calls"),
]
"""vLLM serving Kimi K2 (`--tool-call-parser kimi_k2`): two calls, counters 0 and 1."""


def _groq(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    chunk = {
        "id": "chatcmpl-0d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f60",
        "object": "chat.completion.chunk",
        "created": 1_760_000_100,
        "model": "moonshotai/kimi-k2-instruct-0905",
        "system_fingerprint": "fp_6e6ff3688b",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    if finish is not None:
        chunk["x_groq"] = {"id": "req_01k0example", "usage": {"total_tokens": 301}}
    return chunk


KIMI_GROQ: list[dict[str, Any]] = [
    _groq({"role": "assistant", "content": None}),
    _groq(
        {
            "tool_calls": [
                {
                    "id": "functions.get_weather:0",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Lhasa"}'},
                    "index": 0,
                },
                {
                    "id": "functions.get_time:1",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"tz":"Asia/Shanghai"}'},
                    "index": 1,
                },
            ]
        }
    ),
    _groq({}, "tool_calls"),
]
"""Groq-hosted Kimi: every call whole in one chunk, with its index."""


# --- Mistral and Ollama: every call whole in one chunk ---------------------------------
# Mistral's API sends each call complete in one streamed chunk: both calls of a parallel
# turn arrive in one delta, each with its own `index` and its whole `arguments` string,
# next to `finish_reason` and `usage` (ids are 9 letters and digits, no `type`).

MISTRAL_WHOLE: list[dict[str, Any]] = [
    {
        "id": "5b1e0c2d9a8f4e7b9c6d3a2f1e0b9c8d",
        "object": "chat.completion.chunk",
        "created": 1_760_000_200,
        "model": "mistral-medium-2508",
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
        ],
    },
    {
        "id": "5b1e0c2d9a8f4e7b9c6d3a2f1e0b9c8d",
        "object": "chat.completion.chunk",
        "created": 1_760_000_200,
        "model": "mistral-medium-2508",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "D681PevKs",
                            "function": {"name": "get_weather", "arguments": '{"city": "Lyon"}'},
                            "index": 0,
                        },
                        {
                            "id": "A3bq7Xk2p",
                            "function": {
                                "name": "get_weather",
                                "arguments": '{"city": "Marseille", "days": 2}',
                            },
                            "index": 1,
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 93, "total_tokens": 139, "completion_tokens": 46},
    },
]

# Ollama's OpenAI-compatible /v1: each call whole in a chunk of its own, with a distinct
# index and a `call_` id, `role` and `content: ""` repeated in every chunk.


def _ollama_v1(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-18",
        "object": "chat.completion.chunk",
        "created": 1_760_000_300,
        "model": "qwen3:8b",
        "system_fingerprint": "fp_ollama",
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "", **delta},
                "finish_reason": finish,
            }
        ],
    }


def _v1_call(index: int, id_: str, command: str) -> dict[str, Any]:
    arguments = json.dumps({"command": command}, separators=(",", ":"))
    return {
        "id": id_,
        "index": index,
        "type": "function",
        "function": {"name": "run_command", "arguments": arguments},
    }


OLLAMA_V1: list[dict[str, Any]] = [
    _ollama_v1({"tool_calls": [_v1_call(0, "call_wteop8bt", "ls")]}),
    _ollama_v1({"tool_calls": [_v1_call(1, "call_rk2xye1l", "ls -l")]}),
    _ollama_v1({}, "tool_calls"),
]

# Ollama's native /api/chat: NDJSON lines; newer servers give each call an `id` and a
# `function.index`, arguments as an object. Both calls of a turn come in one line.


def _ollama_line(message: dict[str, Any], done: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {
        "model": "qwen3:8b",
        "created_at": "2026-03-02T10:00:00.000000Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": done,
    }
    if done:
        line.update(done_reason="stop", total_duration=912_000_000, eval_count=41)
    return line


_NATIVE_CALLS = [
    {
        "id": "call_5x0l3kfa",
        "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Toronto"}},
    },
    {
        "id": "call_q8m2nd7c",
        "function": {"index": 1, "name": "get_weather", "arguments": {"city": "Montreal"}},
    },
]

OLLAMA_NATIVE: list[dict[str, Any]] = [
    _ollama_line({"thinking": "Two cities, two calls."}),
    _ollama_line({"tool_calls": _NATIVE_CALLS}),
    _ollama_line({}, done=True),
]
"""Both calls in one line."""

OLLAMA_NATIVE_LINES: list[dict[str, Any]] = [
    _ollama_line({"tool_calls": [_NATIVE_CALLS[0]]}),
    _ollama_line({"tool_calls": [_NATIVE_CALLS[1]]}),
    _ollama_line({}, done=True),
]
"""Each call in a line of its own."""


# --- vLLM: a stream that ends with a call's arguments an unterminated prefix ------------
# vLLM's Qwen3 XML tool parsers stream the arguments of a partial conversion; when the
# final conversion cannot extend what was streamed, nothing more is sent for the call and
# the client is left holding an unterminated JSON text (vLLM issues #55495 / PR #55497, a
# malformed <parameter> element leaking a key; #57699, the last parameter dropped; PR
# #53739, plain truncation). The other calls of the stream are complete.

QWEN_PREFIXES: dict[str, str] = {
    "leaked-key": '{"cmd": "timeout 7\\n7", "echo SAC_NAME=$SAC_NAME; echo CCA=$SCITEX_CARDS_AGENT_ID\\n</parameter": ',
    "dropped-last-parameter": '{"body": ',
    "mid-string": '{"path": "README.md", "content": "# Title\\n\\nbody text that stops mid-sen',
}


def _vllm(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9b7984d842c943638ce8675c4688997f",
        "object": "chat.completion.chunk",
        "created": 1_760_000_400,
        "model": "qwen3_coder",
        "choices": [
            {
                "index": 0,
                "delta": delta,
                "logprobs": None,
                "finish_reason": finish,
                "token_ids": None,
            }
        ],
        "prompt_token_ids": None,
    }


def vllm_chat_cut(prefix: str, finish: str | None) -> list[dict[str, Any]]:
    """Chat Completions from vLLM: a complete ``read_file`` call, then ``exec_command``
    whose streamed arguments stop at ``prefix``, then a finish chunk with ``finish``
    (``None``: the stream just ends, ``[DONE]`` and all)."""
    out = [
        _vllm({"role": "assistant", "content": ""}),
        _vllm(
            {
                "tool_calls": [
                    {
                        "id": "chatcmpl-tool-a1b2c3d4e5f6",
                        "type": "function",
                        "index": 0,
                        "function": {"name": "read_file", "arguments": ""},
                    }
                ]
            }
        ),
        _vllm({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "notes.md"}'}}]}),
        _vllm(
            {
                "tool_calls": [
                    {
                        "id": "chatcmpl-tool-f6e5d4c3b2a1",
                        "type": "function",
                        "index": 1,
                        "function": {"name": "exec_command", "arguments": ""},
                    }
                ]
            }
        ),
    ]
    cut = len(prefix) // 2
    for piece in (prefix[:cut], prefix[cut:]):
        out.append(_vllm({"tool_calls": [{"index": 1, "function": {"arguments": piece}}]}))
    if finish is not None:
        out.append(_vllm({"content": ""}, finish))
    return out


def vllm_responses_cut(prefix: str) -> list[dict[str, Any]]:
    """The same through vLLM's ``/v1/responses`` (the flow of issue #55495): the cut call's
    ``.done`` events carry the unterminated text as its complete arguments."""
    response = {"id": "resp_9b79", "object": "response", "status": "in_progress", "output": []}
    done_response = {**response, "status": "completed"}
    whole = '{"path": "notes.md"}'

    def item(index: int, call: str, name: str, arguments: str, status: str) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": f"fc_{index}",
            "call_id": call,
            "name": name,
            "arguments": arguments,
            "status": status,
        }

    out: list[dict[str, Any]] = [{"type": "response.created", "response": response}]
    for index, (call, name, text) in enumerate(
        [("call_read", "read_file", whole), ("call_exec", "exec_command", prefix)]
    ):
        out.append(
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": item(index, call, name, "", "in_progress"),
            }
        )
        out.append(
            {
                "type": "response.function_call_arguments.delta",
                "output_index": index,
                "item_id": f"fc_{index}",
                "delta": text,
            }
        )
        out.append(
            {
                "type": "response.function_call_arguments.done",
                "output_index": index,
                "item_id": f"fc_{index}",
                "arguments": text,
            }
        )
        out.append(
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": item(index, call, name, text, "completed"),
            }
        )
    out.append({"type": "response.completed", "response": done_response})
    for number, event in enumerate(out):
        event["sequence_number"] = number
    return out


# --- Anthropic: fine-grained tool streaming cut by max_tokens ----------------------------
# A tool declared with `eager_input_streaming: true` streams its input without server-side
# buffering or JSON validation: the fragments are longer, cut anywhere (not at value or
# token boundaries), and the input may be invalid or partial JSON. When `max_tokens` is
# reached the stream can end in the middle of a parameter: the tool block gets no
# `content_block_stop` (as in the SDK's own recorded fixture), `message_delta` says
# `max_tokens`.

_MESSAGE_START: dict[str, Any] = {
    "type": "message_start",
    "message": {
        "id": "msg_01EagerCut",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-6",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 512, "output_tokens": 1},
    },
}

EAGER_LINES = [
    '{"filename": "poem.txt", "lines_of_text": ["Roses are red,", "Vio',
    'lets are blue,", "Streams arrive in pie',
    'ces", "and so do yo',
]
"""The cut call's fragments: the last line stops in the middle of a word."""


def _block(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _tool(index: int, id_: str, name: str) -> dict[str, Any]:
    return _block(index, {"type": "tool_use", "id": id_, "name": name, "input": {}})


def _json(index: int, text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }


def _stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def _message_end(reason: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": 4096},
        },
        {"type": "message_stop"},
    ]


def anthropic_eager(*, block_stop: bool = False, invalid: bool = False) -> list[dict[str, Any]]:
    """A text block, a complete ``get_weather`` call, then ``make_file`` streamed eagerly
    and cut by ``max_tokens`` (``block_stop``: its block is stopped before the message
    delta, as a proxy may do; ``invalid``: its text turns into invalid JSON first, a raw
    line break inside a string, before the cut)."""
    lines = list(EAGER_LINES)
    if invalid:
        lines[1] = 'lets are blue,", "Streams arrive\nin pie'
    events = [
        _MESSAGE_START,
        _block(0, {"type": "text", "text": ""}),
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "On it."},
        },
        _stop(0),
        _tool(1, "toolu_01Weather", "get_weather"),
        _json(1, ""),
        _json(1, '{"city": "Paris", "days": 3}'),
        _stop(1),
        _tool(2, "toolu_01MakeFile", "make_file"),
        *[_json(2, line) for line in lines],
    ]
    if block_stop:
        events.append(_stop(2))
    return events + _message_end("max_tokens")


# --- Anthropic: event, block and delta types we do not know --------------------------------
# The API adds event types over time and asks clients to ignore the ones they do not know;
# new content blocks (compaction with its compaction_delta, fallback, mcp_tool_listing) and
# keep-alive pings (many in a row while a server tool runs) arrive between the calls.

ANTHROPIC_UNKNOWN: list[dict[str, Any]] = [
    _MESSAGE_START,
    {"type": "ping"},
    {
        "type": "tool_change",
        "changes": [{"type": "tool_addition", "tool": {"name": "get_time"}}],
    },
    {"type": "system_message", "message": {"role": "system", "content": "Be brief."}},
    _block(0, {"type": "compaction", "content": None}),
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "compaction_delta", "content": "Earlier: the user asked about Paris."},
    },
    _stop(0),
    _block(1, {"type": "text", "text": ""}),
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "text_delta", "text": "Checking."},
    },
    _stop(1),
    _tool(2, "toolu_01Paris", "get_weather"),
    _json(2, '{"city": '),
    {"type": "content_block_delta", "index": 2, "delta": {"type": "input_progress", "tokens": 3}},
    *[{"type": "ping"}] * 24,
    *[{"type": "tool_change", "sequence": n} for n in range(20)],
    _json(2, '"Paris"}'),
    _stop(2),
    _block(
        3,
        {
            "type": "fallback",
            "from": {"model": "claude-opus-4-6"},
            "to": {"model": "claude-sonnet-4-6"},
            "trigger": {"type": "refusal"},
        },
    ),
    _stop(3),
    _block(4, {"type": "mcp_tool_listing", "mcp_server_name": "files", "tools": []}),
    _stop(4),
    _block(5, {"type": "brand_new_block", "id": "nb_01", "name": "noop", "input": {"a": 1}}),
    _json(5, '{"b": 2}'),
    _stop(5),
    {"type": "content_block_annotation", "index": 6, "annotation": {"kind": "note"}},
    _tool(6, "toolu_01Rome", "get_weather"),
    _json(6, '{"city": "Rome"}'),
    _stop(6),
    *_message_end("tool_use"),
]
"""Two calls (Paris at block 2, Rome at block 6) among every kind of event we do not read."""


# --- OpenAI Responses over a WebSocket --------------------------------------------------
# The Responses API's WebSocket mode (wss://api.openai.com/v1/responses) sends the same
# server events as the HTTP stream, one JSON message per text frame; events carry a
# `stream_id` when the response.create named one, and an error is `{"type": "error",
# "status", "error": {"type", "code", "message", "param"}}`.


def _lane(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for number, event in enumerate(events):
        event["sequence_number"] = number
        event["stream_id"] = "lane_1"
    return events


_WS_RESPONSE = {
    "id": "resp_ws_1",
    "object": "response",
    "created_at": 1_760_000_500,
    "status": "in_progress",
    "model": "gpt-5.2",
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}


def _ws_call(index: int, call: str, pieces: list[str]) -> list[dict[str, Any]]:
    item = {
        "type": "function_call",
        "id": f"fc_ws_{index}",
        "call_id": call,
        "name": "get_weather",
        "arguments": "",
        "status": "in_progress",
    }
    whole = "".join(pieces)
    return [
        {"type": "response.output_item.added", "output_index": index, "item": item},
        *[
            {
                "type": "response.function_call_arguments.delta",
                "output_index": index,
                "item_id": item["id"],
                "delta": piece,
            }
            for piece in pieces
        ],
        {
            "type": "response.function_call_arguments.done",
            "output_index": index,
            "item_id": item["id"],
            "name": "get_weather",
            "arguments": whole,
        },
        {
            "type": "response.output_item.done",
            "output_index": index,
            "item": {**item, "arguments": whole, "status": "completed"},
        },
    ]


RESPONSES_WS: list[dict[str, Any]] = _lane(
    [
        {"type": "response.created", "response": _WS_RESPONSE},
        {"type": "response.in_progress", "response": _WS_RESPONSE},
        *_ws_call(0, "call_ws_oslo", ['{"city":', ' "Os', 'lo"}']),
        *_ws_call(1, "call_ws_bergen", ['{"city": "Ber', 'gen", "days": 2}']),
        {"type": "response.completed", "response": {**_WS_RESPONSE, "status": "completed"}},
    ]
)
"""Two calls over a WebSocket lane."""

RESPONSES_WS_ERROR: list[dict[str, Any]] = [
    *RESPONSES_WS[:4],
    {
        "type": "error",
        "status": 500,
        "error": {
            "type": "server_error",
            "code": "server_error",
            "message": "The server had an error while processing your request.",
            "param": None,
        },
        "sequence_number": 4,
        "stream_id": "lane_1",
    },
]
"""The first call half-way through its arguments, then the WebSocket mode's error event."""
