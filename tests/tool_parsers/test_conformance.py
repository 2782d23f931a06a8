"""canitoolcall's fixtures, read by callstream's tool parsers: every fixture of every
family whose parser is registered conforms (pass or soft pass, by canitoolcall's own
checks), whole and under every split, and every split reads the same as the whole text.

Each fixture runs whole, then under canitoolcall's character strategies ``char:0`` ...
``char:5``, cut at every marker boundary +-1 (all at once, and each alone), and as a
server-sent event stream cut inside every multi-byte character; through a plain text
source and through openai-chat ``delta.content`` chunks. The families, the parser of
each and the deviations (each a policy with its reason) are in
tests/support/conformance.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

import pytest
from canitoolcall.fixtures import Fixture
from canitoolcall.pytest_plugin import assert_conforms, assert_equivalent

import callstream
from tests.support.conformance import (
    DEVIATIONS,
    as_parse,
    chat_chunks,
    inside_characters,
    markers_of,
    options,
    parse,
    skip_reason,
    splits,
    sse_bytes,
    text_source,
)


def _check(fixture: Fixture) -> None:
    reason = skip_reason(fixture)
    if reason is not None:
        pytest.skip(reason)


def _conforms(fixture: Fixture, check: Callable[[], None], key: str = "") -> None:
    """Run ``check``; a fixture listed in DEVIATIONS (under ``key + fixture.id``) must
    still fail it."""
    key += fixture.id
    if key not in DEVIATIONS:
        check()
        return
    try:
        check()
    except AssertionError:
        pytest.xfail(DEVIATIONS[key])
    pytest.fail(f"{key} is listed in DEVIATIONS but conforms now: remove it")


def test_whole_text_conforms(canitoolcall_fixture: Fixture) -> None:
    fixture = canitoolcall_fixture
    _check(fixture)
    _conforms(fixture, lambda: _whole(fixture))


def _whole(fixture: Fixture) -> None:
    whole = parse(fixture, text_source([fixture.raw_output]))
    assert_conforms(fixture, whole, soft=True)
    assert_equivalent(whole, parse(fixture, chat_chunks([fixture.raw_output])))


def test_every_split_reads_the_same(canitoolcall_fixture: Fixture) -> None:
    fixture = canitoolcall_fixture
    _check(fixture)
    _conforms(fixture, lambda: _splits(fixture))


def _splits(fixture: Fixture) -> None:
    raw = fixture.raw_output
    whole = parse(fixture, text_source([raw]))
    for label, pieces in splits(raw, markers_of(fixture)):
        assert "".join(pieces) == raw
        for source in (text_source(pieces), chat_chunks(pieces)):
            streamed = parse(fixture, source)
            try:
                assert_conforms(fixture, streamed, soft=True)
                assert_equivalent(whole, streamed)
            except AssertionError as exc:
                raise AssertionError(f"split {label}: {exc}") from None


def test_bytes_cut_inside_characters(canitoolcall_fixture: Fixture) -> None:
    fixture = canitoolcall_fixture
    _check(fixture)
    raw = fixture.raw_output
    whole = parse(fixture, text_source([raw]))
    data = sse_bytes([raw[i : i + 3] for i in range(0, len(raw), 3)])
    assert_equivalent(whole, parse(fixture, inside_characters(data)))


async def _pieces(items: Sequence[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def _async_parse(fixture: Fixture, items: Iterator[Any]) -> Any:
    async def run() -> callstream.StreamResult:
        return await callstream.acollect(
            _pieces(list(items)), provider="openai-chat", **options(fixture)
        )

    return as_parse(asyncio.run(run()))


def test_async_reads_the_same(canitoolcall_fixture: Fixture) -> None:
    fixture = canitoolcall_fixture
    _check(fixture)
    raw = fixture.raw_output
    whole = parse(fixture, text_source([raw]))
    pieces = [raw[i : i + 2] for i in range(0, len(raw), 2)]
    assert_equivalent(whole, _async_parse(fixture, chat_chunks(pieces)))


def test_auto_reads_as_the_family(canitoolcall_fixture: Fixture) -> None:
    """``tool_parser="auto"`` recognizes the family and reads the same (deviations under
    ``"auto:<fixture id>"``)."""
    fixture = canitoolcall_fixture
    _check(fixture)

    def check() -> None:
        pieces = [fixture.raw_output[i : i + 5] for i in range(0, len(fixture.raw_output), 5)]
        auto = as_parse(
            callstream.collect(
                text_source(pieces),
                provider="openai-chat",
                **{**options(fixture), "tool_parser": "auto"},
            )
        )
        assert_equivalent(parse(fixture, text_source([fixture.raw_output])), auto)

    _conforms(fixture, check, "auto:")
