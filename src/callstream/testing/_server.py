"""``serve``: a :class:`~callstream.testing.MockProvider` behind a real loopback HTTP server,
for clients that need a socket (botocore's Bedrock client, ``requests``, raw HTTP).

The server is the standard library's threading HTTP server on ``127.0.0.1``; each reply
is sent with chunked transfer encoding, one HTTP chunk per stream chunk, flushed as it is
written, so the chunk boundaries reach the client's socket as they were written.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from callstream.testing._transport import MockProvider

__all__ = ("serve",)


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    length = handler.headers.get("content-length")
    if length is not None:
        return handler.rfile.read(int(length))
    if "chunked" not in handler.headers.get("transfer-encoding", "").lower():
        return b""
    parts: list[bytes] = []
    while True:
        size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        parts.append(handler.rfile.read(size))
        handler.rfile.readline()  # the chunk's CRLF


def _handler_class(mock: MockProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            path, _, query = self.path.partition("?")
            content = _read_body(self)
            reply = mock.respond(self.command, path, query, dict(self.headers.items()), content)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for n, chunk in enumerate(reply.chunks):
                if n and reply.pace:
                    time.sleep(reply.pace)
                if chunk:  # an empty HTTP chunk would end the body
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            if reply.dropped:  # no last chunk: the client sees the connection go mid-body
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: what was asked is in ``mock.requests``."""

    return Handler


@contextmanager
def serve(mock: MockProvider, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``mock`` over HTTP on a loopback socket while the ``with`` block runs.

    Yields the base URL (``http://127.0.0.1:<port>``): give it to the client as its
    endpoint (``endpoint_url=`` for botocore, ``base_url=`` for the SDKs). Each request
    is answered by :meth:`MockProvider.respond`, in chunked transfer encoding, one HTTP
    chunk per stream chunk (``mock.pace`` seconds apart); a stream written with the
    ``dropped-connection`` quirk ends by closing the socket without the last chunk.

    Args:
        mock: the scripted provider to serve.
        host: the address to listen on (keep the loopback default in tests).
        port: the port; 0 picks a free one.

    Cost: one thread for the server and one per connection; the server is shut down and
    its socket closed when the block exits.
    """
    if not isinstance(mock, MockProvider):
        raise TypeError(f"serve takes a MockProvider, not {mock!r:.80}")
    server = ThreadingHTTPServer((host, port), _handler_class(mock))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="callstream-serve", daemon=True)
    thread.start()
    try:
        bound_host, bound_port = server.server_address[:2]
        shown = bound_host if isinstance(bound_host, str) else bound_host.decode()
        yield f"http://{shown}:{bound_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
