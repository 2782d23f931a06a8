"""Whether the callstream under test is the mypyc-compiled build (for tests that cannot hold
compiled: they subclass or monkeypatch a compiled class, or read a signature)."""

from __future__ import annotations

import pytest

from callstream import COMPILED

skip_if_compiled = pytest.mark.skipif(
    COMPILED, reason="inspects internals a compiled (mypyc) build does not have"
)
