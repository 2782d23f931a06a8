"""The repository's own paths, computed once here so no test counts ``parents`` from its folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (``README.md``, ``pyproject.toml``, ``src/``, ``tests/``)."""

TESTS = ROOT / "tests"
SRC = ROOT / "src"
PACKAGE = SRC / "callstream"
README = ROOT / "README.md"
