"""What keeps the source compilable with mypyc, checked in whichever build runs.

The compiled build (``hatch_build.py``; CI runs the whole suite against it and against
pure Python) is tested with the whole suite; these tests pin the source-side choices that
make that work and hold in the pure build too.
"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from callstream import (
    ChunkValidationError,
    OptionTypeError,
    OptionValueError,
    ParserStateError,
    PartialJSONParser,
    ToolCallAssembler,
    parse_partial_json,
)
from callstream._assembly.types import CallEnd
from callstream._pipeline import _ASSEMBLER_OPTIONS, Pipeline
from tests.support.compiled_build import COMPILED
from tests.support.paths import SRC


@pytest.mark.skipif(COMPILED, reason="a compiled method has no signature to read")
def test_the_listed_assembler_options_are_its_signature() -> None:
    params = inspect.signature(ToolCallAssembler.__init__).parameters
    assert _ASSEMBLER_OPTIONS == tuple(name for name in params if name != "self")


def test_every_assembler_option_passes_through_the_pipeline() -> None:
    for name in _ASSEMBLER_OPTIONS:
        value = {"allow": 13, "strict": True, "allow_nan": False, "empty_args": "object"}.get(
            name, 5
        )
        Pipeline("openai-chat", **{name: value})
    with pytest.raises(OptionTypeError, match="unknown option 'max_text'"):
        Pipeline("openai-chat", max_text=1)


@pytest.mark.parametrize("text", [b"{}", None, 1, ["{"]])
def test_feed_names_a_wrong_type_before_any_state_error(text: object) -> None:
    parser = PartialJSONParser()
    with pytest.raises(OptionTypeError, match=r"feed\(\) takes str, got "):
        parser.feed(text)
    parser.feed("[")
    assert parser.feed("") == []
    with pytest.raises(OptionTypeError):
        parse_partial_json(b"[1]")


def test_state_errors_come_before_the_type_check() -> None:
    parser = PartialJSONParser()
    parser.feed("[1]")
    parser.close()
    with pytest.raises(ParserStateError, match="closed"):
        parser.feed(b"x")


def test_signals_with_foreign_field_types_are_checked_by_the_assembler() -> None:
    assembler = ToolCallAssembler()
    assembler.feed({"index": 0, "id": "a", "name": "f", "args": "{"})
    with pytest.raises(ChunkValidationError):
        assembler.apply(CallEnd(index=0, id=None, args=12))  # type: ignore[arg-type]
    with pytest.raises(OptionValueError, match="max_depth"):
        ToolCallAssembler(max_depth=0)
    with pytest.raises((OptionTypeError, OptionValueError), match="empty_args"):
        ToolCallAssembler(empty_args=None)


USER_CODE = textwrap.dedent(
    """
    from callstream import PartialJSONParser, ToolCallAssembler, parse_partial_json
    from callstream._pipeline import Pipeline

    ToolCallAssembler(max_depth="3")  # wrong
    ToolCallAssembler(empty_args="nope")  # wrong
    ToolCallAssembler().end_call(index=1.5)  # wrong
    ToolCallAssembler().mark_server(id=3)  # wrong
    PartialJSONParser().feed(b"x")  # wrong
    parse_partial_json(None)  # wrong
    Pipeline("openai-chat", reasoning="yes")  # wrong
    ToolCallAssembler(max_depth=3, max_calls=None, empty_args="invalid").finish("stop")
    PartialJSONParser(strict=False, max_chars=None).feed("[1")
    """
)


def test_type_checkers_see_the_precise_parameter_types(tmp_path: Path) -> None:
    """The checked options read as ``object`` only in the mypyc build (see
    ``callstream._argtypes``): a user's type checker still flags each wrong type."""
    api = pytest.importorskip("mypy.api")
    source = SRC
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nstrict = True\nmypy_path = {source}\n")
    user = tmp_path / "user.py"
    user.write_text(USER_CODE)
    out, _, _ = api.run(
        ["--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), str(user)]
    )
    flagged = {int(line.split(":")[1]) for line in out.splitlines() if line.startswith(str(user))}
    wrong = {n for n, line in enumerate(USER_CODE.splitlines(), 1) if line.endswith("# wrong")}
    assert flagged == wrong, out
