"""The translator protocol and the chunk constructor every provider format shares.

The helpers translators use live in their own modules: the field accessors that never
raise (:mod:`callstream.providers._fields`), values as plain JSON data
(:mod:`callstream.providers._plain`), unusable indexes and the calls they name
(:mod:`callstream.providers._bad_index`) and the arguments rule
(:mod:`callstream.providers._arguments`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from callstream._assembly.types import CallChunk, Signal, TextDelta
from callstream._types import fast_constructor

__all__ = ("Translator", "text_delta", "tool_chunk")


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


tool_chunk: Callable[[int | None, str | None, str | None, str | dict[str, Any] | None], CallChunk]
tool_chunk = fast_constructor(CallChunk, unchecked=True)
tool_chunk.__doc__ = """``tool_chunk(index, id, name, args)``: the
:class:`~callstream.CallChunk` every translator emits for a fragment of a call, equal to
``CallChunk(index=..., id=..., name=..., args=...)``.

Built without :class:`CallChunk`'s field checks (a generated constructor, see
:func:`~callstream._types.fast_constructor`): translators pass what this package's
accessors return (:func:`get_index`, :func:`get_str`, a plain dict or str for ``args``),
so the fields already have their types. Cost: O(1).
"""


text_delta: Callable[[str, bool], TextDelta] = fast_constructor(TextDelta, unchecked=True)
text_delta.__doc__ = """``text_delta(text, reasoning)``: the :class:`~callstream.TextDelta`
a translator emits for a piece of the model's text (``reasoning=True`` for reasoning /
thinking text), equal to ``TextDelta(text=..., reasoning=...)``. Translators pass a plain
``str`` (what :func:`~callstream.providers._fields.get_str` returns) and never ``""``.
Cost: O(1).
"""
