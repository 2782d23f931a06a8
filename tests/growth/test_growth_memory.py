"""Memory per character of input, path by path (issue 32): the peak at n and 4n characters
is linear, and at 4n at most a bounded number of bytes per character.

The input comes the way a network stream brings it: every fragment a new string made as
the source is read (4 characters, 4 bytes for raw input), so what a path keeps per
fragment is counted. The bounds are about twice the figures measured when the bounds
were set (given beside each); ``docs/guides/limits.md`` states the figures. Before the
fix the same measures were 7 to 200 times larger: a string object kept per fragment or
per escape, a deep copy of a payload per re-cut fragment.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import callstream
from callstream._json import PartialJSONParser
from callstream.cli._view import StreamView
from callstream.parsers import JsonToolsParser, PydanticToolsParser
from callstream.ui import AGUIEncoder, VercelEncoder
from tests.growth.scaling import assert_linear, call, per_char

pytestmark = pytest.mark.growth

SIZE = 25_000
"""Characters of input at n (4n: 100,000)."""

UNITS = {
    "plain": "word ",
    "escapes": "ab\n",  # an escape every 4 characters of JSON text
    "wide escapes": "中\n",  # 2-byte characters between escapes (their pieces are not cached)
}


def document(unit: str, chars: int) -> str:
    """``{"s": "<unit repeated>"}`` of about ``chars`` characters of JSON text."""
    one = len(json.dumps(unit, ensure_ascii=False)) - 2
    return json.dumps({"s": unit * (chars // one)}, ensure_ascii=False)


def fragments(text: str, size: int = 4) -> Iterator[str]:
    """``text`` in ``size``-character fragments, each a new string."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


def chat(text: str, *, first: bool = False, name: str | None = "f") -> dict[str, Any]:
    """An OpenAI Chat chunk carrying argument text for call 0."""
    entry: dict[str, Any] = {"index": 0, "function": {"arguments": text}}
    if first:
        entry["id"] = "call_0"
        entry["function"]["name"] = name
    return {"choices": [{"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": None}]}


END = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def argument_stream(text: str, name: str = "f") -> Iterator[dict[str, Any]]:
    yield chat("", first=True, name=name)
    for piece in fragments(text):
        yield chat(piece)
    yield END


def text_stream(text: str) -> Iterator[dict[str, Any]]:
    for piece in fragments(text):
        yield {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


def parser(unit: str) -> Callable[[int], Callable[[], object]]:
    def build(n: int) -> Callable[[], object]:
        text = document(unit, n)

        def run() -> object:
            parsing = PartialJSONParser()
            for piece in fragments(text):
                parsing.feed(piece)
            return parsing.close()

        return run

    return build


def collected(unit: str) -> Callable[[int], Callable[[], object]]:
    def build(n: int) -> Callable[[], object]:
        text = document(unit, n)
        return lambda: callstream.collect(argument_stream(text))

    return build


def arguments_before_the_name(n: int) -> Callable[[], object]:
    """Argument text held until the call's name arrives, at the end."""
    text = document(UNITS["plain"], n)

    def run() -> object:
        assembler = callstream.ToolCallAssembler()
        for piece in fragments(text):
            assembler.feed({"index": 0, "id": None, "name": None, "args": piece})
        assembler.feed({"index": 0, "id": "call_0", "name": "f", "args": None})
        return assembler.finish()

    return run


def one_long_line(layout: str) -> Callable[[int], Callable[[], object]]:
    """One payload as raw bytes (an SSE event or a JSON line) in 4-byte chunks."""

    def build(n: int) -> Callable[[], object]:
        payload = json.dumps(chat(document(UNITS["plain"], n), first=True))
        data = (f"data: {payload}\n\n" if layout == "sse" else f"{payload}\n").encode()

        def chunks() -> Iterator[bytes]:
            for start in range(0, len(data), 4):
                yield data[start : start + 4]

        return lambda: callstream.collect(chunks(), provider="openai-chat")

    return build


class Note(BaseModel):
    s: str


def structured_output(schema: Any) -> Callable[[int], Callable[[], object]]:
    def build(n: int) -> Callable[[], object]:
        text = document(UNITS["plain"], n)
        if schema is None:
            return lambda: callstream.collect_structured(text_stream(text))

        def run() -> object:
            stream = callstream.structured(text_stream(text), schema)
            for _ in stream:
                pass
            return stream.result

        return run

    return build


def tools_parser(parser: Callable[[], Any]) -> Callable[[int], Callable[[], object]]:
    def build(n: int) -> Callable[[], object]:
        text = document(UNITS["plain"], n)

        def run() -> object:
            last = None
            updates = callstream.stream(argument_stream(text, name="Note"))
            for calls in parser().stream(updates):
                last = calls
            return last

        return run

    return build


def cli_view(n: int) -> Callable[[], object]:
    """What ``callstream replay`` keeps to draw the calls: the view built from events."""
    text = document(UNITS["plain"], n)

    def run() -> object:
        view = StreamView()
        for update in callstream.stream(argument_stream(text)):
            for event in update.events:
                view.apply(event)
        return view

    return run


def ui_encoder(encoder: Callable[[], Any]) -> Callable[[int], Callable[[], object]]:
    """A UI protocol encoder fed the stream's updates (its events dropped as sent)."""

    def build(n: int) -> Callable[[], object]:
        text = document(UNITS["plain"], n)

        def run() -> object:
            encoding = encoder()
            encoding.start()
            for update in callstream.stream(argument_stream(text)):
                encoding.feed(update)
            return encoding

        return run

    return build


# (path, build, bytes per character allowed at 4n; measured when set, both builds)
CASES: list[tuple[str, Callable[[int], Callable[[], object]], float]] = [
    ("parser, plain string", parser(UNITS["plain"]), 5),  # 2.1
    ("parser, wide escapes", parser(UNITS["wide escapes"]), 6),  # 2.8
    ("collect, plain string", collected(UNITS["plain"]), 7),  # 3.2
    ("collect, escapes", collected(UNITS["escapes"]), 6),  # 2.7
    ("collect, wide escapes", collected(UNITS["wide escapes"]), 10),  # 4.9
    ("arguments before the name", arguments_before_the_name, 11),  # 5.3
    ("raw SSE, one long line", one_long_line("sse"), 7),  # 3.0
    ("raw JSON lines, one long line", one_long_line("jsonl"), 6),  # 2.3
    ("collect_structured", structured_output(None), 11),  # 5.2
    ("structured with a model", structured_output(Note), 14),  # 6.3
    ("JsonToolsParser", tools_parser(JsonToolsParser), 9),  # 4.3
    ("PydanticToolsParser", tools_parser(lambda: PydanticToolsParser(tools=[Note])), 12),  # 6.0
    ("replay's view of the calls", cli_view, 10),  # 4.8
    ("AG-UI encoder", ui_encoder(AGUIEncoder), 9),  # 4.3
    ("Vercel encoder", ui_encoder(VercelEncoder), 9),  # 4.3
]


@pytest.mark.parametrize(("build", "limit"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_memory_per_character(build: Callable[[int], Callable[[], object]], limit: float) -> None:
    assert_linear(build, call, SIZE, kind="memory", bound=per_char(limit))


def test_inspect_split_1_recuts_one_payload_at_a_time(tmp_path: Path) -> None:
    """``callstream inspect --split 1`` on one long argument: the payloads made by the
    re-cut are fed one by one, not all made first (a deep copy each)."""
    from callstream import cli

    def build(n: int) -> Callable[[], object]:
        file = tmp_path / f"long-{n}.jsonl"
        payload = chat(document(UNITS["plain"], n), first=True)
        payload["choices"][0]["finish_reason"] = "tool_calls"
        file.write_text(json.dumps(payload) + "\n", encoding="utf-8")

        def run() -> object:
            out = io.StringIO()
            assert cli.run(["inspect", str(file), "--split", "1"], stdout=out) == 0
            return out.getvalue()

        return run

    assert_linear(build, call, 5_000, kind="memory", bound=per_char(16))  # 7.8 at 20,000
