"""The machinery of the XML-ish families (``_raw_text``: a call read marker by marker, a
raw value written as it streams), exercised by a small family of this test's own in the
shape ``<tool_call><function=NAME><parameter=KEY>\\nVALUE\\n</parameter></function></tool_call>``:
typed by the schema, the same under every cut, a string value growing as it streams, a
cut call invalid."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from hypothesis import given
from hypothesis import strategies as st

import callstream
from callstream.tool_parsers import CallReader, ToolParser
from callstream.tool_parsers._raw_text import AGAIN, ENDED, GO_ON, MarkerReader, ValueWriter
from callstream.tool_parsers._values import ArgsWriter, param_schema
from tests.support.conformance import cut, text_source


class XmlReader(MarkerReader):
    __slots__ = ("_key", "_value", "_writer")

    def __init__(self, parser: ToolParser, index: int) -> None:
        super().__init__(parser, index)
        self._writer = ArgsWriter()
        self._key: list[str] = []
        self._value: ValueWriter | None = None

    def markers(self, state: str) -> tuple[str, ...]:
        return {
            "start": ("<function=", "</tool_call>", "<tool_call>"),
            "name": (">",),
            "body": ("<parameter=", "</function>", "</tool_call>", "<tool_call>"),
            "key": (">",),
            "value": ("</parameter>", "</function>", "</tool_call>", "<tool_call>"),
            "after": ("</tool_call>", "<tool_call>"),
        }[state]

    def on_text(self, text: str) -> None:
        if self.state in ("name", "key"):
            self._key.append(text)
        elif self.state == "value" and self._value is not None:
            self._value.feed(text)

    def on_marker(self, marker: str) -> int:
        state = self.state
        if marker == "<tool_call>":
            self.fail("a new call opened before this one ended")
            return AGAIN
        if marker == "</tool_call>":
            if state == "after":
                self.end()
            else:
                self.fail("the call ended before its function did")
            return ENDED
        if state == "start":
            self.state = "name"
        elif state == "name":
            self.start("".join(self._key).strip())
            self._key = []
            self.state = "body"
        elif marker == "<parameter=":
            self.state = "key"
        elif state == "key":
            key = "".join(self._key)
            self._key = []
            schema = param_schema(self.parser.schemas, self.name, key)
            self._value = ValueWriter(self._writer, key, schema, self.args, trim_newline=True)
            self.state = "value"
        elif marker == "</parameter>" and self._value is not None:
            self._value.close()
            self._value = None
            self.state = "body"
        elif marker == "</function>" and state == "body":
            self.args(self._writer.close())
            self.state = "after"
        else:
            self.fail(f"{marker} out of place")
            self.state = "after"
        return GO_ON


class XmlParser(ToolParser):
    name: ClassVar[str] = "test_xml"
    call_open: ClassVar[tuple[str, ...]] = ("<tool_call>",)
    call_close: ClassVar[tuple[str, ...]] = ("</tool_call>",)

    def open_call(self, marker: str, index: int) -> CallReader:
        return XmlReader(self, index)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {"s": {"type": "string"}, "n": {"type": "integer"}},
            },
        },
    }
]


def write(calls: list[tuple[str, dict[str, Any]]]) -> str:
    out = []
    for name, args in calls:
        params = "".join(
            f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v)}\n</parameter>\n"
            for k, v in args.items()
        )
        out.append(f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
    return "\n".join(out)


def read(pieces: list[str], **options: Any) -> callstream.StreamResult:
    return callstream.collect(
        text_source(pieces), provider="openai-chat", tool_parser=XmlParser(**options)
    )


values = st.fixed_dictionaries(
    {},
    optional={
        "s": st.lists(st.sampled_from(list('ab <>/"\\\n=é'))).map("".join),
        "n": st.integers(-1000, 1000),
    },
)


@given(st.lists(values, max_size=3), st.lists(st.integers(0, 2000), max_size=10))
def test_raw_values_read_back_typed_under_any_cut(
    calls: list[dict[str, Any]], points: list[int]
) -> None:
    raw = write([("f", args) for args in calls])
    whole = read([raw], tools=TOOLS)
    assert [c["args"] for c in whole.tool_calls] == calls  # one newline trimmed each side
    assert whole.invalid_tool_calls == [] and whole.text == ""
    pieces = cut(raw, sorted({p % (len(raw) + 1) for p in points}))
    assert read(pieces, tools=TOOLS) == whole


def test_without_a_schema_the_rule_types_values() -> None:
    raw = write([("f", {"s": "42", "n": 7, "t": "seven"})])
    [call] = read([raw]).tool_calls
    assert call["args"] == {"s": 42, "n": 7, "t": "seven"}


def test_a_string_value_grows_as_it_streams() -> None:
    pieces = ["<tool_call>\n<function=f>\n<parameter=s>\nhel", "lo wor", "ld\n</parameter>\n"]
    previews = [
        dict(update.tool_calls[0]["args"])
        for update in callstream.stream(
            text_source([*pieces, "</function>\n</tool_call>"]),
            provider="openai-chat",
            tool_parser=XmlParser(tools=TOOLS),
        )
        if update.tool_calls
    ]
    assert previews[:2] == [{"s": "hel"}, {"s": "hello wor"}]
    assert previews[-1] == {"s": "hello world"}


def test_a_cut_call_is_invalid_and_the_held_tail_kept() -> None:
    result = read(["<tool_call>\n<function=f>\n<parameter=s>\nabc</param"], tools=TOOLS)
    assert result.tool_calls == []
    [invalid] = result.invalid_tool_calls
    assert "the text ended inside a call" in invalid["error"]
    assert invalid["args"] == '{"s": "abc</param'


def test_a_new_opener_ends_the_call_and_opens_the_next() -> None:
    good = write([("f", {"n": 1})])
    result = read(["<tool_call>\n<function=f>\n<parameter=n>\n1", good], tools=TOOLS)
    assert [c["args"] for c in result.tool_calls] == [{"n": 1}]
    assert len(result.invalid_tool_calls) == 1
