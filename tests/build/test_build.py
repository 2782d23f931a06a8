"""Which build runs (compiled or pure), and the guard against stale compiled files."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import callstream
from callstream import _build
from tests.support.paths import ROOT

GRAMMAR = Path(_build.__file__).parent / "_json" / "grammar.py"


def _entry(path: Path, **changes: object) -> dict[str, object]:
    stat = path.stat()
    entry: dict[str, object] = {
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    entry.update(changes)
    return entry


def test_compiled_says_which_files_were_imported() -> None:
    from callstream._json import grammar

    compiled_file = grammar.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    assert callstream.COMPILED is _build.COMPILED
    assert callstream.COMPILED == compiled_file
    assert _build.REASON


def test_a_source_as_built_is_not_changed() -> None:
    assert _build._changed({"callstream._json.grammar": _entry(GRAMMAR)}) is None


def test_a_touched_source_with_the_same_content_is_not_changed() -> None:
    entry = _entry(GRAMMAR, mtime_ns=1)
    assert _build._changed({"callstream._json.grammar": entry}) is None


def test_an_edited_missing_or_unreadable_record_counts_as_changed() -> None:
    edited = _entry(GRAMMAR, mtime_ns=1, sha256="0" * 64)
    assert _build._changed({"callstream._json.grammar": edited}) == str(GRAMMAR)
    assert _build._changed({"callstream._json.gone": _entry(GRAMMAR)}) is not None
    assert _build._changed({"callstream._json.grammar": {"size": "x"}}) == str(GRAMMAR)


def test_the_source_first_finder_never_picks_a_compiled_file() -> None:
    spec = _build._SourceFirst.find_spec("callstream._json.grammar", [str(GRAMMAR.parent)])
    assert spec is not None and spec.origin == str(GRAMMAR)
    assert _build._SourceFirst.find_spec("json", None) is None


def test_callstream_pure_runs_pure_python_in_a_fresh_process() -> None:
    code = (
        "import callstream, callstream._json.parser as p; "
        "print(callstream.COMPILED, p.__file__.endswith('.py'))"
    )
    env = dict(os.environ, CALLSTREAM_PURE="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "True"]


def _hook_module() -> Any:
    """hatch_build.py, imported as a module (hatchling is in the test extra)."""
    pytest.importorskip("hatchling")
    path = ROOT / "hatch_build.py"
    spec = importlib.util.spec_from_file_location("callstream_hatch_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_a_c_compiler_the_build_says_so_and_installs_pure_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hook = _hook_module()
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert hook.CompileHook._cannot_compile(None) == "no C compiler found"
    monkeypatch.delenv("CC")
    if shutil.which("cc") or shutil.which("gcc"):
        assert hook.CompileHook._cannot_compile(None) is None


def test_the_compile_list_names_modules_that_exist_and_may_be_compiled() -> None:
    hook = _hook_module()
    root = ROOT
    modules = hook.CompileHook._modules(type("Hook", (), {"root": str(root)})())
    assert "callstream._json.parser" in modules and "callstream._update" in modules
    for module in modules:
        assert (root / "src" / (module.replace(".", "/") + ".py")).is_file(), module
    # pydantic reads these TypedDicts: compiled, they would be typing's, not
    # typing_extensions' (refused by pydantic on Python < 3.12)
    assert "callstream._assembly.call_dicts" not in modules
    assert "callstream._assembly.types" not in modules
    config = hook._mypy_config(modules)
    assert "always_true = COMPILING" in config
    assert "[mypy-callstream._update]\nignore_errors = False" in config


def test_the_parser_and_the_assembler_take_subclasses_in_both_builds() -> None:
    """README: ``PartialJSONParser`` and ``ToolCallAssembler`` allow interpreted subclasses
    (mypyc's allow_interpreted_subclasses); the records are final and, compiled, refuse."""
    from callstream import PartialJSONParser, StreamUpdate, ToolCallAssembler

    class Counting(PartialJSONParser):
        fed = 0

        def feed(self, text: str) -> list[Any]:
            Counting.fed += 1
            return super().feed(text)

    parser = Counting()
    parser.feed('{"a"')
    parser.feed(": 1}")
    assert Counting.fed == 2
    assert parser.close() == {"a": 1}

    class Named(ToolCallAssembler):
        def describe(self) -> str:
            return f"{len(self.tool_calls)} call(s)"

    assembler = Named()
    assembler.feed({"index": 0, "id": "c", "name": "f", "args": "{}"})
    assembler.finish("stop")
    assert assembler.describe() == "1 call(s)"
    if callstream.COMPILED:
        with pytest.raises(TypeError, match="interpreted classes cannot inherit"):
            type("U", (StreamUpdate,), {})(
                events=(), tool_calls=[], invalid_tool_calls=[], finish_reason=None
            )


def test_the_package_builds_one_way_as_a_whole() -> None:
    """Compiled modules call each other directly: either all of them run or none does."""
    from callstream._assembly import records
    from callstream._json import changes, parser

    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    kinds = {str(m.__file__).endswith(suffixes) for m in (records, changes, parser, _build)}
    assert kinds == ({True, False} if callstream.COMPILED else {False})
    assert str(parser.__file__).endswith(suffixes) is callstream.COMPILED
    assert str(_build.__file__).endswith(".py")  # never compiled: it decides the build
