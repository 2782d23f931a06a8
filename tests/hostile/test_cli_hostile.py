"""The ``callstream`` command on hostile input: odd characters, huge numbers, cut files,
big streams, bad command lines. Only our one-line errors, never a traceback; output that
cannot corrupt a terminal; a live window whose redraw cost does not grow with the view."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from rich.console import Console

import callstream
import callstream.cli
import callstream.cli._render
from callstream.cli import main, run
from callstream.cli._replay import BASE_INTERVAL, MIN_SPEED
from callstream.cli._stream_file import load_path
from callstream.cli._view import StreamView
from callstream.examples import example_path, read_example
from tests.support.example_events import events_of
from tests.support.strategies import json_objects
from tests.support.strict_json import strict_loads

UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def chunk(
    name: str, args: str, *, finish: str | None = "tool_calls", index: int = 0
) -> dict[str, Any]:
    """One OpenAI Chat chunk carrying a whole call (or a fragment, with ``finish=None``)."""
    return {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": f"call_{index}",
                            "function": {"name": name, "arguments": args},
                        }
                    ]
                },
                "finish_reason": finish,
            }
        ]
    }


def write_jsonl(tmp_path: Path, payloads: list[Any], name: str = "s.jsonl") -> str:
    file = tmp_path / name
    file.write_text("".join(json.dumps(p) + "\n" for p in payloads), encoding="utf-8")
    return str(file)


def strict_utf8() -> io.TextIOWrapper:
    """A text stream that refuses what UTF-8 cannot encode (as with PYTHONIOENCODING=utf-8)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")


def output_of(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


def run_strict(argv: list[str], *, terminal: bool = False) -> tuple[int, str, str]:
    out = strict_utf8()
    err = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=120, color_system=None)
    status = run(argv, stdout=out, stderr=err, console=console)
    return status, output_of(out), err.getvalue()


# --- lone surrogates: shown as escapes, U+FFFD in JSON output, never UnicodeEncodeError -----

SURROGATE_CASES = {  # payload, then the name and arguments JSON output gives (U+FFFD)
    "name": (chunk("get\udc80name", '{"a": 1}'), "get\ufffdname", {"a": 1}),
    "argument": (chunk("f", '{"a": "x\\udc80y"}'), "f", {"a": "x\ufffdy"}),
    "key": (chunk("f", '{"k\\ud800": 1}'), "f", {"k\ufffd": 1}),
}


@pytest.mark.parametrize("case", list(SURROGATE_CASES))
@pytest.mark.parametrize("terminal", [False, True])
def test_lone_surrogate_rich(tmp_path: Path, case: str, terminal: bool) -> None:
    payload, _, _ = SURROGATE_CASES[case]
    file = write_jsonl(tmp_path, [payload])
    status, out, err = run_strict(["replay", file, "--speed", "0"], terminal=terminal)
    assert (status, err) == (0, "")
    assert not UNSAFE.search(out)
    assert re.search(r"\\ud[89a-f][0-9a-f]{2}", out), "shown as a visible escape"


@pytest.mark.parametrize("case", list(SURROGATE_CASES))
def test_lone_surrogate_jsonl(tmp_path: Path, case: str) -> None:
    payload, name, args = SURROGATE_CASES[case]
    file = write_jsonl(tmp_path, [payload])
    status, out, err = run_strict(["replay", file, "--output", "jsonl"])
    assert (status, err) == (0, "")
    assert not UNSAFE.search(out)
    done = [strict_loads(line) for line in out.splitlines()][-2]
    assert done["type"] == "call_done"
    assert done["tool_call"]["name"] == name
    assert done["tool_call"]["args"] == args, "lone surrogates written as U+FFFD"


@pytest.mark.parametrize("case", list(SURROGATE_CASES))
def test_lone_surrogate_inspect(tmp_path: Path, case: str) -> None:
    payload, name, args = SURROGATE_CASES[case]
    file = write_jsonl(tmp_path, [payload])
    status, out, err = run_strict(["inspect", file])
    assert (status, err) == (0, "")
    assert not UNSAFE.search(out)
    assert "\\ud" not in out, "a lone surrogate is U+FFFD, not an escape strict readers refuse"
    call = strict_loads(out)["tool_calls"][0]
    assert (call["name"], call["args"]) == (name, args)


@pytest.mark.parametrize("case", list(SURROGATE_CASES))
@pytest.mark.parametrize("protocol", ["agui", "vercel"])
def test_lone_surrogate_protocol_output(tmp_path: Path, case: str, protocol: str) -> None:
    payload, name, args = SURROGATE_CASES[case]
    file = write_jsonl(tmp_path, [payload])
    status, out, err = run_strict(["replay", file, "--output", protocol])
    assert (status, err) == (0, "")
    assert not UNSAFE.search(out)
    frames = [f[len("data: ") :] for f in out.split("\n\n") if f and f != "data: [DONE]"]
    events = [strict_loads(frame) for frame in frames]
    named = [e.get("toolCallName") or e.get("toolName") for e in events]
    assert name in named


def test_lone_surrogate_in_a_subprocess_with_strict_utf8(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path, [SURROGATE_CASES["key"][0]])
    completed = subprocess.run(
        [sys.executable, "-m", "callstream.cli", "replay", file],
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert completed.returncode == 0, completed.stderr
    assert b"Traceback" not in completed.stderr
    assert b"k\\ud800" in completed.stdout


# --- C1 controls and bidi overrides: escaped in JSON output too -----------------------------

EVIL = "a\x9b2J\u202eb\u2066c\x85d\x1be"


@pytest.mark.parametrize("mode", ["inspect", "jsonl"])
def test_c1_and_bidi_are_escaped_in_json_output(tmp_path: Path, mode: str) -> None:
    payload = chunk("f\x9b31m\u202e", json.dumps({"s\u2067": EVIL}))
    file = write_jsonl(tmp_path, [payload])
    argv = ["inspect", file] if mode == "inspect" else ["replay", file, "--output", "jsonl"]
    status, out, _ = run_strict(argv)
    assert status == 0
    assert not UNSAFE.search(out), "no raw C1 / bidi character reaches the terminal"
    assert "\x1b" not in out
    assert "\\u009b" in out and "\\u202e" in out
    if mode == "inspect":
        call = json.loads(out)["tool_calls"][0]
    else:
        call = json.loads(out.splitlines()[-2])["tool_call"]
    assert call["name"] == "f\x9b31m\u202e"
    assert call["args"] == {"s\u2067": EVIL}, "still valid JSON with the same value"


def test_c1_and_bidi_are_escaped_in_the_rich_display(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path, [chunk("f\u202e", json.dumps({"s": EVIL}))])
    for terminal in (False, True):
        status, out, _ = run_strict(["replay", file, "--speed", "0"], terminal=terminal)
        assert status == 0
        assert not UNSAFE.search(out)
        assert "f\\u202e" in out and "a\\x9b2J\\u202eb\\u2066c\\x85d\\x1be" in out


def test_keys_and_names_stay_on_their_line_in_the_rich_display(tmp_path: Path) -> None:
    # A newline or tab inside a key or a tool name is escaped (a value's string
    # may hold lines; a label may not: it would break the tree it stands in).
    payload = chunk("f\nx", json.dumps({"a\nb": 1, "c\td": "x\ny"}))
    file = write_jsonl(tmp_path, [payload])
    status, out, _ = run_strict(["replay", file, "--speed", "0"])
    assert status == 0
    assert "f\\x0ax  call_0" in out
    assert "a\\x0ab: 1" in out and "c\\x09d: " in out


# --- integers over Python's conversion limit ------------------------------------------------


@pytest.mark.parametrize(
    "argv", [["inspect"], ["replay", "--speed", "0"], ["replay", "--output", "jsonl"]]
)
def test_huge_integer_in_a_payload_field_is_a_one_line_error(
    tmp_path: Path, argv: list[str]
) -> None:
    payload = chunk("f", '{"a": 1}')
    text = json.dumps(payload).replace(
        '"index": 0, "id"', '"index": 0, "x": ' + "7" * 5000 + ', "id"'
    )
    assert "7" * 5000 in text
    file = tmp_path / "big.jsonl"
    file.write_text(text + "\n", encoding="utf-8")
    status, out, err = run_strict([argv[0], str(file), *argv[1:]])
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert ":1: an integer of 5,000 digits" in err


def test_huge_integer_in_sse_data_and_in_arguments(tmp_path: Path) -> None:
    sse = tmp_path / "big.sse"
    sse.write_text('event: message_start\ndata: {"n": ' + "1" * 4400 + "}\n\n", encoding="utf-8")
    status, _, err = run_strict(["inspect", str(sse)])
    assert status == 2 and ":2: an integer of 4,400 digits" in err
    # In the argument text, the library's own limit makes it an invalid call.
    file = write_jsonl(tmp_path, [chunk("f", '{"a": ' + "9" * 5000 + "}")])
    status, out, err = run_strict(["inspect", file])
    assert (status, err) == (1, "")
    assert "digits" in json.loads(out)["invalid_tool_calls"][0]["error"]


# --- one-line usage errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["replay"],
        ["replay", "x.jsonl", "--speed", "-1"],
        ["replay", "x.jsonl", "--speed", "1e-300"],  # a pause of years: time.sleep overflows
        ["replay", "x.jsonl", "--speed", "0.0009"],
        ["replay", "x.jsonl", "--speed", "inf"],
        ["replay", "x.jsonl", "--speed", "nan"],
        ["replay", "x.jsonl", "--speed"],
        ["replay", "x.jsonl", "--split", "0"],
        ["replay", "x.jsonl", "--provider", "nope"],
        ["replay", "x.jsonl", "--output", "html"],
        ["inspect", "x", "--bogus"],
        ["frobnicate"],
        ["--nope"],
    ],
)
def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("callstream")
    assert ": error: " in captured.err and "--help" in captured.err


class _Replayed(Exception):
    """Raised by the spy in place of a replay."""


@pytest.mark.parametrize("speed", ["1e-300", "1e-9", "0.0009", "5e-324"])
def test_a_speed_too_slow_to_wait_for_is_refused_before_replaying(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], speed: str
) -> None:
    # 1e-300 made time.sleep overflow (a traceback); 1e-9 slept 2e7 s per payload
    seen: list[float] = []

    def spy(prepared: Any, **options: Any) -> Any:
        seen.append(options["interval"])
        raise _Replayed

    monkeypatch.setattr(callstream.cli, "replay", spy)
    argv = ["replay", str(example_path("gemini")), "--output", "jsonl", "--speed"]
    status = main([*argv, speed])
    err = capsys.readouterr().err
    assert (status, seen) == (2, [])
    assert err.count("\n") == 1 and "--speed" in err and f">= {MIN_SPEED:g}" in err
    with pytest.raises(_Replayed):  # the slowest speed taken: a pause of 20 s
        main([*argv, str(MIN_SPEED)])
    assert seen == [BASE_INTERVAL / MIN_SPEED] == [20.0]


def test_help_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--help"]) == 0
    assert "--speed" in capsys.readouterr().out


# --- pacing: only for a person watching ----------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "extra", "interval"),
    [
        (io.StringIO, [], 0.0),
        (_Terminal, [], BASE_INTERVAL),
        (io.StringIO, ["--speed", "2"], BASE_INTERVAL / 2),
        (_Terminal, ["--speed", "0"], 0.0),
    ],
)
def test_jsonl_is_not_paced_into_a_pipe(
    monkeypatch: pytest.MonkeyPatch, stream: type[io.StringIO], extra: list[str], interval: float
) -> None:
    seen: list[float] = []
    real = callstream.cli.replay

    def spy(prepared: Any, **options: Any) -> Any:
        seen.append(options["interval"])
        options["sleep"] = lambda seconds: None
        return real(prepared, **options)

    monkeypatch.setattr(callstream.cli, "replay", spy)
    out = stream()
    status = run(["replay", str(example_path("gemini")), "--output", "jsonl", *extra], stdout=out)
    assert status == 0
    assert seen == [interval]
    assert out.getvalue().count("\n") == 7


# --- streaming the input --------------------------------------------------------------------


class _CountingLines:
    """A binary stream handing out lines, counting how many were read."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self.read = 0

    def __iter__(self) -> Iterator[bytes]:
        for line in self.lines:
            self.read += 1
            yield line

    def close(self) -> None:
        pass


def test_the_file_is_read_while_it_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [json.dumps(p).encode() + b"\n" for p in _many_calls(100)]
    source = _CountingLines(lines)
    stdin = io.TextIOWrapper(io.BytesIO(b""))
    monkeypatch.setattr(sys, "stdin", type("In", (), {"buffer": source})())
    first_write: list[int] = []

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            if not first_write:
                first_write.append(source.read)
            return super().write(text)

    out = Out()
    assert run(["replay", "-", "--output", "jsonl"], stdout=out) == 0
    assert first_write and first_write[0] < 10, "output began before the file was read"
    assert source.read == len(lines)
    assert out.getvalue().count('"call_done"') == 100
    stdin.close()


def test_load_path_reads_only_the_head(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path, [chunk("f", '{"a": 1}', index=i) for i in range(3)])
    source = load_path(file)
    assert source.layout == "jsonl"
    assert len(list(source.stream())) == 3


_PEAK = """
import io, sys
from callstream.cli import run
status = run(["inspect", sys.argv[1]], stdout=io.StringIO())
with open("/proc/self/status", encoding="ascii") as f:  # VmHWM: the peak since exec
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print(status, peak * 1024)
"""


def _inspect_peak(file: Path) -> int:
    """The peak resident memory (bytes) of ``callstream inspect FILE`` in a fresh process.

    Read from the process's own ``VmHWM`` (Linux), which starts afresh at exec; the
    ``ru_maxrss`` of ``getrusage`` does not (it keeps the forking parent's, here the
    whole test session's, resident size).
    """
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(file)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    status, peak = done.stdout.split()
    assert status in ("0", "1"), done.stdout
    return int(peak)


@pytest.mark.parametrize("what", ["text", "arguments"])
def test_one_long_line_costs_about_twice_its_size(tmp_path: Path, what: str) -> None:
    """One 20 MB line: the line's text and the payload decoded from it, little else (the
    line was held three times over and the payload re-serialized to count its bytes:
    six times the line)."""
    if not Path("/proc/self/status").is_file():
        pytest.skip("the peak resident memory is read from /proc (Linux)")
    size = 20 << 20
    if what == "text":
        delta: dict[str, Any] = {"content": "y" * size}
        payload = {"choices": [{"index": 0, "delta": delta, "finish_reason": "stop"}]}
    else:  # over max_argument_chars: an invalid call keeping its first 8 MB of raw text
        payload = chunk("write_file", json.dumps({"content": "x" * size}))
    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps(chunk("f", "{}")) + "\n", encoding="utf-8")
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps(payload) + "\n", encoding="utf-8")
    del payload
    growth = _inspect_peak(big) - _inspect_peak(small)
    kept = 8 << 20 if what == "arguments" else 0  # the raw text the invalid call keeps
    assert growth < 2.2 * big.stat().st_size + kept, (growth, big.stat().st_size)


# --- files cut mid-line: the cut call is invalid, as in the library -------------------------


def test_jsonl_cut_mid_line_ends_the_call_invalid(tmp_path: Path) -> None:
    first = json.dumps(chunk("f", '{"a": 1, ', finish=None))
    second = json.dumps(chunk("f", '"b": 2}'))
    file = tmp_path / "cut.jsonl"
    file.write_text(first + "\n" + second[:40], encoding="utf-8")
    status, out, err = run_strict(["inspect", str(file)])
    assert (status, err) == (1, "")
    document = json.loads(out)
    assert document["tool_calls"] == []
    assert "cut off" in document["invalid_tool_calls"][0]["error"]
    library = callstream.collect(file.read_text(encoding="utf-8"))
    assert document["invalid_tool_calls"] == library.invalid_tool_calls
    status, out, err = run_strict(["replay", str(file), "--speed", "0"])
    assert (status, err) == (0, "")
    assert "✗ invalid" in out and "cut off" in out


def test_sse_cut_mid_line_ends_the_call_invalid(tmp_path: Path) -> None:
    text = read_example("anthropic_max_tokens")
    cut = text[: text.index("input_json_delta", len(text) // 2) + 40]
    file = tmp_path / "cut.sse"
    file.write_text(cut, encoding="utf-8")
    status, out, err = run_strict(["inspect", str(file)])
    assert (status, err) == (1, "")
    document = json.loads(out)
    assert "cut off" in document["invalid_tool_calls"][0]["error"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
@pytest.mark.parametrize("name", ["openai_chat_parallel", "anthropic_max_tokens", "gemini"])
def test_any_cut_gives_the_library_result(tmp_path: Path, name: str, data: st.DataObject) -> None:
    text = read_example(name)
    start = text.index("\n", text.index("tool") if "tool" in text else 0) + 1
    position = data.draw(st.integers(start, len(text)))
    cut = text[:position]
    file = tmp_path / "cut.txt"
    file.write_text(cut, encoding="utf-8")
    status, out, err = run_strict(["inspect", str(file)])
    assert err == "" and status in (0, 1)
    library = callstream.collect(cut)
    document = json.loads(out)
    assert document["tool_calls"] == library.tool_calls
    assert [c["name"] for c in document["invalid_tool_calls"]] == [
        c["name"] for c in library.invalid_tool_calls
    ]
    assert status == (1 if library.invalid_tool_calls else 0)


def test_pretty_printed_array_cut_in_its_last_object(tmp_path: Path) -> None:
    payloads = [json.loads(line) for line in read_example("openai_chat_parallel").splitlines()]
    text = json.dumps(payloads, indent=2)
    file = tmp_path / "cut.json"
    file.write_text(text[: len(text) - 60], encoding="utf-8")
    status, out, err = run_strict(["inspect", str(file)])
    assert err == "" and status in (0, 1)
    assert json.loads(out)["tool_calls"] == callstream.collect(text[: len(text) - 60]).tool_calls


# --- the raw line of an invalid call --------------------------------------------------------


def test_raw_line_shows_the_whole_raw_text(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["replay", str(example_path("openai_chat_invalid")), "--speed", "0"])
    out = capsys.readouterr().out
    assert status == 0
    assert 'raw: {"order_id": "A-1042", "amount": 19.99 "reason": "arrived damaged"}' in out


def test_raw_line_of_a_huge_invalid_call_is_bounded(tmp_path: Path) -> None:
    args = '{"a": "' + "x" * 50_000 + '" oops ' + "y" * 50_000 + "}"
    file = write_jsonl(tmp_path, [chunk("f", args)])
    status, out, _ = run_strict(["replay", file, "--speed", "0"])
    assert status == 0
    assert "raw: " in out
    hidden = len(args) - 10_000
    assert f"[{hidden:,}charactersnotshown]" in re.sub(r"\s+", "", out)
    assert len(out) < 14_000


# --- the live window: bounded redraws, complete final output --------------------------------


def _one_big_object(keys: int) -> list[dict[str, Any]]:
    payloads = [chunk("big", "{", finish=None)]
    for k in range(keys):
        sep = ", " if k else ""
        payloads.append(chunk("big", f'{sep}"k{k}": "v{k}"', finish=None))
    payloads.append(chunk("big", "}"))
    return payloads


def _many_calls(calls: int) -> list[dict[str, Any]]:
    payloads = []
    for i in range(calls):
        payloads.append(chunk(f"f{i}", '{"a": ', finish=None, index=i))
        payloads.append(chunk(f"f{i}", f"{i}}}", finish=None, index=i))
    payloads.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return payloads


@pytest.mark.parametrize(("build", "size"), [(_one_big_object, 600), (_many_calls, 300)])
def test_live_redraw_renders_a_bounded_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: Any, size: int
) -> None:
    labels = 0
    real_label = callstream.cli._render._value_label

    def counting(*args: Any) -> Any:
        nonlocal labels
        labels += 1
        return real_label(*args)

    redraws = 0
    real_live = callstream.cli._render.render_live

    def counting_live(*args: Any, **kwargs: Any) -> Any:
        nonlocal redraws
        redraws += 1
        return real_live(*args, **kwargs)

    monkeypatch.setattr(callstream.cli._render, "_value_label", counting)
    monkeypatch.setattr(callstream.cli._render, "render_live", counting_live)
    monkeypatch.setattr(callstream.cli, "FRAME", 0.0)  # redraw on every update
    file = write_jsonl(tmp_path, build(size))
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100, height=30)
    assert run(["replay", file, "--speed", "0"], stdout=buffer, console=console) == 0
    assert redraws >= size
    final = size + 10  # the full print of each call once it ended
    assert labels <= redraws * 40 + final * 2, "each redraw renders at most a window"
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue())
    if build is _one_big_object:
        assert "earlier values" in out
        for k in range(size):
            assert f'k{k}: "v{k}" ✓' in out, "the final output is complete"
    else:
        assert "more calls streaming" in out
        assert out.count("✓ valid") == size


def test_non_terminal_output_is_complete(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path, _one_big_object(300))
    status, out, _ = run_strict(["replay", file])
    assert status == 0
    for k in range(300):
        assert f'k{k}: "v{k}" ✓' in out
    assert "1 call · 1 valid · 0 invalid" in out


def _has_line_break(value: Any) -> bool:
    """Whether a string value inside ``value`` holds a line break (keys are not looked at)."""
    if isinstance(value, str):
        return "\n" in value or "\r" in value
    if isinstance(value, dict):
        return any(_has_line_break(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_line_break(item) for item in value)
    return False


def test_live_window_cuts_a_long_multiline_string() -> None:
    view = StreamView()
    from callstream import ToolCallAssembler

    text = json.dumps({"a": 1, "s": "\n".join(f"line {k}" for k in range(40))})
    for event in ToolCallAssembler().feed({"index": 0, "id": "c", "name": "f", "args": text[:-2]}):
        view.apply(event)
    symbols = callstream.cli._render.symbols_for("utf-8")
    buffer = io.StringIO()
    live = callstream.cli._render.render_live(view, symbols, max_lines=1)
    Console(file=buffer, width=400, color_system=None).print(live)
    out = buffer.getvalue()
    shown = [k for k in range(40) if re.search(rf"line {k}\b", out)]
    assert shown == list(range(32, 40))  # the string's last 8 lines, as it streams
    assert len(out.splitlines()) <= 1 + 1 + 8  # header, one earlier value, the 8 lines


@settings(max_examples=60, deadline=None)
@given(value=json_objects(max_leaves=30), lines=st.integers(1, 12))
@example(value={"": [[[[None]]], None], "0\n": None}, lines=1)  # a key holding a newline
@example(value={"": [[[[[None]]]], None, None]}, lines=1)  # 3 values shown, 5 enclosing
def test_live_window_is_the_tail_of_the_full_tree(value: dict[str, Any], lines: int) -> None:
    # The window counts values, and here one value is one line: a string value holding a
    # line break renders over several lines (test_live_window_cuts_a_long_multiline_string).
    assume(not _has_line_break(value))
    view = StreamView()
    from callstream import ToolCallAssembler

    assembler = ToolCallAssembler()
    text = json.dumps(value)
    events = list(assembler.feed({"index": 0, "id": "c", "name": "f", "args": text[:-1]}))
    for event in events:
        view.apply(event)
    call = view.calls[0]
    symbols = callstream.cli._render.symbols_for("utf-8")

    def labels(renderable: Any) -> list[str]:
        buffer = io.StringIO()
        Console(file=buffer, width=400, color_system=None).print(renderable)
        return [line.lstrip("│├└─ ") for line in buffer.getvalue().splitlines()[1:]]

    full = [line for line in labels(callstream.cli._render.render_call(call, symbols)) if line]
    window = labels(
        callstream.cli._render.render_live(view, symbols, string_limit=1000, max_lines=lines)
    )
    window = [line for line in window if line and "earlier values" not in line]
    tail = full[-lines:] if lines <= len(full) else full
    assert window[-len(tail) :] == tail if tail else True
    # a window shows at least 3 values (render_live), and at most _MAX_CONTEXT enclosing ones
    assert len(window) <= max(3, lines) + callstream.cli._render._MAX_CONTEXT


def test_render_live_on_many_calls_and_events() -> None:
    view = StreamView()
    for event in events_of("openai_chat_parallel"):
        view.apply(event)
        callstream.cli._render.render_live(view, callstream.cli._render.symbols_for("utf-8"))
    assert view.valid == 2 and view.total == 2
