"""Growth checks for the ``callstream`` command: time and memory at n and 2n.

- live redraws: ``replay`` with the rich live window on a terminal (a ``force_terminal``
  console writing to memory), redrawing after every update, on one object of n keys and
  on n calls streaming in parallel. Each redraw renders a bounded window, so the time
  grows linearly (before: every redraw rendered the whole view, quadratic).
- memory: ``inspect`` and ``replay --output jsonl`` in a subprocess under ``tracemalloc``
  on files of n and 2n payloads: many calls (the result itself grows linearly) and one
  call in a long stream of text payloads (the state stays small, so the peak must stay
  far below the file size: the file is streamed, not read whole).

Prints the numbers and ratios; exits 1 if a ratio is over 2.3 (or the streamed peak is
not well below the file size). Run: ``python benchmarks/bench_growth_cli.py``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

LIMIT = 2.3


def _chunk(name: str, args: str, *, index: int = 0, finish: str | None = None) -> dict[str, Any]:
    entry = {"index": index, "id": f"call_{index}", "function": {"name": name, "arguments": args}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": finish}]}


def _end() -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def one_object(keys: int) -> list[dict[str, Any]]:
    payloads = [_chunk("big", "{")]
    payloads += [_chunk("big", f'{", " if k else ""}"k{k}": "value {k}"') for k in range(keys)]
    payloads.append(_chunk("big", "}", finish="tool_calls"))
    return payloads


def parallel_calls(calls: int) -> list[dict[str, Any]]:
    payloads = []
    for i in range(calls):
        payloads.append(_chunk(f"tool_{i}", '{"city": ', index=i))
        payloads.append(_chunk(f"tool_{i}", f'"Paris {i}", "n": {i}}}', index=i))
    payloads.append(_end())
    return payloads


def sequential_calls(calls: int) -> list[dict[str, Any]]:
    """Anthropic Messages events: each call starts, streams and stops before the next."""
    payloads: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}
    ]
    for i in range(calls):
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": f"tool_{i}", "input": {}}
        payloads.append({"type": "content_block_start", "index": i, "content_block": block})
        for piece in ('{"city": "Paris", ', f'"days": {i % 7}, "note": "{"x" * 40}"}}'):
            delta = {"type": "input_json_delta", "partial_json": piece}
            payloads.append({"type": "content_block_delta", "index": i, "delta": delta})
        payloads.append({"type": "content_block_stop", "index": i})
    payloads.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    payloads.append({"type": "message_stop"})
    return payloads


def text_stream(payloads: int) -> list[dict[str, Any]]:
    text = {"choices": [{"index": 0, "delta": {"content": "lorem ipsum " * 8}}]}
    return [_chunk("f", '{"a": 1}')] + [text] * payloads + [_end()]


def _write(directory: Path, name: str, payloads: list[dict[str, Any]]) -> Path:
    file = directory / name
    file.write_text("".join(json.dumps(p) + "\n" for p in payloads), encoding="utf-8")
    return file


def time_live(file: Path) -> float:
    """Seconds for a live replay on a (fake) terminal, redrawing after every update."""
    from rich.console import Console

    import callstream.cli as cli

    cli.FRAME = 0.0  # type: ignore[misc]
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100, height=30)
    start = time.process_time()
    status = cli.run(["replay", str(file), "--speed", "0"], stdout=buffer, console=console)
    assert status == 0, status
    return time.process_time() - start


_MEMORY = """
import io, sys, tracemalloc
from callstream.cli import run
tracemalloc.start()
out = io.StringIO() if sys.argv[1] == "inspect" else open("/dev/null", "w")
status = run(sys.argv[1:], stdout=out)
print(tracemalloc.get_traced_memory()[1])
"""


def peak_memory(argv: list[str]) -> int:
    """Peak traced memory (bytes) of the command in a fresh interpreter."""
    completed = subprocess.run(
        [sys.executable, "-c", _MEMORY, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return int(completed.stdout.strip().splitlines()[-1])


def main() -> int:
    failures = 0

    def check(
        label: str, small: float, large: float, unit: str, fmt: Callable[[float], str]
    ) -> None:
        nonlocal failures
        ratio = large / small if small else float("inf")
        verdict = "ok" if ratio <= LIMIT else "OVER"
        failures += verdict != "ok"
        print(
            f"{label:<48} n: {fmt(small):>8} {unit}  2n: {fmt(large):>8} {unit}"
            f"  ratio {ratio:.2f}  {verdict}"
        )

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        print("live replay on a terminal, redraw after every update (seconds)")
        for label, build, n in (
            ("one object, n keys (n = 600)", one_object, 600),
            ("n calls streaming in parallel (n = 200)", parallel_calls, 200),
        ):
            small = time_live(_write(directory, "a.jsonl", build(n)))
            large = time_live(_write(directory, "b.jsonl", build(2 * n)))
            check(label, small, large, "s", lambda v: f"{v:.3f}")

        print("peak memory, tracemalloc in a subprocess (MB)")
        mb: Callable[[float], str] = lambda v: f"{v / 1e6:.2f}"  # noqa: E731
        for label, build, n, argv in (
            ("inspect, n calls (n = 1,000)", sequential_calls, 1_000, ["inspect"]),
            (
                "replay jsonl, n calls (n = 1,000)",
                sequential_calls,
                1_000,
                ["replay", "--output", "jsonl"],
            ),
            ("replay, n calls (n = 1,000)", sequential_calls, 1_000, ["replay"]),
            ("inspect, text stream of n payloads (n = 50,000)", text_stream, 50_000, ["inspect"]),
        ):
            files = [_write(directory, f"m{k}.jsonl", build(k * n)) for k in (1, 2)]
            small, large = (peak_memory([argv[0], str(f), *argv[1:]]) for f in files)
            check(label, small, large, "MB", mb)
            if build is text_stream:
                size = files[1].stat().st_size
                share = f"{large / size:.1%}"
                print(
                    f"    file {size / 1e6:.1f} MB, peak {large / 1e6:.2f} MB ({share} of the file)"
                )
                if large > size / 4:
                    print("    OVER: the streamed file should not be held in memory")
                    failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
