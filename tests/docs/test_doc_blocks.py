"""Every Python block of the documentation runs offline, or says why it cannot
(``<!-- docs-test: skip (the reason) -->``), as the README's blocks do
(``tests/docs/markdown_blocks.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.docs.markdown_blocks import ROOT, Block, blocks, run_block

DOCS = ROOT / "docs"
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
def test_doc_block_runs(where: str, block: Block, capsys: Any) -> None:
    if block.skip is not None:
        pytest.skip(f"{where} line {block.line}: {block.skip}")
    run_block(block.code, f"{where}:{block.line}")
    capsys.readouterr()
