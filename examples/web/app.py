"""Live tool calls in a browser, over the Vercel AI SDK UI stream and AG-UI.

A small Starlette app that replays callstream's bundled example streams the way a
provider would send them (one line at a time, paced), reads them with
:func:`callstream.astream` and sends the updates in two UI protocols; the page in
``static/`` reads either one with ``fetch`` and renders the text, each call's growing
argument text, and the final argument tree (or the reason a call is invalid)::

    pip install -e '.[web]'          # from the repository root: starlette + uvicorn
    python examples/web/app.py       # then open the printed address

Routes:

- ``GET /``                       the page (``static/index.html``; ``static/app.js``)
- ``GET /api/examples``           JSON list of the examples: ``name``, ``format``, ``summary``
- ``GET /api/vercel?example=NAME&delay=MS``
                                  the replay as a Vercel AI SDK UI message stream (v1):
                                  :func:`callstream.ui.vercel_stream` with
                                  :data:`callstream.ui.VERCEL_HEADERS`
- ``GET /api/agui?example=NAME&delay=MS``
                                  the replay as AG-UI events: :func:`callstream.ui.agui_stream`

``delay`` is the pause in milliseconds after each line of the recording that carries a
payload (default 40, at most 2000, 0 for none). When the client goes away mid-stream the
response ends at the next event and the replay is closed (with a provider, its HTTP
stream would be), instead of being generated to its end into a closed connection. The
app is a dependency-light example, not part of the library: ``starlette`` and
``uvicorn`` come with the ``web`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from collections.abc import AsyncIterable, AsyncIterator, Callable
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import callstream
import callstream.ui
from callstream.examples import EXAMPLES, read_example

STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_DELAY_MS = 40
MAX_DELAY_MS = 2000
AGUI_HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}


async def replay(text: str, delay: float) -> AsyncIterator[str]:
    """Yield a recording's lines as transport chunks, pausing ``delay`` seconds after
    each line that carries something (not after blank lines or SSE ``event:`` lines)."""
    for line in text.splitlines(keepends=True):
        yield line
        if delay > 0 and line.strip() and not line.startswith("event:"):
            await asyncio.sleep(delay)


async def while_connected(
    request: Request,
    source: AsyncIterable[str],
    encode: Callable[[AsyncIterator[callstream.StreamUpdate]], AsyncIterator[str]],
) -> AsyncIterator[str]:
    """The protocol's events for ``source``, until the client is gone.

    ``callstream.astream`` is used as a context manager, so leaving (the client went
    away, or the server cancelled the response) closes the source at once: a provider's
    stream stops there, and no further events are made only to fail on a closed
    connection (a server that does not stop the app logs each failed send).
    """
    async with callstream.astream(source) as updates:
        async for frame in encode(updates):
            if await request.is_disconnected():
                return
            yield frame


def _replay_options(request: Request) -> tuple[str, float] | Response:
    """The example's text and the delay in seconds, or an error response."""
    name = request.query_params.get("example", "")
    if name not in EXAMPLES:
        return JSONResponse(
            {"error": f"unknown example {name!r}", "examples": list(EXAMPLES)}, status_code=404
        )
    try:
        delay_ms = int(request.query_params.get("delay", DEFAULT_DELAY_MS))
    except ValueError:
        return JSONResponse({"error": "delay must be an integer (milliseconds)"}, 400)
    delay_ms = min(max(delay_ms, 0), MAX_DELAY_MS)
    return read_example(name), delay_ms / 1000


async def vercel(request: Request) -> Response:
    """The replay as a Vercel AI SDK UI message stream."""
    options = _replay_options(request)
    if isinstance(options, Response):
        return options
    text, delay = options
    frames = while_connected(request, replay(text, delay), callstream.ui.vercel_stream)
    return StreamingResponse(frames, headers=callstream.ui.VERCEL_HEADERS)


async def agui(request: Request) -> Response:
    """The replay as AG-UI events."""
    options = _replay_options(request)
    if isinstance(options, Response):
        return options
    text, delay = options
    frames = while_connected(request, replay(text, delay), callstream.ui.agui_stream)
    return StreamingResponse(frames, headers=AGUI_HEADERS)


async def examples(request: Request) -> Response:
    """The bundled examples the page offers."""
    return JSONResponse(
        [{"name": e.name, "format": e.format, "summary": e.summary} for e in EXAMPLES.values()]
    )


async def index(request: Request) -> Response:
    """The page."""
    return FileResponse(STATIC / "index.html")


app = Starlette(
    routes=[
        Route("/", index),
        Route("/api/examples", examples),
        Route("/api/vercel", vercel),
        Route("/api/agui", agui),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
)


def main(argv: list[str] | None = None) -> int:
    """Serve the app on 127.0.0.1 (``--port 0`` picks a free port) and print its address."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    host, port = sock.getsockname()[:2]
    print(f"callstream web example on http://{host}:{port}/  (Ctrl-C to stop)", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
