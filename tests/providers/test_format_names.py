"""One naming scheme: every function that takes a format accepts the same names and
aliases, and refuses an unknown one with the same error (issue 33).

The walk: every format, dialect and alias name of :data:`callstream.providers.FORMATS`,
through each reader (``collect``, ``stream``, ``Pipeline``, ``ToolRunner.run``, the
command's ``--provider``), each writer (``stream_of``, ``MockProvider``, ``serve``) and
``tool_messages``; then one unknown name through all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

import callstream
from callstream import UnknownFormatNameError
from callstream._json.dump import dumps_bounded
from callstream._pipeline import Pipeline
from callstream.cli import main
from callstream.providers import FORMATS
from callstream.providers._formats import lookup, lookup_dialect
from callstream.runner import ToolResult, ToolRunner, tool_messages
from callstream.testing import MockProvider, serve, stream_of

ALL_NAMES = sorted({n for name, others in FORMATS.items() for n in (name, *others)})
#: the names of the formats with calls of their own (callstream.testing writes them)
CALL_NAMES = [n for n in ALL_NAMES if not lookup(n).raw_text]
#: the names of the raw-text formats (calls only as text a tool parser reads)
RAW_NAMES = [n for n in ALL_NAMES if lookup(n).raw_text]
#: every name, as given, in upper case and with "_" for "-": the one rule of matching
SPELLINGS = sorted(
    {*CALL_NAMES, *(n.upper() for n in CALL_NAMES), *(n.replace("-", "_") for n in CALL_NAMES)}
)
CALLS = [{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}]
UNKNOWN = "openai-chatt"


def _written(name: str) -> Any:
    """A stream of ``CALLS`` in the dialect ``name`` writes."""
    return stream_of(CALLS, format=name)


@pytest.mark.parametrize("name", SPELLINGS)
def test_readers_and_writers_agree_on_every_name(name: str) -> None:
    fmt = lookup(name).name
    stream = _written(name)
    assert stream.format == lookup_dialect(name).name
    result = callstream.collect(stream, provider=name)
    assert result.provider == fmt
    assert [c["args"] for c in result.tool_calls] == [{"city": "Paris"}]
    updates = list(callstream.stream(_written(name), provider=name))
    assert updates[-1].tool_calls == result.tool_calls
    assert Pipeline(name).provider == fmt


@pytest.mark.parametrize("name", RAW_NAMES)
def test_raw_text_names_are_read_and_refused_where_there_is_no_shape(name: str) -> None:
    fmt = lookup(name).name
    assert Pipeline(name).provider == fmt
    assert Pipeline(name.upper().replace("-", "_")).provider == fmt
    with pytest.raises(callstream.OptionValueError, match="raw-text format"):
        tool_messages([], name)
    with pytest.raises(callstream.OptionValueError):
        stream_of(CALLS, format=name)
    with pytest.raises(ValueError, match="no HTTP endpoint"):
        MockProvider(CALLS, format=name)


@pytest.mark.parametrize("name", CALL_NAMES)
def test_tool_messages_and_the_runner_take_every_name(name: str) -> None:
    result = ToolResult(
        index=0, id="call_1", name="get_weather", args={}, status="done", output="sunny"
    )
    assert tool_messages([result], name) == tool_messages([result], lookup(name).name)
    runner = ToolRunner([_weather])
    run = runner.run(_written(name), provider=name)
    assert run.stream.provider == lookup(name).name


def _weather(city: str) -> str:
    """The weather."""
    return "sunny"


@pytest.mark.parametrize("name", CALL_NAMES)
def test_the_mock_provider_takes_every_name_with_an_endpoint(name: str) -> None:
    dialect = lookup_dialect(name)
    if dialect.endpoint is None:
        with pytest.raises(ValueError, match="no HTTP endpoint"):
            MockProvider(CALLS, format=name)
        return
    mock = MockProvider(CALLS, format=name)
    assert mock.format == dialect.name


@pytest.mark.parametrize("name", CALL_NAMES)
def test_the_command_takes_every_name(name: str, tmp_path: Any) -> None:
    path = tmp_path / "stream.jsonl"
    stream = _written(name)
    if lookup(name).name == "langchain":
        pytest.skip("LangChain chunks are Python objects: no file to replay")
    lines = [dumps_bounded(p, max_depth=None) for p in stream.items]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["inspect", str(path), "--provider", name]) == 0


def test_serve_takes_an_alias() -> None:
    with serve(MockProvider(CALLS, format="OpenAI")) as url, httpx.Client() as client:
        response = client.post(f"{url}/chat/completions", json={"model": "m", "stream": True})
        assert callstream.collect(response.text, provider="openai").tool_calls


UNKNOWN_CALLS: dict[str, Callable[[], Any]] = {
    "collect": lambda: callstream.collect([], provider=UNKNOWN),
    "stream": lambda: list(callstream.stream([], provider=UNKNOWN)),
    "Pipeline": lambda: Pipeline(UNKNOWN),
    "ToolRunner.run": lambda: ToolRunner([_weather]).run([], provider=UNKNOWN),
    "tool_messages": lambda: tool_messages([], UNKNOWN),
    "stream_of": lambda: stream_of(CALLS, format=UNKNOWN),
    "MockProvider": lambda: MockProvider(CALLS, format=UNKNOWN),
    "resolve_format": lambda: callstream.providers.resolve_format(UNKNOWN),
    "get_translator": lambda: callstream.providers.get_translator(UNKNOWN),
}


@pytest.mark.parametrize("function", sorted(UNKNOWN_CALLS))
def test_an_unknown_name_raises_the_one_error(function: str) -> None:
    with pytest.raises(UnknownFormatNameError) as caught:
        UNKNOWN_CALLS[function]()
    message = str(caught.value)
    assert repr(UNKNOWN) in message
    for name in FORMATS:
        assert name in message
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, callstream.UsageError)


def test_the_command_refuses_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "x.jsonl", "--provider", UNKNOWN]) == 2
    err = capsys.readouterr().err
    assert "unknown format name" in err
    assert all(name in err for name in FORMATS)
