"""The model's raw output as text pieces (``provider="text"``) -> assembler signals.

The source of an in-process model or a raw engine: what a transformers
``TextIteratorStreamer``, vLLM's ``LLM`` / ``AsyncLLM`` outputs (their ``.text`` deltas),
llama-cpp-python or MLX's ``stream_generate`` (each response's ``.text``) yield, as an
iterator or async iterator of ``str`` pieces. There is no wire format around the text:

- each ``str`` piece is one text delta, verbatim: no line splitting, no stripping, no
  decoding of any kind (a piece that looks like SSE or JSON is text like any other);
  an empty piece gives nothing;
- ``bytes`` / ``bytearray`` / ``memoryview`` pieces are UTF-8, decoded incrementally: a
  character cut between two pieces comes out whole with the second, and bytes that are
  not UTF-8 become U+FFFD (never an error). A ``str`` piece after bytes that ended inside
  a character makes that character U+FFFD first; so does the end of the stream;
- a piece of any other type (a dict, an SDK object) has nothing of this format: it gives
  no signal and counts as foreign (the pipeline's foreign-payload rule refuses a stream
  of them, naming the format they look like).

The text carries no tool calls by itself: calls written in it are read by a tool parser
(``tool_parser=``). The stream ends when the source does: :meth:`TextTranslator.end`
gives the last partial character (as U+FFFD) and ``StreamEnd(reason=None)``. The finish
reason is None because raw text does not say why it stopped (the end-of-sequence token
and a ``max_tokens`` cut look the same); :attr:`~callstream.StreamResult.finish_reason`
is None when "the stream gave none". An interrupted source drops a partial character,
as the transport decoders drop a partial line.

``"text"`` is never chosen by ``provider="auto"`` (:func:`detect` is always False): any
text could be the model's, so auto-detection keeps reading a ``str`` source as SSE or
JSON lines, and ``provider="text"`` must be named. Cost: O(length of the piece).
"""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.types import Signal, StreamEnd, TextDelta
from callstream.providers._base import unreadable
from callstream.providers._chunks import ChunkText, is_transport_chunk
from callstream.providers._text import text_value

__all__ = ("TextTranslator", "detect", "recognizes")

TAKES_RAW_TEXT: Final = True
"""The pipeline gives this format's translator the source's ``str`` / bytes items as
they are, instead of decoding them as SSE or JSON (the one format that does)."""


def detect(payload: Any) -> bool:
    """Always False: raw text is never auto-detected (see the module docstring)."""
    return False


def recognizes(payload: Any) -> bool:
    """True for a text piece (``str`` or bytes-like, an empty one too): the only items of
    this format. Cost: O(1)."""
    return is_transport_chunk(payload)


class TextTranslator:
    """Translate raw text pieces (``str`` verbatim, bytes as UTF-8) into text deltas."""

    name = "text"
    takes_raw_text = TAKES_RAW_TEXT

    def __init__(self) -> None:
        self._decoder = ChunkText()
        self._bytes = False  # bytes were decoded: a partial character may be held

    def translate(self, payload: Any) -> list[Signal]:
        """The text of one piece (nothing for an empty piece, a partial character or a
        payload that is no text). Never raises."""
        if type(payload) is str and not self._bytes:  # the common case: as it is
            return [TextDelta(payload)] if payload else []
        if not is_transport_chunk(payload):
            return []
        try:
            if isinstance(payload, str):  # after bytes (or a str subclass): its characters
                self._bytes = False
                payload = text_value(payload) or ""
            else:
                self._bytes = True
            text = self._decoder.decode(payload)
        except Exception as exc:  # a memoryview that is no byte buffer, say
            return unreadable(self.name, "text piece", exc)
        return [TextDelta(text)] if text else []

    def end(self) -> list[Signal]:
        """The end of the source: a partial character left (as U+FFFD), then the end of
        the stream, without a reason (see the module docstring). Cost: O(1)."""
        rest = self._decoder.flush()
        signals: list[Signal] = [TextDelta(rest)] if rest else []
        signals.append(StreamEnd(reason=None))
        return signals
