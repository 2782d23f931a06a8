"""Acceptance: recorded OpenAI-Chat-shaped and Ollama streams through the assembler.

The recordings live outside the project (``../shared/recorded-streams``) and are read in
place; the test skips when they are absent. A ten-line reader below turns each payload
into chunks (the real translators live in ``callstream.providers``; this test is about
the merge, so it uses none of them). Each stream is fed as recorded and with every
argument fragment cut into single characters.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from callstream._assembly import CallFailure, StreamEnd
from tests.support.corpus import RECORDED_STREAMS
from tests.support.strategies_assembly import by_char, check_event_order, chunk, resplit, run

RECORDED = RECORDED_STREAMS
FORMATS = {"openai-chat", "ollama-native"}


def recorded() -> list[str]:
    if not RECORDED.is_dir():
        return []
    names = []
    for path in sorted((RECORDED / "expected").glob("*.json")):
        if json.loads(path.read_text(encoding="utf-8")).get("format") in FORMATS:
            names.append(path.stem)
    return names


def signals(payload: dict[str, Any]) -> list[Any]:
    """Chunks (and end/failure signals) of one decoded payload."""
    if "error" in payload:  # Groq `event: error` with the failed generation
        error = payload["error"]
        raw = error.get("failed_generation")
        name = json.loads(raw).get("name") if raw else None
        return [CallFailure(error=error["message"], name=name, args=raw)]
    out: list[Any] = []
    deltas = [c.get("delta") or {} for c in payload.get("choices") or []]
    deltas += [payload["message"]] if "message" in payload else []
    for delta in deltas:
        for tc in delta.get("tool_calls") or []:
            fn = tc.get("function") or {}
            index = tc.get("index", fn.get("index"))
            out.append(
                chunk(index=index, id=tc.get("id"), name=fn.get("name"), args=fn.get("arguments"))
            )
    reasons = [c.get("finish_reason") for c in payload.get("choices") or []]
    reasons += [payload.get("done_reason")]
    out += [StreamEnd(reason=r) for r in reasons if r]
    return out


@pytest.mark.skipif(not RECORDED.is_dir(), reason="recorded streams not available")
@pytest.mark.parametrize("name", recorded())
def test_recorded_stream(name: str) -> None:
    expected = json.loads((RECORDED / "expected" / f"{name}.json").read_text(encoding="utf-8"))
    lines = (RECORDED / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    stream = [s for line in lines if line.strip() for s in signals(json.loads(line))]
    for variant in (stream, resplit(stream, by_char)):
        asm, events = run(variant)
        check_event_order(events)
        valid = [c for c in expected["tool_calls"] if c["valid"]]
        bad = [c for c in expected["tool_calls"] if not c["valid"]]
        assert [(c["name"], c["id"], c["args"]) for c in asm.tool_calls] == [
            (c["name"], c["id"], c["args"]) for c in valid
        ]
        assert [(c["name"], c["id"], c["args"]) for c in asm.invalid_tool_calls] == [
            (c["name"], c["id"], c["raw"]) for c in bad
        ]
        for got, want in zip(asm.invalid_tool_calls, bad):
            assert str(got["error"]).startswith(want["error"])
        assert [c["args"] for c in asm.tool_call_chunks] == [
            c["raw"] for c in expected["tool_calls"]
        ]
