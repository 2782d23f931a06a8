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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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


WEATHER = {"location": "San Francisco, CA", "unit": "celsius", "days": 3}
WEATHER |= {"include": ["hourly", "alerts", "air_quality"], "lat": 37.7749, "lon": -122.4194}
WEATHER |= {"lang": "en-US", "detailed": True, "note": "Büro — next week"}
"""A typical ~200-byte tool call argument object (compact JSON, as models emit)."""


def sized_args(target: int, index: int = 0) -> str:
    """Argument text of about ``target`` bytes: a weather call (``days`` from ``index``)
    when small, else ``write_file``'s: a path and ``target`` bytes of content."""
    if target <= 400:
        return json.dumps(dict(WEATHER, days=1 + index % 7), ensure_ascii=False)
    body = long_text(max(1, target - 60))
    return json.dumps({"path": "src/app/generated.py", "content": body}, ensure_ascii=False)


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
        first = {"name": c.name, "args": "", "id": c.id, "index": i, "type": "tool_call_chunk"}
        frags = cut.setdefault(c.args, fragments(c.args))
        rest = [{**first, "name": None, "args": f, "id": None} for f in frags]
        per_call.append([first, *rest])
    if not interleave:
        return [ch for chunks in per_call for ch in chunks]
    longest = max(len(c) for c in per_call)
    return [chunks[j] for j in range(longest) for chunks in per_call if j < len(chunks)]


# --- whole streams: the four wire formats ----------------------------------------------

Cut = Callable[[str], list[str]]
"""Cuts a text (arguments, a preamble) into the pieces the payloads carry."""


@dataclass
class WireTurn:
    """A turn as one provider's payloads, with what each payload means for the calls.

    ``owner``: per payload, the call whose start or text it carries (None for others);
    ``end_at``: per call, the payload that ends it in the provider's terms (OpenAI Chat
    has none: the finish chunk); ``next_call_at``: per call, where ``seal="next-call"``
    seals it (the next call's start; the last call: ``end_at``); ``finish_at``: the
    payload with the stream's end marker.
    """

    fmt: str
    payloads: list[dict[str, Any]] = field(default_factory=list)
    owner: list[int | None] = field(default_factory=list)
    end_at: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    finish_at: int = -1

    def add(self, payload: dict[str, Any], owner: int | None = None) -> int:
        """Append one payload; return its position."""
        self.payloads.append(payload)
        self.owner.append(owner)
        return len(self.payloads) - 1

    @property
    def next_call_at(self) -> list[int]:
        return [*self.starts[1:], self.end_at[-1]]

    def seal_at(self, seal: str) -> list[int]:
        """Per call, the payload at which a runner with ``seal`` seals it."""
        return list(self.next_call_at if seal == "next-call" else self.end_at)


def _anthropic(turn: WireTurn, calls: Sequence[Call], preamble: str, cut: Cut) -> None:
    message = {"id": "msg_01RunnerBench0000000000001", "type": "message", "role": "assistant"}
    message |= {"model": "claude-sonnet-4-5", "content": [], "stop_reason": None}
    message |= {"stop_sequence": None, "usage": {"input_tokens": 1834, "output_tokens": 2}}
    turn.add({"type": "message_start", "message": message})
    if preamble:
        block = {"type": "text", "text": ""}
        turn.add({"type": "content_block_start", "index": 0, "content_block": block})
        turn.add({"type": "ping"})
        for piece in cut(preamble):
            delta = {"type": "text_delta", "text": piece}
            turn.add({"type": "content_block_delta", "index": 0, "delta": delta})
        turn.add({"type": "content_block_stop", "index": 0})
    for i, call in enumerate(calls):
        index = i + bool(preamble)
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        start = {"type": "content_block_start", "index": index, "content_block": block}
        turn.starts.append(turn.add(start, i))
        for piece in cut(call.args):
            delta = {"type": "input_json_delta", "partial_json": piece}
            turn.add({"type": "content_block_delta", "index": index, "delta": delta}, i)
        turn.end_at.append(turn.add({"type": "content_block_stop", "index": index}, i))
    tokens = 20 + (len(preamble) + sum(len(c.args) for c in calls)) // 4
    delta = {"stop_reason": "tool_use", "stop_sequence": None}
    end = {"type": "message_delta", "delta": delta, "usage": {"output_tokens": tokens}}
    turn.finish_at = turn.add(end)
    turn.add({"type": "message_stop"})


def _responses(turn: WireTurn, calls: Sequence[Call], preamble: str, cut: Cut) -> None:
    seq = iter(range(1_000_000))

    def add(kind: str, owner: int | None = None, **fields: Any) -> int:
        return turn.add({"type": f"response.{kind}", "sequence_number": next(seq), **fields}, owner)

    response = {"id": "resp_0RunnerBench00000000000000000000000001", "object": "response"}
    response |= {"created_at": 1_764_000_000, "status": "in_progress", "output": []}
    response |= {"model": "gpt-4.1-2025-04-14", "parallel_tool_calls": True, "usage": None}
    response |= {"tool_choice": "auto"}
    add("created", response=response)
    add("in_progress", response=response)
    if preamble:
        msg = {"id": "msg_0bench", "type": "message", "status": "in_progress", "role": "assistant"}
        add("output_item.added", output_index=0, item={**msg, "content": []})
        for piece in cut(preamble):
            ids = {"item_id": "msg_0bench", "output_index": 0, "content_index": 0}
            add("output_text.delta", **ids, delta=piece)
        msg |= {"status": "completed", "content": [{"type": "output_text", "text": preamble}]}
        add("output_item.done", output_index=0, item=msg)
    for i, call in enumerate(calls):
        index = i + bool(preamble)
        ids = {"item_id": f"fc_0RunnerBench{index:04d}", "output_index": index}
        item = {"id": ids["item_id"], "type": "function_call", "status": "in_progress"}
        item |= {"arguments": "", "call_id": call.id, "name": call.name}
        turn.starts.append(add("output_item.added", i, output_index=index, item=item))
        for piece in cut(call.args):
            add("function_call_arguments.delta", i, **ids, delta=piece)
        turn.end_at.append(add("function_call_arguments.done", i, **ids, arguments=call.args))
        done = {**item, "status": "completed", "arguments": call.args}
        add("output_item.done", i, output_index=index, item=done)
    usage = {"input_tokens": 1834, "output_tokens": sum(len(c.args) for c in calls) // 4}
    turn.finish_at = add("completed", response={**response, "status": "completed", "usage": usage})


def _bedrock(turn: WireTurn, calls: Sequence[Call], preamble: str, cut: Cut) -> None:
    turn.add({"messageStart": {"role": "assistant"}})
    if preamble:  # text blocks have no start event on Bedrock
        for piece in cut(preamble):
            turn.add({"contentBlockDelta": {"delta": {"text": piece}, "contentBlockIndex": 0}})
        turn.add({"contentBlockStop": {"contentBlockIndex": 0}})
    for i, call in enumerate(calls):
        index = i + bool(preamble)
        start = {"start": {"toolUse": {"toolUseId": call.id, "name": call.name}}}
        start["contentBlockIndex"] = index
        turn.starts.append(turn.add({"contentBlockStart": start}, i))
        for piece in cut(call.args):
            delta = {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": index}
            turn.add({"contentBlockDelta": delta}, i)
        turn.end_at.append(turn.add({"contentBlockStop": {"contentBlockIndex": index}}, i))
    turn.finish_at = turn.add({"messageStop": {"stopReason": "tool_use"}})
    tokens = sum(len(c.args) for c in calls) // 4
    usage = {"inputTokens": 1834, "outputTokens": tokens, "totalTokens": 1834 + tokens}
    turn.add({"metadata": {"usage": usage, "metrics": {"latencyMs": 412}}})


def _chat(turn: WireTurn, calls: Sequence[Call], preamble: str, cut: Cut) -> None:
    head = {"id": "chatcmpl-RunnerBench0000000000000000001", "object": "chat.completion.chunk"}
    head |= {"created": 1_764_000_000, "model": "gpt-4.1-2025-04-14"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "system_fingerprint": "fp_runnerbench", "choices": [choice]}

    role = {"role": "assistant", "content": "" if preamble else None, "refusal": None}
    if preamble:
        turn.add(chunk(role))
        for piece in cut(preamble):
            turn.add(chunk({"content": piece}))
    for i, call in enumerate(calls):
        function = {"name": call.name, "arguments": ""}
        start = {"index": i, "id": call.id, "type": "function", "function": function}
        first = role if i == 0 and not preamble else {}  # the role with the first call
        turn.starts.append(turn.add(chunk({**first, "tool_calls": [start]}), i))
        for piece in cut(call.args):
            turn.add(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}), i)
    turn.finish_at = turn.add(chunk({}, "tool_calls"))
    turn.end_at = [turn.finish_at] * len(calls)  # no per-call end: the finish seals them


WRITERS = {"anthropic": _anthropic, "openai-responses": _responses, "bedrock": _bedrock}
WRITERS["openai-chat"] = _chat


def write_turn(fmt: str, calls: Sequence[Call], cut: Cut, preamble: str = "") -> WireTurn:
    """The whole stream of ``calls`` in wire format ``fmt`` (a key of :data:`WRITERS`),
    after an optional text ``preamble``, every text cut by ``cut``."""
    turn = WireTurn(fmt)
    WRITERS[fmt](turn, calls, preamble, cut)
    return turn


def normalize_calls(calls: Iterable[tuple[str | None, str | None, Any]]) -> list[tuple[Any, ...]]:
    """Canonical form of final calls for agreement checks: ``(name, id, args_json)``."""
    return [(n, i, json.dumps(a, sort_keys=True, ensure_ascii=False)) for n, i, a in calls]


def expected_calls(calls: Sequence[Call]) -> list[tuple[Any, ...]]:
    """The final calls every library must produce for ``calls``."""
    return normalize_calls((c.name, c.id, json.loads(c.args)) for c in calls)


def dict_calls(calls: Iterable[Any]) -> list[tuple[Any, ...]]:
    """:func:`normalize_calls` of tool call dicts (``name``, ``id``, ``args`` keys)."""
    return normalize_calls((t["name"], t["id"], t["args"]) for t in calls)


FORMATS = ("openai-chat", "anthropic")
"""The wire formats of the whole-stream speed benchmarks (callstream's provider names)."""


def format_calls(fmt: str, n: int, size: int) -> list[Call]:
    """:func:`make_calls` with ids in the style of ``fmt``'s provider."""
    return make_calls(n, size, id_style="openai" if fmt == "openai-chat" else "anthropic")


def wire_stream(fmt: str, calls: Sequence[Call]) -> list[dict[str, Any]]:
    """The whole stream of ``calls`` in wire format ``fmt``, in :data:`FRAGMENT` s."""
    return write_turn(fmt, calls, fragments).payloads


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
