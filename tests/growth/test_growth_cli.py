"""The ``callstream`` command grows linearly: ``replay`` with the rich live window on a
(fake) terminal redraws a bounded window after every update, on one object of n keys and
on n calls streaming in parallel (before, every redraw rendered the whole view:
quadratic); ``inspect`` and ``replay`` (text, JSON lines) of n calls hold memory linear in
the result, and of one call among n payloads that add nothing a flat peak, under a
quarter of the file (streamed, not read whole)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.growth.scaling import assert_linear

pytestmark = pytest.mark.growth

Build = Callable[[int], list[dict[str, Any]]]


def _chunk(name: str, args: str, *, index: int = 0, finish: str | None = None) -> dict[str, Any]:
    entry = {"index": index, "id": f"call_{index}", "function": {"name": name, "arguments": args}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": finish}]}


END = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def one_object(keys: int) -> list[dict[str, Any]]:
    payloads = [_chunk("big", "{")]
    payloads += [_chunk("big", f'{", " if k else ""}"k{k}": "value {k}"') for k in range(keys)]
    return [*payloads, _chunk("big", "}", finish="tool_calls")]


def parallel_calls(calls: int) -> list[dict[str, Any]]:
    payloads = []
    for i in range(calls):
        payloads.append(_chunk(f"tool_{i}", '{"city": ', index=i))
        payloads.append(_chunk(f"tool_{i}", f'"Paris {i}", "n": {i}}}', index=i))
    return [*payloads, END]


def sequential_calls(calls: int) -> list[dict[str, Any]]:
    """Anthropic Messages events: each call starts, streams and stops before the next."""
    start = {"id": "m", "role": "assistant", "content": []}
    payloads: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for i in range(calls):
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": f"tool_{i}", "input": {}}
        payloads.append({"type": "content_block_start", "index": i, "content_block": block})
        for piece in ('{"city": "Paris", ', f'"days": {i % 7}, "note": "{"x" * 40}"}}'):
            delta = {"type": "input_json_delta", "partial_json": piece}
            payloads.append({"type": "content_block_delta", "index": i, "delta": delta})
        payloads.append({"type": "content_block_stop", "index": i})
    payloads.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    return [*payloads, {"type": "message_stop"}]


def empty_deltas(payloads: int) -> list[dict[str, Any]]:
    """One call, then n payloads that add nothing to the result (empty text deltas with
    the metadata every chunk carries): the state stays small however long the file."""
    empty = {
        "id": "chatcmpl-" + "x" * 40,
        "object": "chat.completion.chunk",
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_" + "y" * 20,
        "choices": [{"index": 0, "delta": {"content": ""}}],
    }
    return [_chunk("f", '{"a": 1}'), *[empty] * payloads, END]


def written(build: Build, folder: Path) -> Callable[[int], Path]:
    """``build``'s payloads at size n as a JSON-lines file in ``folder`` (made once)."""

    def write(n: int) -> Path:
        file = folder / f"{build.__name__}-{n}.jsonl"
        if not file.exists():
            file.write_text("".join(json.dumps(p) + "\n" for p in build(n)), encoding="utf-8")
        return file

    return write


def live_replay(file: Path) -> None:
    """A live replay on a (fake) terminal, redrawing after every update."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100, height=10)
    status = cli.run(["replay", str(file), "--speed", "0"], stdout=buffer, console=console)
    assert status == 0, status


cli = pytest.importorskip("callstream.cli")


@pytest.mark.parametrize(("build", "n"), [(one_object, 30), (parallel_calls, 12)])
def test_live_replay_grows_linearly(
    build: Build, n: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "FRAME", 0.0)
    assert_linear(written(build, tmp_path), live_replay, n, repeats=2)


def command(*argv: str) -> Callable[[Path], object]:
    """Runs ``callstream argv[0] FILE argv[1:]`` (its output kept for ``inspect``)."""

    def run(file: Path) -> object:
        out: Any = io.StringIO() if argv[0] == "inspect" else open(os.devnull, "w")
        with out:
            assert cli.run([argv[0], str(file), *argv[1:]], stdout=out) == 0
            return out.getvalue() if argv[0] == "inspect" else None

    return run


@pytest.mark.parametrize(
    "argv", [("inspect",), ("replay", "--output", "jsonl"), ("replay",)], ids=" ".join
)
def test_command_memory_grows_linearly_in_the_calls(argv: tuple[str, ...], tmp_path: Path) -> None:
    assert_linear(written(sequential_calls, tmp_path), command(*argv), 50, kind="memory")


def test_inspect_streams_the_file(tmp_path: Path) -> None:
    """One call in n payloads that add nothing: the peak stays flat, under a quarter of
    the file. (Payloads that add text would not do: the result holds the text, as large
    as a good part of the file.)"""
    build = written(empty_deltas, tmp_path)

    def streamed(size: int, peak: float) -> str | None:
        length = build(size).stat().st_size
        return None if peak <= length / 4 else f"peak {peak:,.0f} B of a {length:,} B file"

    assert_linear(build, command("inspect"), 1_500, kind="memory", flat=True, bound=streamed)
