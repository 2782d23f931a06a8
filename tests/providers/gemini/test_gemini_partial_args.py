"""The Vertex / Gemini ``partialArgs`` writer on its own (no translator): leaves in
document order become JSON text, leaves out of order are replayed into a whole value,
every unusable leaf is an error reason (data, never an exception), and random values
turned into leaves come back whatever the grouping into feeds and the order of values.

Invariant checked for every prefix of the leaves (see ``check_prefixes``): the text so far
is a prefix of the final text; while the writer is in text mode, that text completed by
``finish()`` is JSON for a *sub-document* of the final value (same keys with
sub-documents, array prefixes, string prefixes, equal scalars); once it replays, the text
stops growing and ``finish()`` gives a sub-document too, unless an array still has a hole
(then an ``ArgsError`` naming the position).
"""

from __future__ import annotations

import json
import re
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream.providers._gemini_args import (
    MAX_INDEX_GAP,
    MAX_PATH_DEPTH,
    ArgsError,
    ArgsText,
    ArgsValue,
    PartialArgsWriter,
    _assign,
    _BadLeaves,
    parse_json_path,
)
from tests.support.gemini_leaves import (
    objects_without_empties,
    path_text,
    scalars_in_order,
    string_pieces,
)

Entry = dict[str, Any]

# --- leaf builders (the wire shapes) ----------------------------------------------------


def s(path: str, value: str, more: bool = False) -> Entry:
    leaf: Entry = {"jsonPath": path, "stringValue": value}
    if more:
        leaf["willContinue"] = True
    return leaf


def n(path: str, value: Any) -> Entry:
    return {"jsonPath": path, "numberValue": value}


def b(path: str, value: bool) -> Entry:
    return {"jsonPath": path, "boolValue": value}


def null(path: str) -> Entry:
    return {"jsonPath": path, "nullValue": "NULL_VALUE"}


def write(
    entries: list[Any], groups: list[int] | None = None
) -> tuple[list[str], ArgsText | ArgsValue | ArgsError, PartialArgsWriter]:
    """Feed ``entries`` (in feeds of the given sizes; one feed when None), then finish."""
    writer = PartialArgsWriter()
    pieces: list[str] = []
    start = 0
    for size in groups if groups is not None else [len(entries)]:
        pieces.append(writer.feed(entries[start : start + size]))
        start += size
    pieces.append(writer.feed(entries[start:]))
    return pieces, writer.finish(), writer


def final_text(entries: list[Any]) -> str:
    pieces, end, _ = write(entries)
    assert isinstance(end, ArgsText), end
    return "".join(pieces) + end.text


def value_of(entries: list[Any]) -> Any:
    """The value the leaves make, from the text (text mode) or the rebuilt value."""
    pieces, end, _ = write(entries)
    if isinstance(end, ArgsValue):
        return end.value
    assert isinstance(end, ArgsText), end
    return json.loads("".join(pieces) + end.text)


# --- in document order ------------------------------------------------------------------


def test_leaves_in_order_write_the_text_piece_by_piece() -> None:
    writer = PartialArgsWriter()
    assert writer.feed([s("$.location", "Bos", more=True)]) == '{"location": "Bos'
    assert writer.feed([s("$.location", "ton", more=True)]) == "ton"
    assert writer.feed([s("$.location", "")]) == '"'
    assert writer.feed([n("$.days", 3)]) == ', "days": 3'
    assert writer.feed([]) == ""
    assert (writer.started, writer.replaying, writer.error) == (True, False, None)
    assert writer.finish() == ArgsText("}")


def test_no_leaves_is_no_text_and_not_started() -> None:
    writer = PartialArgsWriter()
    assert writer.feed([]) == ""
    assert not writer.started
    assert writer.finish() == ArgsText("")


def test_nested_objects_and_arrays_close_and_open_between_leaves() -> None:
    entries = [
        s("$.recipe.ingredients[0].amount", "16 oz"),
        s("$.recipe.ingredients[0].name", "Noodles", more=True),
        s("$.recipe.ingredients[0].name", ""),
        s("$.recipe.ingredients[1].amount", "1 lb"),
        s("$.recipe.ingredients[1].name", "Beef"),
        s("$.recipe.name", "Lasagna"),
        n("$.recipe.grid[0][0]", 1),
        n("$.recipe.grid[0][1]", 2),
        n("$.recipe.grid[1][0]", 3),
        s("$.recipe.steps[0]", "Preheat to 375\u00b0F."),
        s("$.recipe.steps[1]", "Cook noodles", more=True),
        s("$.recipe.steps[1]", ".", more=True),
        s("$.recipe.steps[1]", ""),
        b("$.vegetarian", False),
    ]
    value = {
        "recipe": {
            "ingredients": [
                {"amount": "16 oz", "name": "Noodles"},
                {"amount": "1 lb", "name": "Beef"},
            ],
            "name": "Lasagna",
            "grid": [[1, 2], [3]],
            "steps": ["Preheat to 375\u00b0F.", "Cook noodles."],
        },
        "vegetarian": False,
    }
    pieces, end, writer = write(entries, [1] * len(entries))
    assert pieces[:3] == [
        '{"recipe": {"ingredients": [{"amount": "16 oz"',
        ', "name": "Noodles',
        '"',
    ]
    assert end == ArgsText("}")
    assert "".join(pieces) + end.text == json.dumps(value)
    assert not writer.replaying


def test_all_scalar_kinds_and_quoted_keys() -> None:
    entries = [
        n("$.int", 3),
        n("$.float", -0.25),
        n("$.text_number", "2.5"),
        b("$.yes", True),
        b("$.no", False),
        null("$.none"),
        {"jsonPath": "$.none2", "nullValue": None},
        s("$['odd.key'][0]", 'quote " backslash \\ newline \n emoji \U0001f600'),
        s("$['it\\'s']", "ok"),
        s('$["double"]', "ok"),
    ]
    value = {
        "int": 3,
        "float": -0.25,
        "text_number": 2.5,
        "yes": True,
        "no": False,
        "none": None,
        "none2": None,
        "odd.key": ['quote " backslash \\ newline \n emoji \U0001f600'],
        "it's": "ok",
        "double": "ok",
    }
    assert final_text(entries) == json.dumps(value)


def test_sdk_objects_with_snake_case_fields_read_like_the_wire() -> None:
    entries = [
        SimpleNamespace(json_path="$.a", string_value="x", will_continue=True),
        SimpleNamespace(json_path="$.a", string_value="y"),
        SimpleNamespace(json_path="$.b", number_value=1),
    ]
    assert final_text(entries) == '{"a": "xy", "b": 1}'


def test_a_root_scalar_is_written_as_is_and_a_second_root_replays() -> None:
    assert final_text([s("$", "x", more=True), s("$", "y")]) == '"xy"'
    assert final_text([n("$", 1.5)]) == "1.5"
    pieces, end, writer = write([n("$", 1), n("$.a", 2)])
    assert (pieces, writer.replaying, end) == (["1", ""], True, ArgsValue({"a": 2}))


# --- string continuation ----------------------------------------------------------------


def test_continued_strings_join_and_an_empty_last_piece_closes_them() -> None:
    entries = [s("$.q", "a", more=True), s("$.q", "b", more=True), s("$.q", "")]
    assert write(entries, [1, 1, 1])[0] == ['{"q": "a', "b", '"', ""]
    assert final_text(entries) == '{"q": "ab"}'


def test_a_leaf_without_value_continues_an_open_string_else_is_null() -> None:
    entries = [
        s("$.a", "x", more=True),
        {"jsonPath": "$.a", "willContinue": True},
        {"jsonPath": "$.a"},  # closes "x"
        {"jsonPath": "$.b"},  # no open string here: null
    ]
    assert final_text(entries) == '{"a": "x", "b": null}'


def test_a_string_left_open_is_closed_by_another_path_or_by_finish() -> None:
    assert final_text([s("$.a", "x", more=True), n("$.b", 1)]) == '{"a": "x", "b": 1}'
    pieces, end, _ = write([s("$.a", "x", more=True)])
    assert (pieces, end) == (['{"a": "x', ""], ArgsText('"}'))


def test_a_surrogate_pair_split_over_pieces_stays_a_pair_of_escapes() -> None:
    high, low = "\ud83d", "\ude00"  # what json.loads gives for a pair cut between pieces
    pieces, end, _ = write([s("$.e", high, more=True), s("$.e", low)], [1, 1])
    assert pieces[:2] == ['{"e": "\\ud83d', '\\ude00"']
    assert end == ArgsText("}")
    assert json.loads("".join(pieces) + end.text) == {"e": "\U0001f600"}


def test_a_scalar_at_the_path_of_an_open_string_replaces_it() -> None:
    pieces, end, writer = write([s("$.a", "x", more=True), n("$.a", 1)])
    assert writer.replaying
    assert "".join(pieces) == '{"a": "x"'  # the string was closed before the replay began
    assert end == ArgsValue({"a": 1})


# --- out of order: replay ---------------------------------------------------------------


def test_out_of_order_leaves_are_replayed_into_the_whole_value() -> None:
    entries = [
        s("$.a.x", "1"),
        s("$.b", "2"),
        s("$.a.y", "3"),  # re-enters the closed object "a": replay from here
        n("$.list[1]", 5),  # position 1 before 0
        n("$.list[0]", 4),
        s("$.b", "two"),  # a later write wins
    ]
    for groups in ([6], [1] * 6, [2, 3, 1]):
        pieces, end, writer = write(entries, groups)
        assert "".join(pieces) == '{"a": {"x": "1"}, "b": "2"'  # a consistent prefix
        assert writer.replaying
        assert end == ArgsValue({"a": {"x": "1", "y": "3"}, "b": "two", "list": [4, 5]})


def test_a_first_leaf_past_position_0_replays_from_the_start() -> None:
    pieces, end, writer = write([n("$.a[1]", 2), n("$.a[0]", 1)])
    assert (pieces, writer.started, writer.replaying) == (["", ""], True, True)
    assert end == ArgsValue({"a": [1, 2]})


def test_a_path_that_changes_a_container_kind_replaces_the_container() -> None:
    assert value_of([n("$.a.x", 1), n("$.a[0]", 2)]) == {"a": [2]}
    assert value_of([n("$.a[0]", 1), n("$.a.x", 2)]) == {"a": {"x": 2}}
    assert value_of([n("$.a.x", 1), n("$.a", 2)]) == {"a": 2}


def test_a_string_continued_after_another_leaf_starts_again() -> None:
    # Continuation is "the next leaf at the same path": a piece after another leaf is a
    # new write (last write wins), not a continuation.
    entries = [s("$.a", "x", more=True), n("$.b", 1), s("$.a", "y")]
    assert value_of(entries) == {"a": "y", "b": 1}


def test_far_positions_filled_later_rebuild_a_sparse_array() -> None:
    gap = MAX_INDEX_GAP
    entries = [n(f"$.a[{gap}]", 1), n(f"$.a[{2 * gap}]", 2)]  # each jump: the largest gap
    entries += [n(f"$.a[{i}]", 0) for i in range(2 * gap) if i != gap]
    assert value_of(entries) == {"a": [0] * gap + [1] + [0] * (gap - 1) + [2]}


# --- errors: data, never exceptions -----------------------------------------------------

BAD_ENTRIES = [
    ({"stringValue": "x"}, "a partialArgs entry has no jsonPath"),
    ({"jsonPath": 5, "stringValue": "x"}, "a partialArgs entry has no jsonPath"),
    (None, "a partialArgs entry has no jsonPath"),
    ("$.a", "a partialArgs entry has no jsonPath"),
    (s("items[0]", "x"), "unreadable jsonPath 'items[0]'"),
    (s("$[-1]", "x"), "unreadable jsonPath '$[-1]'"),
    (s("$" + ".a" * (MAX_PATH_DEPTH + 1), "x"), f"jsonPath deeper than {MAX_PATH_DEPTH} levels"),
    (n("$.x", "abc"), "unreadable numberValue 'abc' at $.x"),
    (n("$.x", float("nan")), "non-finite numberValue at $.x"),
    (n("$.x", float("-inf")), "non-finite numberValue at $.x"),
    (n("$.x", "Infinity"), "non-finite numberValue at $.x"),
    (n("$.x", "1e999"), "non-finite numberValue at $.x"),
    # a value of the wrong type is an error, never read as null or as another value
    (n("$.x", True), "numberValue at $.x is not a number: true"),
    (n("$.x", [1]), "numberValue at $.x is not a number: [1]"),
    ({"jsonPath": "$.x", "stringValue": 5}, "stringValue at $.x is not a string: 5"),
    ({"jsonPath": "$.x", "stringValue": {"a": 1}}, 'stringValue at $.x is not a string: {"a": 1}'),
    ({"jsonPath": "$.x", "boolValue": "yes"}, 'boolValue at $.x is not a bool: "yes"'),
    ({"jsonPath": "$.x", "boolValue": 1}, "boolValue at $.x is not a bool: 1"),
]


@pytest.mark.parametrize(("bad", "reason"), BAD_ENTRIES)
def test_an_unusable_entry_is_an_error_and_the_rest_is_ignored(bad: Any, reason: str) -> None:
    writer = PartialArgsWriter()
    assert writer.feed([n("$.ok", 1), bad, n("$.more", 2)]) == '{"ok": 1'
    assert writer.error == reason
    assert writer.feed([n("$.later", 3)]) == ""
    assert writer.finish() == ArgsError(reason)


def test_the_deepest_accepted_path_is_fine() -> None:
    path = "$" + ".a" * MAX_PATH_DEPTH
    assert final_text([n(path, 1)]) == '{"a": ' * MAX_PATH_DEPTH + "1" + "}" * MAX_PATH_DEPTH


@pytest.mark.skipif(not hasattr(sys, "get_int_max_str_digits"), reason="no int digit limit")
def test_an_int_too_long_to_write_is_an_error() -> None:
    writer = PartialArgsWriter()
    assert writer.feed([n("$.x", 10**5000)]) == ""
    assert writer.finish() == ArgsError("unreadable numberValue at $.x")


@pytest.mark.parametrize(
    ("entries", "reason"),
    [
        ([n("$.list[2]", 5)], "array position 0 has no value"),
        ([n("$.a[5]", 1), n("$.a[0]", 0), n("$.a[1]", 0)], "array position 2 has no value"),
        ([n("$.a[0][3]", 1), n("$.a[0][0]", 0)], "array position 1 has no value"),
        (
            [n("$.a[0]", 1), n("$.b", 1), n(f"$.a[{MAX_INDEX_GAP + 2}]", 2)],
            f"array position {MAX_INDEX_GAP + 2} is far past the end",
        ),
        ([n("$.a[99999999]", 2)], "array position 99999999 is far past the end"),
    ],
)
def test_a_replay_that_cannot_make_a_value_is_an_error(entries: list[Entry], reason: str) -> None:
    pieces, end, writer = write(entries)
    assert writer.replaying
    assert end == ArgsError(reason)
    assert writer.error == reason


def test_a_jump_of_exactly_the_largest_gap_is_fine() -> None:
    entries = [n("$.a[0]", 0), n("$.b", 1), n(f"$.a[{MAX_INDEX_GAP + 1}]", 2)]
    entries += [n(f"$.a[{i}]", 0) for i in range(1, MAX_INDEX_GAP + 1)]
    assert value_of(entries) == {"a": [0] * (MAX_INDEX_GAP + 1) + [2], "b": 1}


def test_a_path_segment_neither_key_nor_position_is_inconsistent() -> None:
    # parse_json_path never makes one; the replay refuses it rather than guessing.
    with pytest.raises(_BadLeaves, match="inconsistent path"):
        _assign(None, ("a", True), 1)
    assert not issubclass(_BadLeaves, ValueError)  # an unrelated ValueError is not bad data


# --- jsonPath ---------------------------------------------------------------------------


def test_parse_json_path() -> None:
    assert parse_json_path("$") == ()
    assert parse_json_path("$.recipe.ingredients[3].name") == ("recipe", "ingredients", 3, "name")
    assert parse_json_path("$['a.b'][\"c\"][10]") == ("a.b", "c", 10)
    assert parse_json_path("$['it\\'s']") == ("it's",)
    for bad in ("", "a.b", "$.", "$..a", "$[x]", "$[-1]", "$['open", "$['a'x", "$[1", "$a", "$[٣]"):
        assert parse_json_path(bad) is None, bad


# --- random values turned into leaves ---------------------------------------------------


@st.composite
def leaf_groups(draw: st.DrawFn, value: Any) -> list[list[Entry]]:
    """The leaves of ``value``, one group per scalar; a string cut into continued pieces
    (sometimes ending with Vertex's empty closing piece, sometimes left open)."""
    groups = []
    for path, scalar in scalars_in_order(value):
        jp = path_text(path)
        if isinstance(scalar, str):
            pieces = string_pieces(draw, scalar)
            # The last piece may still say willContinue: the next path or the end closes it.
            group = [s(jp, piece, more=True) for piece in pieces]
            group[-1] = s(jp, pieces[-1], more=draw(st.booleans()))
        elif isinstance(scalar, bool):
            group = [b(jp, scalar)]
        elif scalar is None:
            group = [null(jp)]
        else:
            group = [n(jp, scalar)]
        groups.append(group)
    return groups


def is_sub_document(part: Any, whole: Any) -> bool:
    """``part`` is ``whole`` cut short: fewer keys, an array prefix, a string prefix."""
    if isinstance(whole, dict):
        return isinstance(part, dict) and all(
            key in whole and is_sub_document(item, whole[key]) for key, item in part.items()
        )
    if isinstance(whole, list):
        return (
            isinstance(part, list)
            and len(part) <= len(whole)
            and all(map(is_sub_document, part, whole))
        )
    if isinstance(whole, str):
        return isinstance(part, str) and whole.startswith(part)
    return type(part) is type(whole) and part == whole


def check_prefixes(entries: list[Entry], value: Any) -> None:
    """The module docstring's invariant, for every prefix of ``entries``."""
    full = PartialArgsWriter()
    text_so_far = ""
    for k, entry in enumerate(entries, 1):
        added = full.feed([entry])
        assert not added or not full.replaying or added == '"'  # replay writes at most a "
        text_so_far += added
        pieces, end, writer = write(entries[:k])
        assert "".join(pieces) == text_so_far
        if isinstance(end, ArgsText):
            assert is_sub_document(json.loads(text_so_far + end.text), value)
        elif isinstance(end, ArgsValue):
            assert is_sub_document(end.value, value)
        else:
            assert re.fullmatch(r"array position [0-9]+ has no value", end.reason), end


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=objects_without_empties)
def test_leaves_in_document_order_write_json_dumps_of_the_value(
    data: st.DataObject, value: dict[str, Any]
) -> None:
    entries = [leaf for group in data.draw(leaf_groups(value)) for leaf in group]
    expected = json.dumps(value) if value else ""
    for groups in ([len(entries)], [1] * len(entries), data.draw(st.lists(st.integers(0, 4)))):
        pieces, end, writer = write(entries, groups)
        assert isinstance(end, ArgsText)
        assert "".join(pieces) + end.text == expected
        assert not writer.replaying
        assert writer.started == bool(value)
        so_far = ""
        for piece in pieces:
            so_far += piece
            assert expected.startswith(so_far)
    if value:
        assert json.loads(expected) == value
    check_prefixes(entries, value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=objects_without_empties)
def test_values_in_any_order_give_the_value(data: st.DataObject, value: dict[str, Any]) -> None:
    # The format allows any order of values, but a string's pieces stay together (a piece
    # continues the string of the leaf right before it): shuffle whole groups.
    shuffled = data.draw(st.permutations(data.draw(leaf_groups(value))))
    entries = [leaf for group in shuffled for leaf in group]
    groups = data.draw(st.lists(st.integers(0, 4)))
    pieces, end, writer = write(entries, groups)
    assert writer.error is None
    if isinstance(end, ArgsValue):
        assert end.value == value
    else:
        assert isinstance(end, ArgsText)
        assert json.loads("".join(pieces) + end.text or "{}") == value
    check_prefixes(entries, value)
