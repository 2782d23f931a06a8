"""The Python blocks of a Markdown file, and how each runs offline (README and docs alike).

A block runs in a fresh namespace that holds ``chunks`` (a bundled OpenAI Chat example
stream as payload dicts) and ``async_chunks`` (the same stream as an async iterable);
top-level ``await`` / ``async for`` run under asyncio. A block that needs a provider
account, a network or a web framework is preceded by
``<!-- docs-test: skip (the reason) -->`` (``readme-test`` in the README).
"""

from __future__ import annotations

import ast
import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

from callstream.examples import read_example

ROOT = Path(__file__).resolve().parents[2]
"""The checkout (this package stays at ``tests/docs``)."""

FENCE = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.DOTALL)
SKIP = re.compile(r"<!-- (?:readme|docs)-test: skip \((?P<reason>[^)]+)\) -->")


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


class _AsyncChunks:
    def __init__(self, payloads: list[Any]) -> None:
        self._payloads = payloads

    async def _gen(self) -> AsyncIterator[Any]:
        for payload in self._payloads:
            await asyncio.sleep(0)
            yield payload

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._gen()


def namespace() -> dict[str, Any]:
    lines = read_example("openai_chat_parallel").splitlines()
    payloads = [json.loads(line) for line in lines if line.strip()]
    return {"chunks": payloads, "async_chunks": _AsyncChunks(payloads), "__name__": "readme"}


def run_block(code: str, where: str) -> None:
    """Run one block in a fresh namespace (``where``: ``file:line`` for tracebacks)."""
    compiled = compile(code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(compiled, namespace())
    if asyncio.iscoroutine(result):
        asyncio.run(result)
