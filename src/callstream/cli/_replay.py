"""Replaying a recording through callstream, paced, with the time callstream itself takes.

The recording is turned into the items a real source would yield (decoded payloads for
JSON lines, raw SSE text for SSE files), optionally re-cut (``--split``), and fed one by
one to the same :class:`~callstream._pipeline.Pipeline` the ``stream`` / ``astream``
drivers run. Only the calls into the pipeline are timed, so the summary's "time in
callstream" excludes reading the file, pacing sleeps and rendering.

Cost: O(size of the recording) plus the pipeline's own cost.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from callstream._pipeline import Pipeline, StreamResult, StreamUpdate
from callstream.cli._input import InputError, Recording
from callstream.cli._split import resplit
from callstream.providers import FORMATS, detect_format, resolve_format

__all__ = ("BASE_INTERVAL", "Prepared", "ReplayStats", "prepare", "replay")

BASE_INTERVAL = 0.02
"""Seconds between two payloads that change something, at ``--speed 1`` (50 a second)."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """The items to feed callstream, the format they are in, and their size in bytes."""

    items: tuple[Any, ...]
    format: str | None
    bytes: int


@dataclass(slots=True)
class ReplayStats:
    """Counters of one replay, for the summary line."""

    chunks: int = 0
    bytes: int = 0
    seconds: float = 0.0
    result: StreamResult | None = None

    @property
    def per_chunk_us(self) -> float:
        """Mean time in callstream per chunk, in microseconds."""
        return self.seconds / self.chunks * 1e6 if self.chunks else 0.0


def _serialize(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _sse_event(event: str | None, payload: Any) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {_serialize(payload)}\n\n"


def detect(recording: Recording) -> str | None:
    """The format of the first payload that names one, or None."""
    for record in recording.records:
        name = detect_format(record.payload)
        if name is not None:
            return name
    return None


def prepare(recording: Recording, *, provider: str = "auto", split: int | None = None) -> Prepared:
    """Check the format and build the items to feed (re-cut when ``split`` is given).

    Raises:
        InputError: no payload identifies a known format (with ``provider="auto"``).
    """
    if provider == "auto":
        fmt = detect(recording)
        if fmt is None:
            first = recording.records[0]
            raise InputError(
                f"{recording.name}:{first.line}: unrecognized stream format; "
                f"pass --provider with one of: {', '.join(FORMATS)}"
            )
    else:
        fmt = resolve_format(provider)
    items: list[Any] = []
    size = 0
    for record in recording.records:
        payloads = [record.payload] if split is None else resplit([record.payload], fmt, split)
        for payload in payloads:
            if recording.layout == "sse":
                text = _sse_event(record.event, payload)
                items.append(text)
                size += len(text.encode("utf-8", "surrogatepass"))
            else:
                items.append(payload)
                size += len(_serialize(payload).encode("utf-8", "surrogatepass")) + 1
    if recording.layout == "sse" and recording.done_marker:
        items.append("data: [DONE]\n\n")
        size += 14
    return Prepared(tuple(items), fmt, size)


def replay(
    prepared: Prepared,
    *,
    provider: str,
    on_update: Callable[[StreamUpdate], None],
    interval: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> ReplayStats:
    """Feed the items to a fresh pipeline, calling ``on_update`` for every update.

    ``interval`` seconds are slept after each update that carries events (so pauses
    follow what changes on screen, not usage or ping payloads).

    Raises:
        CallstreamError: the stream could not be read (an unknown format, say).
    """
    stats = ReplayStats(chunks=len(prepared.items), bytes=prepared.bytes)
    pipeline = Pipeline(provider)
    clock = time.perf_counter
    for item in prepared.items:
        start = clock()
        updates: Sequence[StreamUpdate] = pipeline.feed(item)
        stats.seconds += clock() - start
        for update in updates:
            on_update(update)
            if interval > 0 and update.events:
                sleep(interval)
    start = clock()
    updates = pipeline.close()
    stats.seconds += clock() - start
    for update in updates:
        on_update(update)
    stats.result = pipeline.result()
    return stats
