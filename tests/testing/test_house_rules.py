"""``callstream.testing`` under the house rules: misuse raises callstream's errors (still
``ValueError`` / ``TypeError``, so tests that catch those keep working), every JSON text goes
through the one writer, and no module outgrows the size rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

import callstream
from callstream.testing import MockProvider, ReplayTransport, stream_of, write_calls
from callstream.testing._formats import WRITERS
from tests.support.paths import PACKAGE

TESTING = PACKAGE / "testing"
SOURCES = sorted(TESTING.rglob("*.py"))


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", SOURCES, ids=_relative)
def test_no_bare_value_or_type_error(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    bare = re.findall(r"raise (?:ValueError|TypeError)\b", text)
    assert not bare, f"{_relative(path)} raises a bare ValueError / TypeError"


@pytest.mark.parametrize("path", SOURCES, ids=_relative)
def test_no_json_written_beside_the_one_writer(path: Path) -> None:
    """Every JSON text goes through ``callstream._json.dump`` (docs/design.md)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called = ast.unparse(node.func)
            assert called not in ("json.dumps", "json.dump"), f"{_relative(path)} calls {called}"


@pytest.mark.parametrize("path", SOURCES, ids=_relative)
def test_no_module_over_600_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= 600, f"{_relative(path)} has {lines} lines"


@pytest.mark.parametrize("path", SOURCES, ids=_relative)
def test_a_function_over_80_lines_says_why(path: Path) -> None:
    """A function over 80 lines has a one-line comment giving its reason just above it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None
            if node.end_lineno - node.lineno + 1 > 80:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                above = lines[first - 2].strip()
                assert above.startswith("#"), f"{_relative(path)}: {node.name} is over 80 lines"


def test_one_writer_module_per_format() -> None:
    modules = {p.stem for p in (TESTING / "_formats").glob("*.py") if not p.stem.startswith("_")}
    assert {name.replace("-", "_") for name in WRITERS} == modules
    for name, write in WRITERS.items():
        assert write.__module__ == f"callstream.testing._formats.{name.replace('-', '_')}"


def test_an_unknown_format_is_an_option_value_error() -> None:
    with pytest.raises(callstream.OptionValueError, match="unknown format 'nope'") as info:
        stream_of([{"name": "f", "args": {}}], format="nope")
    assert isinstance(info.value, ValueError)
    with pytest.raises(callstream.OptionValueError, match="unknown format"):
        write_calls([], format="nope")


def test_quirks_as_one_string_is_an_option_type_error() -> None:
    with pytest.raises(callstream.OptionTypeError) as info:
        quirks: Any = "interleaved"  # one string, not a collection of names
        stream_of([{"name": "f", "args": {}}], format="openai-chat", quirks=quirks)
    assert isinstance(info.value, TypeError)


def test_a_call_that_cannot_be_written_is_an_unwritable_call_error() -> None:
    with pytest.raises(callstream.UnwritableCallError, match=r"calls\[0\]\['name'\] is empty"):
        stream_of([{"name": "", "args": {}}], format="anthropic")
    with pytest.raises(callstream.UnwritableCallError, match="empty array") as info:
        stream_of([{"name": "f", "args": {"a": []}}], format="vertex")
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, callstream.OptionValueError)


def test_a_mock_without_turns_is_an_option_value_error() -> None:
    with pytest.raises(callstream.OptionValueError, match="at least one turn"):
        MockProvider(format="openai-chat")


def test_a_broken_recording_file_is_a_recording_file_error(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text('{"format": "callstream-recording", "version": 1}\nnot json\n')
    with pytest.raises(callstream.RecordingFileError, match=r"rec\.jsonl:2:") as info:
        ReplayTransport(path)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, callstream.DataError)
