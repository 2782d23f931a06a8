"""``--provider text``: the command reads a file of the model's raw text in blocks (one
piece each, line-agnostic, UTF-8 decoded across block ends, bad bytes as U+FFFD), and a
plain text file without it is refused with that hint."""

from __future__ import annotations

import io
import json
from pathlib import Path

from callstream.cli import run
from callstream.cli._replay import prepare, replay
from callstream.cli._stream_file import RAW_BLOCK, load_path

TEXT = 'Let me check.\n<tool_call>\n{"name": "f", "arguments": {"a": "é ✓"}}\n</tool_call>\n'


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return run(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_inspect_reads_a_raw_text_file(tmp_path: Path) -> None:
    file = tmp_path / "out.txt"
    file.write_text(TEXT, encoding="utf-8")
    code, out, err = run_cli("inspect", "--provider", "text", str(file))
    assert (code, err) == (0, "")
    assert json.loads(out) == {"tool_calls": [], "invalid_tool_calls": [], "finish_reason": None}


def test_the_text_is_read_whole_in_blocks_across_character_cuts(tmp_path: Path) -> None:
    # a multi-byte character across the block end, a bad byte, lines of any length
    data = b"x" * (RAW_BLOCK - 1) + "é\n".encode() + b"\xff" + TEXT.encode() * 3
    file = tmp_path / "long.txt"
    file.write_bytes(data)
    source = load_path(str(file), raw_text=True)
    stats = replay(prepare(source, provider="text"), provider="text", on_update=lambda u: None)
    assert stats.result is not None and stats.result.text == data.decode("utf-8", "replace")
    assert stats.bytes == len(data) and stats.result.provider == "text"


def test_a_plain_text_file_without_the_option_is_refused_with_the_hint(tmp_path: Path) -> None:
    file = tmp_path / "out.txt"
    file.write_text(TEXT, encoding="utf-8")
    code, _, err = run_cli("inspect", str(file))
    assert code == 2 and "pass --provider text" in err
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    code, _, err = run_cli("inspect", "--provider", "text", str(empty))
    assert code == 2 and "the file is empty (no text)" in err
