"""The UI protocol streams, read by the protocols' own code (issue 15, item 3).

Every stream here is a provider stream (a bundled example, a stream of ours in each
provider format from ``tests/support/fuzz_streams.py``, streams with text around the calls, our
OpenAI Responses streams of every item kind from ``tests/support/responses_streams.py``, the
recorded corpus when present) turned into AG-UI events by :func:`callstream.ui.agui_stream`
and into a Vercel UI message stream by :func:`callstream.ui.vercel_stream`. Then:

- every AG-UI event must validate with the official Python models (``ag-ui-protocol``):
  the ``Event`` union parses it, knows every field (nothing lands in ``model_extra``) and
  writes it back unchanged;
- in node (``tests/ui/node``, the npm packages the lock file pins): ``agui_client.mjs``
  parses each event with ``@ag-ui/core``'s zod schemas and runs an ``@ag-ui/client``
  ``HttpAgent`` over the stream (its event enforcement, ``verifyEvents`` sequence rules
  and ``defaultApplyEvents``); ``vercel_client.mjs`` reads the Vercel stream with the
  ``ai`` package's ``parseJsonEventStream`` + ``uiMessageChunkSchema`` +
  ``readUIMessageStream``, and again through an ``AbstractChat`` with the
  ``DefaultChatTransport`` (what ``useChat`` runs). Neither may reject, warn or fail,
  and the final messages must hold exactly the tool calls (names, ids, arguments), the
  invalid calls (with their error) and the text that :func:`callstream.collect` gives.

The provider text is fed whole and one character at a time; the UI stream reaches the
clients whole, one byte at a time and in random cuts (inside characters and lines);
hypothesis draws random splits of both. The node tests need ``node`` and ``npm``: without
them they skip with one reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Event
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import callstream
from callstream._json.dump import strict_data
from callstream.examples import EXAMPLES, read_example
from callstream.runner import ToolCancelled, ToolFailed, ToolFinished, ToolRunner
from callstream.ui import agui_stream, mcp_apps_notifications, vercel_stream
from callstream.ui._vercel import finish_reason
from tests.support.corpus import RECORDED_STREAMS
from tests.support.fuzz_streams import WRITERS, mutated, raw_text
from tests.support.responses_streams import STREAMS as RESPONSES_STREAMS
from tests.support.responses_streams import sse as responses_sse
from tests.support.strict_json import strict_loads

NODE_DIR = Path(__file__).resolve().parent / "node"
EVENT = TypeAdapter(Event)
_SURROGATE = re.compile("[\ud800-\udfff]")

# --- the streams -------------------------------------------------------------------------

ARGS_NESTED = (
    '{"city": "Z\\u00fcrich", "days": [1, 2], "opts": {"units": "metric", "alerts": true}}'
)
ARGS_ESCAPES = '{"q": "caf\u00e9 \\"quoted\\" \\ud83d\\ude80", "n": 3.5, "tags": []}'
SCENARIOS: dict[str, tuple[list[tuple[str, str, str]], list[int], str]] = {
    "two_calls": (
        [("call_a1", "get_weather", ARGS_NESTED), ("call_b2", "search", ARGS_ESCAPES)],
        [3, 10, 17, 29, 41],
        "stop",
    ),
    "invalid_and_empty": (
        [
            ("call_c3", "write_file", '{"path": "a.txt", "body": "x"'),
            ("call_d4", "now", ""),
            ("call_e5", "search", '{"a" 1}'),
        ],
        [1, 5, 9],
        "stop",
    ),
    "cut_by_length": (
        [("call_f6", "get_weather", ARGS_NESTED), ("call_g7", "search", '{"q": "unfinished')],
        [4, 12],
        "length",
    ),
}


def _anthropic_text_around_calls() -> list[Any]:
    """Text, a tool call, more text (a second text block after the call)."""
    out: list[Any] = [
        {
            "type": "message_start",
            "message": {"id": "msg_t", "type": "message", "role": "assistant", "content": []},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Let me "},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "look — 🔎."},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_t1", "name": "lookup", "input": {}},
        },
    ]
    for piece in ['{"id": ', '"A-1', '042"}']:
        out.append(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
        )
    out += [
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "text_delta", "text": "Then I'll report back."},
        },
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    ]
    return out


def _anthropic_call_then_text() -> list[Any]:
    """A tool call first, text only after it (no text before the call)."""
    return [p for i, p in enumerate(_anthropic_text_around_calls()) if not 1 <= i <= 4]


def _openai_chat_text_only() -> list[Any]:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }

    return (
        [chunk({"role": "assistant", "content": ""})]
        + [chunk({"content": piece}) for piece in ["No tools ", "needed: ", "it's 42."]]
        + [chunk({}, "stop")]
    )


def _sse(payloads: list[Any]) -> str:
    return "".join(f"data: {json.dumps(p, ensure_ascii=False)}\n\n" for p in payloads)


@cache
def sources() -> dict[str, str]:
    """Every provider stream, by name, as the raw text a server sends."""
    out: dict[str, str] = {}
    for name in EXAMPLES:
        out[f"example:{name}"] = read_example(name)
    for scenario, (calls, cuts, finish) in SCENARIOS.items():
        for provider, write in WRITERS.items():
            out[f"{provider}:{scenario}"] = raw_text(provider, write(calls, cuts, finish))
    out["anthropic:text_around_calls"] = _sse(_anthropic_text_around_calls())
    out["anthropic:call_then_text"] = _sse(_anthropic_call_then_text())
    out["openai-chat:text_only"] = _sse(_openai_chat_text_only())
    for stream in RESPONSES_STREAMS:  # every Responses item kind, hosted ones included
        out[f"openai-responses:{stream.name}"] = responses_sse(stream.events)
    return out


def recorded_sources() -> dict[str, list[Any]]:
    """The recorded corpus (decoded payloads), by stream name; empty when absent."""
    if not RECORDED_STREAMS.is_dir():
        return {}
    out = {}
    for path in sorted(RECORDED_STREAMS.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        out[f"recorded:{path.stem}"] = [json.loads(line) for line in lines if line.strip()]
    return out


def feeds(text: str, how: str) -> list[str]:
    """The provider text as the chunks callstream reads: whole or one character each."""
    return [text] if how == "whole" else list(text)


def random_cuts(text: str, seed: str, n: int = 12) -> list[int]:
    size = len(text.encode("utf-8"))
    rng = random.Random(seed)
    return sorted(rng.randrange(size + 1) for _ in range(n))


# --- what the clients must end with ------------------------------------------------------


def expected(result: callstream.StreamResult) -> dict[str, Any]:
    """collect()'s calls, invalid calls and text as a client receives them: under the
    output rule of the one JSON writer (a lone surrogate arrives as U+FFFD)."""
    w = strict_data
    return {
        "calls": [(w(c["name"]), w(c["id"]), w(c["args"])) for c in result.tool_calls],
        "invalid": [(w(c["name"]), w(c["id"]), w(c["error"])) for c in result.invalid_tool_calls],
        "text": w(result.text),
    }


def ui_id(got: Any, want_ids: set[Any]) -> Any:
    """The provider's id for a UI call id: the UI makes one up (``call_<n>``) when the
    provider gave none (Gemini, Ollama), and makes a reused provider id unique
    (``<id>#2``); both are the encoders' documented choices."""
    if got in want_ids:
        return got
    if isinstance(got, str) and "#" in got and got.rsplit("#", 1)[0] in want_ids:
        return got.rsplit("#", 1)[0]
    return None if None in want_ids else got


def compare(got: dict[str, Any], exp: dict[str, Any], *, damaged: bool) -> None:
    """The calls, invalid calls and text a client ended with are ``collect()``'s.

    Valid calls in stream order; invalid calls as a set (a client learns of one when it
    is found invalid -- a malformed one mid-stream, a cut-off one at the end -- while
    collect() lists them by call number). ``damaged=True`` (streams damaged on purpose):
    valid calls as a set of (name, arguments) (a call whose start came late is shown
    late; one whose id came after its start keeps the UI id it started with), and of the
    invalid calls only their number and errors, each error as it was when the call was
    found invalid (a prefix of the final one): the name, id, rest of the text or error
    note that arrive after that are in collect()'s result, not in the UI's.
    """
    valid_ids = {c[1] for c in exp["calls"]}
    calls = [(n, ui_id(i, valid_ids), a) for n, i, a in got["calls"]]
    if damaged:
        assert sorted(repr((n, a)) for n, _, a in calls) == sorted(
            repr((n, a)) for n, _, a in exp["calls"]
        )
    else:
        assert calls == exp["calls"]
    invalid_ids = {c[1] for c in exp["invalid"]}
    invalid = [(n, ui_id(i, invalid_ids), e) for n, i, e in got["invalid"]]
    if damaged:
        assert len(invalid) == len(exp["invalid"])
        for _, _, error in invalid:
            assert any(e.startswith(error) for _, _, e in exp["invalid"]), error
    else:
        assert sorted(invalid, key=repr) == sorted(exp["invalid"], key=repr)
    assert got["text"] == exp["text"]


def agui_final(result: dict[str, Any]) -> dict[str, Any]:
    """The tool calls, invalid calls and text an AG-UI client ends with."""
    assert "crashed" not in result, result
    assert result["sseError"] is None, result["sseError"]
    assert result["rejected"] == [], result["rejected"]
    assert result["dropped"] == [], result["dropped"]
    assert result["error"] is None, result["error"]
    assert result["said"] == [], result["said"]
    invalid = {}
    replaced = {}
    for custom in result["custom"]:
        value = custom["value"]
        if custom["name"] == "callstream.tool_call_invalid":
            invalid[value["toolCallId"]] = value
        elif custom["name"] == "callstream.tool_call_arguments":
            replaced[value["toolCallId"]] = value["arguments"]
    calls = []
    text = []
    tool_messages = {}
    for message in result["messages"]:
        if message["role"] == "tool":
            tool_messages[message["toolCallId"]] = message["content"]
            continue
        assert message["role"] == "assistant", message
        text.append(message.get("content") or "")
        for call in message.get("toolCalls", []):
            if call["id"] in invalid:
                continue
            # the argument text is the provider's, as streamed: a lone-surrogate escape in
            # it ("\\udc80") decodes to one; compared under the output rule, as expected()
            args = replaced[call["id"]] if call["id"] in replaced else json.loads(call["arguments"])
            args = strict_data(args)
            calls.append((call["name"], call["id"], args))
    return {
        "calls": calls,
        "invalid": [(v["toolCallName"], k, v["error"]) for k, v in invalid.items()],
        "text": "".join(text),
        "run_errors": result["runErrors"],
        "tool_messages": tool_messages,
        "last": result["types"][-1] if result["types"] else None,
    }


def check_agui(
    result: dict[str, Any], want: callstream.StreamResult, *, damaged: bool = False
) -> None:
    got = agui_final(result)
    compare(got, expected(want), damaged=damaged)
    if want.finish_reason == "error":
        assert got["last"] == "RUN_ERROR" and len(got["run_errors"]) == 1
        # the provider's own message (the result's provider_error), not a generic one
        assert want.provider_error and got["run_errors"][0] == {
            "message": want.provider_error,
            "code": "provider_error",
        }
    else:
        assert got["last"] == "RUN_FINISHED" and got["run_errors"] == []


def vercel_final(message: dict[str, Any]) -> dict[str, Any]:
    """The tool calls, invalid calls and text a UIMessage holds (the provider's own
    tools, ``providerExecuted``, left out: they are not the client's calls)."""
    calls, invalid, text = [], [], []
    for part in message["parts"]:
        if part["type"] == "text":
            assert part["state"] == "done", part
            text.append(part["text"])
        elif "toolCallId" in part:
            if part.get("providerExecuted"):
                continue
            state = part["state"]
            if state in ("input-available", "output-available"):
                calls.append((part["toolName"], part["toolCallId"], part["input"]))
            elif state in ("output-error", "input-error"):
                invalid.append((part["toolName"], part["toolCallId"], part["errorText"]))
            else:  # a call left streaming: the stream never told the client it ended
                raise AssertionError(f"tool part left in state {state!r}: {part}")
    return {"calls": calls, "invalid": invalid, "text": "".join(text)}


def check_vercel(
    result: dict[str, Any], want: callstream.StreamResult, *, damaged: bool = False
) -> None:
    assert "crashed" not in result, result
    reader, chat = result["reader"], result["chat"]
    assert reader["rejected"] == [], reader["rejected"]
    assert chat["said"] == [], chat["said"]
    if want.finish_reason == "error":
        # the provider ended the stream with an error: its message reaches the chat as an
        # error (the SDK then reports no finish reason)
        said = f"Error: {want.provider_error}"
        assert want.provider_error and reader["errors"] == [said], reader["errors"]
        assert chat["status"] == "error" and chat["error"] == said, chat
        assert chat["finish"] is not None and chat["finish"]["isError"], chat["finish"]
    else:
        assert reader["errors"] == [], reader["errors"]
        assert chat["status"] == "ready" and chat["error"] is None, chat
        assert chat["finish"] is not None and not chat["finish"]["isError"], chat["finish"]
        expected_reason = finish_reason(want.finish_reason)
        if expected_reason == "stop" and want.tool_calls:  # Gemini, Ollama stop after calls
            expected_reason = "tool-calls"
        assert chat["finish"]["finishReason"] == expected_reason
    assert reader["message"] == chat["message"], "the two readings of one stream differ"
    exp = expected(want)
    # the invalid call's name as we send it (the UI needs one: "" when the provider gave none)
    exp["invalid"] = [(n or "", i, e) for n, i, e in exp["invalid"]]
    compare(vercel_final(chat["message"]), exp, damaged=damaged)


# --- node ---------------------------------------------------------------------------------

NO_SHRINK = (Phase.explicit, Phase.generate)
"""Phases of the hypothesis tests that run node: shrinking would rerun node per step (a
batch of streams each time); the failure names its stream instead (:func:`about`)."""


@contextlib.contextmanager
def about(what: str) -> Iterator[None]:
    """Name the stream a failed assertion is about (the batch tests check several)."""
    try:
        yield
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n-- for {what[:4000]}") from exc


def _installed() -> bool:
    """Whether tests/ui/node/node_modules was installed from the current lock file."""
    hidden = NODE_DIR / "node_modules" / ".package-lock.json"
    lock = NODE_DIR / "package-lock.json"
    return hidden.is_file() and hidden.stat().st_mtime >= lock.stat().st_mtime


@pytest.fixture(scope="session")
def node() -> str:
    """``node``, with the readers' npm packages installed (``npm ci`` once, unless the
    tree is already installed from the current lock file, as ``.ci/run`` leaves it)."""
    ci = os.environ.get("CI") == "true"
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        reason = "node and npm are needed to run the AG-UI / Vercel protocol readers (tests/ui/node)"
        if ci:
            pytest.fail(f"CI=true: {reason}, and they are missing")
        pytest.skip(reason)
    if not _installed():
        done = subprocess.run(
            [npm, "ci", "--silent", "--no-audit", "--no-fund"],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            message = f"npm ci in {NODE_DIR} failed:\n{done.stderr[-2000:]}"
            if ci:
                pytest.fail(message)
            pytest.skip(message)
    return node


def run_node(node: str, script: str, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run a reader script over a batch of jobs (one node process)."""
    done = subprocess.run(
        [node, script, "--batch"],
        cwd=NODE_DIR,
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(results) == len(jobs)
    return results


# --- the cases ------------------------------------------------------------------------------


def cases() -> Iterator[tuple[str, list[Any]]]:
    """(name, source chunks) for every stream fed whole and character by character."""
    for name, text in sources().items():
        for how in ("whole", "chars"):
            yield f"{name}/{how}", feeds(text, how)
    for name, payloads in recorded_sources().items():
        yield name, payloads


CASES = dict(cases())
CUTS = ("whole", "bytes", "random")


def ui_jobs(text: str, key: str) -> dict[str, dict[str, Any]]:
    """The UI text served to a client whole, a byte at a time and in random cuts."""
    size = len(text.encode("utf-8"))
    return {
        "whole": {"sse": text, "cuts": []},
        "bytes": {"sse": text, "cuts": list(range(1, size))},
        "random": {"sse": text, "cuts": random_cuts(text, key)},
    }


@cache
def agui_text(name: str) -> str:
    return "".join(agui_stream(callstream.stream(CASES[name])))


@cache
def vercel_text(name: str) -> str:
    return "".join(vercel_stream(callstream.stream(CASES[name])))


@pytest.fixture(scope="module")
def agui_results(node: str) -> dict[tuple[str, str], dict[str, Any]]:
    keys = [(name, cut) for name in CASES for cut in CUTS]
    jobs = [ui_jobs(agui_text(name), name)[cut] for name, cut in keys]
    return dict(zip(keys, run_node(node, "agui_client.mjs", jobs), strict=True))


@pytest.fixture(scope="module")
def vercel_results(node: str) -> dict[tuple[str, str], dict[str, Any]]:
    keys = [(name, cut) for name in CASES for cut in CUTS]
    jobs = [ui_jobs(vercel_text(name), name)[cut] for name, cut in keys]
    return dict(zip(keys, run_node(node, "vercel_client.mjs", jobs), strict=True))


def collected(name: str) -> callstream.StreamResult:
    return callstream.collect(CASES[name])


# --- (i) the official Python models --------------------------------------------------------


def check_python_models(text: str) -> list[dict[str, Any]]:
    """Every event of an AG-UI stream validates with ``ag_ui.core.Event``, has no field
    the model does not know, and writes back as it came; returns the events."""
    frames = text.split("\n\n")
    assert frames[-1] == "", "the stream ends with a complete event"
    out = []
    for frame in frames[:-1]:
        assert frame.startswith("data: ") and "\n" not in frame, frame
        data = frame[len("data: ") :]
        event = EVENT.validate_json(data)
        assert not event.model_extra, f"fields the AG-UI model does not know: {event.model_extra}"
        raw = json.loads(data)
        assert EVENT.dump_python(event, by_alias=True, exclude_unset=True, mode="json") == raw
        out.append(raw)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_agui_events_validate_with_the_python_models(name: str) -> None:
    events = check_python_models(agui_text(name))
    assert events[0]["type"] == "RUN_STARTED"
    assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")


@st.composite
def damaged_streams(draw: st.DrawFn) -> tuple[str, list[Any]]:
    """(provider, payloads): one of our streams in a provider's format, damaged."""
    provider = draw(st.sampled_from(sorted(WRITERS)))
    calls, cuts, finish = SCENARIOS[draw(st.sampled_from(sorted(SCENARIOS)))]
    return provider, draw(mutated(WRITERS[provider](calls, cuts, finish)))


def _replaced(provider: str, scenario: str, where: tuple[Any, ...], value: Any) -> Any:
    """A stream of ours with one field replaced (``where``: payload index, then keys):
    the "field" damage of :func:`tests.fuzz_streams.mutated`, chosen by hand."""
    calls, cuts, finish = SCENARIOS[scenario]
    payloads = WRITERS[provider](calls, cuts, finish)
    parent = payloads[where[0]]
    for key in where[1:-1]:
        parent = parent[key]
    parent[where[-1]] = value
    return provider, payloads


OPENAI_CALL = (1, "choices", 0, "delta", "tool_calls", 0)
ANTHROPIC_BLOCK = (1, "content_block")
LONE_SURROGATE_STREAMS = {  # the damage that found issue 22's item 2, and its kin
    "id, low": _replaced("openai-chat", "two_calls", (*OPENAI_CALL, "id"), "\udc80"),
    "id, high": _replaced("openai-chat", "two_calls", (*OPENAI_CALL, "id"), "call_\ud800"),
    "name": _replaced("openai-chat", "two_calls", (*OPENAI_CALL, "function", "name"), "f\udfff"),
    "arguments": _replaced(
        "openai-chat", "two_calls", (*OPENAI_CALL, "function", "arguments"), '{"\udc80": "\ud800'
    ),
    "invalid call": _replaced(
        "openai-chat", "invalid_and_empty", (*OPENAI_CALL, "function", "arguments"), "\udc80{"
    ),
    "anthropic id": _replaced("anthropic", "two_calls", (*ANTHROPIC_BLOCK, "id"), "\udc80"),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream=damaged_streams())
@example(stream=LONE_SURROGATE_STREAMS["id, low"])
@example(stream=LONE_SURROGATE_STREAMS["id, high"])
@example(stream=LONE_SURROGATE_STREAMS["name"])
@example(stream=LONE_SURROGATE_STREAMS["arguments"])
@example(stream=LONE_SURROGATE_STREAMS["invalid call"])
@example(stream=LONE_SURROGATE_STREAMS["anthropic id"])
def test_agui_events_of_damaged_streams_validate_with_the_python_models(
    stream: tuple[str, list[Any]],
) -> None:
    """Whatever a damaged stream gives (invalid calls, errors, lone surrogates in ids,
    names and arguments), every event validates; the explicit examples are the damage
    that once passed or failed by chance."""
    provider, payloads = stream
    text = raw_text(provider, payloads)
    try:
        result = callstream.collect([text], provider=provider)
    except Exception as exc:  # a stream damaged beyond recognition: no UI stream either
        assert isinstance(exc, callstream.CallstreamError), exc
        return
    events = check_python_models("".join(agui_stream(callstream.stream([text], provider=provider))))
    invalid = [
        e for e in events if e["type"] == "CUSTOM" and e["name"] == "callstream.tool_call_invalid"
    ]
    assert len(invalid) == len(result.invalid_tool_calls)


@pytest.mark.parametrize("case", list(LONE_SURROGATE_STREAMS))
def test_lone_surrogates_reach_the_ui_as_replacement_characters(case: str) -> None:
    """The streams above, deterministically: each frame of both protocols reads with a
    strict reader, and the calls are collect()'s under the output rule."""
    provider, payloads = LONE_SURROGATE_STREAMS[case]
    text = raw_text(provider, payloads)
    assert _SURROGATE.search(text) or "\\ud" in text.lower()
    want = expected(callstream.collect([text], provider=provider))
    agui = check_python_models("".join(agui_stream(callstream.stream([text], provider=provider))))
    vercel = "".join(vercel_stream(callstream.stream([text], provider=provider)))
    chunks = [strict_loads(f[6:]) for f in vercel.split("\n\n") if f and f != "data: [DONE]"]
    names = {e.get("toolCallName") for e in agui} | {c.get("toolName") for c in chunks}
    ids = {e.get("toolCallId") for e in agui} | {c.get("toolCallId") for c in chunks}
    for name, id_, _ in want["calls"] + want["invalid"]:
        assert name in names or not name
        assert id_ in ids or id_ is None
    inputs = [c["input"] for c in chunks if c["type"] == "tool-input-available"]
    assert inputs == [args for _, _, args in want["calls"]]
    assert not any(_SURROGATE.search(json.dumps(e, ensure_ascii=False)) for e in agui + chunks)


# --- (ii) node: @ag-ui/core + @ag-ui/client, and the ai package ----------------------------


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("name", list(CASES))
def test_agui_client_ends_with_the_collected_calls(
    name: str, cut: str, agui_results: dict[tuple[str, str], dict[str, Any]]
) -> None:
    check_agui(agui_results[name, cut], collected(name))


@pytest.mark.parametrize("cut", CUTS)
@pytest.mark.parametrize("name", list(CASES))
def test_vercel_chat_ends_with_the_collected_calls(
    name: str, cut: str, vercel_results: dict[tuple[str, str], dict[str, Any]]
) -> None:
    check_vercel(vercel_results[name, cut], collected(name))


def _splits(draw: st.DrawFn, size: int) -> list[int]:
    return sorted(draw(st.lists(st.integers(min_value=0, max_value=size), max_size=20)))


Job = tuple[str, list[str], str, list[int], str, list[int]]


@st.composite
def split_jobs(draw: st.DrawFn) -> list[Job]:
    """A few (source name, provider chunks, AG-UI text, its cuts, Vercel text, its cuts):
    the provider text split at random points, the UI text cut at random byte offsets."""
    jobs = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        name = draw(st.sampled_from(sorted(sources())))
        text = sources()[name]
        points = [0, *_splits(draw, len(text)), len(text)]
        chunks = [text[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]
        agui = "".join(agui_stream(callstream.stream(chunks)))
        vercel = "".join(vercel_stream(callstream.stream(chunks)))
        agui_cuts = _splits(draw, len(agui.encode("utf-8")))
        vercel_cuts = _splits(draw, len(vercel.encode("utf-8")))
        jobs.append((name, chunks, agui, agui_cuts, vercel, vercel_cuts))
    return jobs


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(jobs=split_jobs())
def test_random_splits_reach_the_collected_calls_in_both_clients(
    node: str, jobs: list[Job]
) -> None:
    agui = run_node(node, "agui_client.mjs", [{"sse": j[2], "cuts": j[3]} for j in jobs])
    vercel = run_node(node, "vercel_client.mjs", [{"sse": j[4], "cuts": j[5]} for j in jobs])
    for job, agui_result, vercel_result in zip(jobs, agui, vercel, strict=True):
        want = callstream.collect(job[1])
        with about(f"{job[0]} split as {job[1]!r}"):
            check_agui(agui_result, want)
            check_vercel(vercel_result, want)


# --- tool results: the items of a ToolRunner ----------------------------------------------


def get_weather(city: str, days: list[int], opts: dict[str, Any]) -> dict[str, Any]:
    return {"city": city, "days": len(days), "units": opts.get("units")}


def search(q: str, n: float = 1, tags: list[str] | None = None) -> str:
    raise ValueError(f"search is down (asked for {q!r})")


def lookup_order(order_id: str) -> str:
    return f"order {order_id}: shipped"


RUNNER_SOURCES = (
    "openai-chat:two_calls/whole",
    "anthropic:two_calls/chars",
    "example:openai_chat_invalid/whole",
    "anthropic:text_around_calls/whole",
    "gemini:two_calls/whole",
)


def test_tool_runner_results_reach_both_clients(node: str) -> None:
    """Tool results (a tool that returned, one that raised, an unknown tool, an invalid
    call) reach the AG-UI client as tool messages and the Vercel chat as tool outputs."""
    runner = ToolRunner([get_weather, search, lookup_order])
    runs = []
    for name in RUNNER_SOURCES:
        with runner.stream(CASES[name]) as items_stream:
            items = list(items_stream)
        results = [
            i.result for i in items if isinstance(i, (ToolFinished, ToolFailed, ToolCancelled))
        ]
        assert results, name
        runs.append((name, items, results))
    agui = run_node(node, "agui_client.mjs", [{"sse": "".join(agui_stream(i))} for _, i, _ in runs])
    vercel = run_node(
        node, "vercel_client.mjs", [{"sse": "".join(vercel_stream(i))} for _, i, _ in runs]
    )
    for (name, _, results), agui_result, vercel_result in zip(runs, agui, vercel, strict=True):
        want = collected(name)
        check_agui(agui_result, want)
        got = agui_final(agui_result)
        valid_ids = {c[1] for c in got["calls"]}
        for result in results:
            call_id = result.id or f"call_{result.index}"
            if call_id in valid_ids:  # every valid call gets its result as a tool message
                assert got["tool_messages"][call_id] == result.content, name
            elif call_id in got["tool_messages"]:  # an invalid call's result, if it was shown
                assert got["tool_messages"][call_id] == result.content, name

        chat = vercel_result["chat"]
        assert chat["status"] == "ready" and chat["said"] == [], chat
        assert vercel_result["reader"]["message"] == chat["message"]
        parts = {p["toolCallId"]: p for p in chat["message"]["parts"] if "toolCallId" in p}
        invalid = {c["id"]: c for c in want.invalid_tool_calls}
        for result in results:
            part = parts[result.id or f"call_{result.index}"]
            if result.id in invalid:  # the input error stays; no output is sent for it
                assert part["state"] == "output-error"
                assert part["errorText"] == invalid[result.id]["error"]
            elif result.status == "done":
                assert (part["state"], part["input"]) == ("output-available", result.args)
                assert part["output"] == json.loads(json.dumps(result.output))
            else:
                assert (part["state"], part["input"]) == ("output-error", result.args)
                assert part["errorText"] == result.content


# --- reasoning text (Vercel, reasoning=True) -----------------------------------------------

REASONING_CASES = [
    name for name, chunks in CASES.items() if callstream.collect(chunks, reasoning=True).reasoning
]


def test_vercel_reasoning_parts_hold_the_reasoning(node: str) -> None:
    """Read with ``reasoning=True`` on both ends, the reasoning text reaches the chat as
    reasoning parts (and the calls and text are unchanged)."""
    if not REASONING_CASES:
        pytest.skip("no stream with reasoning text here (the recorded corpus has them)")
    texts = [
        "".join(vercel_stream(callstream.stream(CASES[n], reasoning=True), reasoning=True))
        for n in REASONING_CASES
    ]
    jobs = [
        {"sse": t, "cuts": random_cuts(t, n)} for n, t in zip(REASONING_CASES, texts, strict=True)
    ]
    for name, result in zip(
        REASONING_CASES, run_node(node, "vercel_client.mjs", jobs), strict=True
    ):
        want = callstream.collect(CASES[name], reasoning=True)
        check_vercel(result, want)
        parts = result["chat"]["message"]["parts"]
        reasoning = [p for p in parts if p["type"] == "reasoning"]
        assert all(p["state"] == "done" for p in reasoning), name
        assert "".join(p["text"] for p in reasoning) == want.reasoning, name


# --- damaged streams ------------------------------------------------------------------------


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    phases=NO_SHRINK,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_damaged_streams_reach_the_collected_calls_in_both_clients(
    node: str, data: st.DataObject
) -> None:
    """Streams damaged the way a bad server or proxy would (``tests/support/fuzz_streams.py``):
    whatever callstream makes of them, both clients accept the UI stream without a
    complaint and end with collect()'s calls (a batch of streams per node run)."""
    jobs = []
    for _ in range(12):
        provider = data.draw(st.sampled_from(sorted(WRITERS)))
        calls, cuts, finish = SCENARIOS[data.draw(st.sampled_from(sorted(SCENARIOS)))]
        payloads = data.draw(mutated(WRITERS[provider](calls, cuts, finish)))
        jobs.append((provider, raw_text(provider, payloads)))
    agui = run_node(
        node,
        "agui_client.mjs",
        [{"sse": "".join(agui_stream(callstream.stream([t], provider=p)))} for p, t in jobs],
    )
    vercel = run_node(
        node,
        "vercel_client.mjs",
        [{"sse": "".join(vercel_stream(callstream.stream([t], provider=p)))} for p, t in jobs],
    )
    for (provider, text), agui_result, vercel_result in zip(jobs, agui, vercel, strict=True):
        want = callstream.collect([text], provider=provider)
        with about(f"the {provider} stream {text!r}"):
            check_agui(agui_result, want, damaged=True)
            check_vercel(vercel_result, want, damaged=True)


# --- a provider-run call that is invalid (issue 22, item 13a) ---------------------------------


def _server_call_without_a_name() -> list[Any]:
    """An Anthropic ``server_tool_use`` block with no name: invalid before it starts, so
    the client's first word of it is the ``tool-input-error`` itself."""
    return [
        {
            "type": "message_start",
            "message": {"id": "msg_s", "type": "message", "role": "assistant", "content": []},
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "server_tool_use", "id": "srvtoolu_s1", "input": {}},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]


def test_an_invalid_provider_run_call_stays_provider_executed_in_the_ai_reader(node: str) -> None:
    """The ai package's reader and chat keep the call as the provider's
    (``providerExecuted``), not as a client tool call that failed."""
    payloads = _server_call_without_a_name()
    events = [e for u in callstream.stream(payloads) for e in u.events]
    assert [type(e).__name__ for e in events] == ["CallInvalid", "StreamFinished"]
    assert events[0].server  # type: ignore[union-attr]
    sse = "".join(vercel_stream(callstream.stream(payloads)))
    (result,) = run_node(node, "vercel_client.mjs", [{"sse": sse}])
    assert result["reader"]["rejected"] == [] and result["reader"]["errors"] == []
    for reading in (result["reader"]["message"], result["chat"]["message"]):
        (part,) = [p for p in reading["parts"] if p.get("toolCallId") == "srvtoolu_s1"]
        assert part["state"] == "output-error"
        assert part.get("providerExecuted") is True, part


# --- a source that fails mid-stream ---------------------------------------------------------


def _interrupted() -> Iterator[str]:
    """The text-around-calls stream, cut inside the call's arguments by a dropped
    connection."""
    text = sources()["anthropic:text_around_calls"]
    yield text[: text.index("A-1")]
    raise ConnectionError("peer went away")


@cache
def interrupted_readings(node: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the AG-UI and the Vercel client make of :func:`_interrupted` (read once)."""
    agui = run_node(
        node, "agui_client.mjs", [{"sse": "".join(agui_stream(callstream.stream(_interrupted())))}]
    )[0]
    vercel = run_node(
        node,
        "vercel_client.mjs",
        [{"sse": "".join(vercel_stream(callstream.stream(_interrupted())))}],
    )[0]
    return agui, vercel


def test_interrupted_stream_ends_with_an_error_both_clients_accept(node: str) -> None:
    """The source raises mid-call: both clients accept what we sent (no rejection, no
    sequence error), the AG-UI run ends with RUN_ERROR, the chat with status "error"."""
    agui, vercel = interrupted_readings(node)
    assert agui["rejected"] == agui["dropped"] == agui["said"] == [] and agui["error"] is None
    assert agui["types"][-1] == "RUN_ERROR"
    assert agui["runErrors"] == [
        {"message": "ConnectionError: peer went away", "code": "stream_failed"}
    ]
    assert vercel["reader"]["rejected"] == [] and vercel["chat"]["said"] == []
    assert vercel["chat"]["status"] == "error"
    assert vercel["chat"]["error"] == "Error: ConnectionError: peer went away"


def test_interrupted_stream_marks_the_open_call_invalid_in_both_clients(node: str) -> None:
    with pytest.raises(ConnectionError) as raised:
        callstream.collect(_interrupted())
    want = raised.value.callstream_result  # type: ignore[attr-defined]
    assert [c["name"] for c in want.invalid_tool_calls] == ["lookup"]
    agui, vercel = interrupted_readings(node)
    assert agui_final(agui)["invalid"] == [
        (c["name"], c["id"], c["error"]) for c in want.invalid_tool_calls
    ]
    parts = vercel["chat"]["message"]["parts"]
    assert [p["state"] for p in parts if "toolCallId" in p] == ["output-error"]


# --- MCP Apps: the notifications against the ext-apps package's own JSON schema -----------


def mcp_schema(node: str) -> dict[str, Any]:
    """The JSON schema `@modelcontextprotocol/ext-apps` publishes (``schema.json``)."""
    del node  # the fixture installed the package
    path = NODE_DIR / "node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


MCP_DEFINITIONS = {
    "ui/notifications/tool-input-partial": "McpUiToolInputPartialNotification",
    "ui/notifications/tool-input": "McpUiToolInputNotification",
    "ui/notifications/tool-result": "McpUiToolResultNotification",
    "ui/notifications/tool-cancelled": "McpUiToolCancelledNotification",
}


def check_mcp(schema: dict[str, Any], notes: list[Any]) -> None:
    """Every notification matches its definition (without the JSON-RPC envelope, which
    the schema leaves to the transport)."""
    validators = _mcp_validators(json.dumps(schema))
    for note in notes:
        message = dict(note.message)
        assert message.pop("jsonrpc") == "2.0"
        validators[MCP_DEFINITIONS[message["method"]]].validate(message)


@cache
def _mcp_validators(schema_text: str) -> dict[str, Any]:
    """One compiled validator per definition (building one per message is slow)."""
    import jsonschema

    schema = json.loads(schema_text)
    return {
        name: jsonschema.Draft202012Validator({**schema["$defs"][name], "$defs": schema["$defs"]})
        for name in MCP_DEFINITIONS.values()
    }


def test_mcp_apps_notifications_match_the_ext_apps_schema(node: str) -> None:
    import jsonschema

    from callstream.ui import ViewMessage

    schema = mcp_schema(node)
    wrong = {"method": "ui/notifications/tool-input", "params": {"arguments": [1]}}
    with pytest.raises(jsonschema.ValidationError):  # the check can fail
        check_mcp(schema, [ViewMessage(0, "c", {"jsonrpc": "2.0", **wrong})])
    seen: set[str] = set()
    for name, chunks in CASES.items():
        notes = list(mcp_apps_notifications(callstream.stream(chunks), min_interval=0))
        check_mcp(schema, notes)
        seen.update(note.message["method"] for note in notes)
        result = callstream.collect(chunks)
        finals = [
            n.message["params"]["arguments"]
            for n in notes
            if n.message["method"] == "ui/notifications/tool-input"
        ]
        assert finals == [call["args"] for call in result.tool_calls], name
    assert {
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-input",
        "ui/notifications/tool-cancelled",
    } <= seen


def test_mcp_apps_tool_results_match_the_ext_apps_schema(node: str) -> None:
    def add(a: int, b: int) -> dict[str, int]:
        """Add."""
        return {"sum": a + b}

    def fails(x: int = 0) -> str:
        """Fail."""
        raise ValueError("no")

    payloads = WRITERS["anthropic"](
        [("c0", "add", '{"a": 1, "b": 2}'), ("c1", "fails", "{}"), ("c2", "unknown", "{}")],
        [],
        "ok",
    )
    runner = callstream.ToolRunner([add, fails])
    with runner.stream(payloads) as items:
        notes = list(mcp_apps_notifications(items))
    check_mcp(mcp_schema(node), notes)
    results = {
        n.call: n.message["params"]
        for n in notes
        if n.message["method"] == "ui/notifications/tool-result"
    }
    assert results[0] == {
        "content": [{"type": "text", "text": '{"sum":3}'}],
        "isError": False,
        "structuredContent": {"sum": 3},
    }
    assert results[1]["isError"] and results[2]["isError"] and len(results) == 3
