"""Fuzzing the whole pipeline with damaged streams of our own, every format.

Invariants, for any stream written in a provider's wire shape and then damaged
(tests/support/fuzz_streams.py):

- only our errors: reading it raises nothing, or a ``CallstreamError``;
- no silent loss: every call announced mid-stream ends with a done or invalid event, and
  the final result holds at least as many calls as any update showed;
- sync = async (asyncio, and trio for some examples) = raw SSE / NDJSON bytes cut anywhere.

The number of examples per format is ``CALLSTREAM_FUZZ_EXAMPLES`` (default 40; ``.ci/run``
raises it, which bounds CI's fuzzing time by count).
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream
from callstream import CallDone, CallInvalid, CallStarted, CallstreamError
from tests.support.fuzz_streams import WRITERS, calls, mutated, raw_text

EXAMPLES = int(os.environ.get("CALLSTREAM_FUZZ_EXAMPLES", "40"))
FORMATS = sorted(WRITERS)


def _outcome(result: Any) -> tuple[Any, ...]:
    return (
        "ok",
        result.tool_calls,
        result.invalid_tool_calls,
        result.server_tool_calls,
        result.finish_reason,
    )


def _sync(payloads: list[Any], provider: str) -> tuple[Any, ...]:
    started: set[int] = set()
    ended: set[int] = set()
    shown = 0
    try:
        with callstream.stream(payloads, provider=provider) as updates:
            for update in updates:
                shown = max(shown, len(update.tool_calls) + len(update.invalid_tool_calls))
                for event in update.events:
                    if isinstance(event, CallStarted):
                        started.add(event.index)
                    elif isinstance(event, (CallDone, CallInvalid)):
                        ended.add(event.index)
            result = updates.result
    except CallstreamError as exc:
        return ("error", type(exc).__name__)
    assert started <= ended, f"announced calls never ended: {sorted(started - ended)}"
    final = len(result.tool_calls) + len(result.invalid_tool_calls) + len(result.server_tool_calls)
    assert final >= shown, "a call shown mid-stream vanished from the result"
    return _outcome(result)


def _async(payloads: list[Any], provider: str, backend: str) -> tuple[Any, ...]:
    async def main() -> tuple[Any, ...]:
        try:
            return _outcome(await callstream.acollect(payloads, provider=provider))
        except CallstreamError as exc:
            return ("error", type(exc).__name__)

    return anyio.run(main, backend=backend)


def _raw(text: str, cuts: list[int], provider: str) -> tuple[Any, ...]:
    data = text.encode("utf-8", "surrogatepass")
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    pieces = [data[a:b] for a, b in zip(points, points[1:], strict=False)]
    try:
        return _outcome(callstream.collect(pieces, provider=provider))
    except CallstreamError as exc:
        return ("error", type(exc).__name__)


@st.composite
def damaged_streams(draw: st.DrawFn, provider: str) -> list[Any]:
    cuts = draw(st.lists(st.integers(min_value=0, max_value=200), max_size=4))
    finish = draw(st.sampled_from(["stop", "length"]))
    payloads = WRITERS[provider](draw(calls), cuts, finish)
    return draw(mutated(payloads)) if draw(st.booleans()) else payloads


@pytest.mark.parametrize("provider", FORMATS)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_damaged_streams_only_our_errors_no_loss_same_on_every_path(
    provider: str, data: st.DataObject
) -> None:
    payloads = data.draw(damaged_streams(provider))
    expected = _sync(payloads, provider)
    assert _async(payloads, provider, "asyncio") == expected
    if data.draw(st.integers(min_value=0, max_value=4)) == 0:
        assert _async(payloads, provider, "trio") == expected
    cuts = data.draw(st.lists(st.integers(min_value=0), max_size=6))
    assert _raw(raw_text(provider, payloads), cuts, provider) == expected


@pytest.mark.parametrize("provider", FORMATS)
@settings(max_examples=max(EXAMPLES // 2, 1), deadline=None)
@given(data=st.data())
def test_damaged_streams_auto_detected_only_our_errors(provider: str, data: st.DataObject) -> None:
    payloads = data.draw(damaged_streams(provider))
    _sync(payloads, "auto")


@pytest.mark.parametrize("provider", FORMATS)
@settings(max_examples=max(EXAMPLES // 2, 1), deadline=None)
@given(data=st.data())
def test_undamaged_streams_give_their_calls(provider: str, data: st.DataObject) -> None:
    """The writers are faithful: an undamaged stream of valid calls gives exactly them."""
    written = [c for c in data.draw(calls) if c[2].startswith("{") and c[2].endswith("}")]
    written = [c for c in written if c[2] != '{"a" 1}']
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=200), max_size=4))
    result = callstream.collect(WRITERS[provider](written, cuts, "stop"), provider="auto")
    assert [(c["name"], c["args"]) for c in result.tool_calls] == [
        (name, json.loads(text)) for _, name, text in written
    ]
    if provider not in ("gemini", "ollama"):  # these formats carry no call ids
        assert [c["id"] for c in result.tool_calls] == [id_ for id_, _, _ in written]
    assert result.invalid_tool_calls == []
