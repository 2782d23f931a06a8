"""The public API: ``callstream.__all__`` is complete, importable and deliberate."""

from __future__ import annotations

import ast
from pathlib import Path

import callstream

INIT = Path(callstream.__file__)


def test_all_is_a_sorted_tuple_of_unique_importable_names() -> None:
    names = callstream.__all__
    assert isinstance(names, tuple)
    assert len(set(names)) == len(names)
    assert list(names) == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert getattr(callstream, name) is not None or name == "MISSING", name


def test_every_re_export_is_in_all_and_explicit() -> None:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    exported = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                assert alias.asname == alias.name, f"re-export {alias.name} as itself (X as X)"
                exported.add(alias.name)
    assert exported == set(callstream.__all__)


def test_public_objects_have_docstrings() -> None:
    for name in callstream.__all__:
        obj = getattr(callstream, name)
        if callable(obj) and not isinstance(obj, type(callstream.Allow.STR)):
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
