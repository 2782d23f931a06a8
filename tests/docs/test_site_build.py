"""The documentation site builds strictly, documents every public name, and links only to
pages and anchors it has.

The build itself is the ``built_site`` fixture (``conftest.py``): ``mkdocs build
--strict``, so a broken link, a missing anchor, a page outside the navigation or a
docstring mkdocstrings cannot read fails it.
"""

from __future__ import annotations

import importlib
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import callstream
from callstream.tool_parsers import TEXT_FORMATS
from tests.docs.markdown_blocks import ROOT

PUBLIC_MODULES = (
    "callstream",
    "callstream.parsers",
    "callstream.parsers.json_tools",
    "callstream.parsers.pydantic_tools",
    "callstream.parsers.langchain",
    "callstream.parsers.langchain_structured",
    "callstream.partial",
    "callstream.structured_output",
    "callstream.providers",
    "callstream.providers.openai_chat",
    "callstream.providers.openai_responses",
    "callstream.providers.anthropic",
    "callstream.providers.gemini",
    "callstream.providers.bedrock",
    "callstream.providers.cohere",
    "callstream.providers.ollama",
    "callstream.providers.langchain",
    "callstream.providers.openai_completions",
    "callstream.providers.ollama_generate",
    "callstream.providers.llamacpp_completion",
    "callstream.providers.text",
    "callstream.providers.transport",
    "callstream.runner",
    "callstream.ui",
    "callstream.tools",
    "callstream.feed",
    "callstream.cli",
    "callstream.examples",
    "callstream.testing",
    "callstream.testing.langchain",
    "callstream.testing.pytest_plugin",
    "callstream.testing.strategies",
    "callstream.tool_parsers",
    # one module per family, each documented in docs/reference/tool_parsers.md or
    # tool_parsers_json.md (JSON calls), or tool_parsers_raw.md (raw values)
    *(f"callstream.tool_parsers.{module}" for module, _ in TEXT_FORMATS.values()),
)
"""The modules whose ``__all__`` is the public API (no underscore on the way down)."""


class _Page(HTMLParser):
    """The ids and the link targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        if tag == "a" and found.get("href") is not None:
            self.links.append(found["href"] or "")


def _pages(site: Path) -> dict[Path, _Page]:
    pages = {}
    for path in sorted(site.rglob("*.html")):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path] = page
    return pages


def test_the_public_modules_are_every_public_module() -> None:
    """Every module of the package whose dotted path has no underscore is listed above."""
    src = ROOT / "src"
    found = set()
    for path in (src / "callstream").rglob("*.py"):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] in ("__init__", "__main__"):
            parts = parts[:-1] if parts[-1] == "__init__" else ()
        if parts and not any(part.startswith("_") for part in parts):
            found.add(".".join(parts))
    assert found == set(PUBLIC_MODULES)


def test_every_public_name_has_an_api_entry(built_site: Path) -> None:
    ids: set[str] = set()
    for page in _pages(built_site / "reference").values():
        ids |= page.ids
    missing = []
    for module in PUBLIC_MODULES:
        names = getattr(importlib.import_module(module), "__all__", ())
        assert names, f"{module} has no __all__"
        missing += [f"{module}.{name}" for name in names if f"{module}.{name}" not in ids]
    assert missing == [], f"public names without an API entry: {missing}"


def test_every_internal_link_has_its_target(built_site: Path) -> None:
    pages = _pages(built_site)
    broken = []
    for path, page in pages.items():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            base = built_site if parts.path.startswith("/") else path.parent  # 404.html
            target = (base / unquote(parts.path).lstrip("/")).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(built_site)}: {href}"
            if not target.is_file():
                broken.append(where)
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in pages[target].ids:
                    broken.append(where)
    assert broken == [], "broken internal links:\n" + "\n".join(broken[:50])


def test_the_site_names_no_local_path(built_site: Path) -> None:
    """No page names the checkout, the build folder or a home folder."""
    local = (str(ROOT), str(built_site), str(Path.home()))
    found = [
        f"{path.relative_to(built_site)}: {needle}"
        for path in built_site.rglob("*")
        if path.suffix in (".html", ".txt", ".json", ".xml", ".js")
        for needle in local
        if needle in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert found == [], found


def test_llms_txt_lists_every_page(built_site: Path) -> None:
    text = (built_site / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith("# callstream\n")
    links = re.findall(r"^- \[[^\]]+\]\(([^)]+)\)", text, re.MULTILINE)
    html = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*.html")}
    assert len(links) >= 20
    assert [link for link in links if link not in html] == []


def test_the_performance_page_is_generated_from_the_results(built_site: Path) -> None:
    page = (built_site / "performance.html").read_text(encoding="utf-8")
    assert "performance:tables" not in page
    for result in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        assert f"benchmarks/results/{result.name}" in page
    assert "commit:" in page and "machine:" in page


@pytest.mark.parametrize("name", ["hooks/performance.py"])
def test_files_kept_out_of_the_site(built_site: Path, name: str) -> None:
    assert (ROOT / "docs" / name).is_file()
    stem = Path(name).with_suffix("")
    assert not (built_site / name).exists() and not (built_site / f"{stem}.html").exists()


FRONT_PAGE = ROOT / "README.md"
"""The README is the front page: what it does, the two commands, links into the docs."""


def test_the_front_page_is_short_and_starts_with_the_two_commands() -> None:
    text = FRONT_PAGE.read_text(encoding="utf-8")
    assert len(text.encode()) <= 8 * 1024
    head = "\n".join(text.splitlines()[:14])
    commands = re.findall(r"^python3 -m venv .*$", head, re.MULTILINE)
    assert len(commands) == 2 and "callstream demo" in commands[0]
    assert commands[1].endswith("python -m pytest")


def test_the_front_page_links_resolve_from_the_repository_root(built_site: Path) -> None:
    """Each relative link names a file of the checkout; one into ``docs/`` with an anchor
    names an anchor of that page in the built site."""
    text = FRONT_PAGE.read_text(encoding="utf-8")
    broken = []
    for href in re.findall(r"\]\(([^)\s]+)\)", text):
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            continue
        if not (ROOT / parts.path).is_file():
            broken.append(href)
        elif parts.fragment:
            page = built_site / Path(parts.path).relative_to("docs").with_suffix(".html")
            ids = _Page()
            ids.feed(page.read_text(encoding="utf-8"))
            if parts.fragment not in ids.ids:
                broken.append(href)
    assert broken == [], broken


# --- the API reference: a map, then one page per area ----------------------------------

REFERENCE = ROOT / "docs" / "reference"
NAV_ORDER = ("index", "drivers", "runner", "structured", "parsers", "tools", "results")
"""The first reference pages in the navigation: the map, the functions that read a
stream, the classes users build, what a stream gives (the errors come last)."""


def _directives(page: str) -> list[str]:
    text = (REFERENCE / f"{page}.md").read_text(encoding="utf-8")
    return re.findall(r"^::: (\S+)", text, re.MULTILINE)


def test_the_reference_reads_functions_first_and_errors_last() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    section = config[config.index("  - API reference:\n") : config.index("  - Design:")]
    pages = re.findall(r"reference/(\w+)\.md", section)
    assert tuple(pages[: len(NAV_ORDER)]) == NAV_ORDER and pages[-1] == "errors"
    assert sorted(pages) == sorted(p.stem for p in REFERENCE.glob("*.md"))
    assert _directives("index") == []  # a map, no entries
    assert _directives("drivers")[:4] == [
        "callstream.stream",
        "callstream.collect",
        "callstream.astream",
        "callstream.acollect",
    ]
    errors = {
        name
        for name in callstream.__all__
        if isinstance(getattr(callstream, name), type)
        and issubclass(getattr(callstream, name), BaseException)
    }
    for page in pages:
        found = {d.removeprefix("callstream.") for d in _directives(page)} & errors
        assert found == (errors if page == "errors" else set()), page


def test_each_public_object_has_one_entry(built_site: Path) -> None:
    """An object that several modules export (``callstream.ToolRunner`` is
    ``callstream.runner.ToolRunner``) is documented once; its other names are anchors
    there, so the reference pages stay small."""
    entries: dict[str, list[str]] = {}
    for md in sorted(REFERENCE.glob("*.md")):
        for target in _directives(md.stem):
            entries.setdefault(target, []).append(md.stem)
    assert {t: p for t, p in entries.items() if len(p) > 1} == {}
    sizes = {p.name: p.stat().st_size for p in (built_site / "reference").glob("*.html")}
    assert sizes["index.html"] < 64 * 1024, sizes  # the map (it was 591 KiB of entries)
    assert max(sizes.values()) < 400 * 1024, sizes
