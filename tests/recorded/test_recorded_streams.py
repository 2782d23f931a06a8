"""Acceptance: every recorded real provider stream assembles to its expected tool calls.

The recordings live outside the project (``../shared/recorded-streams`` from the repository
root, or another folder: see tests/support/corpus.py); they are read in place and
this module skips when the folder is absent. Each stream goes through ``provider="auto"``
with the sync driver, the async driver on asyncio and trio, and as raw SSE / NDJSON bytes
cut into small network chunks; all must give the expected valid and invalid calls (names,
ids, parsed arguments; raw text and the provider's error for invalid ones). The calls the
provider runs itself (``tests/support/recorded_server_tools.py`` names them) must be exactly the
``server_tool_calls``, and never among the tool calls.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio.lowlevel
import pytest

from callstream._async import acollect, astream
from callstream._pipeline import StreamResult
from callstream._sync import collect, stream
from tests.support.corpus import RECORDED_STREAMS
from tests.support.recorded_server_tools import server_view, split_expected

RECORDED = RECORDED_STREAMS
STREAMS = sorted(RECORDED.glob("*.jsonl")) if RECORDED.is_dir() else []

pytestmark = pytest.mark.skipif(not STREAMS, reason=f"no recorded streams in {RECORDED}")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def load(path: Path) -> tuple[list[Any], dict[str, Any]]:
    payloads = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    expected = json.loads(
        (path.parent / "expected" / f"{path.stem}.json").read_text(encoding="utf-8")
    )
    return payloads, expected


def check(result: StreamResult, expected: dict[str, Any], stream_name: str) -> None:
    client, server = split_expected(stream_name, expected["tool_calls"])
    assert result.server_tool_calls == server_view(server)
    want_valid = [c for c in client if c["valid"]]
    want_invalid = [c for c in client if not c["valid"]]
    assert [(c["name"], c["id"], c["args"]) for c in result.tool_calls] == [
        (c["name"], c["id"], c["args"]) for c in want_valid
    ]
    assert len(result.invalid_tool_calls) == len(want_invalid), result.invalid_tool_calls
    for got, want in zip(result.invalid_tool_calls, want_invalid):
        assert (got["name"], got["id"]) == (want["name"], want["id"])
        assert got["error"]
        if got["args"] != want["raw"]:
            # A provider-reported failure (Groq's failed_generation) gives the arguments
            # part of the raw generation; compare its value.
            assert want["args"] is not None
            assert json.loads(got["args"] or "") == want["args"]
        if "error" in want:
            assert got["error"] == want["error"]


def ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


@pytest.mark.parametrize("path", STREAMS, ids=ids(STREAMS))
def test_sync(path: Path) -> None:
    payloads, expected = load(path)
    result = collect(payloads)
    check(result, expected, path.stem)
    updates = list(stream(payloads))
    assert updates[-1].tool_calls == result.tool_calls
    assert updates[-1].server_tool_calls == result.server_tool_calls
    assert updates[-1].invalid_tool_calls == result.invalid_tool_calls


def transport_bytes(payloads: list[Any], fmt: str) -> bytes:
    if fmt == "ollama-native":
        return "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in payloads).encode()
    lines = []
    for p in payloads:
        event = p.get("type") if isinstance(p, dict) and isinstance(p.get("type"), str) else None
        if isinstance(p, dict) and "error" in p and "choices" not in p:
            event = "error"
        head = f"event: {event}\r\n" if event else ""
        lines.append(f"{head}data: {json.dumps(p, ensure_ascii=False)}\r\n\r\n")
    lines.append("data: [DONE]\r\n\r\n")
    return "".join(lines).encode()


@pytest.mark.parametrize("path", STREAMS, ids=ids(STREAMS))
def test_raw_transport_bytes(path: Path) -> None:
    payloads, expected = load(path)
    data = transport_bytes(payloads, expected["format"])
    for size in (1, 13, 4096):
        check(collect(data[i : i + size] for i in range(0, len(data), size)), expected, path.stem)


async def agen(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        await anyio.lowlevel.checkpoint()
        yield item


@pytest.mark.anyio
@pytest.mark.parametrize("path", STREAMS, ids=ids(STREAMS))
async def test_async(path: Path) -> None:
    payloads, expected = load(path)
    check(await acollect(agen(payloads)), expected, path.stem)
    async_updates = [u async for u in astream(agen(payloads))]
    sync_updates = list(stream(payloads))
    assert [u.events for u in async_updates] == [u.events for u in sync_updates]


@pytest.mark.parametrize("path", STREAMS, ids=ids(STREAMS))
def test_named_format(path: Path) -> None:
    """Read with its format named (the recording's label, an alias such as
    ``anthropic-messages``), as payloads and as raw bytes: the same result as ``"auto"``
    (no real stream trips the foreign-payload rule of ``callstream._pipeline``)."""
    payloads, expected = load(path)
    named = collect(payloads, provider=expected["format"])
    assert named == collect(payloads)
    check(named, expected, path.stem)
    data = transport_bytes(payloads, expected["format"])
    assert collect(
        [data[i : i + 13] for i in range(0, len(data), 13)], provider=expected["format"]
    ) == collect([data])
