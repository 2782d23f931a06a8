"""Growth checks for the drivers' contract: each cost measured at n and 2n, ratio <= 2.3.

- ``StreamUpdate.snapshot()``: O(size of the arguments) -- wide and deeply nested args.
- ``ToolCallAssembler.interrupt()``: O(number of calls).
- ``collect()`` with a source that fails at the end (the interrupt path): O(payloads).

Run: ``python benchmarks/bench_growth_drivers.py [--quick]``. Prints the ratios; exits 1
if any is over the limit. Inputs (the last update, the assembler) are built before the
clock by the shared harness (``_growth.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import callstream
from _growth import Check, main, scaled
from callstream import ToolCallAssembler


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
    text = '{"a": ' + "[" * n + "]" * n + "}"
    return last_update(text, max_depth=n + 10)


def snapshot(update: callstream.StreamUpdate) -> object:
    return update.snapshot()


def interrupt_calls(n: int) -> ToolCallAssembler:
    """An assembler with n calls, half of them with complete arguments."""
    asm = ToolCallAssembler()
    for i in range(n):
        asm.feed(
            {"index": i, "id": f"c{i}", "name": "f", "args": '{"a": 1' + ("}" if i % 2 else "")}
        )
    return asm


def interrupt(asm: ToolCallAssembler) -> object:
    return asm.interrupt("gone")


def collect_failing(n: int) -> list[Any]:
    return [chunk(0, "f", "")] + [chunk(0, None, '{"a": "' if i == 0 else "x") for i in range(n)]


def collect_run(payloads: list[Any]) -> object:
    def source() -> Iterator[Any]:
        yield from payloads
        raise ConnectionError("gone")

    try:
        callstream.collect(source(), provider="openai-chat")
    except ConnectionError as exc:
        return exc
    raise AssertionError("the source error must propagate")


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: sizes divided by 4). Best of 9 runs and at least 0.3 s."""

    def check(
        name: str,
        build: Callable[[int], Any],
        run: Callable[[Any], object],
        n: int,
        *,
        fresh: bool = False,
    ) -> Check:
        return Check(
            name, "time", build, scaled(n, quick), run=run, repeats=9, min_time_s=0.3, fresh=fresh
        )

    return [
        check("snapshot, wide args (n keys)", snapshot_wide, snapshot, 8_000),
        check("snapshot, deep args (depth n)", snapshot_deep, snapshot, 20_000),
        # interrupt() ends the calls: a fresh assembler for every run
        check("interrupt (n calls)", interrupt_calls, interrupt, 5_000, fresh=True),
        check("collect, source fails at the end (n payloads)", collect_failing, collect_run, 5_000),
    ]


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
