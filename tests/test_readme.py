"""The README's two commands stay true: CI runs the test command the README gives."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    match = re.search(r'^TEST_COMMAND="([^"]+)"', ci, re.MULTILINE)
    assert match, "the CI script names its test command"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = "\n".join(readme.splitlines()[:25])
    assert f"pip install -e '.[test]' && {match.group(1)}" in head
    assert "pip install -e '.[cli]' && callstream demo" in head
