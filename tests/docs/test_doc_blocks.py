"""Every Python block of the documentation runs as written, or says why it cannot
(``<!-- docs-test: skip (the reason) -->``), as the README's blocks do; a block that needs
a provider's API key is followed by the same code run offline
(``tests/docs/markdown_blocks.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.docs.markdown_blocks import ROOT, Block, blocks, offline_twin, run_block

DOCS = ROOT / "docs"
FILES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
BLOCKS = [
    (path.relative_to(ROOT).as_posix(), block)
    for path in sorted(DOCS.rglob("*.md"))
    for block in blocks(path)
]


def test_the_docs_have_python_blocks_and_most_run() -> None:
    assert len(BLOCKS) >= 10
    assert sum(block.skip is None for _, block in BLOCKS) >= len(BLOCKS) // 2


@pytest.mark.parametrize(
    ("where", "block"), BLOCKS, ids=[f"{where}:{block.line}" for where, block in BLOCKS]
)
def test_doc_block_runs(
    where: str, block: Block, capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if block.skip is not None:
        pytest.skip(f"{where} line {block.line}: {block.skip}")
    monkeypatch.chdir(tmp_path)  # as a user runs a copied block: nothing of ours beside it
    run_block(block.code, f"{where}:{block.line}")
    capsys.readouterr()


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_a_block_that_needs_an_api_key_is_followed_by_its_offline_twin(path: Path) -> None:
    found = blocks(path)
    broken = [
        f"line {b.line}: {why}" for n, b in enumerate(found) if (why := offline_twin(found, n))
    ]
    assert broken == []
