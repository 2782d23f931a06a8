"""Provider streams written from tool calls, for testing code that reads streamed tool calls.

:func:`stream_of` writes the calls you expect an agent to receive as the payloads (or the
raw bytes, or the lines) a provider streams, cut the way that provider cuts, with the named
quirks of the servers that bend the format. Reading it back with :func:`callstream.collect`
gives the calls again, or the documented outcome of a quirk that breaks the stream
(:data:`QUIRKS`). :func:`cases` gives formats x quirks x splits as pytest parameters.
Needs nothing beyond callstream; ``pip install 'callstream[testing]'`` adds pytest and
hypothesis for the pytest plugin (``callstream.testing.pytest_plugin``, registered by
entry point) and the strategies (``callstream.testing.strategies``). The LangChain fake
(``callstream.testing.langchain``) needs langchain-core.
"""

from __future__ import annotations

from callstream.testing._cases import Case, cases, combinations
from callstream.testing._stream import (
    FORMATS,
    QUIRKS,
    SPLITS,
    Quirk,
    QuirkInfo,
    Split,
    StreamDropped,
    WireStream,
    stream_of,
)
from callstream.testing._wire import Encoding, encode, ndjson_line, sse_event
from callstream.testing._writers import WireCall, write_calls

__all__ = (
    "FORMATS",
    "QUIRKS",
    "SPLITS",
    "Case",
    "Encoding",
    "Quirk",
    "QuirkInfo",
    "Split",
    "StreamDropped",
    "WireCall",
    "WireStream",
    "cases",
    "combinations",
    "encode",
    "ndjson_line",
    "sse_event",
    "stream_of",
    "write_calls",
)
