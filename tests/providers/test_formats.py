"""Every per-format table of every layer is keyed by the format registry (or built from it).

Each table is compared with what the registry says it must hold by set (or dict)
equality, not inclusion: a format added to the registry and missing from one table, or a
table entry of no registry format, fails (:func:`test_dropping_one_entry_fails` shows it
for every table).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import callstream.providers as providers
from callstream.cli import _split
from callstream.providers import _formats
from callstream.providers._formats import DIALECTS, FORMATS, REGISTRY, lookup, lookup_dialect
from callstream.runner import _messages
from callstream.testing import _formats as _writers
from callstream.testing import _stream, _transport, _wire

NAMES = {entry.name for entry in REGISTRY}
#: the formats with calls of their own (the raw-text ones carry them only as text)
CALL_NAMES = {entry.name for entry in REGISTRY if not entry.raw_text}
#: the dialects callstream.testing writes
WRITTEN = {name: dialect for name, dialect in DIALECTS.items() if dialect.writer is not None}


def _dialects(test: Callable[[_formats.Dialect], bool] = lambda d: True) -> set[str]:
    return {name for name, dialect in WRITTEN.items() if test(dialect)}


def _translator_modules() -> set[str]:
    """The modules of ``callstream.providers`` that hold a translator: a ``detect``."""
    folder = Path(providers.__file__).parent
    return {
        path.stem
        for path in folder.glob("*.py")
        if "\ndef detect(" in path.read_text(encoding="utf-8")
    }


#: name -> (the table as the layer has it, what the registry says it must be)
TABLES: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "providers._REGISTRY": (lambda: set(providers._REGISTRY), lambda: NAMES),
    "providers: detection order": (
        lambda: tuple(providers._REGISTRY),
        lambda: (
            *(
                e.name
                for e in sorted(REGISTRY, key=lambda e: e.detection_rank or 0)
                if e.detection_rank is not None
            ),
            *(e.name for e in REGISTRY if e.detection_rank is None),
        ),
    ),
    "providers.RAW_TEXT_FORMATS": (
        lambda: set(providers.RAW_TEXT_FORMATS),
        lambda: NAMES - CALL_NAMES,
    ),
    "providers.FORMATS": (lambda: set(providers.FORMATS), lambda: NAMES),
    "providers: translator modules": (
        _translator_modules,
        lambda: {entry.module for entry in REGISTRY},
    ),
    "runner._messages._FORMATS": (lambda: set(_messages._FORMATS), lambda: CALL_NAMES),
    "cli._split.SPLIT_FORMATS": (
        lambda: set(_split.SPLIT_FORMATS),
        lambda: {e.name for e in REGISTRY if e.recut is not None},
    ),
    "cli._split._SLOT_FINDERS": (
        lambda: set(_split._SLOT_FINDERS),
        lambda: {e.name for e in REGISTRY if e.recut == "slot"},
    ),
    "testing._formats.WRITERS": (lambda: set(_writers.WRITERS), _dialects),
    "testing.FORMATS": (lambda: set(_stream.FORMATS), _dialects),
    "testing.ENDPOINTS": (
        lambda: dict(_transport.ENDPOINTS),
        lambda: {n: d.endpoint for n, d in WRITTEN.items() if d.endpoint is not None},
    ),
    "testing.CONTENT_TYPES": (
        lambda: dict(_transport.CONTENT_TYPES),
        lambda: {n: d.content_type for n, d in WRITTEN.items() if d.endpoint is not None},
    ),
    "testing._wire.WIRE_FORMATS": (
        lambda: set(_wire.WIRE_FORMATS),
        lambda: _dialects(lambda d: d.framing in ("sse", "sse-named", "ndjson")),
    ),
    "testing._wire.BYTE_FORMATS": (
        lambda: set(_wire.BYTE_FORMATS),
        lambda: _dialects(lambda d: d.framing is not None),
    ),
    "testing._wire._NAMED_EVENTS": (
        lambda: set(_wire._NAMED_EVENTS),
        lambda: _dialects(lambda d: d.framing == "sse-named"),
    ),
}


def _drop_one(table: Any) -> Any:
    """``table`` without its first entry."""
    if isinstance(table, dict):
        return dict(list(table.items())[1:])
    if isinstance(table, tuple):
        return table[1:]
    return set(sorted(table)[1:])


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_holds_every_format(name: str) -> None:
    actual, expected = TABLES[name]
    assert actual() == expected()


@pytest.mark.parametrize("name", sorted(TABLES))
def test_dropping_one_entry_fails(name: str) -> None:
    """The comparison above is equality: a table that lacks one format fails it."""
    actual, expected = TABLES[name]
    assert _drop_one(actual()) != expected()


def test_every_entry_names_its_modules() -> None:
    for entry in REGISTRY:
        module = importlib.import_module(f"callstream.providers.{entry.module}")
        assert isinstance(getattr(module, entry.translator), type), entry.name
        assert callable(getattr(module, entry.recognizer)), entry.name
        assert getattr(module, entry.translator)().name == entry.name
        assert entry.reader == f"callstream.providers.{entry.module}.{entry.translator}"
        assert entry.dialects[0].name == entry.name
        for dialect in entry.dialects:
            assert dialect.format == entry.name
            if dialect.writer is None:  # a raw-text format: its calls are a tool parser's
                assert entry.raw_text and dialect is entry.dialects[0], entry.name
                continue
            module_name = dialect.writer.rsplit(".", 1)[1]
            assert dialect.writer.startswith("callstream.testing._formats.")
            assert module_name == dialect.name.replace("-", "_")


def test_writer_modules_match_the_registry() -> None:
    """The testing writers, one module per dialect, once they are split out."""
    folder = Path(_writers.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    assert modules == {d.writer.rsplit(".", 1)[1] for d in WRITTEN.values() if d.writer}


def test_no_name_is_given_twice() -> None:
    names = [n for entry in REGISTRY for n in (entry.name, *FORMATS[entry.name])]
    assert len(names) == len(set(names))
    for name in names:
        assert name == _formats.normalize(name)
        assert lookup(name).name in NAMES
        assert lookup_dialect(name).name in DIALECTS


def test_an_alias_of_a_format_writes_its_first_dialect() -> None:
    assert lookup_dialect("openai").name == "openai-chat"
    assert lookup_dialect("Vertex_AI").name == "vertex"
    assert lookup("vertex").name == "gemini"
    assert lookup("langchain_events").name == "langchain"
