"""Shared pieces of the tool-runner tests: paced sources on a fake clock, recording tools.

A turn runs under trio with ``MockClock(autojump_threshold=0)``: sleeping costs no real
time, and the clock jumps straight to the next deadline, so "payload k arrives at
second k" and "this tool takes 2.5 s" are exact and the tests never really sleep.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import anyio
import trio.testing

from tests.support.fuzz_streams import WRITERS, Call

T = TypeVar("T")


def on_fake_clock(fn: Callable[[], Awaitable[T]]) -> T:
    """Run ``fn`` under trio with a clock that jumps to each deadline at once."""
    clock = trio.testing.MockClock(autojump_threshold=0)
    result: T = anyio.run(fn, backend="trio", backend_options={"clock": clock})
    return result


async def paced(payloads: list[Any], step: float = 1.0) -> AsyncIterator[Any]:
    """Payload k arrives ``step * (k + 1)`` seconds after the start."""
    for payload in payloads:
        await anyio.sleep(step)
        yield payload


def write(provider: str, calls: list[Call], *, pieces: int = 3, finish: str = "ok") -> list[Any]:
    """A stream of ``calls`` in ``provider``'s wire shape, each argument cut in ``pieces``."""
    longest = max((len(text) for _, _, text in calls), default=0)
    cuts = [longest * k // pieces for k in range(1, pieces)]
    return WRITERS[provider](calls, cuts, finish)


class Recorder:
    """Async tools that sleep a set time and record what they were called with."""

    def __init__(self, durations: dict[str, float] | None = None) -> None:
        self.durations = durations or {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.cancelled: list[str] = []
        self.finished: list[str] = []

    def tool(self, name: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def run(city: str = "", days: int = 1) -> dict[str, Any]:
            self.calls.append((name, {"city": city, "days": days}))
            try:
                await anyio.sleep(self.durations.get(name, 0.0))
            except anyio.get_cancelled_exc_class():
                self.cancelled.append(name)
                raise
            self.finished.append(name)
            return {"tool": name, "city": city, "days": days}

        run.__name__ = name
        return run
