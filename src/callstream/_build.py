"""Which build runs: the mypyc-compiled hot modules or pure Python (standard library only).

An install with a C compiler compiles the modules listed in ``pyproject.toml``
(``[tool.callstream.compile]``) from the same source, writing the compiled files beside
the sources and ``_compiled.json`` with what each was built from (``hatch_build.py``).
Python would import a compiled file before its source, so an edited source must never be
shadowed silently: at import, each listed source is checked against the record (size
and modification time; on a difference, its SHA-256). If one changed, or
``CALLSTREAM_PURE=1`` is set, every callstream module is imported from its source (a
compiled module calls its compiled neighbours directly, so the build is used whole or not
at all), with one warning naming the changed file when that is the cause.

Cost: one ``stat`` per compiled module at import (a hash only for a changed one).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ("COMPILED", "REASON")

_PACKAGE = Path(__file__).resolve().parent
_RECORD = _PACKAGE / "_compiled.json"


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
        source = Path(spec.origin or "").parent / (name.rpartition(".")[2] + ".py")
        if not source.is_file():
            return spec
        return importlib.util.spec_from_file_location(name, source)


def _changed(modules: dict[str, Any]) -> str | None:
    """The first compiled module whose source is not what it was built from, or None."""
    for name, built in modules.items():
        source = _PACKAGE.parent / (name.replace(".", "/") + ".py")
        try:
            stat = source.stat()
            if (stat.st_size, stat.st_mtime_ns) == (built["size"], built["mtime_ns"]):
                continue
            if hashlib.sha256(source.read_bytes()).hexdigest() == built["sha256"]:
                continue
        except (OSError, KeyError, TypeError):
            pass
        return str(source)
    return None


def _select() -> tuple[bool, str]:
    """(compiled?, why not) for this process; installs the source-first finder when the
    compiled files must not be used."""
    if not _RECORD.is_file():
        return False, "pure Python install (no compiled modules)"
    try:
        record = json.loads(_RECORD.read_text(encoding="utf-8"))
        modules = dict(record["modules"])
        built_for = record["python"]
    except (OSError, ValueError, KeyError, TypeError):
        sys.meta_path.insert(0, _SourceFirst)
        return False, "the record of the compiled build is unreadable"
    if os.environ.get("CALLSTREAM_PURE") == "1":
        sys.meta_path.insert(0, _SourceFirst)
        return False, "CALLSTREAM_PURE=1"
    if built_for != sys.implementation.cache_tag:
        sys.meta_path.insert(0, _SourceFirst)
        return False, f"compiled for {built_for}, running {sys.implementation.cache_tag}"
    changed = _changed(modules)
    if changed is not None:
        sys.meta_path.insert(0, _SourceFirst)
        warnings.warn(
            f"callstream: {changed} changed after it was compiled: running pure Python "
            "(rebuild with `pip install -e .`)",
            RuntimeWarning,
            stacklevel=2,
        )
        return False, f"{changed} changed after it was compiled"
    return True, "compiled with mypyc"


COMPILED: bool
"""True when the mypyc-compiled hot modules run, False for pure Python."""
REASON: str
"""Why this build runs (``"compiled with mypyc"``, ``"CALLSTREAM_PURE=1"``, ...)."""
COMPILED, REASON = _select()
