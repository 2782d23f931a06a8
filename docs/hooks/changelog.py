"""mkdocs hook: the changelog page is ``CHANGELOG.md``, its links turned to the site's.

``docs/changelog.md`` holds one marker, ``<!-- include: CHANGELOG.md -->``, which becomes
the repository's ``CHANGELOG.md`` (read at build time: one source, nothing fetched). Its
links are written from the repository's root (``docs/guides/x.md``, so they work where the
file is read on its own); on the site they point at the pages, relative to the site. Any
other relative link is left as written, so the strict build names it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- include: CHANGELOG.md -->"

LINK = re.compile(r"\]\((?P<target>(?:\./)?docs/[^)\s]*)\)")


def _site_target(target: str) -> str:
    return target.removeprefix("./").removeprefix("docs/")


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    changelog = LINK.sub(lambda m: f"]({_site_target(m.group('target'))})", changelog)
    return markdown.replace(MARKER, changelog)
