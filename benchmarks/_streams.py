"""Inputs for the benchmark scripts: documents, argument texts and whole provider streams.

Deterministic documents (structured records; one long string with escapes and
non-ASCII), tool-call argument texts, LangChain ``ToolCallChunk`` dicts, and whole
streams in the OpenAI Chat Completions and Anthropic Messages wire formats (decoded
payload dicts, or the SDKs' own objects built from them), argument text cut into
4-character fragments as the providers do. Also the canonical form of the final calls
every library must produce (for the agreement checks).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

FRAGMENT = 4
"""Characters per argument fragment, as providers stream them."""

# --- documents and argument texts ---------------------------------------------------------

_NAMES = ("Café Olé", "naïve résumé", "東京タワー", "Zürich ☂", "emoji 😀 party", "plain widget")
_CODE_LINES = (
    'def greet(name: str) -> str:\n    return f"Hello, {name}!"  # héllo wörld — 東京 😀\n',
    '\tpath = "C:\\\\Users\\\\bench\\\\file.txt"  # backslashes and a tab\n',
    'print("quoted \\"text\\" and a slash /")\n',
    "    value = {'a': [1, 2, 3], 'b': None}  # ünïcödé 🎉\n",
    "class Widget:\n    '''A widget — with an em dash.'''\n\n",
)


def structured_document(target: int) -> str:
    """A JSON object of records (numbers, booleans, null, nested objects, non-ASCII) of
    about ``target`` UTF-8 bytes (at least ``target``)."""
    records: list[dict[str, Any]] = []
    size = len(b'{"items": []}')
    i = 0
    while size < target:
        rec = {
            "id": i,
            "name": f"{_NAMES[i % len(_NAMES)]} #{i}",
            "price": round(0.99 + (i * 7 % 1000) / 8, 2),
            "qty": i % 17,
            "tags": ["new", "sale"][: i % 3],
            "active": i % 3 == 0,
            "meta": {
                "created": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
                "score": round(-0.5 + (i % 100) / 37, 4),
                "note": None if i % 4 else 'fragile "glass"\n— handle',
            },
        }
        records.append(rec)
        size += len(json.dumps(rec, ensure_ascii=False).encode()) + (2 if i else 0)
        i += 1
    return json.dumps({"items": records}, ensure_ascii=False)


def long_text(target: int) -> str:
    """Code-like text with quotes, backslashes, tabs, newlines and non-ASCII (incl. emoji)."""
    parts: list[str] = []
    size = 0
    i = 0
    while size < target:
        line = f"# line {i}\n" + _CODE_LINES[i % len(_CODE_LINES)]
        parts.append(line)
        size += len(line.encode())
        i += 1
    return "".join(parts)


def long_string_document(target: int) -> str:
    """``{"content": "<one long string>"}`` of about ``target`` bytes of JSON text.

    The string has ``\\n``, ``\\t``, ``\\"`` and ``\\\\`` escapes, raw non-ASCII, and every
    😀 written as an escaped surrogate pair (``\\ud83d\\ude00``).
    """
    # JSON escaping grows the text by roughly 8%; aim a little under the target.
    body = long_text(int(target * 0.9))
    text = json.dumps({"content": body}, ensure_ascii=False)
    return text.replace("😀", "\\ud83d\\ude00")


def fragments(text: str, size: int = FRAGMENT) -> list[str]:
    """Cut ``text`` into ``size``-character fragments."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def weather_args() -> str:
    """A typical ~200-byte tool call argument object (compact JSON, as models emit)."""
    return json.dumps(
        {
            "location": "San Francisco, CA",
            "unit": "celsius",
            "days": 3,
            "include": ["hourly", "alerts", "air_quality"],
            "lat": 37.7749,
            "lon": -122.4194,
            "lang": "en-US",
            "detailed": True,
            "note": "Büro — next week",
        },
        ensure_ascii=False,
    )


def write_file_args(target: int) -> str:
    """A ``write_file``-style argument object: a path and ``target`` bytes of content."""
    body = long_text(max(1, target - 60))
    return json.dumps({"path": "src/app/generated.py", "content": body}, ensure_ascii=False)


def sized_args(target: int, index: int = 0) -> str:
    """Argument text of about ``target`` bytes: a weather call when small, else write_file."""
    if target <= 400:
        base = json.loads(weather_args())
        base["days"] = 1 + index % 7
        text = json.dumps(base, ensure_ascii=False)
        return text
    return write_file_args(target)


@dataclass(frozen=True)
class Call:
    """One tool call to stream: name, id and the full argument text."""

    name: str
    id: str
    args: str


def make_calls(n: int, size: int, *, id_style: str = "openai") -> list[Call]:
    """``n`` calls with about ``size`` bytes of arguments each (ids in OpenAI or Anthropic
    style). Small calls are weather-style lookups, large ones ``write_file``."""
    names = ("get_weather", "search_docs", "send_email", "get_time")
    prefix = "call_" if id_style == "openai" else "toolu_01"
    out = []
    for i in range(n):
        ident = f"{prefix}{i:04d}{'BenchmarkId' * 3}"[:30]
        name = names[i % len(names)] if size <= 400 else "write_file"
        out.append(Call(name=name, id=ident, args=sized_args(size, i)))
    return out


def tool_call_chunks(calls: Sequence[Call], *, interleave: bool) -> list[dict[str, Any]]:
    """LangChain-shaped ``ToolCallChunk`` dicts for ``calls``: a first chunk with name and
    id, then 4-character argument fragments (round-robin across calls if ``interleave``)."""
    per_call: list[list[dict[str, Any]]] = []
    cut: dict[str, list[str]] = {}  # calls with equal arguments share fragment strings
    for i, c in enumerate(calls):
        frags = cut.setdefault(c.args, fragments(c.args))
        chunks = [{"name": c.name, "args": "", "id": c.id, "index": i, "type": "tool_call_chunk"}]
        chunks += [
            {"name": None, "args": f, "id": None, "index": i, "type": "tool_call_chunk"}
            for f in frags
        ]
        per_call.append(chunks)
    if not interleave:
        return [ch for chunks in per_call for ch in chunks]
    out: list[dict[str, Any]] = []
    longest = max(len(c) for c in per_call)
    for j in range(longest):
        for chunks in per_call:
            if j < len(chunks):
                out.append(chunks[j])
    return out


def openai_chat_stream(calls: Sequence[Call]) -> list[dict[str, Any]]:
    """A whole OpenAI Chat Completions stream (decoded ``data:`` payloads) for ``calls``.

    Calls stream one after the other (as OpenAI sends parallel calls): a chunk with the
    role, id, name and empty arguments, then 4-character argument fragments, and a
    last chunk with ``finish_reason: "tool_calls"``.
    """
    head = {
        "id": "chatcmpl-bench0000000000000000000001",
        "object": "chat.completion.chunk",
        "created": 1_730_000_000,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_bench00001",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            **head,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    out: list[dict[str, Any]] = []
    for i, c in enumerate(calls):
        start: dict[str, Any] = {
            "tool_calls": [
                {
                    "index": i,
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": ""},
                }
            ]
        }
        if i == 0:
            start = {"role": "assistant", "content": None, "refusal": None, **start}
        out.append(chunk(start))
        out.extend(
            chunk({"tool_calls": [{"index": i, "function": {"arguments": f}}]})
            for f in fragments(c.args)
        )
    out.append(chunk({}, "tool_calls"))
    return out


def anthropic_stream(calls: Sequence[Call]) -> list[dict[str, Any]]:
    """A whole Anthropic Messages stream (decoded SSE ``data:`` payloads) for ``calls``.

    ``message_start``, then per call ``content_block_start`` (tool_use, empty input),
    4-character ``input_json_delta`` fragments and ``content_block_stop``, then
    ``message_delta`` (``stop_reason: "tool_use"``) and ``message_stop``.
    """
    out: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01Bench000000000000000001",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 412, "output_tokens": 1},
            },
        }
    ]
    for i, c in enumerate(calls):
        out.append(
            {
                "type": "content_block_start",
                "index": i,
                "content_block": {"type": "tool_use", "id": c.id, "name": c.name, "input": {}},
            }
        )
        out.extend(
            {
                "type": "content_block_delta",
                "index": i,
                "delta": {"type": "input_json_delta", "partial_json": f},
            }
            for f in fragments(c.args)
        )
        out.append({"type": "content_block_stop", "index": i})
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 20 + sum(len(c.args) for c in calls) // 4},
        }
    )
    out.append({"type": "message_stop"})
    return out


def normalize_calls(calls: Iterable[tuple[str | None, str | None, Any]]) -> list[tuple[Any, ...]]:
    """Canonical form of final calls for agreement checks: ``(name, id, args_json)``."""
    return [(n, i, json.dumps(a, sort_keys=True, ensure_ascii=False)) for n, i, a in calls]


def expected_calls(calls: Sequence[Call]) -> list[tuple[Any, ...]]:
    """The final calls every library must produce for ``calls``."""
    return normalize_calls((c.name, c.id, json.loads(c.args)) for c in calls)


def dict_calls(calls: Iterable[Any]) -> list[tuple[Any, ...]]:
    """:func:`normalize_calls` of tool call dicts (``name``, ``id``, ``args`` keys)."""
    return normalize_calls((t["name"], t["id"], t["args"]) for t in calls)


# --- whole streams by format --------------------------------------------------------------

FORMATS = ("openai-chat", "anthropic")
"""The wire formats of the whole-stream benchmarks (callstream's provider names)."""


def format_calls(fmt: str, n: int, size: int) -> list[Call]:
    """:func:`make_calls` with ids in the style of ``fmt``'s provider."""
    return make_calls(n, size, id_style="openai" if fmt == "openai-chat" else "anthropic")


def wire_stream(fmt: str, calls: Sequence[Call]) -> list[dict[str, Any]]:
    """The whole stream of ``calls`` in wire format ``fmt`` (one of :data:`FORMATS`)."""
    return openai_chat_stream(calls) if fmt == "openai-chat" else anthropic_stream(calls)


def sdk_objects(fmt: str, payloads: Sequence[dict[str, Any]]) -> list[Any]:
    """The SDK's own objects for the payloads, built as its stream classes build them.

    OpenAI Chat payloads become ``ChatCompletionChunk`` s (openai), Anthropic ones
    ``RawMessageStreamEvent`` s (anthropic). Cost: one model construction per payload.
    """
    if fmt == "openai-chat":
        from openai._models import construct_type as oa_construct
        from openai.types.chat import ChatCompletionChunk

        return [oa_construct(type_=ChatCompletionChunk, value=p) for p in payloads]
    from anthropic._models import construct_type as an_construct
    from anthropic.types import RawMessageStreamEvent

    return [an_construct(type_=RawMessageStreamEvent, value=p) for p in payloads]
