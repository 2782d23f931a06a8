"""Every JSON text callstream writes is strict JSON (issue 22, items 2, 9, 10, 13a).

The writers: the AG-UI and Vercel streams, the MCP Apps notifications (Python data a
host writes), the event feed, the command's ``inspect`` and ``--output jsonl|agui|vercel``,
and ``tool_messages()``. Each is fed explicit hostile streams and tool outputs, whole and
split one character per chunk, and everything it writes is read back by a strict reader
(:func:`tests.strict_json.strict_loads`: UTF-8, no NaN, no lone surrogate escape):

- lone high and low surrogates in the call id, the tool name, the text, argument keys and
  values, an invalid call's raw text, a tool's output and its error text: written as
  U+FFFD (the output rule of ``callstream._json.dump``);
- arguments nested 999 and 1,000 levels deep (what ``collect()`` accepts), written from
  300 frames down a caller's stack: never ``RecursionError``;
- tool outputs that cannot be JSON (bytes that are not UTF-8, a cycle, 5,000 levels, an
  object whose ``str()`` raises): one error result with the reason, the same in every
  consumer; NaN and bytes never reach MCP ``structuredContent`` as such;
- a provider-run call that is invalid keeps ``providerExecuted`` in Vercel's
  ``tool-input-error``.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

import callstream
from callstream._errors import DataError
from callstream._json.dump import same_json
from callstream.cli import run
from callstream.feed import dumps_feed
from callstream.runner import ToolResult, output_data, render_output, tool_messages
from callstream.ui import (
    AGUIEncoder,
    VercelEncoder,
    agui_stream,
    mcp_apps_notifications,
    vercel_stream,
)
from tests.support.strict_json import strict_loads, through_json_dumps

T = TypeVar("T")
FFFD = "\ufffd"
DICT_FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "cohere", "ollama")


def _with_stack(frames: int, call: Callable[[], T]) -> T:
    """``call()`` from ``frames`` Python frames further down (a web server's stack)."""
    if frames == 0:
        return call()
    return _with_stack(frames - 1, call)


def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
    }


def chat_stream(
    *, call_id: str, name: str, args: str, text: str = "", split: bool = False
) -> list[Any]:
    """An OpenAI Chat turn: optional text, one call whose argument text comes whole or
    one character per chunk, then ``tool_calls``."""
    out = [chunk({"role": "assistant", "content": text or None})]
    pieces = list(args) if split else [args]
    for i, piece in enumerate(pieces):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
        if i == 0:
            call.update(id=call_id, type="function")
            call["function"]["name"] = name
        out.append(chunk({"tool_calls": [call]}))
    out.append(chunk({}, "tool_calls"))
    return out


def frames_of(sse: str) -> list[Any]:
    """Each server-sent event's JSON, read strictly (``[DONE]`` left out)."""
    frames = sse.split("\n\n")
    assert frames[-1] == ""
    out = []
    for frame in frames[:-1]:
        assert frame.startswith("data: "), frame
        if frame != "data: [DONE]":
            out.append(strict_loads(frame[len("data: ") :].encode("utf-8")))
    return out


def run_cli(argv: list[str]) -> str:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")
    err = io.StringIO()
    status = run(argv, stdout=out, stderr=err)
    out.flush()
    assert err.getvalue() == "", err.getvalue()
    assert status in (0, 1), status
    buffer = out.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


def write_jsonl(tmp_path: Path, payloads: list[Any]) -> str:
    file = tmp_path / "stream.jsonl"
    file.write_text("".join(json.dumps(p) + "\n" for p in payloads), encoding="utf-8")
    return str(file)


# --- item 2: lone surrogates ------------------------------------------------------------------

# (call id, name, text, argument text): what the provider sent, as Python strings from an
# SDK object or a decoded dict hold it (a raw lone surrogate, or a JSON escape of one)
SURROGATES = {
    "id, low": ("call_\udc80", "f", "", '{"a": 1}'),
    "id, high": ("\ud800", "f", "", '{"a": 1}'),
    "name, low": ("c1", "get\udfff", "", '{"a": 1}'),
    "name, high": ("c1", "\udbffget", "", '{"a": 1}'),
    "text": ("c1", "f", "hi \ud800 and \udc80", '{"a": 1}'),
    "argument key, escaped": ("c1", "f", "", '{"k\\udc80": 1, "\\ud800": 2}'),
    "argument value, escaped": ("c1", "f", "", '{"v": "x\\ud800y", "w": ["\\udfff"]}'),
    "argument value, raw": ("c1", "f", "", '{"v": "x\udc80y"}'),
    "invalid call, raw text": ("c1", "f", "", '{"v": "x\udc80'),
}


def _fixed(text: str | None) -> str | None:
    """``text`` under the output rule (what a strict reader must receive)."""
    if text is None:
        return None
    return "".join(FFFD if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _fixed_value(value: Any) -> Any:
    if isinstance(value, str):
        return _fixed(value)
    if isinstance(value, dict):
        return {_fixed(k): _fixed_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fixed_value(v) for v in value]
    return value


@pytest.fixture(params=list(SURROGATES))
def surrogate_case(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("split", [False, True])
def test_lone_surrogates_become_replacement_characters_in_every_ui(
    surrogate_case: str, split: bool
) -> None:
    call_id, name, text, args = SURROGATES[surrogate_case]
    payloads = chat_stream(call_id=call_id, name=name, args=args, text=text, split=split)
    result = callstream.collect(payloads)
    valid = [(c["id"], c["name"], c["args"]) for c in result.tool_calls]
    invalid = [(c["id"], c["name"], c["args"]) for c in result.invalid_tool_calls]
    assert len(valid) + len(invalid) == 1
    want_id, want_name = _fixed(call_id), _fixed(name)

    agui = frames_of("".join(agui_stream(callstream.stream(payloads))))
    start = next(e for e in agui if e["type"] == "TOOL_CALL_START")
    assert (start["toolCallId"], start["toolCallName"]) == (want_id, want_name)
    deltas = "".join(e["delta"] for e in agui if e["type"] == "TOOL_CALL_ARGS")
    assert deltas == _fixed(args), "the raw argument text, each character once"
    shown = "".join(e["delta"] for e in agui if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert shown == _fixed(text)

    vercel = frames_of("".join(vercel_stream(callstream.stream(payloads))))
    start = next(c for c in vercel if c["type"] == "tool-input-start")
    assert (start["toolCallId"], start["toolName"]) == (want_id, want_name)
    if valid:
        done = next(c for c in vercel if c["type"] == "tool-input-available")
        assert done["input"] == _fixed_value(valid[0][2])
    else:
        error = next(c for c in vercel if c["type"] == "tool-input-error")
        assert error["input"] == _fixed(args)
        custom = next(e for e in agui if e["type"] == "CUSTOM")
        assert custom["value"]["arguments"] == _fixed(args)

    notes = [n.message for n in mcp_apps_notifications(callstream.stream(payloads))]
    assert notes, "the view hears of the call"
    for note in notes:
        through_json_dumps(note)
    if valid:
        assert notes[-1]["params"]["arguments"] == _fixed_value(valid[0][2])

    for update in callstream.stream(payloads):
        for event in update.events:
            strict_loads(dumps_feed(event))


@pytest.mark.parametrize("output", ["jsonl", "agui", "vercel", "inspect"])
def test_lone_surrogates_become_replacement_characters_in_the_command(
    tmp_path: Path, surrogate_case: str, output: str
) -> None:
    call_id, name, text, args = SURROGATES[surrogate_case]
    file = write_jsonl(tmp_path, chat_stream(call_id=call_id, name=name, args=args, text=text))
    if output == "inspect":
        document = strict_loads(run_cli(["inspect", file]))
        calls = document["tool_calls"] + document["invalid_tool_calls"]
        assert [(c["id"], c["name"]) for c in calls] == [(_fixed(call_id), _fixed(name))]
        return
    printed = run_cli(["replay", file, "--output", output])
    if output == "jsonl":
        lines = [strict_loads(line) for line in printed.splitlines()]
        started = next(e for e in lines if e["type"] == "call_started")
        assert (started["id"], started["name"]) == (_fixed(call_id), _fixed(name))
    else:
        events = frames_of(printed)
        assert any(_fixed(name) in (e.get("toolCallName"), e.get("toolName")) for e in events)


def _surrogate_tools() -> list[Callable[..., Any]]:
    def echo(a: int = 0) -> str:
        return "out \udc80 put"

    def keys(a: int = 0) -> dict[str, Any]:
        return {"k\ud800": ["\udfff"], "n": math.nan, "b": b"bytes \xc3\xa9"}

    def boom(a: int = 0) -> str:
        raise ValueError("bad \udc80 value")

    return [echo, keys, boom]


def _three_calls(split: bool) -> list[Any]:
    out = [chunk({"role": "assistant", "content": None})]
    for i, name in enumerate(["echo", "keys", "boom"]):
        pieces = list('{"a": 1}') if split else ['{"a": 1}']
        for j, piece in enumerate(pieces):
            call: dict[str, Any] = {"index": i, "function": {"arguments": piece}}
            if j == 0:
                call.update(id=f"call_{i}", type="function")
                call["function"]["name"] = name
            out.append(chunk({"tool_calls": [call]}))
    out.append(chunk({}, "tool_calls"))
    return out


@pytest.mark.parametrize("split", [False, True])
def test_tool_outputs_and_errors_with_lone_surrogates_are_strict_everywhere(split: bool) -> None:
    runner = callstream.ToolRunner(_surrogate_tools())
    payloads = _three_calls(split)
    result = runner.run(payloads)
    echo, keys, boom = result.results
    assert (echo.status, keys.status, boom.status) == ("done", "done", "error")
    assert echo.content == f"out {FFFD} put"
    assert keys.output_json == {f"k{FFFD}": [FFFD], "n": None, "b": "bytes é"}
    assert json.loads(keys.content) == keys.output_json
    assert boom.content == f"Error: boom raised ValueError: bad {FFFD} value"

    with runner.stream(payloads) as items:
        agui = frames_of("".join(agui_stream(items)))
    contents = {e["toolCallId"]: e["content"] for e in agui if e["type"] == "TOOL_CALL_RESULT"}
    assert contents == {r.id: r.content for r in result.results}

    with runner.stream(payloads) as items:
        vercel = frames_of("".join(vercel_stream(items)))
    outputs = {c["toolCallId"]: c for c in vercel if c["type"].startswith("tool-output")}
    assert outputs["call_0"]["output"] == echo.content
    assert outputs["call_1"]["output"] == keys.output_json
    assert outputs["call_2"]["errorText"] == boom.content

    with runner.stream(payloads) as items:
        notes = [n.message for n in mcp_apps_notifications(items)]
    results = [n for n in notes if n["method"] == "ui/notifications/tool-result"]
    texts = {through_json_dumps(n["params"])["content"][0]["text"] for n in results}
    assert texts == {r.content for r in result.results}
    structured = [
        n["params"]["structuredContent"] for n in results if "structuredContent" in n["params"]
    ]
    assert structured == [keys.output_json]

    for format in DICT_FORMATS:
        through_json_dumps(tool_messages(result.results, format))  # type: ignore[arg-type]


# --- item 9: deep arguments, deep caller stacks --------------------------------------------


def _deep_args(depth: int) -> str:
    """An arguments object ``depth`` levels deep (the object itself is level 1)."""
    return '{"a": ' + "[" * (depth - 1) + '"\udc80"' + "]" * (depth - 1) + "}"


@pytest.mark.parametrize("depth", [999, 1000])
@pytest.mark.parametrize("split", [False, True])
def test_deep_arguments_reach_every_ui_from_a_deep_caller_stack(depth: int, split: bool) -> None:
    payloads = chat_stream(call_id="c1", name="f", args=_deep_args(depth), split=split)
    result = callstream.collect(payloads)
    assert [c["name"] for c in result.tool_calls] == ["f"], "collect() accepts it"
    updates = list(callstream.stream(payloads))

    def write_all() -> tuple[str, str, list[Any], list[str]]:
        agui = "".join(agui_stream(updates))
        vercel = "".join(vercel_stream(updates))
        notes = [n.message for n in mcp_apps_notifications(updates)]
        feed = [dumps_feed(e) for u in updates for e in u.events]
        return agui, vercel, notes, feed

    agui, vercel, notes, feed = _with_stack(300, write_all)
    assert "RUN_FINISHED" in agui
    frames_of(agui)
    chunks = frames_of(vercel)
    done = next(c for c in chunks if c["type"] == "tool-input-available")
    inner = done["input"]["a"]
    for _ in range(depth - 2):
        inner = inner[0]
    assert inner == [FFFD]
    assert notes[-1]["method"] == "ui/notifications/tool-input"
    for line in feed:
        strict_loads(line)


@pytest.mark.parametrize("depth", [999, 1000])
def test_deep_arguments_of_a_failed_source_end_as_collect_ends_them(depth: int) -> None:
    """The source fails after the whole argument text: the encoders read the text back
    (iteratively past json.loads's depth) and end the call as valid."""
    payloads = chat_stream(call_id="c1", name="f", args=_deep_args(depth))[:-1]

    def failing() -> Iterator[Any]:
        yield from callstream.stream(payloads)
        raise ConnectionError("peer went away")

    def write_all() -> tuple[list[Any], list[Any]]:
        agui = frames_of("".join(agui_stream(failing())))
        vercel = frames_of("".join(vercel_stream(failing())))
        return agui, vercel

    agui, vercel = _with_stack(300, write_all)
    assert agui[-1]["type"] == "RUN_ERROR"
    assert not [e for e in agui if e["type"] == "CUSTOM"], "valid: no invalid-call event"
    assert [c["type"] for c in vercel if c["type"].startswith("tool-input-a")] == [
        "tool-input-available"
    ]


@pytest.mark.parametrize("command", ["inspect", "jsonl", "agui", "vercel"])
def test_deep_arguments_in_the_command_from_a_deep_caller_stack(
    tmp_path: Path, command: str
) -> None:
    file = write_jsonl(tmp_path, chat_stream(call_id="c1", name="f", args=_deep_args(999)))
    argv = ["inspect", file] if command == "inspect" else ["replay", file, "--output", command]
    printed = _with_stack(300, lambda: run_cli(argv))
    if command == "inspect":
        assert strict_loads(printed)["tool_calls"][0]["name"] == "f"
    elif command == "jsonl":
        assert [strict_loads(line)["type"] for line in printed.splitlines()][-1] == (
            "stream_finished"
        )
    else:
        frames_of(printed)


def test_the_agui_replacement_event_writes_deep_arguments() -> None:
    """A provider that replaced a call's arguments at its end gets the
    ``callstream.tool_call_arguments`` event, whatever the depth."""
    deep = json.loads(_deep_args(900).replace("\udc80", "x"))
    encoder = AGUIEncoder()
    encoder.start()
    updates = list(callstream.stream(chat_stream(call_id="c1", name="f", args='{"a": 1}')))
    events = []
    for update in updates:
        for event in update.events:
            if type(event).__name__ == "CallDone":
                event.tool_call["args"] = deep  # the final arguments differ from the text
        events += encoder.feed(update)
    replaced = [e for e in events if e["type"] == "CUSTOM"]
    assert len(replaced) == 1
    frame = callstream.ui.sse_frame(replaced[0])
    assert frames_of(frame)[0]["value"]["arguments"]["a"][0][0] == deep["a"][0][0]


# --- item 10: tool outputs that cannot be written ---------------------------------------------


class BadStr:
    def __str__(self) -> str:
        raise RuntimeError("no text for you")

    __repr__ = __str__


def _cycle() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def _nested(depth: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth - 1):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


UNWRITABLE = {  # output -> what the reason says
    "bytes": (lambda: b"\xff\xfe", "bytes that are not UTF-8 text"),
    "bytes in a dict": (lambda: {"blob": bytearray(b"\xff")}, "bytearray that are not UTF-8"),
    "cycle": (_cycle, "a container holds itself"),
    "deep": (lambda: _nested(5_000), "nesting deeper than max_depth=1000"),
    "bad str": (BadStr, "reading a value raised RuntimeError"),
    "bad str inside": (lambda: {"x": [BadStr()]}, "reading a value raised RuntimeError"),
    "tuple key": (lambda: {(1, 2): 3}, "a mapping key of type tuple is not JSON"),
}


@pytest.mark.parametrize("case", list(UNWRITABLE))
def test_an_unwritable_output_is_one_error_result_everywhere(case: str) -> None:
    make, reason = UNWRITABLE[case]

    def tool(a: int = 0) -> Any:
        return make()

    payloads = chat_stream(call_id="c1", name="tool", args='{"a": 1}')
    runner = callstream.ToolRunner([tool])
    result = runner.run(payloads).results[0]
    assert (result.status, result.output) == ("error", None)
    assert result.error is not None
    assert result.error.startswith(
        "Error: tool returned an output that cannot be sent to the model"
    )
    assert reason in result.error
    assert result.content == result.error

    with runner.stream(payloads) as items:
        agui = frames_of("".join(agui_stream(items)))
    assert [e["content"] for e in agui if e["type"] == "TOOL_CALL_RESULT"] == [result.error]
    with runner.stream(payloads) as items:
        vercel = frames_of("".join(vercel_stream(items)))
    assert [(c["type"], c.get("errorText")) for c in vercel if "output" in c["type"]] == [
        ("tool-output-error", result.error)
    ]
    with runner.stream(payloads) as items:
        notes = [n.message for n in mcp_apps_notifications(items)]
    final = through_json_dumps(notes[-1])
    assert final["params"]["isError"] is True
    assert final["params"]["content"] == [{"type": "text", "text": result.error}]
    assert "structuredContent" not in final["params"]
    for format in DICT_FORMATS:
        through_json_dumps(tool_messages([result], format))  # type: ignore[arg-type]

    built = ToolResult(index=0, id="c1", name="tool", args={}, status="done", output=make())
    assert (built.status, built.error) == ("error", result.error), "the same, built by hand"
    with pytest.raises(DataError):
        render_output(make())
    with pytest.raises(DataError):
        output_data(make())


def test_writable_outputs_are_strict_json_in_every_consumer() -> None:
    """NaN and bytes never reach MCP ``structuredContent`` (nor any other JSON) as
    themselves; a deep output within the limit is written at any caller depth."""
    outputs = {
        "nan": {"x": math.nan, "y": [math.inf], "b": b"ab", "t": (1, 2)},
        "deep": {"d": _nested(999)},
    }

    def nan(a: int = 0) -> Any:
        return outputs["nan"]

    def deep(a: int = 0) -> Any:
        return outputs["deep"]

    payloads = _three_calls(False)[:1] + [
        chunk({"tool_calls": [{"index": i, "id": f"c{i}", "type": "function",
                               "function": {"name": n, "arguments": "{}"}}]})
        for i, n in enumerate(["nan", "deep"])
    ] + [chunk({}, "tool_calls")]  # fmt: skip
    runner = callstream.ToolRunner([nan, deep])
    run_result = runner.run(payloads)
    first, second = run_result.results
    assert first.status == second.status == "done"
    assert first.output is outputs["nan"], "the tool's own output is kept"
    assert first.output_json == {"x": None, "y": [None], "b": "ab", "t": [1, 2]}
    assert first.content == '{"x":null,"y":[null],"b":"ab","t":[1,2]}'

    def consume() -> tuple[list[Any], list[Any], list[Any]]:
        with runner.stream(payloads) as items:
            agui = frames_of("".join(agui_stream(items)))
        with runner.stream(payloads) as items:
            vercel = frames_of("".join(vercel_stream(items)))
        with runner.stream(payloads) as items:
            notes = [through_json_dumps(n.message) for n in mcp_apps_notifications(items)]
        return agui, vercel, notes

    agui, vercel, notes = _with_stack(300, consume)
    assert {e["toolCallId"]: e["content"] for e in agui if e["type"] == "TOOL_CALL_RESULT"} == {
        "c0": first.content,
        "c1": second.content,
    }
    sent = {c["toolCallId"]: c["output"] for c in vercel if c["type"] == "tool-output-available"}
    assert sent["c0"] == first.output_json
    assert same_json(sent["c1"], second.output_json)
    results = {
        n["params"]["content"][0]["text"]: n["params"]
        for n in notes
        if n["method"] == "ui/notifications/tool-result"
    }
    assert results[first.content]["structuredContent"] == first.output_json
    for format in DICT_FORMATS:
        through_json_dumps(tool_messages(run_result.results, format))  # type: ignore[arg-type]


# --- item 13a: a provider-run call that is invalid -----------------------------------------


def _anthropic_server_call(block: dict[str, Any], deltas: list[str]) -> list[Any]:
    return [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        },
        {"type": "content_block_start", "index": 0, "content_block": block},
        *[
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in deltas
        ],
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]


SERVER_INVALID = {
    "cut arguments": _anthropic_server_call(
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        ['{"query": ', '"unfinished'],
    ),
    "no name (invalid before it starts)": _anthropic_server_call(
        {"type": "server_tool_use", "id": "srvtoolu_1", "input": {}}, []
    ),
}


@pytest.mark.parametrize("case", list(SERVER_INVALID))
def test_vercel_input_error_of_a_provider_run_call_is_provider_executed(case: str) -> None:
    payloads = SERVER_INVALID[case]
    chunks = frames_of("".join(vercel_stream(callstream.stream(payloads))))
    parts = [c for c in chunks if c.get("toolCallId") == "srvtoolu_1"]
    assert parts[-1]["type"] == "tool-input-error"
    marked = [c for c in parts if c["type"] != "tool-input-delta"]  # deltas have no such field
    assert all(c.get("providerExecuted") is True for c in marked), marked
    encoder = VercelEncoder()
    encoder.start()
    fed = [c for u in callstream.stream(payloads) for c in encoder.feed(u)]
    assert [c.get("providerExecuted") for c in fed if c["type"] == "tool-input-error"] == [True]
