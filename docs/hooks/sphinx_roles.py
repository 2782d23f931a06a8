"""A griffe extension: the docstrings' Sphinx roles as links in the API reference.

The docstrings cross-reference with Sphinx roles (``:class:`ToolRunner```,
``:func:`~callstream.stream```), which Markdown would show as they are written. Each role
becomes an *optional* autorefs cross-reference: a link where the target has an API entry
(the name as written, else relative to the docstring's module or class, else a public
``callstream`` name), plain code where it has none (a private module), never a warning.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|type):`(?P<target>[^`]+)`"
)


def _candidates(obj: griffe.Object, target: str) -> list[str]:
    """Where the target may be documented, most specific first."""
    if target.startswith("callstream"):
        return [target]
    scopes = []
    if isinstance(obj, griffe.Class):
        scopes.append(obj.path)
    if obj.parent is not None and isinstance(obj.parent, griffe.Class):
        scopes.append(obj.parent.path)
    scopes.append(obj.module.path)
    return [f"{scope}.{target}" for scope in scopes] + [f"callstream.{target}"]


def _role(obj: griffe.Object, match: re.Match[str]) -> str:
    target = match.group("target").strip()
    short = target.startswith("~")
    target = target.lstrip("~.")
    title = target.rsplit(".", 1)[-1] if short else target
    first, *rest = _candidates(obj, target)
    slug = f' slug="{html.escape(rest[-1])}"' if rest else ""
    code = f"<code>{html.escape(title)}</code>"
    return f'<autoref identifier="{html.escape(first)}"{slug} optional>{code}</autoref>'


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles in every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = ROLE.sub(lambda m: _role(obj, m), obj.docstring.value)
