"""Every misuse of ``PartialJSONParser`` / ``parse_partial_json`` raises a callstream
``UsageError`` that is also the builtin exception a caller would catch: a wrong type is
an ``OptionTypeError`` (``TypeError``), a wrong value an ``OptionValueError``
(``ValueError``), feeding a parser that is done a ``ParserStateError`` (``RuntimeError``).
A misuse never breaks the parser it was made on."""

from __future__ import annotations

from typing import Any

import partial_json_parser
import pytest

from callstream import (
    CallstreamError,
    MalformedJSONError,
    OptionTypeError,
    OptionValueError,
    ParserStateError,
    PartialJSONParser,
    UsageError,
    parse_partial_json,
)
from callstream._json.grammar import ALLOW_ALL

# (options, the exception class, its builtin base); max_depth / max_chars that are not
# ints count as wrong values (bool, float, str alike), as tests/hostile/test_json_hostile.py has it
BAD_OPTIONS: list[tuple[dict[str, Any], type[Exception], type[Exception]]] = [
    ({"allow": "STR"}, OptionTypeError, TypeError),
    ({"allow": None}, OptionTypeError, TypeError),
    ({"allow": True}, OptionTypeError, TypeError),
    ({"allow": 1.0}, OptionTypeError, TypeError),
    ({"allow": -1}, OptionValueError, ValueError),
    ({"allow": ALLOW_ALL + 1}, OptionValueError, ValueError),
    ({"allow": 1 << 40}, OptionValueError, ValueError),
    ({"strict": None}, OptionTypeError, TypeError),
    ({"strict": 1}, OptionTypeError, TypeError),
    ({"strict": "yes"}, OptionTypeError, TypeError),
    ({"allow_nan": "yes"}, OptionTypeError, TypeError),
    ({"allow_nan": 0}, OptionTypeError, TypeError),
    ({"max_depth": 0}, OptionValueError, ValueError),
    ({"max_depth": -5}, OptionValueError, ValueError),
    ({"max_depth": True}, OptionValueError, ValueError),
    ({"max_depth": 1.5}, OptionValueError, ValueError),
    ({"max_depth": "10"}, OptionValueError, ValueError),
    ({"max_chars": -1}, OptionValueError, ValueError),
    ({"max_chars": False}, OptionValueError, ValueError),
    ({"max_chars": 2.5}, OptionValueError, ValueError),
    ({"max_chars": "10"}, OptionValueError, ValueError),
]

NOT_TEXT: list[Any] = [b"{}", bytearray(b"["), None, 12, ["{"], memoryview(b"1")]


def check(exc: BaseException, kind: type[Exception], base: type[Exception]) -> None:
    assert type(exc) is kind
    assert isinstance(exc, CallstreamError)
    assert isinstance(exc, UsageError)
    assert isinstance(exc, base)


def test_allow_all_is_partial_json_parsers() -> None:
    assert int(partial_json_parser.Allow.ALL) == ALLOW_ALL


def test_every_misuse_is_a_usage_error_with_its_builtin_base() -> None:
    for options, kind, base in BAD_OPTIONS:
        with pytest.raises(CallstreamError) as info:
            PartialJSONParser(**options)
        check(info.value, kind, base)
        if "max_chars" not in options:  # parse_partial_json has no max_chars
            with pytest.raises(CallstreamError) as info:
                parse_partial_json("[1]", **options)
            check(info.value, kind, base)
    parser = PartialJSONParser()
    for text in NOT_TEXT:
        with pytest.raises(CallstreamError) as info:
            parser.feed(text)
        check(info.value, OptionTypeError, TypeError)
        with pytest.raises(CallstreamError) as info:
            parse_partial_json(text)
        check(info.value, OptionTypeError, TypeError)
    parser.feed('{"a": [1')  # the misuses did not break it
    assert parser.value == {"a": []}
    parser.feed("]}")
    assert parser.close() == {"a": [1]}
    for text in ["x", "", *NOT_TEXT]:  # a closed parser takes nothing more
        with pytest.raises(CallstreamError) as info:
            parser.feed(text)
        check(info.value, ParserStateError, RuntimeError)
    assert parser.close() == {"a": [1]}


def test_a_failed_parser_refuses_more_text() -> None:
    parser = PartialJSONParser()
    with pytest.raises(MalformedJSONError):
        parser.feed("[1 2")
    for text in ["]", *NOT_TEXT]:
        with pytest.raises(CallstreamError) as info:
            parser.feed(text)
        check(info.value, ParserStateError, RuntimeError)
    with pytest.raises(MalformedJSONError):  # close() gives the verdict: the data error
        parser.close()


@pytest.mark.parametrize("allow", [0, 1, 0b101, ALLOW_ALL, int(partial_json_parser.Allow.ALL)])
def test_every_allow_combination_is_accepted(allow: int) -> None:
    assert PartialJSONParser(allow=allow).feed("[") != []
    assert parse_partial_json("[1]", allow=allow) == [1]
