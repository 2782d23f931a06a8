"""Replaying a recording through callstream, paced, with the time callstream itself takes.

The recording is turned into the items a real source would yield (decoded payloads for
JSON lines, raw SSE text for SSE files), optionally re-cut (``--split``), and fed one by
one to the same :class:`~callstream._pipeline.Pipeline` the ``stream`` / ``astream``
drivers run. Only the calls into the pipeline are timed, so the summary's "time in
callstream" excludes reading the file, pacing sleeps and rendering; and it is measured
warm (:func:`warm_up` first), so it excludes the first-use imports too, which made the
first figures of a process 8-20 times the steady ones.

Items are produced lazily from a streamed file (:class:`~callstream.cli._stream_file.Source`),
so only the payload being fed is held (plus, with ``provider="auto"``, the few payloads
before the first one that names a format). Cost: O(size of the recording) plus the
pipeline's own cost; memory O(longest payload) plus the pipeline's state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from callstream._json.dump import dumps_bounded
from callstream._pipeline import MAX_UNRECOGNIZED, Pipeline, StreamResult, StreamUpdate
from callstream.cli._split import resplit
from callstream.cli._stream_file import DONE, InputError, Record, Recording, Source, load_text
from callstream.examples import EXAMPLES, read_example
from callstream.providers import FORMATS, detect_format, resolve_format

__all__ = ("BASE_INTERVAL", "MIN_SPEED", "Prepared", "ReplayStats", "prepare", "replay", "warm_up")

BASE_INTERVAL = 0.02
"""Seconds between two payloads that change something, at ``--speed 1`` (50 a second)."""

MIN_SPEED = 0.001
"""The slowest ``--speed`` besides 0: a pause of at most ``BASE_INTERVAL / MIN_SPEED``
(20 s) between two payloads. A slower one would sleep for hours or years (and past
``time.sleep``'s range, overflow): it is refused with the other bad command lines."""


@dataclass(slots=True, eq=False)
class Prepared:
    """The items to feed callstream, the format they are in, and the recording's size in
    bytes (as read: the file's bytes, whatever ``--split`` makes of its payloads).

    ``items`` is a tuple for a recording held in memory and a one-shot iterator for a
    streamed file; ``bytes`` is then set once the items are all produced.
    """

    items: Iterable[Any]
    format: str | None
    bytes: int = 0


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
    """A payload read from the file as JSON text again (to feed as SSE text): exactly
    ``json.dumps`` (it is input, not output: nothing is replaced), at any depth."""
    return dumps_bounded(payload, max_depth=None, separators=(",", ":"))


def _sse_event(event: str | None, payload: Any) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {_serialize(payload)}\n\n"


def prepare(
    recording: Recording | Source, *, provider: str = "auto", split: int | None = None
) -> Prepared:
    """Check the format and build the items to feed (re-cut when ``split`` is given).

    A :class:`Recording` gives a tuple of items; a streamed :class:`Source` gives a lazy
    iterator (its records are read while the items are consumed). With
    ``provider="auto"`` the records are read up to the first one naming a format (at most
    :data:`~callstream._pipeline.MAX_UNRECOGNIZED` + 1, held in memory).

    Raises:
        InputError: no payload identifies a known format (with ``provider="auto"``), or
            reading the source failed.
    """
    records = recording.stream()
    held: list[Record] = []
    if provider == "auto":
        wire_format = None
        for record in records:
            held.append(record)
            if record.payload is not DONE:
                wire_format = detect_format(record.payload)
                if wire_format is not None or len(held) > MAX_UNRECOGNIZED:
                    break
        if wire_format is None:
            first = next((record for record in held if record.payload is not DONE), None)
            where = f"{recording.name}:{first.line}" if first else recording.name
            raise InputError(
                f"{where}: unrecognized stream format; "
                f"pass --provider with one of: {', '.join(FORMATS)}"
            )
    else:
        wire_format = resolve_format(provider)
    prepared = Prepared((), wire_format)
    items = _items(_chain(held, records), recording.layout, wire_format, split)
    if isinstance(recording, Recording):
        prepared.items = tuple(items)
        prepared.bytes = recording.size
    else:
        prepared.items = _counted(items, prepared, recording)
    return prepared


def _chain(held: list[Record], rest: Iterator[Record]) -> Iterator[Record]:
    """The records read ahead, then the rest; each let go once passed on (one long payload
    is not held through the whole replay)."""
    held.reverse()
    while held:
        yield held.pop()
    yield from rest


def _counted(items: Iterator[Any], prepared: Prepared, source: Source) -> Iterator[Any]:
    yield from items
    prepared.bytes = source.size


def _items(
    records: Iterable[Record],
    layout: str,
    wire_format: str | None,
    split: int | None,
) -> Iterator[Any]:
    # a recording's payloads go back as the SSE events they were; raw text as it is
    sse = layout in ("sse", "recording")
    for record in records:
        if record.payload is DONE:
            if sse:
                yield "data: [DONE]\n\n"
            continue
        payloads: Iterable[Any] = (
            (record.payload,) if split is None else resplit((record.payload,), wire_format, split)
        )
        for payload in payloads:  # made one at a time: one long payload is not held re-cut
            yield _sse_event(record.event, payload) if sse else payload


_WARM: list[bool] = []
"""Not empty once :func:`warm_up` ran in this process."""


def warm_up() -> None:
    """Replay every bundled example once, untimed, unshown (once per process), so that a
    timed replay after it measures callstream's steady cost per chunk and not the modules
    it imports on first use (the translators, the transport, the LangChain reader).

    Cost: the first call, the imports a replay would make anyway and the examples (~500
    payloads, about a millisecond compiled); later calls, nothing.
    """
    if _WARM:
        return
    _WARM.append(True)
    for example in EXAMPLES.values():
        recording = load_text(read_example(example.name), example.filename)
        replay(prepare(recording), provider="auto", on_update=lambda update: None)


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
    stats = ReplayStats()
    pipeline = Pipeline(provider)
    clock = time.perf_counter
    for item in prepared.items:
        stats.chunks += 1
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
    stats.bytes = prepared.bytes
    return stats
