"""The public API: ``callstream.__all__`` is complete, importable and deliberate."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import callstream
from tests.support.compiled_build import skip_if_compiled

INIT = Path(callstream.__file__)


def test_all_is_a_sorted_tuple_of_unique_importable_names() -> None:
    names = callstream.__all__
    assert isinstance(names, tuple)
    assert len(set(names)) == len(names)
    assert list(names) == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert getattr(callstream, name) is not None or name == "MISSING", name


def _top_level_and_type_checking(tree: ast.Module) -> list[ast.stmt]:
    nodes: list[ast.stmt] = []
    for node in tree.body:
        is_type_checking = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        nodes.extend(node.body if is_type_checking else [node])
    return nodes


def test_every_re_export_is_in_all_and_explicit() -> None:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    exported = set()
    for node in _top_level_and_type_checking(tree):
        if isinstance(node, ast.ImportFrom) and node.module not in ("__future__", "typing"):
            for alias in node.names:
                assert alias.asname == alias.name, f"re-export {alias.name} as itself (X as X)"
                exported.add(alias.name)
    assert exported == set(callstream.__all__)


@skip_if_compiled  # subclasses / monkeypatches a compiled class, or reads its docs
def test_public_objects_have_docstrings() -> None:
    for name in callstream.__all__:
        obj = getattr(callstream, name)
        if callable(obj) and not isinstance(obj, type(callstream.Allow.STR)):
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


def test_lazy_names_are_exactly_the_type_checking_imports() -> None:
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    lazy_imports = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                for alias in stmt.names:
                    lazy_imports[alias.name] = stmt.module
    assert lazy_imports == callstream._LAZY


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        callstream.nope


def test_core_import_loads_neither_pydantic_nor_partial_json_parser() -> None:
    """``import callstream`` and a whole ``collect()`` stay clear of the heavy imports."""
    code = (
        "import sys, callstream\n"
        "chunks = [{'id': 'c', 'object': 'chat.completion.chunk', 'choices': [{'index': 0,"
        " 'delta': {'tool_calls': [{'index': 0, 'id': 'call_1', 'type': 'function',"
        " 'function': {'name': 'f', 'arguments': '{}'}}]}, 'finish_reason': 'tool_calls'}]}]\n"
        "assert callstream.collect(chunks).tool_calls[0]['name'] == 'f'\n"
        "heavy = [m for m in ('pydantic', 'partial_json_parser', 'anyio') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
