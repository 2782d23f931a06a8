"""The verdict at the end of a call, as a pure function (no assembler).

Each case feeds the argument text to a parser whole, one character at a time and in
random splits (hypothesis), and asks :func:`verdict` for the outcome: the same every way.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream._assembly.verdict import (
    TRUNCATION_REASONS,
    json_kind,
    rejected,
    truncation,
    verdict,
)
from callstream._errors import JSONLimitError, MalformedJSONError
from callstream._json.parser import PartialJSONParser
from tests.support.strategies import splits


def parsed(pieces: list[str]) -> PartialJSONParser:
    """A parser fed ``pieces`` in order (none of them rejected)."""
    parser = PartialJSONParser()
    for piece in pieces:
        parser.feed(piece)
    return parser


def every_way(text: str, **options: Any) -> dict[str, Any] | str:
    """The verdict on ``text`` fed whole and char by char (asserted equal)."""
    whole = verdict(named=True, parser=parsed([text]), **options)
    by_char = verdict(named=True, parser=parsed(list(text)), **options)
    assert whole == by_char
    return whole


CASES: list[tuple[str, dict[str, Any], dict[str, Any] | str]] = [
    ('{"city": "Paris"}', {}, {"city": "Paris"}),
    ("{}", {}, {}),
    ('{"a": [1, 2]}', {"limit_reason": "length"}, {"a": [1, 2]}),  # complete: valid
    ("[1, 2]", {}, "arguments must be a JSON object, got array"),
    ('"text"', {}, "arguments must be a JSON object, got string"),
    ("12", {}, "arguments must be a JSON object, got number"),
    ("true", {}, "arguments must be a JSON object, got boolean"),
    ("null", {}, "arguments must be a JSON object, got null"),
    (
        '{"a": 1',
        {},
        "arguments were cut off: the call ended before they were complete "
        "(unclosed object at position 7)",
    ),
    (
        '{"a": 1',
        {"at_finish": True},
        "arguments were cut off: the stream ended before they were complete "
        "(unclosed object at position 7)",
    ),
    (
        '{"a": "Par',
        {"limit_reason": "max_tokens", "at_finish": True},
        "arguments were cut off by the token limit (finish reason 'max_tokens'): "
        "unterminated string at position 10",
    ),
]


@pytest.mark.parametrize(("text", "options", "expected"), CASES)
def test_verdict_on_text(text: str, options: dict[str, Any], expected: object) -> None:
    assert every_way(text, **options) == expected


@pytest.mark.parametrize(("text", "options", "expected"), CASES)
@given(data=st.data())
def test_verdict_on_text_in_random_splits(
    text: str, options: dict[str, Any], expected: object, data: st.DataObject
) -> None:
    pieces = data.draw(splits(text))
    assert verdict(named=True, parser=parsed(pieces), **options) == expected


@pytest.mark.parametrize("parser", [None, "blank"])
def test_no_argument_text(parser: str | None) -> None:
    fed = parsed([" \n "]) if parser == "blank" else None
    assert verdict(named=True, parser=fed) == {}
    assert verdict(named=True, parser=fed, empty_args="invalid") == (
        "tool call has empty arguments"
    )
    assert verdict(named=True, parser=fed, limit_reason="length") == (
        "tool call was cut off before its arguments began (finish reason 'length')"
    )


def test_a_call_without_a_name_is_invalid_whatever_its_text() -> None:
    assert verdict(named=False, parser=None) == "tool call has no name"
    assert verdict(named=False, parser=parsed(['{"a": 1}'])) == "tool call has no name"


def test_the_empty_object_is_new_each_time() -> None:
    first = verdict(named=True, parser=None)
    second = verdict(named=True, parser=None)
    assert first == second == {}
    assert first is not second


class _RejectsAtClose(PartialJSONParser):
    """A parser whose strict close refuses the text as malformed (the real parser reports
    malformed text while it is fed; this reaches the verdict's last branch)."""

    def close(self) -> Any:
        raise MalformedJSONError("expected ',' or '}'", 7)


def test_text_the_parser_refuses_at_close_is_malformed() -> None:
    parser = _RejectsAtClose()
    parser.feed('{"a": 1')
    assert verdict(named=True, parser=parser) == (
        "malformed arguments: expected ',' or '}' at position 7"
    )


def test_truncation_names_only_token_limits_in_any_case() -> None:
    assert TRUNCATION_REASONS == {"length", "max_tokens", "max_output_tokens"}
    assert truncation("LENGTH") == "LENGTH"
    assert truncation("max_output_tokens") == "max_output_tokens"
    assert truncation("stop") is None
    assert truncation(None) is None


def test_rejected_tells_a_limit_from_malformed_text() -> None:
    limit = JSONLimitError("nesting deeper than max_depth=2", 3)
    bad = MalformedJSONError("expected ',' or '}'", 5)
    assert rejected(limit) == (
        "arguments exceed a limit: nesting deeper than max_depth=2 at position 3"
    )
    assert rejected(bad) == "malformed arguments: expected ',' or '}' at position 5"


@pytest.mark.parametrize(
    ("value", "kind"),
    [({}, "object"), ([], "array"), ("", "string"), (0, "number"), (1.5, "number")]
    + [(True, "boolean"), (False, "boolean"), (None, "null")],
)
def test_json_kind(value: object, kind: str) -> None:
    assert json_kind(value) == kind
