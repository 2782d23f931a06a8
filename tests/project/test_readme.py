"""The README's two commands stay true: CI runs the test command the README gives."""

from __future__ import annotations

import re

from tests.support.paths import ROOT


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    match = re.search(r'^TEST_COMMAND="([^"]+)"', ci, re.MULTILINE)
    assert match, "the CI script names its test command"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = "\n".join(readme.splitlines()[:25])
    assert f"pip install -e '.[test]' && {match.group(1)}" in head
    assert "pip install -e '.[cli]' && callstream demo" in head


def test_ci_runs_the_readme_test_command_on_a_bare_clone() -> None:
    """The last run of .ci/run: the same command in a fresh clone, CI (and the corpus
    locations, tests/support/corpus.py) unset."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    bare = ci[ci.index("git clone --quiet . ") :]
    unset = bare.index("unset CI ")
    assert 0 < unset < bare.index("\n    $TEST_COMMAND\n")
