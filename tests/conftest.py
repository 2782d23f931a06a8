"""Test-session hooks: say once, in the summary, when an outside corpus is absent."""

from __future__ import annotations

from typing import Any

from tests.support.corpus import PEERS, RECORDED_STREAMS


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
