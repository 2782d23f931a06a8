"""ArgumentText, the argument text of one call, on its own (no assembler)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from callstream._assembly.arguments import ArgumentText, TextBudget
from callstream._errors import PartialJSONError
from callstream._json import PartialJSONParser
from callstream._json.pieces import BLOCK
from tests.support.strategies import split_every, splits

OPTIONS: dict[str, Any] = {}


def text_of(pieces: list[str], budget: TextBudget | None = None) -> ArgumentText:
    arguments = ArgumentText(budget or TextBudget(None, None), OPTIONS)
    for piece in pieces:
        assert arguments.add(piece) is not None
    return arguments


ARGS = json.dumps({"city": "Paris", "days": [1, 2, 3], "note": "x" * (3 * BLOCK)})


@pytest.mark.parametrize("size", [len(ARGS), 1, 3])
def test_add_keeps_the_raw_text_and_parses_it(size: int) -> None:
    arguments = text_of(split_every(ARGS, size))
    assert arguments.raw() == ARGS
    assert arguments.chars == len(ARGS)
    assert arguments.parser is not None
    assert arguments.parser.close() == json.loads(ARGS)
    assert arguments.complete
    assert len(arguments.parts) == 1  # raw() joined them


@given(data=st.data())
def test_any_split_gives_the_same_text(data: st.DataObject) -> None:
    pieces = data.draw(splits(ARGS))
    arguments = text_of(pieces)
    assert arguments.raw_or_none() == ARGS
    assert len(arguments.parts) == 1


def test_no_text_is_none() -> None:
    arguments = ArgumentText(TextBudget(None, None), OPTIONS)
    assert arguments.raw_or_none() is None
    assert arguments.raw() == ""
    assert not arguments.complete


def test_a_call_limit_keeps_text_up_to_it_and_says_which() -> None:
    budget = TextBudget(5, None)
    arguments = ArgumentText(budget, OPTIONS)
    assert arguments.add('{"a"') is not None
    assert arguments.add(": 12}") is None
    assert arguments.dropped
    assert arguments.raw() == '{"a":'
    assert budget.used == 5
    assert arguments.limit_error == (
        "arguments longer than max_argument_chars=5 (raw text kept up to the limit)"
    )


def test_the_stream_limit_is_shared_between_calls() -> None:
    budget = TextBudget(None, 6)
    first = ArgumentText(budget, OPTIONS)
    second = ArgumentText(budget, OPTIONS)
    assert first.add("[1, 2") is not None
    assert second.add("[3]") is None
    assert second.raw() == "["
    assert second.limit_error == (
        "arguments exceed the stream's limit max_chars=6 "
        "(all calls together; raw text kept up to the limit)"
    )
    first.clear()
    assert budget.used == 1


def test_replace_starts_over_with_a_new_parser() -> None:
    budget = TextBudget(None, None)
    arguments = ArgumentText(budget, OPTIONS)
    arguments.add('{"a": 1')
    old = arguments.parser
    arguments.buffer('{"a": 1', [])
    arguments.replace('{"b": 2}')
    assert arguments.raw() == '{"b": 2}'
    assert arguments.parser is not old
    assert arguments.take_buffered() is None
    assert budget.used == len('{"b": 2}')


def test_the_parser_refusing_a_fragment_keeps_the_raw_text() -> None:
    arguments = ArgumentText(TextBudget(None, None), OPTIONS)
    with pytest.raises(PartialJSONError):
        arguments.add("[1 2")
    assert arguments.raw() == "[1 2"


def test_keep_grows_the_raw_text_without_parsing() -> None:
    arguments = ArgumentText(TextBudget(None, None), OPTIONS)
    for piece in split_every("not json at all", 2):
        assert arguments.keep(piece)
    assert arguments.raw() == "not json at all"
    assert arguments.parser is None


def test_held_text_is_released_once_joined() -> None:
    arguments = ArgumentText(TextBudget(None, None), OPTIONS)
    first = arguments.add('{"a"')
    second = arguments.add(": 1}")
    assert first is not None and second is not None
    arguments.buffer('{"a"', first)
    arguments.buffer(": 1}", second)
    assert arguments.take_buffered() == ('{"a": 1}', tuple(first + second))
    assert arguments.take_buffered() is None


HELD = json.dumps(
    {"a": "x\n\"é\ud83d\ude00 " * 3, "b": [{"c": "long " * 20}, "", 12]}, ensure_ascii=True
)


@given(data=st.data())
def test_held_changes_are_those_of_the_text_fed_whole(data: st.DataObject) -> None:
    """What is held is O(the text): consecutive extensions of one string are held as one
    change, so the changes released are those of the held text fed whole (issue 32)."""
    arguments = ArgumentText(TextBudget(None, None), OPTIONS)
    for piece in data.draw(splits(HELD)):
        changes = arguments.add(piece)
        assert changes is not None
        arguments.buffer(piece, changes)
    assert arguments.take_buffered() == (HELD, tuple(PartialJSONParser().feed(HELD)))


@pytest.mark.parametrize(
    ("streamed", "text", "obj", "same"),
    [
        ('{"a": 1}', '{"a": 1}', None, True),
        ('{"a": 1}', '{"a":1}', None, False),
        ('{"a":1}', '{"a": 1}', {"a": 1}, True),
        ('{"a": 1', '{"a": 1}', {"a": 1}, False),
    ],
)
def test_same_as_compares_text_or_the_decoded_object(
    streamed: str, text: str, obj: dict[str, Any] | None, same: bool
) -> None:
    assert text_of([streamed]).same_as(text, obj) is same
