"""Where the test corpora outside the project live: the one place that says so.

``../shared/recorded-streams`` (real recordings from other projects' test suites) and
``../shared/peers`` (third-party conformance data), next to the repository, are read in
place and never copied into the project. ``CALLSTREAM_RECORDED_STREAMS`` and
``CALLSTREAM_PEERS`` name other folders.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.paths import ROOT

SHARED = ROOT.parent / "shared"

RECORDED_STREAMS = Path(
    os.environ.get("CALLSTREAM_RECORDED_STREAMS") or SHARED / "recorded-streams"
)
"""The recorded provider streams (INDEX.md, one .jsonl per stream, expected/)."""

PEERS = Path(os.environ.get("CALLSTREAM_PEERS") or SHARED / "peers")
"""Third-party conformance data (README.md, jsontestsuite/, jiter/, vectors/ ...)."""
