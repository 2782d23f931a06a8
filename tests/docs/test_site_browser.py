"""The built documentation site in headless Chromium, served by a loopback HTTP server:
the home page, a guide and the API reference's pages show no console error, every
internal link on them leads to a page of the build, and no request leaves the machine
(no web font, no CDN: the site works offline).

Chromium is Debian's (``/usr/bin/chromium``, or ``CALLSTREAM_CHROMIUM``), driven by
playwright without any browser download, as ``tests/ui/test_web_example.py`` does. Without
it these tests skip with the reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

PAGES = (
    "index.html",
    "guides/tool-runner.html",
    "reference/index.html",
    "reference/drivers.html",
    "reference/runner.html",
)
"""The home page, one guide, the API reference's map and two of its pages."""


@pytest.fixture(scope="module")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (a free port), for the length of the module."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.parametrize("name", PAGES)
def test_page_is_offline_clean_and_linked(
    browser: Any, built_site: Path, site_url: str, name: str
) -> None:
    context = browser.new_context()
    requests: list[str] = []
    errors: list[str] = []

    def route(route: Any) -> None:
        url = route.request.url
        requests.append(url)
        if url.startswith((site_url, "data:", "blob:", "about:")):
            route.continue_()
        else:
            route.abort()  # never leave the machine, even when the test is about to fail

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(site_url + name, wait_until="networkidle")
        title = page.title()
        hrefs: list[str] = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    finally:
        context.close()
    assert "callstream" in title
    assert errors == [], errors
    leaving = [url for url in requests if not url.startswith((site_url, "data:", "blob:"))]
    assert leaving == [], f"requests leaving the machine: {leaving}"
    internal = [h for h in hrefs if h.startswith(site_url)]
    assert internal, "no internal link"
    missing = []
    for href in internal:
        path = built_site / urlsplit(href).path.lstrip("/")
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file():
            missing.append(href)
    assert missing == [], missing
    external = [h for h in hrefs if not h.startswith(site_url)]
    assert all(urlsplit(h).scheme in ("http", "https", "mailto") for h in external), external
