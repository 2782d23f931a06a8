"""A structured output as UI state (issue 27 item 3): AG-UI ``STATE_SNAPSHOT`` /
``STATE_DELTA`` (RFC 6902 patches) checked with the ``ag_ui`` package's own event models
and applied with ``jsonpatch``; Vercel ``data-*`` parts read by the ``ai`` package in node
(``tests/ui/node/structured_data_client.mjs``)."""

from __future__ import annotations

import json
import random
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
from callstream._json.dump import same_json, strict_data
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
from tests.support.strict_json import strict_loads

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
            "extra": {"note": 'line\nbreak \u2028 and \\ quote "'},
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


# --- hostile values read without a model: the final value goes out by the output rule ------

SURROGATES = (
    '{"\\ud800": "\\udc00x", "k\\udfff": ["\\ud83d", {"\\udbff\\udbff": 1}],'
    ' "pair \\ud83d\\ude00": "\\ud83d\\ude00", "n": 1.5}'
)
DEEP = 1_000  # collect_structured's default max_depth: the deepest value it reads


def _deep(kind: str) -> str:
    if kind == "array":
        return "[" * DEEP + "]" * DEEP
    return '{"a": ' * (DEEP - 1) + "{}" + "}" * (DEEP - 1)


def _cuts(text: str, how: str) -> list[str]:
    if how == "whole":
        return [text]
    if how == "char":
        return list(text)
    rng = random.Random(int(how))
    cuts = sorted(rng.sample(range(1, len(text)), min(40, len(text) - 1)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _frames_are_strict(events: list[dict[str, Any]], *, models: bool) -> list[Any]:
    """Every event framed as the protocol's JSON: read back by a strict reader (and by the
    ag-ui-protocol models from that JSON, ``models``); returns what was read."""
    read = []
    for event in events:
        text = sse_frame(event)[len("data: ") : -2]
        read.append(strict_loads(text))
        if models:
            AGUI.validate_json(text)  # the protocol package reads our JSON itself
    return read


SPLITS = ["whole", "char", "0", "1", "2"]


@pytest.mark.parametrize("how", SPLITS)
def test_lone_surrogates_in_keys_and_values_reach_the_uis_as_u_fffd(how: str) -> None:
    want = strict_data(json.loads(SURROGATES))  # every lone surrogate as U+FFFD
    assert "\ufffd" in next(iter(want)) and want["pair \U0001f600"] == "\U0001f600"
    agui = list(
        structured_agui_events(
            callstream.structured(payloads("openai-chat", _cuts(SURROGATES, how)))
        )
    )
    check_agui(agui)
    read = _frames_are_strict(agui, models=True)
    assert read[-2] == {"type": "STATE_SNAPSHOT", "snapshot": want}
    assert agui[-2]["snapshot"] == want  # the event itself, not only its frame
    vercel = list(
        structured_vercel_parts(callstream.structured(payloads("gemini", _cuts(SURROGATES, how))))
    )
    _frames_are_strict(vercel, models=False)
    assert vercel[-2]["data"] == want and vercel[-1]["finishReason"] == "stop"


@pytest.mark.parametrize("how", SPLITS)
@pytest.mark.parametrize("kind", ["array", "object"])
def test_a_value_as_deep_as_structured_output_reads_reaches_the_uis(kind: str, how: str) -> None:
    text = _deep(kind)
    value = callstream.collect_structured(payloads("openai-chat", [text])).value
    agui = list(
        structured_agui_events(callstream.structured(payloads("anthropic", _cuts(text, how))))
    )
    assert [e["type"] for e in (agui[0], agui[-2], agui[-1])] == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "RUN_FINISHED",
    ]
    check_agui([e for e in agui if e["type"] != "STATE_SNAPSHOT"])
    read = _frames_are_strict(agui, models=False)
    assert same_json(read[-2]["snapshot"], value) and same_json(agui[-2]["snapshot"], value)
    vercel = list(
        structured_vercel_parts(callstream.structured(payloads("ollama", _cuts(text, how))))
    )
    read = _frames_are_strict(vercel, models=False)
    assert same_json(read[-2]["data"], value) and vercel[-1]["finishReason"] == "stop"
