"""mkdocs hook: ``llms.txt`` at the site root, an index of the pages for language models.

The format is llmstxt.org's (as pydantic and pydantic-ai publish it): the project's name,
a one-line summary, then one Markdown link per page, with the page's first sentence as
its description, in the order of the navigation. It is generated from ``mkdocs.yml``'s
``nav`` and the pages' Markdown sources, so it never lists a page the site lacks.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

HEADING = re.compile(r"^#+ ")
FRONT_MATTER = re.compile(r'---\n(?:.*\n)*?description: "?(?P<text>[^"\n]+)"?\n(?:.*\n)*?---\n')


def _first_sentence(markdown: str) -> str:
    """The first sentence of the page's first paragraph (prose, not a heading or code)."""
    paragraph: list[str] = []
    fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fence = not fence
            continue
        if fence or HEADING.match(line) or line.startswith(("<!--", "|", ":::", "!")):
            if paragraph:
                break
            continue
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    text = re.sub(r"\[([^\]]+)\]\[[^\]]*\]|\[([^\]]+)\]\([^)]*\)", r"\1\2", text)
    match = re.match(r"(.+?[.:;])(\s|$)", text)
    return (match.group(1) if match else text).rstrip(":;")


def _description(markdown: str) -> str:
    """The page's ``description`` (its YAML front matter), else its first sentence."""
    match = re.match(
        r'---\n(?:.*\n)*?description: "?(?P<text>[^"\n]+)"?\n(?:.*\n)*?---\n', markdown
    )
    return match.group("text") if match else _first_sentence(markdown)


def _walk(nav: list[Any], section: str = "") -> list[tuple[str, str, str]]:
    """(section, title, path) for every page of the navigation."""
    out = []
    for entry in nav:
        if isinstance(entry, str):
            out.append((section, entry, entry))
            continue
        for title, value in entry.items():
            if isinstance(value, list):
                out.extend(_walk(value, title))
            else:
                out.append((section, title, value))
    return out


def render(config: Any) -> str:
    docs = Path(config["docs_dir"])
    site_url = (config.get("site_url") or "").rstrip("/")
    lines = [f"# {config['site_name']}", "", f"> {config.get('site_description') or ''}", ""]
    current = None
    for section, title, path in _walk(config["nav"] or []):
        if section != current:
            lines += ["", f"## {section or ('Docs' if current is None else 'More')}", ""]
            current = section
        source = docs / path
        text = source.read_text(encoding="utf-8") if source.is_file() else ""
        if config["use_directory_urls"]:  # the offline plugin turns them off
            url = path.removesuffix(".md") + "/"
            url = "" if url == "index/" else url.removesuffix("index/")
        else:
            url = path.removesuffix(".md") + ".html"
        link = f"{site_url}/{url}" if site_url else url or "./"
        description = _description(text)
        lines.append(f"- [{title}]({link})" + (f": {description}" if description else ""))
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    files.append(File.generated(config, "llms.txt", content=render(config)))
    return files
