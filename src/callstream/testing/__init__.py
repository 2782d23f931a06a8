"""Provider streams written from tool calls, for testing code that reads streamed tool calls.

:func:`stream_of` writes the calls you expect an agent to receive as the payloads (or the
raw bytes, or the lines) a provider streams, cut the way that provider cuts, with the named
quirks of the servers that bend the format. Reading it back with :func:`callstream.collect`
gives the calls again, or the documented outcome of a quirk that breaks the stream
(:data:`QUIRKS`). :class:`MockProvider` serves such streams to the real SDK clients,
turn by turn, as the handler of ``httpx.MockTransport`` / ``httpx2.MockTransport`` or
behind a loopback server (:func:`serve`), and records what each client sent.
:class:`RecordingTransport` and :class:`ReplayTransport` record a real streamed
exchange chunk for chunk and answer an httpx or httpx2 client with it again.
:func:`cases` gives formats x quirks x splits as pytest parameters. Needs nothing
beyond callstream; the ``testing`` extra adds pytest and hypothesis
for the pytest plugin (``callstream.testing.pytest_plugin``, registered by entry
point) and the strategies (``callstream.testing.strategies``). The LangChain fake
(``callstream.testing.langchain``) needs langchain-core.
"""

from __future__ import annotations

from callstream.testing._cases import Case, cases, combinations
from callstream.testing._formats import ITEM_TYPES, WireCall, write_calls
from callstream.testing._record import RecordingTransport, ReplayError, ReplayTransport
from callstream.testing._recording import Exchange, Recording, load_recording
from callstream.testing._requests import RecordedRequest, SentToolResult
from callstream.testing._server import serve
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
from callstream.testing._transport import ENDPOINTS, MockProvider, Reply, Turn
from callstream.testing._wire import Encoding, encode, eventstream_message, ndjson_line, sse_event

__all__ = (
    "ENDPOINTS",
    "FORMATS",
    "ITEM_TYPES",
    "QUIRKS",
    "SPLITS",
    "Case",
    "Encoding",
    "Exchange",
    "MockProvider",
    "Quirk",
    "QuirkInfo",
    "RecordedRequest",
    "Recording",
    "RecordingTransport",
    "ReplayError",
    "ReplayTransport",
    "Reply",
    "SentToolResult",
    "Split",
    "StreamDropped",
    "Turn",
    "WireCall",
    "WireStream",
    "cases",
    "combinations",
    "encode",
    "eventstream_message",
    "load_recording",
    "ndjson_line",
    "serve",
    "sse_event",
    "stream_of",
    "write_calls",
)
