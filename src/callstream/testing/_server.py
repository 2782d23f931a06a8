"""``serve``: a :class:`~callstream.testing.MockProvider` behind a real loopback HTTP server,
for clients that need a socket (botocore's Bedrock client, ``requests``, raw HTTP).

The server is the standard library's threading HTTP server on ``127.0.0.1``; each reply
is sent with chunked transfer encoding, one HTTP chunk per stream chunk, flushed as it is
written, so the chunk boundaries reach the client's socket as they were written.

A client that lets go early (closes or resets its connection mid-reply, or before its
request is read) is answered quietly, as a server answers a hang-up: that connection
ends, nothing is printed. Any other error of a connection's thread is printed as the
standard library prints it (a bug to see). When the ``with`` block exits, the server
stops, every connection still open is closed and its thread has ended, so nothing of
it runs, or prints, after the block.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from callstream._errors import OptionTypeError
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
                with contextlib.suppress(OSError):  # the client may have gone already
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: what was asked is in ``mock.requests``."""

    return Handler


class _Server(ThreadingHTTPServer):
    """The threading HTTP server, quiet when a client lets go, whose connections are
    closed and their threads joined by :meth:`close_connections`."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._lock = threading.Lock()
        self._open: dict[threading.Thread, socket.socket] = {}

    def process_request(self, request: Any, client_address: Any) -> None:
        """One thread per connection, listed (in the serving thread, before it starts)
        until it ends."""
        thread = threading.Thread(
            target=self._run, args=(request, client_address), name="callstream-serve-conn"
        )
        thread.daemon = True
        with self._lock:
            self._open[thread] = request
        thread.start()

    def _run(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._open.pop(threading.current_thread(), None)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that let go (a reset, a closed pipe) is no error of the server's:
        nothing is printed. Anything else is printed as the standard library does."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def close_connections(self) -> None:
        """Close every connection still open and wait for its thread (after
        ``shutdown``: no new one starts). A thread blocked reading or writing sees its
        socket end; one pacing its chunks, at its next write."""
        with self._lock:
            still = list(self._open.items())
        for _, request in still:
            with contextlib.suppress(OSError):
                request.shutdown(socket.SHUT_RDWR)
        for thread, _ in still:
            thread.join()


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

    A client that lets go early is answered quietly (its connection ends, nothing is
    printed). When the block exits, the server is shut down, every connection still
    open is closed and its thread joined, and the listening socket is closed.

    Cost: one thread for the server and one per connection.
    """
    if not isinstance(mock, MockProvider):
        raise OptionTypeError(f"serve takes a MockProvider, not {mock!r:.80}")
    server = _Server((host, port), _handler_class(mock))
    thread = threading.Thread(target=server.serve_forever, name="callstream-serve", daemon=True)
    thread.start()
    try:
        bound_host, bound_port = server.server_address[:2]
        shown = bound_host if isinstance(bound_host, str) else bound_host.decode()
        yield f"http://{shown}:{bound_port}"
    finally:
        server.shutdown()
        server.close_connections()
        server.server_close()
        thread.join()
