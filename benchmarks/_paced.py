"""Paced replays for ``bench_runner.py``: whole tool-call turns in four wire formats, sent
on a schedule as a model server would send them.

A turn is a few tool calls (name, id, argument text). :func:`wire_turn` writes it as the
decoded payloads of one provider's stream -- Anthropic Messages, OpenAI Responses,
Bedrock ConverseStream or OpenAI Chat Completions, in the shapes the real services send
(see ``tests/support/fuzz_streams.py`` and the recordings' INDEX for the same shapes) -- with
the argument text cut into seeded pieces of 8-24 characters, and says which payload
carries which call's text and which payload ends each call (the payload at which the
runner can seal it). :func:`schedule` gives each payload its send time (a seeded
20-40 ms between payloads, after a seeded time to first byte; payloads after the
stream's end marker follow within 1-3 ms, as the bookkeeping events a server flushes
together), and :class:`PacedSource` replays the payloads on that schedule as an async
iterator, pinned to an origin on the caller's clock, so the same turn is sent at the
same instants whatever its consumer does (a late reader gets the payloads at once, as
from a socket buffer).

Pure data but :class:`PacedSource` (anyio). Cost: O(payloads) per turn.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

__all__ = (
    "FORMATS",
    "CallSpec",
    "PacedSource",
    "WireTurn",
    "pieces",
    "schedule",
    "wire_turn",
)

FORMATS = ("anthropic", "openai-responses", "bedrock", "openai-chat")
"""The wire formats of the replays (callstream's provider names)."""

PIECE_CHARS = (8, 24)
"""Characters of argument text per payload, drawn uniformly (2-6 tokens)."""

GAP_S = (0.020, 0.040)
"""Seconds between payloads, drawn uniformly."""

TAIL_GAP_S = (0.001, 0.003)
"""Seconds between the payloads that follow the stream's end marker."""

FIRST_BYTE_S = (0.15, 0.35)
"""Seconds before the first payload (the time to first byte), drawn uniformly."""


@dataclass(frozen=True)
class CallSpec:
    """One tool call of a turn: the tool's name, the call's id and its argument text."""

    name: str
    id: str
    args: str


@dataclass
class WireTurn:
    """A turn as one provider's payloads, with what each payload means for the calls.

    Attributes:
        fmt: the wire format (one of :data:`FORMATS`).
        payloads: the decoded payload dicts, in order.
        owner: per payload, the number of the call whose start or text it carries (None
            for the others).
        end_at: per call, the payload that ends it in the provider's own terms (its
            ``content_block_stop``, ``function_call_arguments.done``,
            ``contentBlockStop``; for OpenAI Chat, which has none, the finish chunk).
        next_call_at: per call, the payload at which ``seal="next-call"`` can seal it:
            the start of the next call (the last call: ``end_at``).
        finish_at: the payload carrying the stream's end marker (the finish reason).
    """

    fmt: str
    payloads: list[dict[str, Any]] = field(default_factory=list)
    owner: list[int | None] = field(default_factory=list)
    end_at: list[int] = field(default_factory=list)
    next_call_at: list[int] = field(default_factory=list)
    finish_at: int = -1

    def add(self, payload: dict[str, Any], owner: int | None = None) -> int:
        """Append one payload; return its position."""
        self.payloads.append(payload)
        self.owner.append(owner)
        return len(self.payloads) - 1

    def seal_at(self, seal: str) -> list[int]:
        """Per call, the payload at which a runner with ``seal`` seals it."""
        return list(self.next_call_at if seal == "next-call" else self.end_at)


def pieces(text: str, rng: random.Random) -> list[str]:
    """``text`` cut into pieces of :data:`PIECE_CHARS` characters (seeded sizes)."""
    out = []
    i = 0
    while i < len(text):
        size = rng.randint(*PIECE_CHARS)
        out.append(text[i : i + size])
        i += size
    return out


def _text_pieces(preamble: str, rng: random.Random) -> list[str]:
    return pieces(preamble, rng) if preamble else []


def _anthropic(calls: Sequence[CallSpec], preamble: str, rng: random.Random) -> WireTurn:
    turn = WireTurn("anthropic")
    message: dict[str, Any] = {
        "id": "msg_01RunnerBench0000000000001",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1834, "output_tokens": 2},
    }
    turn.add({"type": "message_start", "message": message})
    block = 0
    if preamble:
        turn.add(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
        )
        turn.add({"type": "ping"})
        for piece in _text_pieces(preamble, rng):
            delta = {"type": "text_delta", "text": piece}
            turn.add({"type": "content_block_delta", "index": 0, "delta": delta})
        turn.add({"type": "content_block_stop", "index": 0})
        block = 1
    starts = []
    for i, call in enumerate(calls):
        index = block + i
        content = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        starts.append(
            turn.add({"type": "content_block_start", "index": index, "content_block": content}, i)
        )
        for piece in pieces(call.args, rng):
            delta = {"type": "input_json_delta", "partial_json": piece}
            turn.add({"type": "content_block_delta", "index": index, "delta": delta}, i)
        turn.end_at.append(turn.add({"type": "content_block_stop", "index": index}, i))
    output_tokens = 20 + (len(preamble) + sum(len(c.args) for c in calls)) // 4
    turn.finish_at = turn.add(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        }
    )
    turn.add({"type": "message_stop"})
    turn.next_call_at = [*starts[1:], turn.end_at[-1]]
    return turn


def _responses(calls: Sequence[CallSpec], preamble: str, rng: random.Random) -> WireTurn:
    turn = WireTurn("openai-responses")
    seq = iter(range(1_000_000))
    response = {
        "id": "resp_0RunnerBench00000000000000000000000001",
        "object": "response",
        "created_at": 1_764_000_000,
        "status": "in_progress",
        "model": "gpt-4.1-2025-04-14",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "usage": None,
    }
    turn.add({"type": "response.created", "sequence_number": next(seq), "response": response})
    turn.add({"type": "response.in_progress", "sequence_number": next(seq), "response": response})
    first = 0
    if preamble:
        msg = {"id": "msg_0bench", "type": "message", "status": "in_progress", "role": "assistant"}
        turn.add(
            {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": 0,
                "item": {**msg, "content": []},
            }
        )
        for piece in _text_pieces(preamble, rng):
            turn.add(
                {
                    "type": "response.output_text.delta",
                    "sequence_number": next(seq),
                    "item_id": "msg_0bench",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": piece,
                }
            )
        done = {
            **msg,
            "status": "completed",
            "content": [{"type": "output_text", "text": preamble}],
        }
        turn.add(
            {
                "type": "response.output_item.done",
                "sequence_number": next(seq),
                "output_index": 0,
                "item": done,
            }
        )
        first = 1
    starts = []
    for i, call in enumerate(calls):
        index = first + i
        item_id = f"fc_0RunnerBench{index:04d}"
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call.id,
            "name": call.name,
        }
        starts.append(
            turn.add(
                {
                    "type": "response.output_item.added",
                    "sequence_number": next(seq),
                    "output_index": index,
                    "item": item,
                },
                i,
            )
        )
        for piece in pieces(call.args, rng):
            turn.add(
                {
                    "type": "response.function_call_arguments.delta",
                    "sequence_number": next(seq),
                    "item_id": item_id,
                    "output_index": index,
                    "delta": piece,
                },
                i,
            )
        turn.end_at.append(
            turn.add(
                {
                    "type": "response.function_call_arguments.done",
                    "sequence_number": next(seq),
                    "item_id": item_id,
                    "output_index": index,
                    "arguments": call.args,
                },
                i,
            )
        )
        turn.add(
            {
                "type": "response.output_item.done",
                "sequence_number": next(seq),
                "output_index": index,
                "item": {**item, "status": "completed", "arguments": call.args},
            },
            i,
        )
    usage = {"input_tokens": 1834, "output_tokens": sum(len(c.args) for c in calls) // 4}
    turn.finish_at = turn.add(
        {
            "type": "response.completed",
            "sequence_number": next(seq),
            "response": {**response, "status": "completed", "usage": usage},
        }
    )
    turn.next_call_at = [*starts[1:], turn.end_at[-1]]
    return turn


def _bedrock(calls: Sequence[CallSpec], preamble: str, rng: random.Random) -> WireTurn:
    turn = WireTurn("bedrock")
    turn.add({"messageStart": {"role": "assistant"}})
    block = 0
    if preamble:  # text blocks have no start event on Bedrock
        for piece in _text_pieces(preamble, rng):
            turn.add({"contentBlockDelta": {"delta": {"text": piece}, "contentBlockIndex": 0}})
        turn.add({"contentBlockStop": {"contentBlockIndex": 0}})
        block = 1
    starts = []
    for i, call in enumerate(calls):
        index = block + i
        start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
        starts.append(
            turn.add({"contentBlockStart": {"start": start, "contentBlockIndex": index}}, i)
        )
        for piece in pieces(call.args, rng):
            delta = {"toolUse": {"input": piece}}
            turn.add({"contentBlockDelta": {"delta": delta, "contentBlockIndex": index}}, i)
        turn.end_at.append(turn.add({"contentBlockStop": {"contentBlockIndex": index}}, i))
    turn.finish_at = turn.add({"messageStop": {"stopReason": "tool_use"}})
    tokens = sum(len(c.args) for c in calls) // 4
    turn.add(
        {
            "metadata": {
                "usage": {
                    "inputTokens": 1834,
                    "outputTokens": tokens,
                    "totalTokens": 1834 + tokens,
                },
                "metrics": {"latencyMs": 412},
            }
        }
    )
    turn.next_call_at = [*starts[1:], turn.end_at[-1]]
    return turn


def _chat(calls: Sequence[CallSpec], preamble: str, rng: random.Random) -> WireTurn:
    turn = WireTurn("openai-chat")
    head = {
        "id": "chatcmpl-RunnerBench0000000000000000001",
        "object": "chat.completion.chunk",
        "created": 1_764_000_000,
        "model": "gpt-4.1-2025-04-14",
        "system_fingerprint": "fp_runnerbench",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice]}

    turn.add(chunk({"role": "assistant", "content": "" if preamble else None, "refusal": None}))
    for piece in _text_pieces(preamble, rng):
        turn.add(chunk({"content": piece}))
    starts = []
    for i, call in enumerate(calls):
        function = {"name": call.name, "arguments": ""}
        start = {"index": i, "id": call.id, "type": "function", "function": function}
        starts.append(turn.add(chunk({"tool_calls": [start]}), i))
        for piece in pieces(call.args, rng):
            turn.add(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}), i)
    turn.finish_at = turn.add(chunk({}, "tool_calls"))
    turn.end_at = [turn.finish_at] * len(calls)  # no per-call end: the finish seals them
    turn.next_call_at = [*starts[1:], turn.finish_at]
    return turn


_WRITERS = {
    "anthropic": _anthropic,
    "openai-responses": _responses,
    "bedrock": _bedrock,
    "openai-chat": _chat,
}


def wire_turn(
    fmt: str, calls: Sequence[CallSpec], rng: random.Random, preamble: str = ""
) -> WireTurn:
    """The whole stream of ``calls`` in wire format ``fmt`` (one of :data:`FORMATS`),
    after an optional text ``preamble``; argument text cut by :func:`pieces`."""
    return _WRITERS[fmt](calls, preamble, rng)


def schedule(turn: WireTurn, rng: random.Random) -> list[float]:
    """Send times (seconds from the request) of the turn's payloads: the first after
    :data:`FIRST_BYTE_S`, then :data:`GAP_S` apart, :data:`TAIL_GAP_S` after the end
    marker. Strictly increasing."""
    times = [rng.uniform(*FIRST_BYTE_S)]
    for k in range(1, len(turn.payloads)):
        gap = rng.uniform(*(TAIL_GAP_S if k > turn.finish_at else GAP_S))
        times.append(times[-1] + gap)
    return times


class PacedSource:
    """Replays payloads at ``origin + times[k]`` on anyio's clock (an async iterator).

    ``delivered`` gets, per payload, the seconds from ``origin`` at which it was handed
    to the reader: its send time, or later when the reader came late. One pass only.
    """

    def __init__(
        self, payloads: Sequence[dict[str, Any]], times: Sequence[float], origin: float
    ) -> None:
        self._payloads = payloads
        self._times = times
        self._origin = origin
        self._next = 0
        self.delivered: list[float] = []

    def __aiter__(self) -> PacedSource:
        return self

    async def __anext__(self) -> dict[str, Any]:
        k = self._next
        if k >= len(self._payloads):
            raise StopAsyncIteration
        self._next = k + 1
        wait = self._origin + self._times[k] - anyio.current_time()
        if wait > 0:
            await anyio.sleep(wait)
        self.delivered.append(anyio.current_time() - self._origin)
        return self._payloads[k]
