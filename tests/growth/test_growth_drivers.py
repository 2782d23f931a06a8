"""The drivers' contract grows linearly: ``StreamUpdate.snapshot()`` in the size of the
arguments (wide and deep), ``ToolCallAssembler.interrupt()`` in the number of calls,
``collect()`` with a source that fails at the end (the interrupt path) in the payloads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import callstream
from callstream import ToolCallAssembler
from tests.growth.scaling import assert_linear

pytestmark = pytest.mark.growth


def chunk(index: int, name: str | None, args: str) -> dict[str, Any]:
    entry = {"index": index, "id": f"c{index}" if name else None}
    entry["function"] = {"name": name, "arguments": args}
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": [entry]}}],
    }


def last_update(text: str, **options: Any) -> callstream.StreamUpdate:
    pieces = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    payloads = [chunk(0, "f", ""), *(chunk(0, None, p) for p in pieces)]
    *_, update = callstream.stream(payloads, provider="openai-chat", **options)
    return update


def snapshot_wide(n: int) -> callstream.StreamUpdate:
    text = "{" + ", ".join(f'"k{i}": [{i}, {{"v": "x{i}"}}]' for i in range(n)) + "}"
    return last_update(text)


def snapshot_deep(n: int) -> callstream.StreamUpdate:
    return last_update('{"a": ' + "[" * n + "]" * n + "}", max_depth=n + 10)


def snapshot(update: callstream.StreamUpdate) -> object:
    return update.snapshot()


def interrupt_calls(n: int) -> ToolCallAssembler:
    """An assembler with n calls, half of them with complete arguments."""
    asm = ToolCallAssembler()
    for i in range(n):
        asm.feed({"index": i, "id": f"c{i}", "name": "f", "args": '{"a": 1' + "}" * (i % 2)})
    return asm


def interrupt(asm: ToolCallAssembler) -> object:
    return asm.interrupt("gone")


def collect_failing(n: int) -> list[Any]:
    return [chunk(0, "f", "")] + [chunk(0, None, '{"a": "' if i == 0 else "x") for i in range(n)]


def collect_run(payloads: list[Any]) -> object:
    def source() -> Iterator[Any]:
        yield from payloads
        raise ConnectionError("gone")

    with pytest.raises(ConnectionError) as caught:
        callstream.collect(source(), provider="openai-chat")
    return caught.value


CASES: list[tuple[str, Callable[[int], Any], Callable[[Any], object], int, bool]] = [
    ("snapshot, wide args (n keys)", snapshot_wide, snapshot, 1_000, False),
    ("snapshot, deep args (depth n)", snapshot_deep, snapshot, 3_000, False),
    # interrupt() ends the calls: a fresh assembler for every run
    ("interrupt (n calls)", interrupt_calls, interrupt, 800, True),
    ("collect, source fails at the end (n payloads)", collect_failing, collect_run, 400, False),
]


@pytest.mark.parametrize(
    ("build", "run", "n", "fresh"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_driver_costs_grow_linearly(
    build: Callable[[int], Any], run: Callable[[Any], object], n: int, fresh: bool
) -> None:
    assert_linear(build, run, n, repeats=7, fresh=fresh)
