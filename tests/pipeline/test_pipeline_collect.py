"""collect() / acollect() are stream() / astream() drained, without building an update.

``collect()`` runs the same driver loop as ``stream()`` over a quiet pipeline
(:meth:`Pipeline.quiet`): no :class:`StreamUpdate` is built and the assembler's views
are read once, at the end. Everything else must stay identical, which the property
tests check against draining ``stream()`` over the bundled examples and the recorded
corpus (as payloads, and as raw text in random splits, with and without the format
named), with transport limits, and with sources that fail mid-way (a dropped
connection: interrupted, ``exc.callstream_result`` and the note; an SDK exception
carrying a Groq or Anthropic provider error: recovered) or that are not a stream at all.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callstream._assembly.assembler import ToolCallAssembler
from callstream._async import acollect, astream
from callstream._errors import UnknownFormatError
from callstream._pipeline import Pipeline, StreamResult
from callstream._result import attach_result
from callstream._sync import collect, stream
from callstream.examples import EXAMPLES, read_example
from tests.support.compiled_build import skip_if_compiled
from tests.support.corpus import RECORDED_STREAMS
from tests.support.strategies import splits

RECORDED = sorted(RECORDED_STREAMS.glob("*.jsonl")) if RECORDED_STREAMS.is_dir() else []


def _texts() -> dict[str, tuple[str, str | None]]:
    """Every stream of the corpus as raw text, with its format when known."""
    texts: dict[str, tuple[str, str | None]] = {
        f"example:{name}": (read_example(name), example.format)
        for name, example in EXAMPLES.items()
    }
    for path in RECORDED:
        texts[f"recorded:{path.stem}"] = (path.read_text(encoding="utf-8"), None)
    return texts


TEXTS = _texts()
NAMES = sorted(TEXTS)


def payloads_of(text: str) -> list[Any]:
    """The payloads of an NDJSON text (an SSE text is fed as raw text instead)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def is_ndjson(text: str) -> bool:
    return text.lstrip().startswith("{")


class SDKError(Exception):
    """An SDK exception carrying a provider error body (what openai / anthropic raise)."""

    def __init__(self, body: Any) -> None:
        super().__init__("provider error")
        self.body = body


GROQ = {
    "error": {
        "message": "Failed to call a function.",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": '<function=get_weather>{"city": "Paris"}</function>',
    }
}
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
ERRORS: dict[str, Callable[[], Exception]] = {
    "connection": lambda: ConnectionError("gone"),
    "groq": lambda: SDKError(GROQ),
    "anthropic": lambda: SDKError(OVERLOADED),
    "other": lambda: KeyError("k"),  # not a provider error, not a connection error
}


def source(items: list[Any], cut: int | None, error: str | None) -> Iterator[Any]:
    """The first ``cut`` items (all when None), then ``error`` raised (when given)."""
    yield from items if cut is None else items[:cut]
    if error is not None:
        raise ERRORS[error]()


async def asource(items: list[Any], cut: int | None, error: str | None) -> AsyncIterator[Any]:
    for item in items if cut is None else items[:cut]:
        await anyio.lowlevel.checkpoint()
        yield item
    if error is not None:
        raise ERRORS[error]()


Outcome = tuple[StreamResult | None, tuple[Any, ...] | None]


def described(exc: Exception) -> tuple[Any, ...]:
    """What collect() lets through of an exception: its kind, text, result and notes."""
    return (
        type(exc),
        str(exc),
        getattr(exc, "callstream_result", None),
        tuple(getattr(exc, "__notes__", ())),
    )


def by_collect(make: Callable[[], Any], options: dict[str, Any]) -> Outcome:
    try:
        return collect(make(), **options), None
    except Exception as exc:
        return None, described(exc)


def by_stream(make: Callable[[], Any], options: dict[str, Any]) -> Outcome:
    """``stream()`` drained; an exception described as collect() lets it through."""
    with stream(make(), **options) as updates:
        try:
            for _ in updates:
                pass
        except Exception as exc:
            if updates._pipeline.failed:  # as collect() does
                attach_result(exc, updates.result)
            return None, described(exc)
        return updates.result, None


async def by_acollect(make: Callable[[], Any], options: dict[str, Any]) -> Outcome:
    try:
        return await acollect(make(), **options), None
    except Exception as exc:
        return None, described(exc)


async def by_astream(make: Callable[[], Any], options: dict[str, Any]) -> Outcome:
    async with astream(make(), **options) as updates:
        try:
            async for _ in updates:
                pass
        except Exception as exc:
            if updates._pipeline.failed:  # as collect() does
                attach_result(exc, updates.result)
            return None, described(exc)
        return updates.result, None


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Any], dict[str, Any], int | None, str | None]:
    """(items, options, cut, error): a corpus stream as payloads or raw text pieces."""
    text, fmt = TEXTS[draw(st.sampled_from(NAMES))]
    if is_ndjson(text) and draw(st.booleans()):
        items: list[Any] = payloads_of(text)
    else:
        items = draw(splits(text, max_cuts=40))
        if draw(st.booleans()):
            items = [piece.encode() for piece in items]
    options: dict[str, Any] = {}
    if fmt is not None and draw(st.booleans()):
        options["provider"] = fmt
    if draw(st.integers(0, 4)) == 0:
        options["max_event_chars"] = draw(st.sampled_from([40, 200, 1000]))
    if draw(st.integers(0, 4)) == 0:
        options["max_argument_chars"] = draw(st.sampled_from([1, 10, 100]))
    cut = draw(st.none() | st.integers(0, len(items)))
    error = draw(st.none() | st.sampled_from(sorted(ERRORS)))
    return items, options, cut, error


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_collect_is_stream_drained(
    case: tuple[list[Any], dict[str, Any], int | None, str | None],
) -> None:
    items, options, cut, error = case
    want = by_stream(lambda: source(items, cut, error), options)
    assert by_collect(lambda: source(items, cut, error), options) == want


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.booleans())
def test_acollect_is_astream_drained(
    case: tuple[list[Any], dict[str, Any], int | None, str | None], is_async: bool
) -> None:
    items, options, cut, error = case

    def make() -> Any:
        return asource(items, cut, error) if is_async else source(items, cut, error)

    async def both() -> tuple[Outcome, Outcome]:
        return await by_acollect(make, options), await by_astream(make, options)

    got, want = anyio.run(both, backend="asyncio")
    assert got == want
    assert by_collect(lambda: source(items, cut, error), options) == want  # sync agrees


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("error", [None, *sorted(ERRORS)])
def test_collect_is_stream_drained_whole_and_per_character(name: str, error: str | None) -> None:
    text, _ = TEXTS[name]
    shapes = [[text], list(text[:4000])]
    if is_ndjson(text):
        shapes.append(payloads_of(text))
    for items in shapes:
        for cut in (None, len(items) // 2):
            want = by_stream(lambda: source(items, cut, error), {})
            assert by_collect(lambda: source(items, cut, error), {}) == want


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("error", [None, *sorted(ERRORS)])
def test_acollect_is_astream_drained_on_both_backends(backend: str, error: str | None) -> None:
    text, _ = TEXTS["example:openai_chat_parallel"]
    items = payloads_of(text)

    async def both() -> tuple[Outcome, Outcome]:
        def make() -> Any:
            return asource(items, len(items) // 2, error)

        return await by_acollect(make, {}), await by_astream(make, {})

    got, want = anyio.run(both, backend=backend)
    assert got == want


def test_collect_raises_what_stream_raises_on_a_foreign_stream() -> None:
    items = [{"hello": n} for n in range(100)]
    want = by_stream(lambda: iter(items), {})
    assert want[1] is not None and want[1][0] is UnknownFormatError
    assert by_collect(lambda: iter(items), {}) == want


# --- structure: no update is built, the views are read once ----------------------------------


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("collect() built a StreamUpdate")


STRUCTURE_CASES: list[tuple[str, str | None]] = [
    (name, error) for name in NAMES if name.startswith("example:") for error in (None, *ERRORS)
]


@pytest.mark.parametrize(("name", "error"), STRUCTURE_CASES)
def test_collect_never_builds_an_update(
    monkeypatch: pytest.MonkeyPatch, name: str, error: str | None
) -> None:
    text, _ = TEXTS[name]
    items = [text[i : i + 7] for i in range(0, len(text), 7)]
    cut = len(items) // 2 if error else None
    want = by_stream(lambda: source(items, cut, error), {})
    monkeypatch.setattr("callstream._pipeline.StreamUpdate", _refuse)
    assert by_collect(lambda: source(items, cut, error), {}) == want

    async def run() -> Outcome:
        return await by_acollect(lambda: asource(items, cut, error), {})

    assert anyio.run(run, backend="asyncio") == want


def chat_stream(fragments: int) -> list[dict[str, Any]]:
    """An OpenAI Chat stream of one call whose arguments come in ``fragments`` pieces."""
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    head = {**call, "function": {"name": "f", "arguments": '{"a": "'}}
    out = [{"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}]
    for _ in range(fragments):
        piece = {"index": 0, "function": {"arguments": "xy"}}
        out.append({"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]})
    tail = {"index": 0, "function": {"arguments": '"}'}}
    out.append({"choices": [{"index": 0, "delta": {"tool_calls": [tail]}}]})
    out.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return out


VIEWS = ("tool_calls", "invalid_tool_calls", "server_tool_calls")


def count_view_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    reads = dict.fromkeys(VIEWS, 0)
    for view in VIEWS:
        original = getattr(ToolCallAssembler, view)

        def counted(self: ToolCallAssembler, view: str = view, original: Any = original) -> Any:
            reads[view] += 1
            return original.fget(self)

        monkeypatch.setattr(ToolCallAssembler, view, property(counted))
    at_once = ToolCallAssembler.current_views

    def counted_at_once(self: ToolCallAssembler) -> Any:
        for view in VIEWS:  # the three views read in one call
            reads[view] += 1
        return at_once(self)

    monkeypatch.setattr(ToolCallAssembler, "current_views", counted_at_once)
    return reads


@skip_if_compiled  # subclasses / monkeypatches a compiled class, or reads its docs
@pytest.mark.parametrize("provider", ["auto", "openai-chat"])
def test_collect_reads_the_views_once_not_per_payload(
    monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    reads = count_view_reads(monkeypatch)
    per_size = []
    for fragments in (10, 200):
        for view in VIEWS:
            reads[view] = 0
        result = collect(chat_stream(fragments), provider=provider)
        assert result.tool_calls[0]["args"] == {"a": "xy" * fragments}
        per_size.append(dict(reads))
    assert per_size[0] == per_size[1] == dict.fromkeys(VIEWS, 1)  # the final result only
    for view in VIEWS:
        reads[view] = 0
    for _ in stream(chat_stream(10), provider=provider):  # stream() does read them per payload
        pass
    assert reads["tool_calls"] >= 10


@skip_if_compiled  # subclasses / monkeypatches a compiled class, or reads its docs
def test_acollect_reads_the_views_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = count_view_reads(monkeypatch)
    anyio.run(lambda: acollect(chat_stream(50)), backend="asyncio")
    assert reads == dict.fromkeys(VIEWS, 1)


def test_quiet_pipeline_returns_no_updates_and_the_same_result() -> None:
    items = payloads_of(TEXTS["example:openai_chat_parallel"][0])
    loud, quiet = Pipeline(), Pipeline().quiet()
    for item in items:
        loud.feed(item)
        assert quiet.feed(item) == []
    loud.close()
    assert quiet.close() == []
    assert quiet.result() == loud.result()
    cut = Pipeline().quiet()
    for item in items[:5]:
        cut.feed(item)
    assert cut.interrupt("gone") == []
    assert cut.result().interrupted
    recovered = Pipeline().quiet()
    assert recovered.recover(SDKError(GROQ)) == []
    assert recovered.result().finish_reason == "error"
    assert Pipeline().quiet().recover(ValueError("x")) is None
