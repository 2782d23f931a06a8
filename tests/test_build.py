"""Which build runs (compiled or pure), and the guard against stale compiled files."""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import callstream
from callstream import _build

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
