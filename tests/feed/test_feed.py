"""The JSON event feed: conversion, JSON-Pointer paths, schema, and applying it (Python, JS)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import threading
import typing
import urllib.request
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    StreamFinished,
)
from callstream._errors import UsageError
from callstream._json.changes import ScalarSet, StringExtended, ValueClosed, ValueStarted
from callstream._pipeline import Pipeline
from callstream.cli._replay import prepare
from callstream.cli._stream_file import load_path
from callstream.examples import EXAMPLES
from callstream.feed import dumps_feed, feed_schema, to_feed
from tests.support.corpus import RECORDED_STREAMS
from tests.support.example_events import events_of
from tests.support.paths import ROOT
from tests.support.record_fields import field_names
from tests.support.strategies import json_objects, serializations, splits
from tests.support.strict_json import strict_loads

SCHEMA_FILE = ROOT / "docs" / "event-feed.schema.json"
WEB = ROOT / "examples" / "web"
RECORDED = RECORDED_STREAMS

VALIDATOR = jsonschema.Draft202012Validator(feed_schema())


# --- conversion -----------------------------------------------------------------------------


def test_each_event_type_becomes_its_feed_object() -> None:
    tool_call: Any = {"name": "f", "args": {"a": [1]}, "id": "c1", "type": "tool_call"}
    invalid: Any = {"name": "g", "args": "{", "id": None, "error": "cut off"}
    assert to_feed(CallStarted(index=0, key=3, id="c1", name="f")) == {
        "type": "call_started",
        "index": 0,
        "key": 3,
        "id": "c1",
        "name": "f",
        "server": False,
    }
    assert to_feed(CallDone(index=0, tool_call=tool_call)) == {
        "type": "call_done",
        "index": 0,
        "tool_call": tool_call,
        "server": False,
    }
    assert to_feed(CallInvalid(index=1, invalid_tool_call=invalid)) == {
        "type": "call_invalid",
        "index": 1,
        "invalid_tool_call": invalid,
        "server": False,
    }
    assert to_feed(StreamFinished(reason=None)) == {
        "type": "stream_finished",
        "reason": None,
        "provider_error": None,
    }
    assert to_feed(StreamFinished(reason="error", provider_error="Overloaded")) == {
        "type": "stream_finished",
        "reason": "error",
        "provider_error": "Overloaded",
    }
    delta = ArgumentsDelta(
        index=2,
        text='{"a/b~": [tr',
        changes=(
            ValueStarted(path=(), kind="object"),
            ValueStarted(path=("a/b~",), kind="array"),
            ScalarSet(path=("a/b~", 0), value=None),
            StringExtended(path=("a/b~", 1), text="x"),
            ValueClosed(path=("a/b~",)),
        ),
    )
    assert to_feed(delta) == {
        "type": "arguments_delta",
        "index": 2,
        "text": '{"a/b~": [tr',
        "changes": [
            {"type": "value_started", "path": "", "kind": "object"},
            {"type": "value_started", "path": "/a~1b~0", "kind": "array"},
            {"type": "scalar_set", "path": "/a~1b~0/0", "value": None},
            {"type": "string_extended", "path": "/a~1b~0/1", "text": "x"},
            {"type": "value_closed", "path": "/a~1b~0"},
        ],
    }


def test_feed_objects_carry_every_field_of_their_event() -> None:
    """The feed mirrors the dataclasses: a field added to an event must reach the feed."""
    extras = {"item_type": "custom_tool_call"}  # optional: in the feed when there are any
    samples: list[AssemblyEvent] = [
        CallStarted(index=0, key=None, id=None, name="f", extras=extras),
        ArgumentsDelta(index=0, text="{", changes=(ValueStarted(path=(), kind="object"),)),
        CallDone(index=0, tool_call={"name": "f", "args": {}, "id": None}, extras=extras),
        CallInvalid(
            index=0,
            invalid_tool_call={"name": "f", "args": None, "id": None, "error": "x"},
            extras=extras,
        ),
        StreamFinished(reason="stop"),
    ]
    union = set(typing.get_args(AssemblyEvent))
    assert {type(sample) for sample in samples} == union
    for sample in samples:
        item = to_feed(sample)
        assert {*field_names(sample), "type"} == set(item)
    for change in (
        ValueStarted(path=(), kind="string"),
        StringExtended(path=(), text=""),
        ScalarSet(path=(), value=1),
        ValueClosed(path=()),
    ):
        item: Any = to_feed(ArgumentsDelta(index=0, text="", changes=(change,)))["changes"][0]
        assert {*field_names(change), "type"} == set(item)


def test_not_an_event_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        to_feed("call_started")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        to_feed(ArgumentsDelta(index=0, text="", changes=("nope",)))  # type: ignore[arg-type]


def test_dumps_feed_is_one_compact_json_line() -> None:
    event = ArgumentsDelta(index=0, text='"é', changes=(StringExtended(path=("k",), text="é"),))
    line = dumps_feed(event)
    assert "\n" not in line
    assert "é" in line  # UTF-8, not \u escapes
    assert json.loads(line) == to_feed(event)
    assert line == json.dumps(to_feed(event), ensure_ascii=False, separators=(",", ":"))


def test_dumps_feed_stays_valid_json_for_lone_surrogates_and_nan() -> None:
    lone: Any = {"name": "f", "args": {"s": "\ud800", "n": float("nan")}, "id": None}
    line = dumps_feed(CallDone(index=0, tool_call=lone))
    decoded = strict_loads(line)  # UTF-8, no NaN literal, no lone surrogate escape
    assert decoded["tool_call"]["args"] == {"s": "\ufffd", "n": None}
    nan_line = dumps_feed(
        ArgumentsDelta(index=0, text="NaN", changes=(ScalarSet(path=("x",), value=float("inf")),))
    )
    assert json.loads(nan_line)["changes"][0]["value"] is None
    big = dumps_feed(
        ArgumentsDelta(index=0, text="", changes=(ScalarSet(path=("x",), value=2**80),))
    )
    assert json.loads(big)["changes"][0]["value"] == 2**80


@pytest.mark.parametrize(
    ("args", "written"),
    [
        ({"\ud800": 1}, {"\ufffd": 1}),  # a lone surrogate in a key only
        ({"k": [{"\udfff x": "\ufffd"}]}, {"k": [{"\ufffd x": "\ufffd"}]}),
        (
            {"\ufffd": "real replacement characters stay"},
            {"\ufffd": "real replacement characters stay"},
        ),
        ({"a": "\ud83d\ude80"}, {"a": "\ufffd\ufffd"}),  # two code points, no pair in a str
        ({"a": "🚀 é"}, {"a": "🚀 é"}),
    ],
)
def test_dumps_feed_writes_lone_surrogates_as_replacement_characters(
    args: dict[str, Any], written: dict[str, Any]
) -> None:
    call: Any = {"name": "f", "args": args, "id": "c", "type": "tool_call"}
    line = dumps_feed(CallDone(index=0, tool_call=call))
    assert strict_loads(line)["tool_call"]["args"] == written


# --- schema ---------------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12_and_matches_the_docs_file() -> None:
    schema = feed_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == schema, (
        "docs/event-feed.schema.json is stale: regenerate it with "
        "`python -m callstream.feed > docs/event-feed.schema.json`"
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "call_started", "index": 0, "key": None, "id": None},  # no name
        {"type": "arguments_delta", "index": 0, "text": "x", "changes": [{"type": "nope"}]},
        {"type": "arguments_delta", "index": "0", "text": "x", "changes": []},
        {
            "type": "arguments_delta",
            "index": 0,
            "text": "x",
            "changes": [{"type": "value_started", "path": "", "kind": "number"}],
        },
        {"type": "call_done", "index": 0, "tool_call": {"name": "f", "args": [], "id": None}},
        {"type": "stream_done", "reason": None},
    ],
)
def test_schema_rejects_malformed_feed_objects(bad: dict[str, Any]) -> None:
    assert not VALIDATOR.is_valid(bad)


@pytest.mark.parametrize("split", [None, 1, 5])
@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_example_feed_validates_against_the_schema(name: str, split: int | None) -> None:
    events = events_of(name, split)
    assert events, name
    for event in events:
        VALIDATOR.validate(json.loads(dumps_feed(event)))


@pytest.mark.skipif(not RECORDED.is_dir(), reason="shared/recorded-streams not present")
def test_recorded_streams_feed_validates_against_the_schema() -> None:
    files = sorted(RECORDED.glob("*.jsonl"))
    assert files
    for file in files:
        prepared = prepare(load_path(str(file)))
        pipeline = Pipeline("auto")
        updates = [u for item in prepared.items for u in pipeline.feed(item)] + pipeline.close()
        for update in updates:
            for event in update.events:
                VALIDATOR.validate(json.loads(dumps_feed(event)))


# --- applying the feed ----------------------------------------------------------------------


def parse_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    assert pointer.startswith("/")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


class Applier:
    """A reference consumer: applies feed dicts as docs/event-feed.md describes."""

    def __init__(self) -> None:
        self.trees: dict[int, Any] = {}
        self.closed: dict[int, set[str]] = {}
        self.done: dict[int, Any] = {}
        self.invalid: dict[int, Any] = {}
        self.started: list[int] = []
        self.finished: str | bool | None = False

    def apply(self, item: dict[str, Any]) -> None:
        assert self.finished is False, "nothing may follow stream_finished"
        kind = item["type"]
        index = item.get("index")
        if kind == "call_started":
            assert index == len(self.started), "calls are numbered in order of start"
            self.started.append(index)
            self.closed[index] = set()
        elif kind == "arguments_delta":
            assert index in self.started and index not in self.done and index not in self.invalid
            for change in item["changes"]:
                self._change(index, change)
        elif kind == "call_done":
            assert index in self.started and index not in self.done and index not in self.invalid
            self.done[index] = item["tool_call"]
        elif kind == "call_invalid":
            assert index in self.started and index not in self.done and index not in self.invalid
            self.invalid[index] = item["invalid_tool_call"]
        else:
            assert kind == "stream_finished"
            assert set(self.done) | set(self.invalid) == set(self.started)
            self.finished = item["reason"]

    def _change(self, index: int, change: dict[str, Any]) -> None:
        keys = parse_pointer(change["path"])
        kind = change["type"]
        if kind == "string_extended":
            parent, key = self._locate(index, keys)
            if key is None:
                self.trees[index] += change["text"]
            else:
                parent[key] += change["text"]
            return
        if kind == "value_closed":
            self.closed[index].add(change["path"])
            return
        new: Any = (
            change["value"]
            if kind == "scalar_set"
            else {"object": {}, "array": [], "string": ""}[change["kind"]]
        )
        if not keys:
            self.trees[index] = new
            return
        parent = self._node(index, keys[:-1])
        if isinstance(parent, list):
            assert int(keys[-1]) == len(parent), "array items are appended in order"
            parent.append(new)
        else:
            parent[keys[-1]] = new

    def _node(self, index: int, keys: list[str]) -> Any:
        node = self.trees[index]
        for key in keys:
            node = node[int(key)] if isinstance(node, list) else node[key]
        return node

    def _locate(self, index: int, keys: list[str]) -> tuple[Any, Any]:
        if not keys:
            return None, None
        parent = self._node(index, keys[:-1])
        return parent, int(keys[-1]) if isinstance(parent, list) else keys[-1]


@pytest.mark.parametrize("split", [None, 1, 3])
@pytest.mark.parametrize("name", list(EXAMPLES))
def test_applying_the_feed_rebuilds_the_final_arguments(name: str, split: int | None) -> None:
    applier = Applier()
    for event in events_of(name, split):
        applier.apply(json.loads(dumps_feed(event)))
    assert applier.finished is not False
    for index, tool_call in applier.done.items():
        assert applier.trees.get(index, {}) == tool_call["args"]
        assert "" in applier.closed[index]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_feed_applied_to_any_split_of_any_arguments_gives_json_loads(data: st.DataObject) -> None:
    args = data.draw(json_objects())
    text = data.draw(serializations(st.just(args)))
    fragments = data.draw(splits(text))
    assembler = ToolCallAssembler()
    events: list[AssemblyEvent] = list(
        assembler.feed({"index": 0, "id": "c", "name": "f", "args": None})
    )
    for fragment in fragments:
        events.extend(assembler.feed({"index": 0, "id": None, "name": None, "args": fragment}))
    events.extend(assembler.finish("tool_calls"))
    applier = Applier()
    for event in events:
        item = json.loads(dumps_feed(event))
        VALIDATOR.validate(item)
        applier.apply(item)
    assert applier.done[0]["args"] == json.loads(text)
    assert applier.trees[0] == json.loads(text)


# --- the web example ------------------------------------------------------------------------


def _web_server_module() -> Any:
    spec = importlib.util.spec_from_file_location("callstream_web_example", WEB / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_web_example_serves_the_feed_as_server_sent_events() -> None:
    module = _web_server_module()
    server = module.make_server("127.0.0.1", 0, [])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with urllib.request.urlopen(base + "/streams", timeout=10) as response:
            assert json.loads(response.read()) == list(EXAMPLES)
        with urllib.request.urlopen(base + "/", timeout=10) as response:
            assert b"EventSource" in response.read()
        url = base + "/feed?stream=openai_chat_invalid&speed=0"
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            body = response.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()
    blocks = [b for b in body.split("\n\n") if b.strip()]
    assert blocks[-1] == "event: end\ndata: {}"
    items = [json.loads(b.removeprefix("data: ")) for b in blocks[:-1]]
    assert items == [json.loads(dumps_feed(e)) for e in events_of("openai_chat_invalid")]
    applier = Applier()
    for item in items:
        VALIDATOR.validate(item)
        applier.apply(item)
    assert len(applier.done) == 1 and len(applier.invalid) == 1


HARNESS = r"""
"use strict";
// A minimal DOM, enough to run the page's script under node and read what it built.
const fs = require("fs");
const [htmlPath, feedPath] = process.argv.slice(2);
class Text { constructor(d) { this.data = d; this.parent = null; }
  appendData(d) { this.data += d; } get textContent() { return this.data; } }
class Element {
  constructor(tag) { this.tag = tag; this.children = []; this.parent = null; this.className = "";
    const self = this;
    this.classList = {
      add(c) { const s = new Set(self.className.split(" ").filter(Boolean)); s.add(c);
               self.className = [...s].join(" "); },
      contains(c) { return self.className.split(" ").includes(c); } }; }
  append(...nodes) { for (let n of nodes) { if (typeof n === "string") n = new Text(n);
    if (n.parent) n.parent.removeChild(n); n.parent = this; this.children.push(n); } }
  removeChild(n) { this.children = this.children.filter((c) => c !== n); n.parent = null; }
  remove() { if (this.parent) this.parent.removeChild(this); }
  replaceChildren() { for (const c of this.children) c.parent = null; this.children = []; }
  get textContent() { return this.children.map((c) => c.textContent).join(""); }
  set textContent(t) { this.replaceChildren(); this.append(String(t)); }
  addEventListener() {}
}
const byId = {};
for (const id of ["stream", "speed", "play", "status", "calls", "log"]) byId[id] = new Element("div");
global.document = { getElementById: (id) => byId[id], createElement: (t) => new Element(t),
                    createTextNode: (d) => new Text(d) };
global.fetch = () => Promise.resolve({ json: () => Promise.resolve([]) });
const script = fs.readFileSync(htmlPath, "utf8").match(/<script>([\s\S]*)<\/script>/)[1];
const page = new Function(script + "\nreturn {onEvent, calls: () => calls};")();
for (const line of fs.readFileSync(feedPath, "utf8").split("\n")) {
  if (line.trim()) page.onEvent(JSON.parse(line));
}
function value(node) {
  if (!node) return null;
  if (node.kind === "object") return Object.fromEntries([...node.children].map(([k, v]) => [k, value(v)]));
  if (node.kind === "array") return node.children.map(value);
  if (node.kind === "string") return node.text.data;
  return node.value;
}
const out = {calls: {}, status: byId.status.textContent};
for (const [index, call] of page.calls()) {
  out.calls[index] = {state: call.section.className, badge: call.badge.textContent,
                      args: value(call.root), text: call.section.textContent};
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("name", list(EXAMPLES))
def test_web_page_script_applies_the_feed(name: str, tmp_path: Path) -> None:
    """Run the page's own JavaScript on the feed (with a tiny DOM) and read its tree."""
    events = events_of(name, split=2)
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(dumps_feed(e) + "\n" for e in events), encoding="utf-8")
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS, encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    completed = subprocess.run(
        [node, str(harness), str(WEB / "index.html"), str(feed)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    page = json.loads(completed.stdout)
    applier = Applier()
    for event in events:
        applier.apply(json.loads(dumps_feed(event)))
    assert set(page["calls"]) == {str(i) for i in applier.started}
    for index, tool_call in applier.done.items():
        shown = page["calls"][str(index)]
        assert shown["state"] == "call done"
        assert shown["args"] == tool_call["args"]
    for index, invalid in applier.invalid.items():
        shown = page["calls"][str(index)]
        assert shown["state"] == "call invalid"
        assert shown["args"] == applier.trees.get(index)
        assert invalid["error"] in shown["text"]
    assert page["status"].startswith("Finished")
