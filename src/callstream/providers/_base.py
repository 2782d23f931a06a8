"""The translator protocol every provider format implements.

The helpers translators use live in their own modules: the field accessors that never
raise (:mod:`callstream.providers._fields`), values as plain JSON data
(:mod:`callstream.providers._plain`), unusable indexes and the calls they name
(:mod:`callstream.providers._bad_index`) and the arguments rule
(:mod:`callstream.providers._arguments`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from callstream._assembly.types import Signal

__all__ = ("Translator",)


@runtime_checkable
class Translator(Protocol):
    """A stateful, sans-I/O translator from one provider format to assembler signals.

    One instance serves one stream (it may remember which calls it has seen). ``translate``
    takes one decoded payload and returns the signals it carries, in order: call fragments
    (:class:`~callstream.CallChunk`), ``CallEnd``, ``CallFailure``, ``ServerToolUse``,
    :class:`~callstream.TextDelta` (the assistant's text and reasoning, always reported:
    the pipeline decides what to keep) and ``StreamEnd``. Unknown event types and odd
    payloads give ``[]``; a translator never raises on provider data.

    A translator reports every end marker it sees (a stop reason and a later stop event
    give a ``StreamEnd`` each); the assembler keeps the first and ignores every signal
    after it (:meth:`~callstream.ToolCallAssembler.apply`), so no translator tracks
    whether the stream already ended.
    """

    name: str

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one payload (cost: O(size of the payload))."""
        ...
