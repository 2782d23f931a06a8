"""The incremental partial-JSON parser: previews, changes, verdicts, errors, limits."""

from __future__ import annotations

import copy
import json
import math
import sys
from typing import Any

import partial_json_parser
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import callstream._json.parser
from callstream import (
    MISSING,
    Allow,
    IncompleteJSONError,
    JSONLimitError,
    MalformedJSONError,
    ParserStateError,
    PartialJSONError,
    PartialJSONParser,
    ScalarSet,
    StringExtended,
    ValueClosed,
    ValueStarted,
    parse_partial_json,
    to_json_pointer,
)
from tests.support.strategies import serializations, split_every, splits

# --- helpers ----------------------------------------------------------------------------


def feed_all(
    fragments: list[str], **options: Any
) -> tuple[PartialJSONParser, list[Any], list[Any]]:
    """Feed fragments; return the parser, a snapshot of the preview and the changes per feed."""
    parser = PartialJSONParser(**options)
    previews: list[Any] = []
    changes: list[Any] = []
    for fragment in fragments:
        changes.extend(parser.feed(fragment))
        previews.append(copy.deepcopy(parser.value))
    return parser, previews, changes


def three_ways(text: str) -> list[list[str]]:
    """The text whole, one character at a time, and in 4-character fragments."""
    return [[text], list(text) or [""], split_every(text, 4)]


def consistent(preview: Any, final: Any) -> bool:
    """Whether ``preview`` could be an honest partial view of ``final``."""
    if preview is MISSING:
        return True
    if isinstance(final, str):
        return isinstance(preview, str) and final.startswith(preview)
    if isinstance(final, dict):
        return isinstance(preview, dict) and all(
            key in final and consistent(value, final[key]) for key, value in preview.items()
        )
    if isinstance(final, list):
        return (
            isinstance(preview, list)
            and len(preview) <= len(final)
            and all(consistent(p, f) for p, f in zip(preview, final))
        )
    if isinstance(final, float) and math.isnan(final):
        return isinstance(preview, float) and math.isnan(preview)
    return type(preview) is type(final) and preview == final


def complete_parts_equal(preview: Any, final: Any) -> bool:
    """All elements of a preview list except the last must already be final."""
    if isinstance(final, list) and isinstance(preview, list):
        return all(p == f for p, f in zip(preview[:-1], final)) and all(
            complete_parts_equal(p, f) for p, f in zip(preview, final)
        )
    if isinstance(final, dict) and isinstance(preview, dict):
        return all(complete_parts_equal(v, final[k]) for k, v in preview.items())
    return True


def has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_lone_surrogate(v) for v in value)
    return False


def rfc_loads(text: str) -> Any:
    """``json.loads`` without its NaN / Infinity extension (RFC 8259 only)."""

    def reject(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=reject)


# --- preview table ------------------------------------------------------------------------

PREVIEWS: list[tuple[str, Any]] = [
    ("", MISSING),
    ("   \n\t", MISSING),
    ("{", {}),
    ('{"', {}),
    ('{"ci', {}),
    ('{"city"', {}),
    ('{"city":', {}),
    ('{"city": "', {"city": ""}),
    ('{"city": "Par', {"city": "Par"}),
    ('{"city": "Paris  ', {"city": "Paris  "}),  # trailing spaces are kept
    ('{"city": "Paris"', {"city": "Paris"}),
    ('{"city": "Paris", "n": 1', {"city": "Paris"}),  # 1 may become 12
    ('{"city": "Paris", "n": 12,', {"city": "Paris", "n": 12}),
    ('{"lat": -33.', {}),  # never a partial number
    ('{"lat": -33.8', {}),
    ('{"lat": -33.87}', {"lat": -33.87}),
    ('{"ok": tr', {}),
    ('{"ok": true', {"ok": True}),  # a complete literal is final
    ('{"x": nul', {}),
    ('{"x": null}', {"x": None}),
    ('{"a": [', {"a": []}),
    ('{"a": [1', {"a": []}),
    ('{"a": [1,', {"a": [1]}),
    ('{"a": [1, "b', {"a": [1, "b"]}),
    ('{"a": [1, {"c": ', {"a": [1, {}]}),
    ('{"a": [1, {"c": []}], "d": {', {"a": [1, {"c": []}], "d": {}}),
    ('"esc \\', "esc "),  # incomplete escape held back
    ('"esc \\u00', "esc "),
    ('"esc \\u00e9', "esc é"),
    ('"emoji \\ud83d', "emoji "),  # high surrogate waits for its low half
    ('"emoji \\ud83d\\', "emoji "),
    ('"emoji \\ud83d\\ude', "emoji "),
    ('"emoji \\ud83d\\ude00', "emoji 😀"),
    ('"lone \\ud83dx', "lone \ud83dx"),  # the final text has the lone surrogate too
    ("[1, 2, 3]", [1, 2, 3]),
    ("12", MISSING),  # "12" may be "123": the parser waits (close() gives 12)
    ("true", True),
    ("[]", []),
]


@pytest.mark.parametrize(("text", "expected"), PREVIEWS)
def test_preview_table(text: str, expected: Any) -> None:
    for fragments in three_ways(text):
        parser, previews, _ = feed_all(fragments)
        assert previews[-1] == expected, fragments
        assert type(previews[-1]) is type(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": 12', {}),
        ("12", 12),  # complete text: its value
        ("[1, 12", [1]),
        ("-", MISSING),
        (" ", MISSING),
        ('[1, 2, {"k": "v"}]', [1, 2, {"k": "v"}]),
    ],
)
def test_parse_partial_json(text: str, expected: Any) -> None:
    assert parse_partial_json(text) == expected


def test_parse_partial_json_rejects_malformed() -> None:
    with pytest.raises(MalformedJSONError):
        parse_partial_json("[1 2]")


# --- allow flags ---------------------------------------------------------------------------


def test_allow_bits_match_partial_json_parser() -> None:
    assert Allow is partial_json_parser.Allow
    pairs = {
        "STR": callstream._json.parser.STR,
        "NUM": callstream._json.parser.NUM,
        "ARR": callstream._json.parser.ARR,
        "OBJ": callstream._json.parser.OBJ,
        "NULL": callstream._json.parser.NULL,
        "BOOL": callstream._json.parser.BOOL,
        "NAN": callstream._json.parser.NAN,
        "INFINITY": callstream._json.parser.INFINITY,
        "_INFINITY": callstream._json.parser.NEG_INFINITY,
    }
    for name, bit in pairs.items():
        assert int(getattr(Allow, name)) == bit
    assert int(Allow.STR | Allow.ARR | Allow.OBJ) == callstream._json.parser.DEFAULT_ALLOW


@pytest.mark.parametrize(
    ("allow", "text", "expected"),
    [
        (Allow.ALL, '{"n": 12', {"n": 12}),
        (Allow.ALL, '{"n": 1.', {"n": 1}),
        (Allow.ALL, '{"b": tr', {"b": True}),
        (Allow.ALL, '{"b": n', {"b": None}),
        (Allow.ALL, "[-", []),
        (Allow.OBJ | Allow.ARR, '{"s": "abc', {}),  # strings only when complete
        (Allow.OBJ | Allow.ARR, '{"s": "abc", "t": [1, "x', {"s": "abc", "t": [1]}),
        (Allow.STR | Allow.OBJ, '{"t": [1, "x', {}),  # arrays only when complete
        (Allow.STR | Allow.OBJ, '{"t": [1, "x"], "u": "y', {"t": [1, "x"], "u": "y"}),
        (Allow.STR | Allow.ARR, '{"a": "b', MISSING),  # objects only when complete
        (Allow.STR, '"abc', "abc"),
        (Allow.NUM, "[1", MISSING),
    ],
)
def test_allow_shapes_previews(allow: Allow, text: str, expected: Any) -> None:
    for fragments in three_ways(text):
        _, previews, _ = feed_all(fragments, allow=allow)
        assert previews[-1] == expected


def test_allow_nan() -> None:
    parser = PartialJSONParser(allow_nan=True, allow=Allow.ALL)
    parser.feed("[NaN, -Inf")
    assert math.isnan(parser.value[0])
    assert parser.value[1] == -math.inf  # shown partially because allow has _INFINITY
    parser.feed("inity, Infinity]")
    value = parser.close()
    assert value[1:] == [-math.inf, math.inf]
    with pytest.raises(MalformedJSONError):
        PartialJSONParser().feed("NaN")
    with pytest.raises(MalformedJSONError):
        PartialJSONParser().feed("-Infinity")


# --- changes -------------------------------------------------------------------------------


def test_changes_for_a_small_document() -> None:
    text = '{"city": "Pa\\u00e9ris", "tags": ["a", 1, null], "o": {}}'
    expected = [
        ValueStarted(path=(), kind="object"),
        ValueStarted(path=("city",), kind="string"),
        StringExtended(path=("city",), text="Paéris"),
        ValueClosed(path=("city",)),
        ValueStarted(path=("tags",), kind="array"),
        ValueStarted(path=("tags", 0), kind="string"),
        StringExtended(path=("tags", 0), text="a"),
        ValueClosed(path=("tags", 0)),
        ScalarSet(path=("tags", 1), value=1),
        ScalarSet(path=("tags", 2), value=None),
        ValueClosed(path=("tags",)),
        ValueStarted(path=("o",), kind="object"),
        ValueClosed(path=("o",)),
        ValueClosed(path=()),
    ]
    _, _, changes = feed_all([text])
    assert changes == expected
    # Split anywhere, the same changes arrive, with string text cut differently.
    for fragments in three_ways(text)[1:]:
        _, _, split_changes = feed_all(fragments)
        assert merge_string_changes(split_changes) == expected


def merge_string_changes(changes: list[Any]) -> list[Any]:
    """Coalesce consecutive StringExtended changes of one path (splits cut strings)."""
    merged: list[Any] = []
    for change in changes:
        if (
            isinstance(change, StringExtended)
            and merged
            and isinstance(merged[-1], StringExtended)
            and merged[-1].path == change.path
        ):
            merged[-1] = StringExtended(path=change.path, text=merged[-1].text + change.text)
        else:
            merged.append(change)
    return merged


def apply_changes(changes: list[Any]) -> Any:
    """A tiny UI model: rebuild the value from the changes alone."""
    root: list[Any] = [MISSING]

    def container_and_key(path: tuple[Any, ...]) -> tuple[Any, Any]:
        if not path:
            return root, 0
        node = root[0]
        for part in path[:-1]:
            node = node[part]
        return node, path[-1]

    def put(path: tuple[Any, ...], value: Any) -> None:
        node, key = container_and_key(path)
        if isinstance(node, list) and key == len(node):
            node.append(value)
        else:
            node[key] = value

    for change in changes:
        if isinstance(change, ValueStarted):
            put(change.path, {"object": {}, "array": [], "string": ""}[change.kind])
        elif isinstance(change, StringExtended):
            node, key = container_and_key(change.path)
            node[key] += change.text
        elif isinstance(change, ScalarSet):
            put(change.path, change.value)
    return root[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=serializations())
def test_changes_rebuild_the_value(data: st.DataObject, text: str) -> None:
    fragments = data.draw(splits(text))
    parser, _, changes = feed_all(fragments)
    final = json.loads(text)
    if isinstance(final, (int, float)) and not isinstance(final, bool) and text == text.rstrip():
        # A top-level number may always go on: only close() can say it is complete.
        assert apply_changes(changes) is MISSING
    else:
        assert apply_changes(changes) == final
    assert parser.close() == final


def test_json_pointer() -> None:
    assert to_json_pointer(()) == ""
    assert to_json_pointer(("a/b", 0, "m~n")) == "/a~1b/0/m~0n"


# --- properties -----------------------------------------------------------------------------


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=serializations())
def test_any_split_gives_json_loads_result_and_honest_previews(
    data: st.DataObject, text: str
) -> None:
    final = json.loads(text)
    fragments = data.draw(splits(text))
    parser, previews, _ = feed_all(fragments)
    assert parser.close() == final
    previous: Any = MISSING
    for preview in previews:
        assert consistent(preview, final), (preview, final)
        assert consistent(previous, preview), (previous, preview)  # only grows
        assert complete_parts_equal(preview, final)
        if not has_lone_surrogate(final):
            assert not has_lone_surrogate(preview)
        previous = preview


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=serializations())
def test_same_previews_and_changes_whatever_the_split(data: st.DataObject, text: str) -> None:
    """Cut at the same boundaries, a different grouping of fragments changes nothing."""
    fragments = data.draw(splits(text))
    _, _, whole_changes = feed_all([text])
    _, previews_split, changes_split = feed_all(fragments)
    assert merge_string_changes(changes_split) == merge_string_changes(whole_changes)
    # Previews at the same offsets agree, however the text before them was grouped.
    offsets = []
    total = 0
    for fragment in fragments:
        total += len(fragment)
        offsets.append(total)
    _, char_previews, _ = feed_all(list(text))
    for offset, preview in zip(offsets, previews_split):
        if offset:
            assert preview == char_previews[offset - 1]


@settings(max_examples=1000, deadline=None)
@given(
    text=serializations(),
    position=st.integers(min_value=0, max_value=10_000),
    insert=st.sampled_from(list('{}[]":,\\ x0-.e"tfn\x00u') + ["", "\\u", "ud83d"]),
    delete=st.integers(min_value=0, max_value=3),
    data=st.data(),
)
def test_mutated_text_same_verdict_as_json_loads(
    text: str, position: int, insert: str, delete: int, data: st.DataObject
) -> None:
    position %= len(text) + 1
    mutated = text[:position] + insert + text[position + delete :]
    try:
        expected: Any = json.loads(mutated)
    except ValueError:
        expected = ValueError
    fragments = data.draw(splits(mutated))
    parser = PartialJSONParser(allow_nan=True)
    try:
        for fragment in fragments:
            parser.feed(fragment)
            _ = parser.value
        got: Any = parser.close()
    except PartialJSONError:
        got = ValueError
    if expected is ValueError or got is ValueError:
        assert got is expected, (mutated, got, expected)
    else:
        assert json.dumps(got) == json.dumps(expected)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='{}[]":,\\ 0123456789.eE+-truefalsnNIiy\t\n', max_size=30))
def test_arbitrary_text_only_our_errors(text: str) -> None:
    for allow_nan in (False, True):
        parser = PartialJSONParser(allow_nan=allow_nan, allow=Allow.ALL)
        try:
            for char in text:
                parser.feed(char)
                _ = parser.value
            parser.close()
        except PartialJSONError:
            pass


# --- errors ------------------------------------------------------------------------------------

MALFORMED: list[tuple[str, int]] = [
    ("[1 2", 3),
    ('{"a" 1', 5),
    ("trux", 3),
    ("]", 0),
    ("}", 0),
    ("1 x", 2),
    ('{"a": 1} {}', 9),
    ("[1,]", 3),
    ('{"a": 1,}', 8),
    ("[,", 1),
    ("01", 1),
    ("-01", 2),
    (".5", 0),
    ("1.", -1),  # incomplete, not malformed: see INCOMPLETE
    ("1.e5", 2),
    ("1e", -1),
    ("-x", 1),
    ("+1", 0),
    ('"\\x"', 2),
    ('"\\u12g4"', 5),
    ('"a\nb"', 2),
    ('"a\x00"', 2),
    ("{1: 2}", 1),
    ("{'a': 1}", 1),
    ('{"a": 1 "b": 2}', 8),
    ("[1] ]", 4),
    ("nul1", 3),
    ("NaN", 0),
    ("Infinity", 0),
    ("[1, 2]x", 6),
]


@pytest.mark.parametrize(("text", "position"), [m for m in MALFORMED if m[1] >= 0])
def test_malformed_raises_at_the_first_impossible_character(text: str, position: int) -> None:
    with pytest.raises(ValueError):
        rfc_loads(text)
    parser = PartialJSONParser()
    for index, char in enumerate(text):
        if index < position:
            parser.feed(char)
            continue
        with pytest.raises(MalformedJSONError) as info:
            parser.feed(char)
        assert info.value.position == position
        assert info.value.reason
        break
    # Whole text: same position.
    with pytest.raises(MalformedJSONError) as whole:
        PartialJSONParser().feed(text)
    assert whole.value.position == position


INCOMPLETE = ["", " ", "{", '{"a"', '{"a":', '{"a": "b', "[1,", "1.", "1e", "-", "tr", '"\\u00']


@pytest.mark.parametrize("text", INCOMPLETE)
def test_incomplete_at_close(text: str) -> None:
    parser = PartialJSONParser()
    parser.feed(text)
    with pytest.raises(IncompleteJSONError) as info:
        parser.close()
    assert info.value.position == len(text)
    assert isinstance(info.value, ValueError)
    with pytest.raises(IncompleteJSONError):
        parser.close()  # the verdict stands


def test_error_refuses_more_input() -> None:
    parser = PartialJSONParser()
    with pytest.raises(MalformedJSONError):
        parser.feed("[1 2")
    assert isinstance(parser.failed, MalformedJSONError)
    with pytest.raises(ParserStateError, match="failed earlier"):
        parser.feed("]")
    with pytest.raises(MalformedJSONError):
        parser.close()


def test_closed_parser_refuses_input_and_close_is_idempotent() -> None:
    parser = PartialJSONParser()
    parser.feed("[1]")
    assert parser.complete
    assert parser.close() == [1]
    assert parser.close() == [1]
    with pytest.raises(ParserStateError, match="closed"):
        parser.feed(" ")


def test_feed_rejects_bytes() -> None:
    with pytest.raises(TypeError, match="str"):
        PartialJSONParser().feed(b"{}")  # type: ignore[arg-type]


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        PartialJSONParser(max_depth=0)
    with pytest.raises(ValueError, match="max_chars"):
        PartialJSONParser(max_chars=-1)
    with pytest.raises(TypeError, match="allow"):
        PartialJSONParser(allow="STR")  # type: ignore[arg-type]


# --- limits ----------------------------------------------------------------------------------


def test_deep_nesting_is_a_limit_not_a_recursion_error() -> None:
    parser = PartialJSONParser()
    with pytest.raises(JSONLimitError, match="max_depth") as info:
        parser.feed("[" * 100_000)
    assert info.value.position == 1000
    # Within the limit, deep documents parse without recursion.
    deep = "[" * 5000 + "]" * 5000
    parser = PartialJSONParser(max_depth=5000)
    for fragment in split_every(deep, 7):
        parser.feed(fragment)
    value = parser.close()
    depth = 0
    while value:
        value = value[0]
        depth += 1
    assert depth == 4999


def test_max_chars() -> None:
    parser = PartialJSONParser(max_chars=10)
    parser.feed('{"a": ')
    with pytest.raises(JSONLimitError, match="max_chars") as info:
        parser.feed('"long"}')
    assert info.value.position == 10


def test_huge_integer_gives_a_clear_error() -> None:
    digits = "9" * 10_000
    parser = PartialJSONParser()
    limit = sys.get_int_max_str_digits()
    if limit and limit < 10_000:
        with pytest.raises(JSONLimitError, match="digits"):
            for fragment in split_every(f"[{digits}]", 4):
                parser.feed(fragment)
    else:  # pragma: no cover - interpreter configured without the limit
        for fragment in split_every(f"[{digits}]", 4):
            parser.feed(fragment)
        assert parser.close() == [int(digits)]


def test_big_numbers_like_json_loads() -> None:
    for text in ["1e400", "-1e400", "123456789012345678901234567890", "1.5e-400", "-0", "-0.0"]:
        parser = PartialJSONParser()
        parser.feed(text)
        assert json.dumps(parser.close()) == json.dumps(json.loads(text))


# --- RFC 8259 corners --------------------------------------------------------------------------

ACCEPT = [
    "0",
    "-0",
    "0.5",
    "1E5",
    "1e+5",
    "1e-5",
    "[]",
    "{}",
    '""',
    '"\\/"',
    '"\\ud800"',  # a lone surrogate escape: json.loads keeps it
    '"\\udc00\\ud800"',
    '{"a": 1, "a": 2}',  # duplicate keys: the last wins
    " \t\n\r[ 1 , 2 ]\r\n",
    '"\u2028"',
    '"😀"',
]
REJECT = ["01", ".5", "1.", "-", "[1,]", '{"a":1,}', '"\t"', "[1 2]", "", "'a'", "[", "tru", "+1"]


@pytest.mark.parametrize("text", ACCEPT)
def test_rfc_accept(text: str) -> None:
    for fragments in three_ways(text):
        parser, _, _ = feed_all(fragments)
        assert json.dumps(parser.close()) == json.dumps(json.loads(text))


@pytest.mark.parametrize("text", REJECT)
def test_rfc_reject(text: str) -> None:
    with pytest.raises(ValueError):
        rfc_loads(text)
    for fragments in three_ways(text):
        parser = PartialJSONParser()
        with pytest.raises(PartialJSONError):
            for fragment in fragments:
                parser.feed(fragment)
            parser.close()


def test_non_strict_allows_control_characters() -> None:
    parser = PartialJSONParser(strict=False)
    parser.feed('"a\tb\x00"')
    assert parser.close() == json.loads('"a\tb\x00"', strict=False)


def test_duplicate_key_replaces_as_json_loads_does() -> None:
    text = '{"a": "first", "b": 1, "a": [2]}'
    for fragments in three_ways(text):
        parser, _, _ = feed_all(fragments)
        result = parser.close()
        assert result == json.loads(text)
        assert list(result) == list(json.loads(text))


# --- live view and structure ---------------------------------------------------------------------


def test_value_is_cached_until_the_next_feed() -> None:
    parser = PartialJSONParser()
    parser.feed('{"a": "x')
    first = parser.value
    assert parser.value is first
    parser.feed("y")
    assert parser.value is first  # the same live object, grown in place
    assert first == {"a": "xy"}


def test_held_strings_never_change() -> None:
    parser = PartialJSONParser()
    parser.feed('{"a": "hello')
    held = parser.value["a"]
    parser.feed(" world")
    assert held == "hello"
    assert parser.value["a"] == "hello world"
    top = PartialJSONParser()
    top.feed('"abc')
    held_top = top.value
    top.feed("def")
    assert held_top == "abc"
    assert top.value == "abcdef"


def test_started_complete_and_chars() -> None:
    parser = PartialJSONParser()
    parser.feed("  ")
    assert not parser.started
    assert parser.value is MISSING
    parser.feed("1")
    assert parser.started
    assert not parser.complete  # 1 may go on
    parser.feed(" ")
    assert parser.complete
    assert parser.chars == 4
    assert parser.close() == 1


class CountingParser(PartialJSONParser):
    __slots__ = ("scanned",)

    def __init__(self) -> None:
        super().__init__()
        self.scanned = 0

    def _scan(self, text: str, base: int, changes: list[Any], final: bool = False) -> None:
        self.scanned += len(text)
        super()._scan(text, base, changes, final)


def test_no_rescanning_and_bounded_carry() -> None:
    """Each character is scanned once, plus a bounded carry at fragment boundaries."""
    document = json.dumps(
        {"content": 'é😀\\"x' * 2000, "items": [{"n": i, "f": i / 3} for i in range(200)]},
        ensure_ascii=True,
    )
    parser = CountingParser()
    fragments = split_every(document, 3)
    longest_carry = 0
    for fragment in fragments:
        parser.feed(fragment)
        longest_carry = max(longest_carry, len(parser._carry))
    assert parser.close() == json.loads(document)
    assert longest_carry <= 25  # an escape (<= 11) or a number such as 66.33333333333333
    assert parser.scanned <= len(document) + longest_carry * len(fragments)
    assert parser.scanned < 3 * len(document)
