"""Properties of structured output (issue 27, "Done when"): any split of a valid document
ends in exactly ``Model.model_validate_json(text)``; previews only grow and only show
values that are prefixes of the final ones; an invalid document gives the same error whole
and split; hostile documents stay linear and raise only our errors."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

import callstream
from callstream import StructuredOutputError, StructuredParser
from callstream.partial import VALIDATION_WORK_FACTOR, VALIDATION_WORK_SLACK
from callstream.partial._shapes import Shape
from tests.structured.models import Doc, consistent, doc, documents, snapshot, splits
from tests.structured.payloads import FORMATS, payloads

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def feed_all(schema: Any, pieces: list[str], **options: Any) -> tuple[StructuredParser, list[Any]]:
    """Feed ``pieces``; return the parser and a snapshot of its value after each piece."""
    parser = StructuredParser(schema, **options)
    seen = []
    for piece in pieces:
        parser.feed(piece)
        seen.append(snapshot(parser.value))
    return parser, seen


@SETTINGS
@given(data=st.data())
def test_any_split_ends_in_exactly_model_validate_json(data: st.DataObject) -> None:
    text = data.draw(documents())
    pieces = data.draw(splits(text))
    parser, seen = feed_all(Doc, pieces)
    final = parser.close()
    expected = Doc.model_validate_json(text)
    assert final == expected
    assert type(final) is Doc
    assert parser.value is final
    assert parser.json_text == text
    # previews: each consistent with the next one and with the final value
    for before, after in zip(seen, [*seen[1:], final], strict=True):
        consistent(before, after)
        consistent(before, final)


@SETTINGS
@given(data=st.data())
def test_the_json_preview_only_grows_towards_json_loads(data: st.DataObject) -> None:
    text = data.draw(documents())
    pieces = data.draw(splits(text))
    parser = StructuredParser(Doc)
    previews = []
    for piece in pieces:
        parser.feed(piece)
        previews.append(snapshot(parser.partial))
    parser.close()
    expected = json.loads(text)
    for before, after in zip(previews, [*previews[1:], expected], strict=True):
        consistent(before, after)


@SETTINGS
@given(data=st.data())
def test_plain_json_without_a_model_is_json_loads(data: st.DataObject) -> None:
    text = data.draw(documents())
    for schema in (None, Doc.model_json_schema()):
        parser, _ = feed_all(schema, data.draw(splits(text)))
        assert parser.close() == json.loads(text)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_provider_stream_gives_the_same_value(data: st.DataObject) -> None:
    text = data.draw(documents())
    fmt = data.draw(st.sampled_from(FORMATS))
    pieces = data.draw(splits(text))
    updates = list(callstream.structured(payloads(fmt, pieces), Doc))
    assert updates[-1].done and updates[-1].value == Doc.model_validate_json(text)
    assert [u.done for u in updates].count(True) == 1
    assert "".join(u.delta for u in updates) == text
    assert updates[-1].text == "".join(u.delta for u in updates)


# --- invalid documents: the same error whole and split ------------------------------------

BREAKS = {
    "qty": lambda d: {**d, "items": [*d["items"], {"name": "x", "qty": "many"}]},
    "title": lambda d: {k: v for k, v in d.items() if k != "title"},
    "pet": lambda d: {**d, "pet": {"kind": "bird", "wings": 2}},
    "mode": lambda d: {**d, "mode": "medium"},
    "meta": lambda d: {**d, "meta": {"a": 1.5}},
}


def error_of(schema: Any, pieces: list[str], finish: str | None = None) -> StructuredOutputError:
    parser = StructuredParser(schema)
    with pytest.raises(StructuredOutputError) as caught:
        for piece in pieces:
            parser.feed(piece)
        parser.close(finish)
    return caught.value


def same_error(a: StructuredOutputError, b: StructuredOutputError, text: str) -> None:
    """The same error; both keep the text: all of it for an error at the end, what
    arrived up to the fragment that made it impossible for text that is not JSON."""
    assert (a.reason, str(a), a.errors, a.finish_reason) == (
        b.reason,
        str(b),
        b.errors,
        b.finish_reason,
    )
    for error in (a, b):
        if error.reason == "json":
            assert text.startswith(error.text)
        else:
            assert error.text == text


@SETTINGS
@given(value=doc, how=st.sampled_from(sorted(BREAKS)), data=st.data())
def test_invalid_documents_give_the_same_error_whole_and_split(
    value: dict[str, Any], how: str, data: st.DataObject
) -> None:
    text = json.dumps(BREAKS[how](value))
    whole = error_of(Doc, [text])
    split = error_of(Doc, data.draw(splits(text)))
    same_error(whole, split, text)
    assert whole.reason == "validation"
    assert whole.text == text
    assert whole.errors
    with pytest.raises(Exception) as pydantic_error:
        Doc.model_validate_json(text)
    assert str(pydantic_error.value) in str(whole)


@SETTINGS
@given(text=documents(), data=st.data())
def test_malformed_and_cut_documents_give_the_same_error_whole_and_split(
    text: str, data: st.DataObject
) -> None:
    cut = data.draw(st.integers(0, len(text.rstrip()) - 1))
    tail = data.draw(st.sampled_from(["", "}", "]", "x", ",", '"', "\n}"]))
    broken = text[:cut] + tail
    try:
        Doc.model_validate_json(broken)
    except ValueError:
        pass
    else:
        assume(False)  # the tail put back what the cut removed: a valid document
    finish = data.draw(st.sampled_from([None, "stop", "length"]))
    whole = error_of(Doc, [broken], finish)
    split = error_of(Doc, data.draw(splits(broken)), finish)
    same_error(whole, split, broken)
    if whole.reason in ("length", "incomplete"):
        assert whole.reason == ("length" if finish == "length" else "incomplete")
    else:
        assert whole.reason in ("json", "validation")


# --- hostile documents: linear work, only our errors -------------------------------------


class Counter:
    """Counts the characters handed to pydantic while streaming (Shape.validate)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.chars = 0
        original = Shape.validate

        def counting(shape: Shape, text: str) -> Any:
            self.chars += len(text)
            return original(shape, text)

        monkeypatch.setattr(Shape, "validate", counting)


def nested_items(depth: int) -> str:
    """Items whose tags list is fine, inside ``extra`` nested ``depth`` deep."""
    return "[" * depth + "1" + "]" * depth


HOSTILE = {
    "deep extra": '{"title": "t", "items": [], "extra": ' + nested_items(900) + "}",
    "too deep": '{"title": "t", "items": [], "extra": ' + nested_items(1200) + "}",
    "huge string": '{"title": "' + "ab" * 200_000 + '", "items": []}',
    "many keys": '{"title": "t", "items": [], "meta": {'
    + ", ".join(f'"k{i}": {i % 5}' for i in range(20_000))
    + "}}",
    "many items": '{"title": "t", "items": ['
    + ", ".join(f'{{"name": "n{i}", "tags": ["a", "b"]}}' for i in range(5_000))
    + "]}",
    "long number": '{"title": "t", "items": [{"name": "n", "qty": ' + "9" * 5000 + "}]}",
    "long float": '{"title": "t", "items": [{"name": "n", "price": 1.' + "5" * 3000 + "}]}",
    "nested lists": '{"title": "t", "items": [], "extra": '
    + "[" * 150
    + ", ".join(["{}"] * 50)
    + "]" * 150
    + "}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_documents_stay_linear_and_raise_only_our_errors(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = HOSTILE[name]
    counter = Counter(monkeypatch)
    parser = StructuredParser(Doc)
    try:
        for i in range(0, len(text), 97):
            parser.feed(text[i : i + 97])
        value = parser.close()
    except StructuredOutputError as exc:
        assert exc.reason in ("json", "validation")
        assert exc.text == text[: len(exc.text)]
    else:
        assert value == Doc.model_validate_json(text)
    # the validation while streaming is bounded: linear in the text
    assert counter.chars <= (VALIDATION_WORK_FACTOR + 2) * len(text) + VALIDATION_WORK_SLACK


def test_too_deep_and_long_numbers_are_json_errors() -> None:
    too_deep = error_of(Doc, [HOSTILE["too deep"]])
    assert too_deep.reason == "json" and "max_depth" in str(too_deep)
    long_number = error_of(Doc, [HOSTILE["long number"]])
    assert long_number.reason == "json" and "digits" in str(long_number)


def test_a_deep_recursive_model_gives_pydantic_s_error_not_a_recursion_error() -> None:
    from pydantic import BaseModel

    class Node(BaseModel):
        children: list[Node] = []

    depth = 400
    text = '{"children": [' * depth + "]}" * depth
    parser = StructuredParser(Node)
    for i in range(0, len(text), 50):
        parser.feed(text[i : i + 50])
    with pytest.raises(StructuredOutputError) as caught:
        parser.close()
    assert caught.value.reason == "validation"
    shallow = '{"children": [' * 5 + "]}" * 5
    parser = StructuredParser(Node)
    parser.feed(shallow)
    assert parser.close() == Node.model_validate_json(shallow)


# --- NaN and infinities: read as model_validate_json and json.loads read them ------------------

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])


class Finite(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)
    title: str
    items: list[Any]
    extra: list[float]


@st.composite
def non_finite_documents(draw: st.DrawFn) -> str:
    """A valid :class:`Doc` whose prices and ``extra`` hold ``NaN`` / ``Infinity`` /
    ``-Infinity`` (as ``json.dumps`` writes them)."""
    value = draw(doc)
    for item in value["items"]:
        item["price"] = draw(NON_FINITE)
    value["extra"] = [draw(NON_FINITE), *draw(st.lists(st.floats(), max_size=2))]
    return json.dumps(value, indent=draw(st.sampled_from([None, 2])))


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN included (``nan != nan``): the same repr."""
    return repr(a) == repr(b)


def _seeded(text: str, seed: int, cuts: int) -> list[str]:
    """``text`` cut at ``cuts`` places drawn with ``seed``."""
    rng = random.Random(seed)
    at = sorted(rng.sample(range(1, len(text)), min(cuts, len(text) - 1)))
    return [text[a:b] for a, b in zip([0, *at], [*at, len(text)], strict=True)]


@SETTINGS
@given(data=st.data())
def test_nan_and_infinities_read_as_the_final_check_reads_them(data: st.DataObject) -> None:
    text = data.draw(non_finite_documents())
    parser, _ = feed_all(Doc, data.draw(splits(text)))
    assert _same(parser.close(), Doc.model_validate_json(text))
    plain, _ = feed_all(None, data.draw(splits(text)))
    assert _same(plain.close(), json.loads(text))
    finite = StructuredParser(Finite)  # a model that refuses them: refused, as pydantic does
    for piece in data.draw(splits(text)):
        finite.feed(piece)
    with pytest.raises(ValidationError):
        Finite.model_validate_json(text)
    with pytest.raises(StructuredOutputError) as refused:
        finite.close()
    assert refused.value.reason == "validation"


@pytest.mark.parametrize("how", ["whole", "char", "0", "1", "2"])
def test_nan_and_infinities_are_read_whole_per_character_and_in_seeded_splits(how: str) -> None:
    text = '{"title": "t", "items": [{"name": "a", "price": NaN}], "extra": [Infinity, -Infinity]}'
    pieces = {"whole": [text], "char": list(text)}.get(how) or _seeded(text, int(how), 12)
    result = callstream.collect_structured(payloads("openai-chat", pieces), Doc)
    assert _same(result.value, Doc.model_validate_json(text))
    assert math.isnan(result.value.items[0].price)
    plain = callstream.collect_structured(payloads("anthropic", pieces)).value
    assert _same(plain, json.loads(text))


# --- extract modes: the chunk that ends the value and carries text after it -------------------

SCALARS = ["42", "-1.5e3", '"a } string"', "true", "null", "-Infinity", "NaN"]


@st.composite
def wrapped(draw: st.DrawFn, extract: str) -> tuple[str, str, bool]:
    """A document as a model writes it around the JSON (``extract`` mode), the JSON as
    the default mode reads it (a space after a value that text follows: what ends a
    number there), and whether it is a :class:`Doc` (else a top-level scalar, which only
    a fence may hold)."""
    scalar = extract == "fenced" and draw(st.booleans())
    body = draw(st.sampled_from(SCALARS)) if scalar else draw(documents()).strip()
    if extract == "fenced":
        opening = draw(st.sampled_from(["", "```json\n", "```\n", "  ```json\n\n"]))
        closing = draw(st.sampled_from(["", "\n", "```", "\n```", "\n```\n", " \n```  "]))
    else:
        opening = draw(st.sampled_from(["", "Here:\n```json\n", "I found } this: "]))
        closing = draw(st.sampled_from(["", "```", "\n```\nAnything else? {", " - done ] }"]))
    return opening + body + closing, body + (" " if closing else ""), not scalar


def _read(schema: Any, extract: str, pieces: list[str]) -> tuple[list[Any], Any, Any]:
    """Every path ``feed`` said closed (in order), the value after the last piece, and
    the verdict."""
    parser = StructuredParser(schema, extract=extract)
    closed = []
    for piece in pieces:
        closed.extend(parser.feed(piece))
    return closed, snapshot(parser.value), parser.close()


@SETTINGS
@given(extract=st.sampled_from(["fenced", "prose"]), data=st.data())
def test_extract_modes_give_the_same_closed_paths_and_value_for_any_split(
    extract: str, data: st.DataObject
) -> None:
    # For any split: the paths closed (in order), the value once the value's text is in,
    # and the verdict are those of the JSON alone read in the default mode.
    text, alone, is_doc = data.draw(wrapped(extract))
    schema = Doc if is_doc else None
    want = _read(schema, "json", [alone])
    for pieces in ([text], list(text), data.draw(splits(text))):
        assert _same(_read(schema, extract, pieces), want)


@pytest.mark.parametrize("extract", ["fenced", "prose"])
@pytest.mark.parametrize("how", ["whole", "char", "0", "1", "2"])
def test_the_chunk_that_ends_the_value_with_a_fence_reaches_the_partial_object(
    extract: str, how: str
) -> None:
    class Message(BaseModel):
        content: str

    body = '{"content": "test message"}'
    text = f"```json\n{body}\n```"
    pieces = {"whole": [text], "char": list(text)}.get(how) or _seeded(text, int(how), 6)
    for schema in (Message, None):
        closed, value, final = _read(schema, extract, pieces)
        assert closed == [("content",), ()]
        assert _same(value, _read(schema, "json", [body])[1])  # not stale: the whole object
        assert _same(final, Message(content="test message") if schema else json.loads(body))
