"""The value classes (``callstream._types.Record``): signals, events, the parser's changes
and ``StreamUpdate`` behave alike in the pure and in the compiled build: fields in order,
``==`` / ``hash``, ``repr``, ``match`` by position and keyword, pickling, ``copy`` and
``__replace__``; immutable for type checkers (``Final``)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from callstream import (
    ArgumentsDelta,
    CallChunk,
    CallDone,
    CallEnd,
    CallExtras,
    CallFailure,
    CallInvalid,
    CallStarted,
    ScalarSet,
    ServerToolUse,
    StreamEnd,
    StreamFinished,
    StreamUpdate,
    StringExtended,
    TextDelta,
    ToolCallAssembler,
    ValueClosed,
    ValueStarted,
)
from callstream._json.changes import PathNode
from callstream._pipeline import Pipeline
from callstream._types import Record
from tests.support.compiled_build import COMPILED
from tests.support.paths import SRC
from tests.support.record_fields import as_dict, field_names

_CALL = {"name": "f", "args": {"a": [1]}, "id": "c1", "type": "tool_call"}
_BAD = {"name": "f", "args": "{", "id": "c1", "error": "bad", "type": "invalid_tool_call"}

SAMPLES: list[tuple[type[Record], dict[str, Any]]] = [
    (ValueStarted, {"path": ("a", 0), "kind": "string"}),
    (StringExtended, {"path": ("a",), "text": "xy"}),
    (ScalarSet, {"path": (), "value": 1.5}),
    (ValueClosed, {"path": ("a", 0)}),
    (CallChunk, {"index": 0, "id": "c1", "name": "f", "args": '{"a'}),
    (TextDelta, {"text": "hi", "reasoning": True}),
    (CallEnd, {"index": 1, "id": "c1", "args": "{}"}),
    (CallFailure, {"error": "boom", "index": 0, "id": "c1", "name": "f", "args": "{"}),
    (StreamEnd, {"reason": "length", "provider_reason": "max_tokens", "provider_error": None}),
    (ServerToolUse, {"index": 2, "id": "srv"}),
    (CallExtras, {"extras": {"status": "done"}, "index": 0, "id": "c1"}),
    (CallStarted, {"index": 0, "key": 3, "id": "c1", "name": "f", "server": True, "extras": None}),
    (ArgumentsDelta, {"index": 1, "text": "}", "changes": (ValueClosed(path=()),)}),
    (CallDone, {"index": 0, "tool_call": _CALL, "server": False, "extras": {"k": 1}}),
    (CallInvalid, {"index": 0, "invalid_tool_call": _BAD, "server": True, "extras": None}),
    (StreamFinished, {"reason": "stop", "provider_error": "overloaded"}),
    (
        StreamUpdate,
        {
            "events": (),
            "tool_calls": [_CALL],
            "invalid_tool_calls": [],
            "finish_reason": "stop",
            "payload": {"p": 1},
            "server_tool_calls": [],
            "text": "t",
            "reasoning": "",
        },
    ),
]
IDS = [cls.__name__ for cls, _ in SAMPLES]


def _other(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with one compared field changed."""
    name = next(n for n in ("text", "index", "reason", "error", "path") if n in fields)
    return {**fields, name: ("zz",) if name == "path" else 9 if name == "index" else "zz"}


def test_every_record_class_is_sampled() -> None:
    assert {cls for cls, _ in SAMPLES} == set(Record.__subclasses__())


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_fields_equality_and_repr(cls: type[Record], fields: dict[str, Any]) -> None:
    obj = cls(**fields)
    assert field_names(cls) == list(fields)
    assert as_dict(obj) == fields
    assert obj == cls(**fields)
    assert obj != cls(**_other(fields))
    assert (obj == object()) is False
    shown = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    assert repr(obj) == f"{cls.__name__}({shown})"
    assert not hasattr(obj, "__dict__")


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_built_by_position_or_keyword_alike(cls: type[Record], fields: dict[str, Any]) -> None:
    by_position = cls(*fields.values())
    assert type(by_position) is cls
    assert as_dict(by_position) == fields == as_dict(cls(**fields))
    with pytest.raises(TypeError):
        cls(*fields.values(), None)  # one more than there are fields
    with pytest.raises(TypeError):
        cls(**fields, extra=1)


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_match_by_position_and_keyword(cls: type[Record], fields: dict[str, Any]) -> None:
    obj = cls(**fields)
    names = field_names(cls)
    assert _matches_positionally(obj, cls, list(fields.values()))
    assert _matches_by_keyword(obj, cls, {names[0]: fields[names[0]], names[-1]: fields[names[-1]]})
    assert not _matches_by_keyword(obj, cls, {names[0]: _other(fields)[names[0]]}) or (
        _other(fields)[names[0]] == fields[names[0]]
    )


def _matches_positionally(obj: object, cls: type, values: list[Any]) -> bool:
    """``match obj: case cls(v0, v1, ...)`` for up to the first three fields."""
    head = values[:3]
    match obj:
        case cls(a) if len(head) == 1 and a == head[0]:  # type: ignore[misc]
            return True
        case cls(a, b) if len(head) == 2 and [a, b] == head:  # type: ignore[misc]
            return True
        case cls(a, b, c) if len(head) == 3 and [a, b, c] == head:  # type: ignore[misc]
            return True
    return False


def _matches_by_keyword(obj: object, cls: type, wanted: dict[str, Any]) -> bool:
    source = textwrap.dedent(
        f"""
        match obj:
            case cls({", ".join(f"{name}=v_{name}" for name in wanted)}):
                found = {{{", ".join(f"{name!r}: v_{name}" for name in wanted)}}}
            case _:
                found = None
        """
    )
    scope: dict[str, Any] = {"obj": obj, "cls": cls}
    exec(source, scope)  # a match statement over a class chosen at run time
    return bool(scope["found"] == wanted)


def test_positional_match_in_source_form() -> None:
    match CallChunk(2, None, "f"):
        case CallChunk(2, None, "f", None):
            pass
        case _:
            pytest.fail("no positional match")
    match StringExtended(("a",), "x"):
        case StringExtended(path, text):
            assert (path, text) == (("a",), "x")
        case _:
            pytest.fail("no positional match")
    match CallEnd(index=0):
        case CallEnd(0, None, None):
            pass
        case _:
            pytest.fail("no positional match")


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_pickle_copy_and_deepcopy(cls: type[Record], fields: dict[str, Any]) -> None:
    obj = cls(**fields)
    for clone in (pickle.loads(pickle.dumps(obj)), copy.copy(obj), copy.deepcopy(obj)):
        assert type(clone) is cls
        assert as_dict(clone) == fields
        assert clone == obj


@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_replace_gives_a_new_record_on_every_class(
    cls: type[Record], fields: dict[str, Any]
) -> None:
    """``__replace__`` (``copy.replace`` from Python 3.13) works on every record;
    ``dataclasses.replace`` on none (they are not dataclasses)."""
    obj = cls(**fields)
    changed = _other(fields)
    name = next(n for n in changed if changed[n] != fields[n])
    new = obj.__replace__(**{name: changed[name]})
    assert type(new) is cls and as_dict(new) == changed and as_dict(obj) == fields
    assert obj.__replace__() == obj
    with pytest.raises(TypeError):
        obj.__replace__(no_such_field=1)
    if sys.version_info >= (3, 13):
        assert copy.replace(obj, **{name: changed[name]}) == new  # type: ignore[attr-defined]
    assert not dataclasses.is_dataclass(obj)
    with pytest.raises(TypeError):
        dataclasses.replace(obj)  # type: ignore[type-var]


def test_replace_runs_the_constructor_checks() -> None:
    from callstream import ChunkValidationError

    chunk = CallChunk(index=0, args="{")
    assert chunk.__replace__(index="7") == CallChunk(index=7, args="{")
    with pytest.raises(ChunkValidationError, match="CallChunk: field 'index'"):
        chunk.__replace__(index="lc_0")


def test_hash_follows_the_compared_fields() -> None:
    chunk = CallChunk(index=0, id="c", name="f", args="{")
    assert hash(chunk) == hash(CallChunk(0, "c", "f", "{"))
    assert len({TextDelta(text="a"), TextDelta(text="a"), TextDelta(text="b")}) == 2
    assert hash(ValueClosed(path=("a",))) == hash(ValueClosed(("a",)))
    update = StreamUpdate(events=(), tool_calls=[], invalid_tool_calls=[], finish_reason=None)
    with pytest.raises(TypeError, match="unhashable"):
        hash(update)  # lists, as the dataclass had


def test_stream_update_ignores_the_payload_in_equality_and_defaults() -> None:
    base: dict[str, Any] = {
        "events": (),
        "tool_calls": [],
        "invalid_tool_calls": [],
        "finish_reason": None,
    }
    one, two = StreamUpdate(**base, payload={"a": 1}), StreamUpdate(**base, payload={"b": 2})
    assert one == two
    assert one.server_tool_calls == [] and one.text == "" and one.reasoning == ""
    assert one.server_tool_calls is not two.server_tool_calls  # a fresh list each


def test_a_deep_change_reads_its_path_as_a_tuple_everywhere() -> None:
    node = PathNode(PathNode(("a",), 0), "b")
    change = StringExtended(node, "x")
    assert change.path == ("a", 0, "b")
    assert change == StringExtended(("a", 0, "b"), "x")
    assert repr(change) == "StringExtended(path=('a', 0, 'b'), text='x')"
    assert pickle.loads(pickle.dumps(StringExtended(node, "x"))).path == ("a", 0, "b")


def test_the_pipeline_update_equals_the_constructed_one() -> None:
    payload = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}
                    ]
                },
                "finish_reason": None,
            }
        ]
    }
    (update,) = Pipeline(provider="openai-chat").feed(payload)
    assembler = ToolCallAssembler()
    events = tuple(assembler.feed({"index": 0, "id": "c1", "name": "f", "args": "{}"}))
    expected = StreamUpdate(
        events, assembler.tool_calls, assembler.invalid_tool_calls, None, payload
    )
    assert type(update) is StreamUpdate
    assert update == expected and repr(update) == repr(expected)
    assert update.payload is payload


ASSIGNING = textwrap.dedent(
    """
    from callstream import CallChunk, CallEnd, StreamUpdate, StringExtended

    CallChunk(0).index = 1  # wrong
    CallEnd(index=0).args = "{}"  # wrong
    StringExtended(("a",), "x").text = "y"  # wrong
    StreamUpdate((), [], [], None).text = "t"  # wrong
    print(CallChunk(0).index, StringExtended(("a",), "x").path)
    """
)


def test_type_checkers_refuse_an_assignment_to_a_field(tmp_path: Path) -> None:
    """The fields are ``Final``: a user's type checker flags each assignment."""
    api = pytest.importorskip("mypy.api")
    source = SRC
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nstrict = True\nmypy_path = {source}\n")
    user = tmp_path / "user.py"
    user.write_text(ASSIGNING)
    out, _, _ = api.run(
        ["--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), str(user)]
    )
    flagged = {int(line.split(":")[1]) for line in out.splitlines() if line.startswith(str(user))}
    wrong = {n for n, line in enumerate(ASSIGNING.splitlines(), 1) if line.endswith("# wrong")}
    assert flagged == wrong, out
    assert out.count("final") >= len(wrong), out


@pytest.mark.skipif(not COMPILED, reason="pure Python leaves immutability to type checkers")
@pytest.mark.parametrize(("cls", "fields"), SAMPLES, ids=IDS)
def test_the_compiled_build_refuses_an_assignment(
    cls: type[Record], fields: dict[str, Any]
) -> None:
    obj = cls(**fields)
    for name in fields:
        if name == "path":
            continue  # a property over the stored path
        with pytest.raises(AttributeError):
            setattr(obj, name, None)
    assert as_dict(obj) == fields
