"""Whether the callstream under test is the mypyc-compiled build (for tests that cannot hold
compiled: they subclass or monkeypatch a compiled class, or read a signature)."""

from __future__ import annotations

import importlib

import pytest


def _compiled() -> bool:
    try:
        build = importlib.import_module("callstream._build")
    except ImportError:
        build = None
    if build is not None and hasattr(build, "COMPILED"):
        return bool(build.COMPILED)
    parser = importlib.import_module("callstream._json.parser")
    return not str(parser.__file__).endswith(".py")


COMPILED = _compiled()

skip_if_compiled = pytest.mark.skipif(
    COMPILED, reason="inspects internals a compiled (mypyc) build does not have"
)
