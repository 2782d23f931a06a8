"""Which build runs: the mypyc-compiled hot modules or pure Python (standard library only).

A compiled wheel (built with ``CALLSTREAM_COMPILE=1``, see
``docs/design.md``, "Build") holds each compiled module's extension file beside its ``.py``
source; a source install (``pip install .``, ``pip install -e .``, the sdist, the pure
wheel) holds no compiled file at all, so an edited source always takes effect.

Python imports an extension module before a source of the same name. With
``CALLSTREAM_PURE=1`` in the environment this module puts a finder first on
``sys.meta_path`` that imports every ``callstream`` module from its ``.py`` file: a
compiled module calls its compiled neighbours directly, so the build is used whole or not
at all. It is imported first by ``callstream/__init__.py``, before any other module of
the package loads, and is never compiled itself.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ("COMPILED", "REASON")

_PROBE = "callstream._json.parser"
"""A module every compiled build compiles: whether its file is an extension module says
which build is installed."""


class _SourceFirst:
    """A meta-path finder that imports callstream modules from their ``.py`` files even
    where a compiled file sits beside them."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith("callstream."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return spec
        source = os.path.join(os.path.dirname(spec.origin or ""), name.rpartition(".")[2] + ".py")
        if not os.path.isfile(source):
            return spec
        return importlib.util.spec_from_file_location(name, source)


def _installed_compiled() -> bool:
    """Whether the compiled modules are installed (without importing any of them)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_json")
    found = importlib.machinery.PathFinder.find_spec(_PROBE, [folder])
    return found is not None and isinstance(found.loader, importlib.machinery.ExtensionFileLoader)


def _select() -> tuple[bool, str]:
    """(compiled?, why) for this process; installs the source-first finder when
    ``CALLSTREAM_PURE=1`` asks for pure Python over a compiled install."""
    if not _installed_compiled():
        return False, "pure Python install (no compiled modules)"
    if os.environ.get("CALLSTREAM_PURE") == "1":
        sys.meta_path.insert(0, _SourceFirst)
        return False, "CALLSTREAM_PURE=1"
    return True, "compiled with mypyc"


COMPILED: bool
"""True when the mypyc-compiled hot modules run, False for pure Python."""
REASON: str
"""Why this build runs (``"compiled with mypyc"``, ``"CALLSTREAM_PURE=1"``, ...)."""
COMPILED, REASON = _select()
