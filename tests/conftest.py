"""Test-session hooks: hypothesis without deadlines, the shared ``browser`` fixture, and one
line in the summary when an outside corpus is absent."""

from __future__ import annotations

from typing import Any

from hypothesis import settings

from tests.support.corpus import PEERS, RECORDED_STREAMS

pytest_plugins = ("tests.support.browser",)  # the headless Chromium fixture, ``browser``

# No per-example deadline: a deadline is a timing assert, and on a loaded shared machine it
# fails tests whose code is correct. Costs are checked as ratios (tests/growth) instead.
settings.register_profile("callstream", deadline=None)
settings.load_profile("callstream")


def _missing() -> list[str]:
    missing = []
    if not RECORDED_STREAMS.is_dir():
        missing.append(
            f"recorded provider streams not found at {RECORDED_STREAMS} "
            "(set CALLSTREAM_RECORDED_STREAMS): their acceptance tests were skipped"
        )
    if not PEERS.is_dir():
        missing.append(
            f"third-party conformance data not found at {PEERS} "
            "(set CALLSTREAM_PEERS): the conformance tests were skipped"
        )
    return missing


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per absent corpus, at the end where nobody misses it."""
    for line in _missing():
        terminalreporter.write_line(f"callstream: {line}", yellow=True, bold=True)
