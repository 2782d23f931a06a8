"""The Python blocks of a Markdown file, and how each runs offline (README and docs alike).

A block runs exactly as a user who copies it into a file runs it: compiled as a module
(so a top-level ``await`` or ``async for`` is the ``SyntaxError`` it would be there), in
a namespace that holds nothing but ``__name__ == "__main__"``, from an empty folder. It
defines or imports everything it uses (``callstream.examples`` for a bundled stream,
``callstream.testing`` for a written one); async code runs under ``asyncio.run(...)``.

A block that cannot run offline is preceded by ``<!-- docs-test: skip (the reason) -->``
(``readme-test`` in the README). One that needs a provider's API key says ``API key`` in
its reason, and the block right after it runs the same code against
``callstream.testing`` (:func:`offline_twin`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
"""The checkout (this package stays at ``tests/docs``)."""

FENCE = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.DOTALL)
SKIP = re.compile(r"<!-- (?:readme|docs)-test: skip \((?P<reason>[^)]+)\) -->")
NEEDS_KEY = "API key"
"""What the skip reason of a block that talks to a provider's API says."""
TALKS_TO_AN_API = re.compile(r"\bAPI\b|account|\bkey\b|network", re.IGNORECASE)
"""Words of a skip reason that mean a provider's API: such a reason says :data:`NEEDS_KEY`."""


class Block(NamedTuple):
    """One Python block: where it starts, its code, and why it cannot run (or None)."""

    line: int
    code: str
    skip: str | None


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start("code"))
        skip = SKIP.search(match.group("before"))
        found.append(Block(line, match.group("code"), skip.group("reason") if skip else None))
    return found


def offline_twin(found: list[Block], n: int) -> str | None:
    """Why block ``n`` of ``found`` breaks the API-key rule, or None: a block skipped
    because it talks to a provider's API says :data:`NEEDS_KEY`, and the next block runs
    (no skip) the same against ``callstream.testing``."""
    reason = found[n].skip
    if reason is None or not TALKS_TO_AN_API.search(reason):
        return None
    if NEEDS_KEY not in reason:
        return f"its skip reason names an API but not {NEEDS_KEY!r}: {reason!r}"
    following = found[n + 1] if n + 1 < len(found) else None
    if following is None or following.skip is not None:
        return "the block after it does not run (it must run the same code offline)"
    if "callstream.testing" not in following.code:
        return "the block after it does not run against callstream.testing"
    return None


def namespace() -> dict[str, Any]:
    """A script's namespace: nothing but ``__name__``."""
    return {"__name__": "__main__"}


def run_block(code: str, where: str) -> None:
    """Run one block as a script (``where``: ``file:line`` for tracebacks)."""
    exec(compile(code, where, "exec", dont_inherit=True), namespace())
