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
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

import pytest
from canitoolcall import checks
from canitoolcall.chunking import split_text
from canitoolcall.fixtures import Fixture, load_fixtures
from canitoolcall.pytest_plugin import assert_conforms, assert_equivalent, family_for
from canitoolcall.results import Observation

import callstream
from tests.support.conformance import (
    CHAR_STRATEGIES,
    DEVIATIONS,
    FAMILIES,
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
from tests.support.paths import ROOT


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
        # through openai-chat content too for the finest and the marker cuts (the text
        # reaches the parser the same way from every provider: once is enough for the rest)
        chat = label in ("char:0", "markers")
        for source in (text_source(pieces), *([chat_chunks(pieces)] if chat else [])):
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
    items = list(items)
    provider = "text" if all(type(item) is str for item in items) else "openai-chat"

    async def run() -> callstream.StreamResult:
        return await callstream.acollect(
            _pieces(items), provider=provider, **options(fixture)
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
                provider="text",
                **{**options(fixture), "tool_parser": "auto"},
            )
        )
        assert_equivalent(parse(fixture, text_source([fixture.raw_output])), auto)

    _conforms(fixture, check, "auto:")


def _status(fixture: Fixture) -> str:
    """canitoolcall's case status of the fixture: read whole and under the character
    strategies, every check (``char:*`` rows are checked but, by canitoolcall's rule,
    do not count; the tests above hold them to the same bar)."""
    raw = fixture.raw_output
    streams = {
        strategy.id: parse(fixture, text_source(split_text(raw, strategy)))
        for strategy in CHAR_STRATEGIES
    }
    observation = Observation(nonstream=parse(fixture, text_source([raw])), streams=streams)
    rows = checks.run_checks(fixture, family_for(fixture), observation)
    return checks.case_status(rows).value


def test_the_guide_states_the_conformance_counts() -> None:
    """The table of docs/guides/open-weight-models.md gives each family's counts as
    canitoolcall's checks give them now."""
    guide = (ROOT / "docs" / "guides" / "open-weight-models.md").read_text(encoding="utf-8")
    fixtures = load_fixtures(None)
    for slug, chosen in FAMILIES.items():
        mine = [f for f in fixtures if f.family == slug and skip_reason(f) is None]
        if not mine:
            continue
        statuses = [_status(f) for f in mine if f.id not in DEVIATIONS]
        deviations = sum(f.id in DEVIATIONS for f in mine)
        counts = (len(mine), statuses.count("pass"), statuses.count("soft_pass"), deviations)
        assert len(statuses) == counts[1] + counts[2], f"{slug}: a fixture fails"
        name = chosen if isinstance(chosen, str) else "..."
        row = re.search(rf"^\| `{re.escape(slug)}` \(`[^|]*`\) \|([^\n]*)\|$", guide, re.M)
        assert row is not None, f"the guide has no row for {slug} ({name})"
        stated = tuple(int(cell) for cell in row.group(1).split("|"))
        assert stated == counts, f"{slug}: the guide says {stated}, the checks give {counts}"
