"""Every Python block of the README runs as written, or says why it cannot.

How a block runs (as a script: nothing injected, no top-level ``await``, from an empty
folder) and how it says it cannot (``<!-- readme-test: skip (the reason) -->``):
``tests/docs/markdown_blocks.py``, shared with the docs' blocks (``tests/docs``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.docs.markdown_blocks import ROOT, blocks, run_block

README = ROOT / "README.md"
BLOCKS = blocks(README)


def test_the_readme_has_python_blocks_and_most_run() -> None:
    assert len(BLOCKS) >= 1
    assert sum(block.skip is None for block in BLOCKS) >= len(BLOCKS) // 2


@pytest.mark.parametrize(("line", "code", "skip"), BLOCKS, ids=[f"line{b[0]}" for b in BLOCKS])
def test_readme_block_runs(
    line: int, code: str, skip: str | None, capsys: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    if skip is not None:
        pytest.skip(f"README line {line}: {skip}")
    monkeypatch.chdir(tmp_path)
    run_block(code, f"README.md:{line}")
    capsys.readouterr()
