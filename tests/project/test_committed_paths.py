"""Committed results and docs name no local path of the machine they were made on.

A benchmark result names the commit and the machine kind (``benchmarks/_report.py``:
``stamp``; paths relative to the checkout: ``shown_path``); the docs and examples speak
of the project's own files. A folder of one machine (``/home/me/...``, a worktree under
``/work``, ``/tmp/...``, ``C:\\Users\\...``) means nothing to a reader, and says more
about the machine than a result should.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

SCANNED = ("benchmarks/results/*", "docs/*", "README.md", "examples/**/*.md")
"""The committed files that must not name a local path (globs from the checkout)."""

LOCAL_PATH = re.compile(
    r"(?<![\w.~/-])/(?:work|tmp|home|root|Users|private|var|mnt|opt|srv|media|scratch)/"
    r"|(?<![\w])[A-Za-z]:(?:\\\\?|/)(?:Users|Documents|Windows|work|src|projects)?\w"
)
"""An absolute path in one machine's folders: POSIX homes, temporary and work folders,
mounts; a Windows drive (``C:\\``, ``C:\\\\`` as JSON writes it, ``C:/``)."""


def _scanned() -> list[Path]:
    files = {p for pattern in SCANNED for p in ROOT.glob(pattern) if p.is_file()}
    return sorted(files)


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary one (a PNG)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_the_scan_covers_results_and_docs() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _scanned()}
    assert {"README.md", "benchmarks/results/builds.md", "docs/event-feed.md"} <= names
    assert "examples/web/README.md" in names


@pytest.mark.parametrize(
    "text",
    [
        "callstream `/work/wt-i13/src/callstream/__init__.py`",
        '"callstream_source": "/home/me/callstream/src/callstream"',
        "--baseline /tmp/before/src",
        "(/Users/me/x)",
        '"file": "C:\\\\Users\\\\me\\\\callstream"',
        "C:\\work\\callstream",
        "D:/projects/callstream",
    ],
)
def test_local_paths_are_found(text: str) -> None:
    assert LOCAL_PATH.search(text), text


@pytest.mark.parametrize(
    "text",
    [
        "callstream `src/callstream/__init__.py`",
        "--baseline …/before/src",
        "https://example.com/tmp/x and https://github.com/home/x",
        "a JSON Pointer: /tmp_dir/0 and /args/home",
        "ratio: 2.3; 10:30 UTC",
        "`/usr/bin/chromium` (Debian's)",
    ],
)
def test_other_text_is_not_a_local_path(text: str) -> None:
    assert not LOCAL_PATH.search(text), text


def test_committed_results_and_docs_name_no_local_path() -> None:
    found = []
    for path in _scanned():
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            match = LOCAL_PATH.search(line)
            if match:
                where = path.relative_to(ROOT).as_posix()
                found.append(f"{where}:{number}: {line[max(0, match.start() - 40) :][:120]}")
    assert found == [], "local paths in committed files:\n" + "\n".join(found)
