"""Serve callstream's JSON event feed as server-sent events, and a page that renders it.

Run it from a checkout (``pip install -e .`` first), then open the printed address::

    python examples/web/server.py                 # the bundled example streams
    python examples/web/server.py my_stream.jsonl # plus your own recordings

Endpoints (standard library only: ``http.server``):

- ``GET /``                      the page (``index.html`` next to this file)
- ``GET /streams``               JSON list of the streams you can replay
- ``GET /feed?stream=NAME&speed=X``
                                 ``text/event-stream``: one ``data:`` line per feed event
                                 (see docs/event-feed.md), paced like a live model
                                 (``speed`` 1 = 50 payloads a second, 0 = no pauses),
                                 then ``event: end`` so the page closes the connection
                                 instead of letting ``EventSource`` reconnect and replay.

The replay is the real thing: the recording's raw lines go to ``callstream.stream`` as
transport chunks (SSE or NDJSON, recognized automatically), exactly as bytes from a
provider would, and each assembly event is sent as ``callstream.feed.dumps_feed(event)``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlparse

from callstream import CallstreamError, stream
from callstream.examples import EXAMPLES, read_example
from callstream.feed import dumps_feed

HERE = Path(__file__).resolve().parent
INTERVAL = 0.02  # seconds between payloads that change something, at speed 1


def load_streams(files: list[str]) -> dict[str, str]:
    """Stream name -> recording text: the bundled examples, then the given files."""
    streams = {name: read_example(name) for name in EXAMPLES}
    for file in files:
        path = Path(file)
        streams[path.name] = path.read_text(encoding="utf-8")
    return streams


def feed_lines(text: str, speed: float) -> Any:
    """Yield SSE-framed feed lines for one recording, pacing between visible changes."""
    chunks = text.splitlines(keepends=True)  # raw transport chunks, one line each
    try:
        for update in stream(chunks, provider="auto"):
            if not update.events:
                continue
            for event in update.events:
                yield f"data: {dumps_feed(event)}\n\n"
            if speed > 0:
                time.sleep(INTERVAL / speed)
    except CallstreamError as error:  # an unrecognizable recording, say
        yield f"event: failure\ndata: {json.dumps({'error': str(error)})}\n\n"
    yield "event: end\ndata: {}\n\n"


class Handler(BaseHTTPRequestHandler):
    """Routes ``/``, ``/streams`` and ``/feed``; everything else is 404."""

    streams: ClassVar[dict[str, str]] = {}

    def do_GET(self) -> None:
        url = urlparse(self.path)
        if url.path in ("/", "/index.html"):
            self._send(
                HTTPStatus.OK, "text/html; charset=utf-8", (HERE / "index.html").read_bytes()
            )
        elif url.path == "/streams":
            body = json.dumps(list(self.streams)).encode()
            self._send(HTTPStatus.OK, "application/json", body)
        elif url.path == "/feed":
            query = parse_qs(url.query)
            name = query.get("stream", [""])[0]
            try:
                speed = max(0.0, float(query.get("speed", ["1"])[0]))
            except ValueError:
                speed = 1.0
            if name not in self.streams:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"unknown stream\n")
                return
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            try:
                for line in feed_lines(self.streams[name], speed):
                    self.wfile.write(line.encode("utf-8"))
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page went away
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep the terminal quiet


def make_server(host: str, port: int, files: list[str]) -> ThreadingHTTPServer:
    """Build the server (port 0 picks a free port); call ``serve_forever`` to run it."""
    handler = type("BoundHandler", (Handler,), {"streams": load_streams(files)})
    return ThreadingHTTPServer((host, port), handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="extra recordings (JSON lines or SSE text)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    server = make_server(args.host, args.port, args.files)
    host, port = server.server_address[:2]
    print(f"callstream feed demo on http://{host}:{port}/  (Ctrl-C to stop)", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
