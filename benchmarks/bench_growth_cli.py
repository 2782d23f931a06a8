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
over a quarter of the file at 2n). Run:
``python benchmarks/bench_growth_cli.py [--quick]`` (harness: ``_growth.py``; the live
replays are best of 2 runs in CPU time).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _growth import Check, main, scaled


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


_FOLDER: list[tempfile.TemporaryDirectory[str]] = []


def _folder() -> Path:
    """A temporary folder for the stream files, made once (removed at exit)."""
    if not _FOLDER:
        _FOLDER.append(tempfile.TemporaryDirectory(prefix="growth-cli-"))
    return Path(_FOLDER[0].name)


def written(build: Callable[[int], list[dict[str, Any]]]) -> Callable[[int], Path]:
    """``build``'s payloads at size n written as a JSON-lines file (the check's input)."""

    def write(n: int) -> Path:
        file = _folder() / f"{build.__name__}-{n}.jsonl"
        if not file.exists():
            text = "".join(json.dumps(p) + "\n" for p in build(n))
            file.write_text(text, encoding="utf-8")
        return file

    return write


def live_replay(file: Path) -> None:
    """A live replay on a (fake) terminal, redrawing after every update."""
    from rich.console import Console

    import callstream.cli as cli

    cli.FRAME = 0.0  # type: ignore[misc]
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100, height=30)
    status = cli.run(["replay", str(file), "--speed", "0"], stdout=buffer, console=console)
    assert status == 0, status


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


def command_peak(*argv: str) -> Callable[[Path], float]:
    """Measures the command ``argv[0] FILE argv[1:]``'s peak memory in a subprocess."""
    return lambda file: float(peak_memory([argv[0], str(file), *argv[1:]]))


def streamed(n: int) -> Callable[[int, Path, float], str | None]:
    """The file is streamed, not read whole: at 2n, the peak stays under a quarter of it."""
    return lambda size, file, peak: _streamed(file, peak) if size == 2 * n else None


def _streamed(file: Path, peak: float) -> str | None:
    length = file.stat().st_size
    if peak <= length / 4:
        return None
    return f"peak {peak / 1e6:.2f} MB is {peak / length:.0%} of the {length / 1e6:.1f} MB file"


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: sizes divided by 4)."""
    live = [
        ("live replay, one object of n keys", one_object, 600),
        ("live replay, n calls streaming in parallel", parallel_calls, 200),
    ]
    out = [
        Check(
            label,
            "time",
            written(build),
            scaled(n, quick),
            run=live_replay,
            repeats=2,
            min_time_s=0.0,
        )
        for label, build, n in live
    ]
    memory = [
        ("inspect, n calls", sequential_calls, 1_000, ("inspect",)),
        ("replay jsonl, n calls", sequential_calls, 1_000, ("replay", "--output", "jsonl")),
        ("replay, n calls", sequential_calls, 1_000, ("replay",)),
        ("inspect, text stream of n payloads", text_stream, 50_000, ("inspect",)),
    ]
    for label, build, size, argv in memory:
        n = scaled(size, quick)
        out.append(
            Check(
                f"{label}, subprocess",
                "memory",
                written(build),
                n,
                probe=command_peak(*argv),
                bound=streamed(n) if build is text_stream else None,
            )
        )
    return out


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
