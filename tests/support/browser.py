"""Debian's Chromium, driven headless by playwright (no browser download), for the tests
that open a page: the web example (``tests/ui``) and the documentation site
(``tests/docs``). ``CALLSTREAM_CHROMIUM`` names another binary.

Without Chromium or playwright those tests skip with the reason; under ``CI=true`` they
fail instead, since CI installs both and nothing may be skipped there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ("CHROMIUM", "CHROMIUM_ARGS", "ON_CI", "browser", "unavailable")

CHROMIUM = Path(os.environ.get("CALLSTREAM_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
ON_CI = os.environ.get("CI") == "true"


def unavailable(why: str) -> None:
    """Skip with the reason, or fail under ``CI=true``, where nothing may be skipped."""
    if ON_CI:
        pytest.fail(f"CI=true but {why}", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium, one per test module (registered in ``tests/conftest.py``)."""
    if not CHROMIUM.exists():
        unavailable(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
