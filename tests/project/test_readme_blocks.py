"""Every Python block of the README runs offline, or says why it cannot.

A block runs in a fresh namespace that holds ``chunks`` (a bundled OpenAI Chat example
stream as payload dicts) and ``async_chunks`` (the same stream as an async iterable);
top-level ``await`` / ``async for`` run under asyncio. A block that needs a provider
account or a network is preceded by ``<!-- readme-test: skip (the reason) -->``.
"""

from __future__ import annotations

import ast
import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from callstream.examples import read_example
from tests.support.paths import README

FENCE = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.DOTALL)
SKIP = re.compile(r"<!-- readme-test: skip \((?P<reason>[^)]+)\) -->")


def _blocks() -> list[tuple[int, str, str | None]]:
    text = README.read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start("code"))
        skip = SKIP.search(match.group("before"))
        blocks.append((line, match.group("code"), skip.group("reason") if skip else None))
    return blocks


class _AsyncChunks:
    def __init__(self, payloads: list[Any]) -> None:
        self._payloads = payloads

    async def _gen(self) -> AsyncIterator[Any]:
        for payload in self._payloads:
            await asyncio.sleep(0)
            yield payload

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._gen()


def _namespace() -> dict[str, Any]:
    lines = read_example("openai_chat_parallel").splitlines()
    payloads = [json.loads(line) for line in lines if line.strip()]
    return {"chunks": payloads, "async_chunks": _AsyncChunks(payloads), "__name__": "readme"}


BLOCKS = _blocks()


def test_the_readme_has_python_blocks_and_most_run() -> None:
    assert len(BLOCKS) >= 4
    assert sum(reason is None for _, _, reason in BLOCKS) >= len(BLOCKS) // 2


@pytest.mark.parametrize(("line", "code", "skip"), BLOCKS, ids=[f"line{b[0]}" for b in BLOCKS])
def test_readme_block_runs(line: int, code: str, skip: str | None, capsys: Any) -> None:
    if skip is not None:
        pytest.skip(f"README line {line}: {skip}")
    compiled = compile(code, f"README.md:{line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    namespace = _namespace()
    result = eval(compiled, namespace)
    if asyncio.iscoroutine(result):
        asyncio.run(result)
    capsys.readouterr()
