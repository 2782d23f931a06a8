"""The ``callstream`` command: every bundled example, broken inputs, outputs, the renderer."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from rich.console import Console

from callstream.cli import main, run
from callstream.cli._render import render_stream, symbols_for
from callstream.cli._replay import BASE_INTERVAL, prepare, replay
from callstream.cli._split import resplit
from callstream.cli._stream_file import InputError, load_text
from callstream.cli._view import ArrayNode, Node, ObjectNode, ScalarNode, StreamView, StringNode
from callstream.examples import DEMO, EXAMPLES, example_path, read_example
from callstream.feed import feed_schema
from tests.support.example_events import events_of

ANSI = re.compile(r"\x1b\[")
COLOR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])(?:;[0-9;]*)?m")


def path_of(name: str) -> str:
    return str(example_path(name))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# What each bundled example assembles to: valid calls (name -> args), invalid call names,
# the finish reason, and the exit status of `inspect`.
EXPECTED: dict[str, dict[str, Any]] = {
    "openai_chat_parallel": {
        "valid": {
            "get_weather": {"city": "Paris", "days": 3, "units": "metric"},
            "search_restaurants": {
                "near": "Le Marais, Paris",
                "cuisine": ["bistro", "vegetarian"],
                "max_price_eur": 40,
                "open_now": True,
                "party": {"adults": 2, "children": 1},
            },
        },
        "invalid": [],
        "finish_reason": "tool_calls",
    },
    "anthropic_long_string": {
        "valid": {"write_file": None},  # checked separately (long text)
        "invalid": [],
        "finish_reason": "tool_use",
    },
    "openai_chat_invalid": {
        "valid": {"lookup_order": {"order_id": "A-1042"}},
        "invalid": ["issue_refund"],
        "finish_reason": "tool_calls",
    },
    "openai_responses": {
        "valid": {
            "search_flights": {
                "origin": "CDG",
                "destination": "HND",
                "depart": "2025-04-03",
                "passengers": {"adults": 2, "children": 1},
                "cabin": "economy",
                "flexible_dates": True,
            }
        },
        "invalid": [],
        "finish_reason": None,  # read from the inspect output, see below
    },
    "gemini": {
        "valid": {
            "get_weather": {"location": "Lisboa, Portugal", "days": 2},
            "convert_currency": {"amount": 120.5, "from": "EUR", "to": "JPY"},
        },
        "invalid": [],
        "finish_reason": "STOP",
    },
    "anthropic_max_tokens": {
        "valid": {},
        "invalid": ["create_todo_list"],
        "finish_reason": "length",
    },
}


def test_every_bundled_example_is_described() -> None:
    assert set(EXPECTED) == set(EXAMPLES)
    assert set(DEMO) <= set(EXAMPLES)
    for name in EXAMPLES:
        assert Path(path_of(name)).is_file()


# --- inspect --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_inspect_every_example(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, out, err = cli(capsys, "inspect", path_of(name))
    expected = EXPECTED[name]
    document = json.loads(out)
    assert set(document) == {"tool_calls", "invalid_tool_calls", "finish_reason"}
    assert [c["name"] for c in document["tool_calls"]] == list(expected["valid"])
    for call in document["tool_calls"]:
        if expected["valid"][call["name"]] is not None:
            assert call["args"] == expected["valid"][call["name"]]
    assert [c["name"] for c in document["invalid_tool_calls"]] == expected["invalid"]
    for call in document["invalid_tool_calls"]:
        assert call["error"]
    if expected["finish_reason"] is not None:
        assert document["finish_reason"] == expected["finish_reason"]
    assert status == (1 if expected["invalid"] else 0)
    assert err == ""


def test_inspect_long_string_keeps_escapes_and_non_ascii(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = cli(capsys, "inspect", path_of("anthropic_long_string"))
    assert status == 0
    args = json.loads(out)["tool_calls"][0]["args"]
    assert args["path"] == "notes/kyoto.md"
    assert args["overwrite"] is False
    content = args["content"]
    for piece in ("京都駅", "Zoë", '"best tsukemono', "D:\\Photos\\2025", "\tTip", "\U0001f680"):
        assert piece in content
    assert "\\u" not in out.split('"content"')[1].split("\n")[0]  # written as UTF-8 text


def test_inspect_reasons_for_invalid_calls(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, "inspect", path_of("openai_chat_invalid"))
    invalid = json.loads(out)["invalid_tool_calls"][0]
    assert "malformed" in invalid["error"]
    assert invalid["id"] == "call_Gh8jK4lZxC6vB2nM0qW5eR1t"
    _, out, _ = cli(capsys, "inspect", path_of("anthropic_max_tokens"))
    assert "cut off" in json.loads(out)["invalid_tool_calls"][0]["error"]


@pytest.mark.parametrize("split", [1, 2, 7])
@pytest.mark.parametrize("name", list(EXAMPLES))
def test_split_does_not_change_the_result(
    capsys: pytest.CaptureFixture[str], name: str, split: int
) -> None:
    whole = cli(capsys, "inspect", path_of(name))
    cut = cli(capsys, "inspect", path_of(name), "--split", str(split))
    assert cut == whole


# --- replay and demo, rendered without a terminal -------------------------------------------


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_replay_every_example_prints_final_state_and_summary(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    status, out, err = cli(capsys, "replay", path_of(name), "--speed", "0")
    assert (status, err) == (0, "")
    assert not ANSI.search(out), "no escape codes when not writing to a terminal"
    expected = EXPECTED[name]
    for call_name in expected["valid"]:
        assert call_name in out
    for call_name in expected["invalid"]:
        assert call_name in out
    calls = len(expected["valid"]) + len(expected["invalid"])
    assert f"{calls} call{'s' if calls != 1 else ''}" in out
    assert f"{len(expected['valid'])} valid" in out
    assert f"{len(expected['invalid'])} invalid" in out
    assert out.count("✓ valid") == len(expected["valid"])
    assert out.count("✗ invalid") == len(expected["invalid"])
    assert re.search(r"[\d,]+ chunks · [\d,]+ bytes · [\d.]+ ms in callstream", out)
    assert f" · {Path(path_of(name)).stat().st_size:,} bytes · " in out, "the file's size"
    assert "streaming…" not in out, "the final state has no call still streaming"


@pytest.mark.parametrize("split", [None, 3])
@pytest.mark.parametrize("name", ["openai_chat_parallel", "anthropic_max_tokens"])
def test_summary_bytes_are_the_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, split: int | None
) -> None:
    """The summary counts the file's bytes as read, however the payloads were written
    (spaces, blank lines, CRLF) and whatever ``--split`` makes of them."""
    text = read_example(name)
    if text.startswith("{"):
        loose = "\r\n\r\n".join(
            json.dumps(json.loads(line), indent=None) for line in text.splitlines()
        )
    else:
        loose = text.replace("\n", "\r\n").replace('":', '": ')
    file = tmp_path / "loose.txt"
    file.write_bytes(loose.encode("utf-8"))
    argv = ["replay", str(file), "--speed", "0", *(["--split", str(split)] if split else [])]
    status, out, _ = cli(capsys, *argv)
    assert status == 0
    assert f" · {file.stat().st_size:,} bytes · " in re.sub(r"\s+", " ", out)


def test_replay_shows_values_errors_and_marks(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, "replay", path_of("openai_chat_invalid"), "--speed", "0")
    assert 'order_id: "A-1042" ✓' in out
    assert "amount: 19.99 ✓" in out
    assert "error: malformed" in out
    assert "raw: " in out
    _, out, _ = cli(capsys, "replay", path_of("openai_chat_parallel"), "--speed", "0")
    assert "open_now: true ✓" in out
    assert '0: "bistro" ✓' in out
    assert "call_Wd3kP9sLmQ2xT7vB4nR8cJ1e" in out


def test_split_increases_the_chunk_count(capsys: pytest.CaptureFixture[str]) -> None:
    def chunks(*extra: str) -> int:
        _, out, _ = cli(capsys, "replay", path_of("anthropic_long_string"), "--speed", "0", *extra)
        match = re.search(r"([\d,]+) chunks", out)
        assert match
        return int(match.group(1).replace(",", ""))

    assert chunks("--split", "3") > chunks("--split", "10") > chunks()


def test_demo_replays_the_demo_examples(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = cli(capsys, "demo", "--speed", "0")
    assert (status, err) == (0, "")
    positions = [out.index(f"{name} (") for name in DEMO]
    assert positions == sorted(positions)
    assert "✗ invalid" in out and "✓ valid" in out
    assert "callstream replay FILE" in out


def test_demo_list(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "demo", "--list")
    assert status == 0
    for name, example in EXAMPLES.items():
        assert name in out and example.format in out


def test_schema_command_prints_the_feed_schema(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "schema")
    assert status == 0
    assert json.loads(out) == feed_schema()


# --- the jsonl feed -------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_jsonl_output_is_the_schema_valid_feed(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    status, out, err = cli(capsys, "replay", path_of(name), "--output", "jsonl", "--speed", "0")
    assert (status, err) == (0, "")
    validator = jsonschema.Draft202012Validator(feed_schema())
    items = [json.loads(line) for line in out.splitlines()]
    for item in items:
        validator.validate(item)
    assert items[-1]["type"] == "stream_finished"
    started = [i["index"] for i in items if i["type"] == "call_started"]
    verdicts = [i["index"] for i in items if i["type"] in ("call_done", "call_invalid")]
    assert started == list(range(len(started)))
    assert sorted(verdicts) == started
    expected = EXPECTED[name]
    done = {i["tool_call"]["name"] for i in items if i["type"] == "call_done"}
    assert done == set(expected["valid"])


def test_demo_jsonl_is_one_feed_per_example(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "demo", "--output", "jsonl", "--speed", "0")
    assert status == 0
    types = [json.loads(line)["type"] for line in out.splitlines()]
    assert types.count("stream_finished") == len(DEMO)
    assert "✓" not in out  # nothing but JSON lines


# --- live rendering -------------------------------------------------------------------------


def test_live_display_on_a_terminal() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100, color_system="standard")
    status = run(["demo", "openai_chat_invalid", "--speed", "0"], stdout=buffer, console=console)
    out = buffer.getvalue()
    assert status == 0
    assert COLOR.search(out), "colors on a terminal"
    assert "issue_refund" in out and "lookup_order" in out
    assert "streaming" in out, "the live view showed calls while they streamed"


def test_no_color_is_respected(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal as far as rich is concerned
    monkeypatch.setenv("NO_COLOR", "1")
    status, out, _ = cli(capsys, "demo", "gemini", "--speed", "0")
    assert status == 0
    assert ANSI.search(out), "still a terminal (live display, bold)"
    assert not COLOR.search(out), "but no colors"
    assert "convert_currency" in out


def test_paced_replay_sleeps_after_each_visible_change() -> None:
    prepared = prepare(load_text(read_example("openai_chat_parallel"), "x"))
    pauses: list[float] = []
    updates: list[Any] = []
    stats = replay(
        prepared,
        provider="auto",
        on_update=updates.append,
        interval=BASE_INTERVAL / 2,
        sleep=pauses.append,
    )
    with_events = [u for u in updates if u.events]
    # every update with events pauses, except those produced when the source is closed
    assert len(pauses) >= len(with_events) - 1
    assert set(pauses) == {BASE_INTERVAL / 2}
    assert stats.chunks == len(prepared.items)
    assert stats.result is not None and len(stats.result.tool_calls) == 2


# --- the renderer, without a terminal -------------------------------------------------------


def render_text(view: StreamView, *, limit: int | None = None, encoding: str = "utf-8") -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=100)
    console.print(render_stream(view, symbols_for(encoding), string_limit=limit))
    return buffer.getvalue()


def test_renderer_mid_stream_shows_growing_strings_and_open_calls() -> None:
    events = events_of("anthropic_long_string")
    view = StreamView()
    assert "waiting for a tool call" in render_text(view)
    cut = next(
        i
        for i, e in enumerate(events)
        if type(e).__name__ == "ArgumentsDelta" and "Karasuma" in e.text
    )
    for event in events[: cut + 1]:
        view.apply(event)
    out = render_text(view, limit=40)
    assert not ANSI.search(out)
    assert "write_file" in out and "streaming…" in out
    assert 'path: "notes/kyoto.md" ✓' in out
    assert 'content: "…' in out and "▌" in out, "tail of the growing string, with a cursor"
    assert "Karasuma" in out
    for event in events[cut + 1 :]:
        view.apply(event)
    out = render_text(view)
    assert "✓ valid" in out and "▌" not in out
    assert "# Carnet de voyage — Kyōto" in out and "🚀" in out


def test_renderer_ascii_marks_for_non_utf_output() -> None:
    view = StreamView()
    for event in events_of("openai_chat_invalid"):
        view.apply(event)
    out = render_text(view, encoding="ascii")
    assert "ok valid" in out and "X invalid" in out
    assert "✓" not in out and "✗" not in out


def value_of(node: Node | None) -> Any:
    if isinstance(node, ObjectNode):
        return {k: value_of(v) for k, v in node.members.items()}
    if isinstance(node, ArrayNode):
        return [value_of(v) for v in node.items]
    if isinstance(node, StringNode):
        return node.text
    if isinstance(node, ScalarNode):
        return node.value
    return None


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_view_tree_built_from_changes_equals_the_final_arguments(name: str) -> None:
    view = StreamView()
    checked = 0
    for event in events_of(name):
        if type(event).__name__ == "CallDone":
            assert value_of(view.calls[event.index].tree) == event.tool_call["args"]
            checked += 1
        view.apply(event)
    assert checked == len(EXPECTED[name]["valid"])
    assert view.finished


def test_model_text_cannot_inject_terminal_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payloads = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_\x1b[2J",
                                "function": {
                                    "name": "evil\x1b[31m[bold]x[/bold]",
                                    "arguments": '{"s": "a\\u001b]0;title\\u0007b"}',
                                },
                            }
                        ]
                    },
                    "finish_reason": "tool_calls",
                }
            ]
        }
    ]
    file = tmp_path / "evil.jsonl"
    file.write_text("".join(json.dumps(p) + "\n" for p in payloads), encoding="utf-8")
    status, out, _ = cli(capsys, "replay", str(file), "--speed", "0")
    assert status == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b[31m[bold]x[/bold]" in out, "shown literally, not as markup"
    assert "a\\x1b]0;title\\x07b" in out


# --- broken inputs --------------------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> str:
    file = tmp_path / name
    file.write_text(text, encoding="utf-8")
    return str(file)


@pytest.mark.parametrize("command", ["replay", "inspect"])
def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    missing = str(tmp_path / "nope.jsonl")
    status, out, err = cli(capsys, command, missing)
    assert status == 2
    assert out == ""
    assert err == f"callstream: error: {missing}: no such file\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "ping"}\n\n{"type": oops}\n', ":3: not JSON ("),
        ('{"type": "ping"}\n{"a": 1\n', ":2: not JSON ("),
        ('{"a": 1', ":1: not JSON ("),
        # the first line is not JSON, and no payload comes out of the lines as a document
        ('{"choices": [\nnot json\n', ":1: not JSON (Expecting value at column 14): '{\"ch"),
        # a document whose values are not JSON: the error names the first one's line
        ("[\nnot json\n", ":2: not JSON (Expecting value at column 1): 'not'"),
        ('{"choices": [\n', ":1: not JSON (Expecting value at column 14)"),
        # a document over several lines: the error names its own line, not the last one
        ('{"choices": [\nnot json\n]}\n', ":2: not JSON (Expecting value at column 1): 'not"),
        ('{"choices": [\r\nnot json\r\n]}\r\n', ":2: not JSON (Expecting value at column 1)"),
        ('[\n{"a": 1,\n "b": oops,\n "c": 2}\n]\n', ":3: not JSON (Expecting value at column 7)"),
        ("event: ping\ndata: {}\n\nevent: x\ndata: {not json\n\n", ":5: SSE data is not JSON"),
        ("hello\n", ":1: not a recorded stream"),
        ("", ": the file is empty"),
        ("\n  \n", ": the file is empty"),
        ("data: [DONE]\n\n", ": no payloads in this stream"),
        ('{"a": 1}\n{"b": 2}\n', ":1: unrecognized stream format; pass --provider"),
    ],
)
@pytest.mark.parametrize("command", ["replay", "inspect"])
def test_bad_input_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, text: str, message: str
) -> None:
    file = write(tmp_path, "bad.jsonl", text)
    status, out, err = cli(
        capsys, command, file, *(["--speed", "0"] if command == "replay" else [])
    )
    assert status == 2
    assert out == ""
    assert err.startswith(f"callstream: error: {file}")
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_not_utf8_and_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    file = tmp_path / "latin1.jsonl"
    file.write_bytes(b'{"a": 1}\n{"b": "\xe9"}\n')
    status, _, err = cli(capsys, "inspect", str(file))
    assert status == 2 and ":2: not UTF-8 text" in err
    status, _, err = cli(capsys, "replay", str(tmp_path))
    assert status == 2 and "is a directory" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["replay"],
        ["replay", "x.jsonl", "--speed", "-1"],
        ["replay", "x.jsonl", "--speed", "fast"],
        ["replay", "x.jsonl", "--split", "0"],
        ["replay", "x.jsonl", "--provider", "nope"],
        ["replay", "x.jsonl", "--output", "html"],
        ["frobnicate"],
        [],
    ],
)
def test_bad_command_lines_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, _, err = cli(capsys, *argv)
    assert status == 2
    assert "Traceback" not in err


def test_unknown_demo_name(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys, "demo", "nope")
    assert status == 2 and "no bundled example named 'nope'" in err


def test_explicit_provider_and_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = read_example("gemini").encode("utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    status, out, _ = cli(capsys, "inspect", "-", "--provider", "google")
    assert status == 0
    assert [c["name"] for c in json.loads(out)["tool_calls"]] == [
        "get_weather",
        "convert_currency",
    ]


def test_whole_json_array_file_and_unicode_line_separators(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    payloads = [json.loads(line) for line in read_example("openai_chat_parallel").splitlines()]
    file = write(tmp_path, "array.json", json.dumps(payloads, indent=2))
    status, out, _ = cli(capsys, "inspect", file)
    assert status == 0 and len(json.loads(out)["tool_calls"]) == 2
    chunk = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c",
                            "function": {"name": "f", "arguments": '{"s": "a\u2028b\u0085c"}'},
                        }
                    ]
                },
                "finish_reason": "stop",
            }
        ]
    }
    file = write(tmp_path, "sep.jsonl", json.dumps(chunk, ensure_ascii=False) + "\n")
    status, out, _ = cli(capsys, "inspect", file)
    assert status == 0
    assert json.loads(out)["tool_calls"][0]["args"] == {"s": "a\u2028b\u0085c"}


def test_load_text_records_sse_event_names_and_done_marker() -> None:
    recording = load_text(read_example("anthropic_max_tokens"), "x.sse")
    assert recording.layout == "sse"
    assert recording.records[0].event == "message_start"
    assert recording.records[0].line == 2
    with pytest.raises(InputError):
        load_text("retry: 10\n\n", "x")


# --- without rich ---------------------------------------------------------------------------


def test_without_rich_jsonl_and_inspect_work_and_rich_output_says_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in ("rich", "rich.console", "rich.live", "rich.text", "rich.tree"):
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "callstream.cli._render", None)
    status, _, err = cli(capsys, "replay", path_of("gemini"), "--speed", "0")
    assert status == 2
    assert "pip install rich" in err
    status, out, _ = cli(capsys, "replay", path_of("gemini"), "--output", "jsonl", "--speed", "0")
    assert status == 0 and out.count("\n") == 7
    status, out, _ = cli(capsys, "inspect", path_of("gemini"))
    assert status == 0 and json.loads(out)["finish_reason"] == "STOP"


def test_console_script_module_runs_without_importing_rich_for_data_commands() -> None:
    code = (
        "import sys\n"
        "from callstream.cli import main\n"
        f"a = main(['inspect', {path_of('openai_chat_invalid')!r}])\n"
        f"b = main(['replay', {path_of('gemini')!r}, '--output', 'jsonl', '--speed', '0'])\n"
        "assert 'rich' not in sys.modules, 'rich imported'\n"
        "sys.exit(a * 10 + b)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 10, completed.stderr
    assert '"invalid_tool_calls"' in completed.stdout


@pytest.mark.parametrize("module", ["callstream", "callstream.cli"])
def test_python_dash_m_entry_point(module: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", module, "inspect", path_of("anthropic_max_tokens")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 1
    assert json.loads(completed.stdout)["finish_reason"] == "length"


# --- --split at the payload level -----------------------------------------------------------


def _argument_text(payloads: list[Any], fmt: str) -> str:
    parts: list[str] = []
    for p in payloads:
        if fmt == "openai-chat":
            for choice in p.get("choices") or []:
                for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                    parts.append(entry["function"].get("arguments") or "")
        elif fmt == "anthropic" and p.get("type") == "content_block_delta":
            parts.append(p["delta"].get("partial_json", ""))
        elif (
            fmt == "openai-responses" and p.get("type") == "response.function_call_arguments.delta"
        ):
            parts.append(p["delta"])
    return "".join(parts)


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("openai_chat_parallel", "openai-chat"),
        ("anthropic_long_string", "anthropic"),
        ("openai_responses", "openai-responses"),
    ],
)
@pytest.mark.parametrize("size", [1, 4])
def test_resplit_keeps_the_text_and_bounds_fragments(name: str, fmt: str, size: int) -> None:
    payloads = [json.loads(line) for line in read_example(name).splitlines()]
    cut = list(resplit(payloads, fmt, size))
    assert len(cut) > len(payloads)
    assert _argument_text(cut, fmt) == _argument_text(payloads, fmt)
    for payload in cut:
        fragment = _argument_text([payload], fmt)
        assert len(fragment) <= size


def test_resplit_openai_chat_moves_finish_reason_after_the_fragments() -> None:
    whole = {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"id": "c", "function": {"name": "weather", "arguments": '{"a": 12}'}}
                    ]
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"total_tokens": 3},
    }
    cut = list(resplit([whole], "openai-chat", 4))
    entries = [p["choices"][0]["delta"].get("tool_calls") if p["choices"] else None for p in cut]
    assert entries[0] == [{"id": "c", "function": {"name": "weather", "arguments": '{"a"'}}]
    assert entries[1] == [{"id": "c", "function": {"arguments": ": 12"}}]
    assert entries[2] == [{"id": "c", "function": {"arguments": "}"}}]
    assert [p["choices"][0]["finish_reason"] for p in cut] == [None, None, None, "tool_calls"]
    assert cut[-1]["usage"] == {"total_tokens": 3} and cut[0]["usage"] is None
    assert whole["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] == '{"a": 12}'
    assert list(resplit([whole], "gemini", 1)) == [whole], "object arguments are left alone"


def test_the_summarys_time_per_chunk_is_measured_warm() -> None:
    """In a fresh interpreter, the pipeline calls that ``callstream demo`` times import no
    module: the first-use imports (which made the first figures 8-20 times the steady
    ones) are paid by the warm-up, untimed. No time is measured here: modules are counted."""
    code = (
        "import io, json, sys\n"
        "from rich.console import Console\n"
        "import callstream.cli as cli\n"
        "from callstream.cli import _replay\n"
        "plain, real, imported = _replay.Pipeline, cli.replay, []\n"
        "class Watched:  # what the timed calls import (a wrapper: Pipeline may be compiled)\n"
        "    def __init__(self, *args):\n"
        "        self.inner = plain(*args)\n"
        "    def watch(self, call, *args):\n"
        "        before = set(sys.modules)\n"
        "        out = call(*args)\n"
        "        imported[-1] += sorted(set(sys.modules) - before)\n"
        "        return out\n"
        "    def feed(self, item):\n"
        "        return self.watch(self.inner.feed, item)\n"
        "    def close(self):\n"
        "        return self.watch(self.inner.close)\n"
        "    def result(self):\n"
        "        return self.inner.result()\n"
        "def timed(prepared, **options):  # the replays whose time the summary shows\n"
        "    imported.append([])\n"
        "    _replay.Pipeline = Watched\n"
        "    try:\n"
        "        return real(prepared, **options)\n"
        "    finally:\n"
        "        _replay.Pipeline = plain\n"
        "cli.replay = timed\n"
        "console = Console(file=io.StringIO(), width=100)\n"
        "assert cli.run(['demo', '--speed', '0'], stdout=io.StringIO(), console=console) == 0\n"
        "print(json.dumps(imported))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == [[]] * len(DEMO)
