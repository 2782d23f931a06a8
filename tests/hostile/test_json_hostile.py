"""Hostile input for the partial-JSON parser: deep, long numbers, bad options, any text.

Each behaviour is checked with the text fed whole, one character at a time (or in small
fragments where the text is long) and in random splits. Costs are checked as growth
ratios in ``tests/growth/test_growth_json.py``; here only the structure that makes them
linear is asserted (no long tuple held per change, a bounded carry, each character
scanned once).
"""

from __future__ import annotations

import json
import pickle
import re
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from callstream import (
    MISSING,
    Allow,
    CallstreamError,
    IncompleteJSONError,
    JSONLimitError,
    MalformedJSONError,
    OptionTypeError,
    OptionValueError,
    PartialJSONError,
    PartialJSONParser,
    ScalarSet,
    StringExtended,
    ValueClosed,
    ValueStarted,
    parse_partial_json,
)
from callstream._json.changes import EAGER_DEPTH, PathNode
from tests.support.record_fields import as_dict
from tests.support.strategies import split_every, splits


def feed_changes(fragments: list[str], **options: Any) -> tuple[PartialJSONParser, list[Any]]:
    parser = PartialJSONParser(**options)
    changes: list[Any] = []
    for fragment in fragments:
        changes.extend(parser.feed(fragment))
    return parser, changes


def ways(text: str, small: int = 1) -> list[list[str]]:
    """Whole, in ``small``-character fragments, and in 4-character fragments."""
    return [[text], split_every(text, small), split_every(text, 4)]


# --- 1. paths are shared: memory O(depth), not O(depth²) -------------------------------------


def deep_document(depth: int) -> str:
    inner = '{"k": [1, "s", true]}'
    return '{"a": ' * depth + inner + "}" * depth


@pytest.mark.parametrize("depth", [EAGER_DEPTH - 1, EAGER_DEPTH, EAGER_DEPTH + 1, 300])
def test_deep_changes_have_the_same_paths_as_shallow_ones(depth: int) -> None:
    text = deep_document(depth)
    results = []
    for fragments in ways(text, 3):
        parser, changes = feed_changes(fragments)
        assert parser.close() == json.loads(text)
        results.append([(type(c).__name__, c.path) for c in changes])
        starts = [c for c in changes if isinstance(c, ValueStarted)]
        assert [c.path for c in starts[: depth + 1]] == [("a",) * d for d in range(depth + 1)]
        inner = ("a",) * depth
        assert ScalarSet(path=(*inner, "k", 0), value=1) in changes
        assert StringExtended(path=(*inner, "k", 1), text="s") in changes
        assert ScalarSet(path=(*inner, "k", 2), value=True) in changes
        assert changes[-1] == ValueClosed(path=())
    assert results[0] == results[1] == results[2]


def test_a_deep_change_holds_a_shared_node_until_its_path_is_read() -> None:
    depth = 500
    parser = PartialJSONParser()
    changes = parser.feed("[" * depth + '"x')
    deepest = changes[-2]
    assert isinstance(deepest, ValueStarted)
    assert deepest.kind == "string"
    # Nothing of length ~depth is held yet: only a node (parent link + one key).
    assert type(deepest._at) is PathNode  # no tuple built yet
    # The nodes are shared: the string's node hangs off the array's, not a copy of it.
    array_change = changes[-3]
    assert deepest._at.parent is array_change._at
    # Reading the path builds the tuple once and keeps it.
    assert deepest.path == (0,) * depth
    assert deepest.path is deepest.path
    assert type(deepest._at) is tuple and len(deepest._at) == depth
    # The tuple-free change compares, hashes, prints and pickles like a built one.
    built = ValueStarted(path=(0,) * depth, kind="string")
    fresh = parser.feed("y")[0]
    assert fresh == StringExtended(path=(0,) * depth, text="y")
    assert changes[-2] == built and hash(changes[-2]) == hash(built)
    assert repr(changes[-1]) == repr(StringExtended(path=(0,) * depth, text="x"))
    assert pickle.loads(pickle.dumps(changes[-3])) == ValueStarted(
        path=(0,) * (depth - 1), kind="array"
    )
    assert as_dict(changes[-1]) == {"path": (0,) * depth, "text": "x"}
    match changes[-1]:
        case StringExtended(path=path, text="x"):
            assert len(path) == depth
        case _:  # pragma: no cover
            pytest.fail("match did not see the path")


def test_shallow_changes_hold_plain_tuples() -> None:
    parser = PartialJSONParser()
    changes = parser.feed('{"a": [1, "b"')
    for change in changes:
        assert type(type(change).__dict__["path"].__get__(change)) is tuple


def test_deep_frames_share_their_paths() -> None:
    """The open containers hold O(1) each for their path, whatever the depth."""
    depth = 3000
    parser = PartialJSONParser(max_depth=depth + 1)
    parser.feed("[" * depth)
    frames = parser._frames
    for frame in frames[EAGER_DEPTH + 1 :]:
        node = frame.path
        assert type(node) is PathNode
        assert type(node.parent) in (PathNode, tuple)
    assert all(len(frame.path) <= EAGER_DEPTH for frame in frames if type(frame.path) is tuple)


def test_very_deep_document_within_a_raised_limit() -> None:
    depth = 100_000
    text = "[" * depth + "1" + "]" * depth
    parser = PartialJSONParser(max_depth=depth)
    changes = []
    for fragment in split_every(text, 997):
        changes.extend(parser.feed(fragment))
    value = parser.close()
    assert len(changes) == 2 * depth + 1
    assert changes[depth] == ScalarSet(path=(0,) * depth, value=1)
    for _ in range(depth):
        value = value[0]
    assert value == 1


# --- 2. long numbers: bounded carry, one scan, a digit limit for floats too ----------------


class CountingParser(PartialJSONParser):
    __slots__ = ("longest_carry", "scanned")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.scanned = 0
        self.longest_carry = 0

    def _scan(self, text: str, base: int, changes: list[Any], final: bool = False) -> None:
        self.scanned += len(text)
        super()._scan(text, base, changes, final)
        self.longest_carry = max(self.longest_carry, len(self._carry))


NUMBERS = ["1", "-0", "12", "-12.5", "0.25e-3", "1E+9", "1.5e10", "-7e-0"]


@pytest.mark.parametrize("size", [1, 2, 3, 4])
@pytest.mark.parametrize("digits", [10, 4000])
def test_a_long_number_is_scanned_once_with_a_bounded_carry(size: int, digits: int) -> None:
    for number in [
        "1" + "2" * digits,
        "-1." + "5" * digits,
        "0." + "0" * digits + "e-" + "1" * 3,
        "1e" + "0" * digits,
    ]:
        text = f'{{"n": {number}, "m": [{number}]}}'
        parser = CountingParser()
        fragments = split_every(text, size)
        for fragment in fragments:
            parser.feed(fragment)
        assert json.dumps(parser.close()) == json.dumps(json.loads(text))
        assert parser.longest_carry == 0  # a number is never carried
        assert parser.scanned == len(text)  # each character exactly once
        assert len(parser._num_parts) <= len(fragments)


@settings(max_examples=150, deadline=None)
@given(
    number=st.from_regex(
        r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
    ),
    wrap=st.sampled_from(["{}", "[{}]", '{{"x": {}}}', "[1, {}, 2]", "{} "]),
    data=st.data(),
)
def test_numbers_in_any_split_equal_json_loads(number: str, wrap: str, data: st.DataObject) -> None:
    text = wrap.format(number)
    expected = json.dumps(json.loads(text))
    for fragments in [[text], list(text), data.draw(splits(text))]:
        parser = CountingParser()
        changes: list[Any] = []
        for fragment in fragments:
            changes.extend(parser.feed(fragment))
            assert parser.longest_carry == 0
        assert json.dumps(parser.close()) == expected
        assert parser.scanned == len(text)
        values = [json.dumps(c.value) for c in changes if isinstance(c, ScalarSet)]
        if wrap == "{}":  # a top-level number is confirmed by close(), not a change
            assert values == []
        else:
            assert json.dumps(json.loads(number)) in values


BAD_NUMBERS: list[tuple[str, int]] = [
    ("01", 1),
    ("-01", 2),
    ("1.e5", 2),
    ("-x", 1),
    ("1.5.", 3),
    ("1e5e", 3),
    ("1e+-", 3),
    ("[1.]", 3),
    ("[-]", 2),
    ("-I", 1),
    ("1ee", 2),
]


@pytest.mark.parametrize(("text", "position"), BAD_NUMBERS)
def test_malformed_numbers_at_the_first_impossible_character(text: str, position: int) -> None:
    for fragments in ways(text):
        parser = PartialJSONParser()
        with pytest.raises(MalformedJSONError, match="invalid number") as info:
            for fragment in fragments:
                parser.feed(fragment)
        assert info.value.position == position


@pytest.mark.parametrize("text", ["-", "1.", "1e", "1e+", "-0.", "[1e"])
def test_unfinished_numbers_are_incomplete_at_close(text: str) -> None:
    for fragments in ways(text):
        parser = PartialJSONParser()
        for fragment in fragments:
            parser.feed(fragment)
        with pytest.raises(IncompleteJSONError) as info:
            parser.close()
        assert info.value.position == len(text)


def test_minus_infinity_split_after_the_sign() -> None:
    for text in ["-Infinity", "[-Infinity]", '{"a": -Infinity}']:
        for fragments in ways(text):
            parser, _ = feed_changes(fragments, allow_nan=True)
            assert parser.close() == json.loads(text)
    with pytest.raises(MalformedJSONError, match="invalid literal"):
        feed_changes(["-", "Ix"], allow_nan=True)


def test_a_float_has_a_digit_limit_like_an_integer() -> None:
    limit = sys.get_int_max_str_digits()
    if not limit:  # pragma: no cover - interpreter configured without the limit
        pytest.skip("sys.get_int_max_str_digits() is 0 (no limit)")
    for number in ["1." + "5" * limit, "1" * (limit + 1), "0." + "0" * limit + "1e5"]:
        text = f"[{number}]"
        if "." in number:
            assert json.loads(text)  # json.loads takes floats of any length
        for fragments in [[text], split_every(text, 4), split_every(text, 1000)]:
            parser = PartialJSONParser()
            with pytest.raises(JSONLimitError, match=f"more than {limit} digits") as info:
                for fragment in fragments:
                    parser.feed(fragment)
                parser.close()
            assert "get_int_max_str_digits" in info.value.reason
            assert info.value.position == 1
    # Within the limit, the number is exact.
    text = "[1." + "5" * (limit - 1) + "]"
    for fragments in [[text], split_every(text, 4)]:
        parser, _ = feed_changes(fragments)
        assert parser.close() == json.loads(text)


def test_the_digit_limit_stops_a_number_while_it_streams() -> None:
    """Memory is bounded: the number is refused as soon as it passes the limit."""
    limit = sys.get_int_max_str_digits()
    if not limit:  # pragma: no cover
        pytest.skip("no digit limit")
    parser = PartialJSONParser()
    parser.feed("[1.")
    fed = 3
    with pytest.raises(JSONLimitError):
        while True:
            parser.feed("9" * 100)
            fed += 100
    assert fed <= limit + 200


# --- 3. parse_partial_json and an unfinished top-level number -----------------------------


@pytest.mark.parametrize(
    ("text", "allow", "expected"),
    [
        ("12.", Allow.ALL, 12),
        ("12.", Allow.NUM, 12),
        ("12.", None, MISSING),
        ("12", None, 12),
        ("-", Allow.ALL, MISSING),
        ("-1.5e", Allow.ALL, -1.5),
        ("-1.5e", None, MISSING),
        ("0", None, 0),
        ("[12.", Allow.ALL, [12]),
        ("[12.", None, []),
        ("1.25", None, 1.25),
    ],
)
def test_parse_partial_json_shows_an_unfinished_number_as_allow_says(
    text: str, allow: int | None, expected: Any
) -> None:
    options: dict[str, Any] = {} if allow is None else {"allow": allow}
    assert parse_partial_json(text, **options) == expected
    # The same preview as the parser fed in pieces.
    for fragments in ways(text):
        parser, _ = feed_changes(fragments, **options)
        if expected is MISSING or not isinstance(expected, (int, float)) or text[-1] in ".e-":
            assert parser.value == expected


def test_parse_partial_json_takes_allow_nan() -> None:
    got = parse_partial_json("[NaN, Infinity, -Infinity]", allow_nan=True)
    assert [repr(x) for x in got] == ["nan", "inf", "-inf"]
    assert parse_partial_json("Infin", allow=Allow.INFINITY, allow_nan=True) == float("inf")
    assert parse_partial_json("Infin", allow=Allow.ALL & ~Allow.INFINITY, allow_nan=True) is MISSING
    assert parse_partial_json("[-Inf", allow=Allow.ALL, allow_nan=True) == [float("-inf")]
    assert parse_partial_json("[-Inf", allow_nan=True) == []
    with pytest.raises(MalformedJSONError):
        parse_partial_json("NaN")
    with pytest.raises(JSONLimitError, match="max_depth"):
        parse_partial_json("[[[", max_depth=2)


# --- 4. option errors are usage errors that stay ValueError / TypeError ---------------------


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"max_depth": 0}, OptionValueError, "max_depth must be a positive integer, got 0"),
        ({"max_depth": -5}, OptionValueError, "max_depth"),
        ({"max_depth": True}, OptionValueError, "max_depth"),
        ({"max_depth": 1.5}, OptionValueError, "max_depth"),
        ({"max_chars": -1}, OptionValueError, "max_chars must be a non-negative integer"),
        ({"max_chars": "10"}, OptionValueError, "max_chars"),
        ({"max_chars": False}, OptionValueError, "max_chars"),
        ({"allow": "STR"}, OptionTypeError, "allow must be Allow flags (an int), got str"),
        ({"allow": None}, OptionTypeError, "allow"),
        ({"allow": True}, OptionTypeError, "allow"),
        ({"strict": None}, OptionTypeError, "strict must be a bool"),
        ({"allow_nan": "yes"}, OptionTypeError, "allow_nan must be a bool"),
    ],
)
def test_bad_options_are_option_errors(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    base = ValueError if error is OptionValueError else TypeError
    with pytest.raises(error, match=re.escape(message)) as info:
        PartialJSONParser(**options)
    assert isinstance(info.value, CallstreamError) and isinstance(info.value, base)
    if "max_chars" not in options:
        with pytest.raises(error, match=re.escape(message)):
            parse_partial_json("[1]", **options)


@pytest.mark.parametrize("text", [b"{}", None, 12, ["{"], bytearray(b"[")])
def test_feed_takes_only_str(text: Any) -> None:
    parser = PartialJSONParser()
    with pytest.raises(OptionTypeError, match="feed\\(\\) takes str") as info:
        parser.feed(text)
    assert isinstance(info.value, TypeError)
    with pytest.raises(OptionTypeError, match="takes str"):
        parse_partial_json(text)
    parser.feed("[1]")  # a misuse does not break the parser
    assert parser.close() == [1]


# --- 5. any text raises only our errors -------------------------------------------------------

ALPHABET = '{}[]":,\\ 0123456789.eE+-truefalsnNIiy\t\nu\x00'


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=40),
    allow=st.integers(min_value=0, max_value=511),
    allow_nan=st.booleans(),
    data=st.data(),
)
def test_any_text_in_any_split_only_our_errors(
    text: str, allow: int, allow_nan: bool, data: st.DataObject
) -> None:
    fragments = data.draw(splits(text))
    parser = PartialJSONParser(allow=allow, allow_nan=allow_nan, max_depth=3)
    try:
        for fragment in fragments:
            for change in parser.feed(fragment):
                assert isinstance(change.path, tuple)
            _ = parser.value
        parser.close()
    except PartialJSONError:
        pass
    _ = parser.value  # still readable after an error
    try:
        parse_partial_json(text, allow=allow, allow_nan=allow_nan, max_depth=3)
    except PartialJSONError:
        pass


@settings(max_examples=100, deadline=None)
@given(
    depth=st.integers(min_value=EAGER_DEPTH - 2, max_value=EAGER_DEPTH + 40),
    tail=st.text(alphabet=ALPHABET, max_size=20),
    data=st.data(),
)
def test_deep_prefixes_only_our_errors(depth: int, tail: str, data: st.DataObject) -> None:
    text = "".join(data.draw(st.sampled_from(["[", '{"k":', "[1,"])) for _ in range(depth)) + tail
    parser = PartialJSONParser(allow=511)
    try:
        for fragment in data.draw(splits(text)):
            for change in parser.feed(fragment):
                assert len(change.path) <= depth + 1
            _ = parser.value
        parser.close()
    except PartialJSONError:
        pass


def test_preview_of_a_number_never_raises_past_the_digit_limit() -> None:
    parser = PartialJSONParser(allow=Allow.ALL)
    parser.feed("[1")
    parser.feed("2" * 100)
    assert parser.value == [int("1" + "2" * 100)]
    assert isinstance(parser.value, list)
