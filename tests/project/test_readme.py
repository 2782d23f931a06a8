"""The README's two commands stay true: CI runs the test command the README gives."""

from __future__ import annotations

import re

from tests.support.paths import README, ROOT


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


# --- the Install sections: what works before a release -----------------------------------

INDEX_INSTALL = re.compile(r"pip install '?callstream\b")
"""A command that installs callstream from the package index (no release is there yet)."""


def _install_section(text: str) -> str:
    start = text.index("## Install\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_install_sections_lead_with_an_install_from_a_clone() -> None:
    for path in (README, ROOT / "docs" / "getting-started.md"):
        section = _install_section(path.read_text(encoding="utf-8"))
        first = re.search(r"```bash\n(?P<commands>.*?)```", section, re.DOTALL)
        assert first is not None, f"{path.name}: the Install section shows no command"
        commands = first.group("commands")
        assert "pip install ." in commands and "CALLSTREAM_COMPILE=1 pip install ." in commands
        assert not INDEX_INSTALL.search(commands), f"{path.name} leads with the package index"


def test_the_package_index_is_offered_only_for_after_a_release() -> None:
    """Every paragraph of the README and the docs that names ``pip install callstream``
    says it is for once a release is published; the source (error messages, docstrings)
    names the package to install instead."""
    pages = [README, *(ROOT / "docs").rglob("*.md")]
    found = [
        f"{path.relative_to(ROOT)}: {paragraph[:80]!r}"
        for path in pages
        for paragraph in path.read_text(encoding="utf-8").split("\n\n")
        if INDEX_INSTALL.search(paragraph) and "release" not in paragraph
    ]
    found += [
        f"{path.relative_to(ROOT)}: {line.strip()[:80]!r}"
        for path in sorted((ROOT / "src").rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if INDEX_INSTALL.search(line)
    ]
    assert found == []
