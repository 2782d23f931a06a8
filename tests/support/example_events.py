"""The assembly events of a bundled example, for the CLI and feed tests."""

from __future__ import annotations

from callstream._assembly.types import AssemblyEvent
from callstream._pipeline import Pipeline
from callstream.cli._replay import prepare
from callstream.cli._stream_file import load_text
from callstream.examples import read_example


def events_of(name: str, split: int | None = None) -> list[AssemblyEvent]:
    """All assembly events of a bundled example, through the drivers' pipeline."""
    prepared = prepare(load_text(read_example(name), name), split=split)
    pipeline = Pipeline("auto")
    events: list[AssemblyEvent] = []
    for item in prepared.items:
        for update in pipeline.feed(item):
            events.extend(update.events)
    for update in pipeline.close():
        events.extend(update.events)
    return events
