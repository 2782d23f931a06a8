"""Google-style docstrings read for tools: the description and one text per argument.

:func:`parse_google_docstring` is what :func:`callstream.tools.describe_tool` reads a
function's docstring with (it is importable from :mod:`callstream.tools`). Standard
library only. Cost: O(length of the docstring).
"""

from __future__ import annotations

import inspect
import re

__all__ = ("parse_google_docstring",)

# Google-style section headers; the text before the first one is the description.
_SECTION_RE = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Exceptions?|Examples?|Notes?|Attributes|Warnings?|Warns|"
    r"See Also|Todo|References|Methods)\s*:\s*$"
)
_ARGS_SECTIONS = frozenset(
    {
        "Args",
        "Arguments",
        "Parameters",
        "Params",
        "Keyword Args",
        "Keyword Arguments",
        "Other Parameters",
    }
)
# "name (type): text", "name: text", "*name: text"
_ARG_LINE_RE = re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(.*)$")


def parse_google_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts.

    The description is the text before the first section header (``Args:``,
    ``Returns:``, ...): lines of a paragraph are joined with spaces, paragraphs with a
    blank line. Argument texts come from ``Args:`` / ``Arguments:`` / ``Parameters:``
    sections, continuation lines joined with spaces; ``name (type): text`` and
    ``name: text`` are both understood.

    Cost: O(length of the docstring).
    """
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    description, line_number = _description(lines)
    args: dict[str, str] = {}
    while line_number < len(lines):
        header = _SECTION_RE.match(lines[line_number])
        if header is None:
            line_number += 1
            continue
        line_number = _read_section(lines, line_number, header.group(1), args)
    return description, {name: text for name, text in args.items() if text}


def _description(lines: list[str]) -> tuple[str | None, int]:
    """The text before the first section header, and the number of that header's line."""
    paragraphs: list[list[str]] = [[]]
    line_number = 0
    while line_number < len(lines) and not _SECTION_RE.match(lines[line_number]):
        text = lines[line_number].strip()
        if text:
            paragraphs[-1].append(text)
        elif paragraphs[-1]:
            paragraphs.append([])
        line_number += 1
    description = "\n\n".join(" ".join(paragraph) for paragraph in paragraphs if paragraph)
    return description or None, line_number


def _read_section(lines: list[str], header_line: int, section: str, args: dict[str, str]) -> int:
    """Read the entries of the section headed at ``header_line``; the line after it.

    Entries of an arguments section go into ``args`` (name -> text); other sections are
    skipped. An entry sits at the first entry's indentation; deeper lines continue it.
    """
    # cleandoc() dedents the lines after the first one on their own, so entries under a
    # header on the very first line may sit at its indentation.
    header_indent = _indent(lines[header_line]) if header_line > 0 else -1
    keep = section in _ARGS_SECTIONS
    current: str | None = None
    entry_indent: int | None = None
    line_number = header_line + 1
    while line_number < len(lines):
        line = lines[line_number]
        line_number += 1
        if not line.strip():
            continue
        indent = _indent(line)
        if indent <= header_indent:
            return line_number - 1  # the section ended
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            match = _ARG_LINE_RE.match(line.strip())
            current = match.group(1) if match else None
            if keep and match is not None:
                args[match.group(1)] = match.group(2).strip()
        elif current is not None and keep:
            args[current] = f"{args[current]} {line.strip()}".strip()
    return line_number


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
