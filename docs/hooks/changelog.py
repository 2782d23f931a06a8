"""mkdocs hook: the changelog page is ``CHANGELOG.md``, its links turned to the site's.

``docs/changelog.md`` holds one marker, ``<!-- include: CHANGELOG.md -->``, which becomes
the repository's ``CHANGELOG.md`` (read at build time: one source, nothing fetched). Its
links are written from the repository's root: ``README.md#a-section`` (sections that now live in
the guides), ``docs/guides/x.md``. On the site they point at the pages: the README's
old sections by the table below, ``docs/`` paths relative to the site. A README anchor
the table does not know is left as written, so the strict build names it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- include: CHANGELOG.md -->"

README_SECTIONS = {
    "": "index.md",
    "what-it-does": "index.md",
    "quickstart": "getting-started.md#quickstart",
    "supported-formats": "guides/reading-a-stream.md#supported-formats",
    "openai-responses-items-what-becomes-what": (
        "guides/reading-a-stream.md#openai-responses-items-what-becomes-what"
    ),
    "reading-a-stream": "guides/reading-a-stream.md",
    "closing": "guides/closing.md",
    "raw-bytes-and-lines": "guides/raw-bytes.md",
    "interrupted-streams-and-provider-errors": "guides/interrupted-streams.md",
    "finish-reasons": "guides/finish-reasons.md",
    "server-side-tools": "guides/server-side-tools.md",
    "limits": "guides/limits.md",
    "running-tools-as-their-calls-are-sealed": "guides/tool-runner.md",
    "when-a-call-is-sealed": "guides/tool-runner.md#when-a-call-is-sealed",
    "sending-the-results-back": "guides/tool-runner.md#sending-the-results-back",
    "live-previews-in-the-uis-people-already-use": "guides/ui-protocols.md",
    "live-tool-calls-in-a-browser": "guides/ui-protocols.md#live-tool-calls-in-a-browser",
    "watch-it-work-the-callstream-command": "guides/cli.md",
    "output-parsers-and-tool-schemas": "guides/output-parsers.md",
    "the-assembler": "guides/assembler.md",
    "the-incremental-partial-json-parser": "guides/parser.md",
    "performance": "performance.md",
    "compiled-or-pure-python": "guides/builds.md",
    "errors": "guides/errors.md",
    "development": "contributing.md",
}
"""The README's sections before it became a front page (issue 25), and where they are."""

LINK = re.compile(r"\]\((?P<target>(?:\./)?(?:README\.md|docs/)[^)\s]*)\)")


def _site_target(target: str) -> str:
    target = target.removeprefix("./")
    if target.startswith("docs/"):
        return target.removeprefix("docs/")
    anchor = target.partition("#")[2]
    return README_SECTIONS.get(anchor, target)


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    changelog = LINK.sub(lambda m: f"]({_site_target(m.group('target'))})", changelog)
    return markdown.replace(MARKER, changelog)
