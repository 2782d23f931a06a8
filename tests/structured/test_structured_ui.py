"""A structured output as UI state (issue 27 item 3): AG-UI ``STATE_SNAPSHOT`` /
``STATE_DELTA`` (RFC 6902 patches) checked with the ``ag_ui`` package's own event models
and applied with ``jsonpatch``; Vercel ``data-*`` parts read by the ``ai`` package in node
(``tests/ui/node/structured_data_client.mjs``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import jsonpatch
import pytest
from ag_ui.core import Event as AGUIEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import callstream
from callstream import UsageError
from callstream.ui import (
    AGUIStateEncoder,
    VercelDataEncoder,
    astructured_agui_events,
    astructured_vercel_parts,
    sse_frame,
    structured_agui_events,
    structured_vercel_parts,
)
from tests.structured.models import Doc, consistent, documents, splits
from tests.structured.payloads import payloads, split_text
from tests.support.paths import TESTS

NODE_DIR = TESTS / "ui" / "node"
AGUI = TypeAdapter(AGUIEvent)
TEXT = json.dumps(
    {"title": "Groceries", "items": [{"name": "apple", "qty": 3}], "meta": {"aisle": 4}}
)


def agui_run(pieces: list[str], fmt: str = "openai-chat", finish: str = "stop") -> list[Any]:
    updates = callstream.structured(payloads(fmt, pieces, finish), Doc)
    return list(structured_agui_events(updates))


def replay_state(events: list[dict[str, Any]]) -> list[Any]:
    """The state after each state event, patches applied with jsonpatch."""
    states: list[Any] = []
    state: Any = None
    for event in events:
        if event["type"] == "STATE_SNAPSHOT":
            state = event["snapshot"]
        elif event["type"] == "STATE_DELTA":
            state = jsonpatch.apply_patch(state, event["delta"])
        else:
            continue
        states.append(json.loads(json.dumps(state)))
    return states


def check_agui(events: list[dict[str, Any]]) -> None:
    for event in events:
        AGUI.validate_python(event)  # the protocol package's own models
        json.loads(sse_frame(event)[len("data: ") :])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_agui_state_follows_the_json_and_ends_with_the_validated_value(data: st.DataObject) -> None:
    text = data.draw(documents())
    events = agui_run(data.draw(splits(text)))
    check_agui(events)
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    states = replay_state(events)
    final = Doc.model_validate_json(text).model_dump(mode="json")
    assert events[-2] == {"type": "STATE_SNAPSHOT", "snapshot": final}
    assert states[-2] == json.loads(text)  # the patches rebuild the JSON exactly
    for before, after in zip(states[:-2], states[1:-1], strict=True):
        consistent(before, after)  # the state only grows


def test_agui_long_strings_are_resent_a_bounded_number_of_times() -> None:
    text = json.dumps({"title": "x" * 50_000, "items": []})
    events = agui_run(split_text(text, 1))
    sent = sum(
        len(op["value"])
        for event in events
        if event["type"] == "STATE_DELTA"
        for op in event["delta"]
        if isinstance(op["value"], str)
    )
    assert sent <= 25 * 50_000  # linear: about (1 + 1/0.05) times the string
    assert replay_state(events)[-2]["title"] == "x" * 50_000


def test_agui_a_cut_output_ends_the_run_with_an_error() -> None:
    events = agui_run(split_text(TEXT[:40], 4), finish="length")
    check_agui(events)
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "structured_output:length"
    assert replay_state(events)[-1] == {"title": "Groceries", "items": [{}]}


def test_encoders_refuse_other_items() -> None:
    with pytest.raises(UsageError, match="StructuredUpdate"):
        AGUIStateEncoder().feed({"text": "x"})
    with pytest.raises(UsageError):
        VercelDataEncoder("")


@pytest.fixture(params=["asyncio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.anyio
async def test_async_runs_match_the_sync_ones() -> None:
    source = payloads("anthropic", split_text(TEXT, 5))
    sync = [e for e in agui_run(split_text(TEXT, 5), "anthropic") if e["type"].startswith("STATE")]
    got = [
        e
        async for e in astructured_agui_events(callstream.astructured(source, Doc))
        if e["type"].startswith("STATE")
    ]
    assert got == sync
    parts = [p async for p in astructured_vercel_parts(callstream.astructured(source, Doc))]
    assert parts[-1] == {"type": "finish", "finishReason": "stop"}
    assert parts[-2]["data"] == Doc.model_validate_json(TEXT).model_dump(mode="json")


# --- Vercel, read by the ai package ---------------------------------------------------------


def vercel_sse(pieces: list[str], finish: str = "stop", **options: Any) -> str:
    updates = callstream.structured(payloads("gemini", pieces, finish), Doc)
    parts = structured_vercel_parts(updates, name="doc", **options)
    return "".join(sse_frame(part) for part in parts) + "data: [DONE]\n\n"


def node() -> str:
    found = shutil.which("node")
    if found is None or not (NODE_DIR / "node_modules" / "ai").is_dir():
        pytest.skip("node and the ai package (tests/ui/node: npm ci) are needed")
    return found


def read_in_node(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run(
        [node(), "structured_data_client.mjs", "--batch"],
        cwd=NODE_DIR,
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)
    return results


def test_vercel_data_parts_are_read_by_the_ai_package() -> None:
    text = json.dumps(
        {
            "title": "Trip 😀",
            "items": [{"name": f"item {i}", "qty": i, "tags": ["a"]} for i in range(30)],
            "extra": {"note": "line\nbreak \u2028 and \\ quote \""},
        }
    )
    sse = vercel_sse(split_text(text, 3))
    size = len(sse.encode())
    jobs = [{"sse": sse, "cuts": []}, {"sse": sse, "cuts": list(range(1, size, 7))}]
    cut_sse = vercel_sse(split_text(text[:200], 3), finish="length")
    jobs.append({"sse": cut_sse, "cuts": []})
    whole, cut_up, cut_off = read_in_node(jobs)
    final = Doc.model_validate_json(text).model_dump(mode="json")
    for result in (whole, cut_up):
        assert result["rejected"] == [] and result["errors"] == []
        assert result["parts"] == [
            {"type": "data-doc", "id": result["parts"][0]["id"], "data": final}
        ]
        seen = result["seen"]
        assert len(seen) > 3  # the object grew in the client
        for before, after in zip(seen, seen[1:], strict=False):
            if after != final:
                consistent(before, after)
    assert cut_off["rejected"] == []
    assert len(cut_off["errors"]) == 1 and "cut by the token limit" in cut_off["errors"][0]
    assert cut_off["parts"][0]["data"]["title"] == "Trip 😀"  # what arrived stays shown
