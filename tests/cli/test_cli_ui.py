"""``callstream replay --output agui / vercel``: the UI protocols' server-sent events."""

from __future__ import annotations

import json
from typing import Any

import pytest

import callstream
from callstream.cli import main
from callstream.examples import EXAMPLES, example_path, read_example


def frames(text: str) -> list[Any]:
    """The JSON events of the SSE text (``[DONE]`` as the string)."""
    out: list[Any] = []
    for block in text.split("\n\n"):
        if not block:
            continue
        assert block.startswith("data: "), block
        body = block[len("data: ") :]
        out.append(body if body == "[DONE]" else json.loads(body))
    return out


def collected(name: str) -> callstream.StreamResult:
    path = example_path(name)
    return callstream.collect(
        [read_example(name)]
        if path.suffix == ".sse"
        else [json.loads(line) for line in read_example(name).splitlines() if line.strip()]
    )


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_replay_as_vercel_gives_the_collected_calls(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["replay", str(example_path(name)), "--output", "vercel", "--speed", "0"])
    out = capsys.readouterr().out
    assert status == 0
    chunks = frames(out)
    assert chunks[0]["type"] == "start" and chunks[-1] == "[DONE]"
    assert chunks[-2]["type"] == "finish"
    result = collected(name)
    inputs = [
        (c["toolName"], c["input"]) for c in chunks[1:-1] if c["type"] == "tool-input-available"
    ]
    assert inputs == [(c["name"], c["args"]) for c in result.tool_calls]
    errors = [c["errorText"] for c in chunks[1:-1] if c["type"] == "tool-input-error"]
    assert sorted(errors) == sorted(str(c["error"]) for c in result.invalid_tool_calls)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_replay_as_agui_is_one_run_with_every_argument_byte(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["replay", str(example_path(name)), "--output", "agui", "--speed", "0"])
    events = frames(capsys.readouterr().out)
    assert status == 0
    assert events[0]["type"] == "RUN_STARTED"
    assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")
    text: dict[str, str] = {}
    for event in events:
        if event["type"] == "TOOL_CALL_START":
            text[event["toolCallId"]] = ""
        elif event["type"] == "TOOL_CALL_ARGS":
            text[event["toolCallId"]] += event["delta"]
    result = collected(name)
    invalid = {
        e["value"]["toolCallId"]
        for e in events
        if e["type"] == "CUSTOM" and e["name"] == "callstream.tool_call_invalid"
    }
    streamed = {key: json.loads(value) for key, value in text.items() if key not in invalid}
    if all(call["id"] for call in result.tool_calls):
        assert streamed == {call["id"]: call["args"] for call in result.tool_calls}
    else:  # calls without ids (Gemini) arrive whole, in call order, as call_0, call_1 ...
        assert list(streamed.values()) == [call["args"] for call in result.tool_calls]
    assert len(invalid) == len(result.invalid_tool_calls)


def test_demo_as_agui_is_one_run_per_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--output", "agui", "--speed", "0"]) == 0
    events = frames(capsys.readouterr().out)
    starts = [e for e in events if e["type"] == "RUN_STARTED"]
    ends = [e for e in events if e["type"] in ("RUN_FINISHED", "RUN_ERROR")]
    assert len(starts) == len(ends) >= 2
    assert len({e["runId"] for e in starts}) == len(starts)
