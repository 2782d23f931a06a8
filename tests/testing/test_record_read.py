"""One recording format, read everywhere: a ``RecordingTransport`` file given to
``collect`` (as text, bytes or a file's lines), replayed by ``callstream inspect`` /
``replay``, and by ``ReplayTransport`` (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

import callstream
from callstream.cli import main
from callstream.providers._formats import DIALECTS
from callstream.providers._recording import FORMAT, VERSION
from callstream.testing import (
    MockProvider,
    RecordingTransport,
    ReplayTransport,
    Turn,
    _recording,
    load_recording,
    stream_of,
)
from callstream.testing._transport import ENDPOINTS

CALLS = [
    {"name": "get_weather", "args": {"city": "Paris", "days": [1, 2]}, "id": "call_1"},
    {"name": "get_time", "args": {"zone": "CET"}, "id": "call_2"},
]
#: the dialects a server sends (an HTTP endpoint), by the endpoint the client calls
SERVED = sorted(ENDPOINTS)  # the dialects MockProvider serves


def record(path: Path, *turns: object, format: str, requests: int = 1) -> None:
    """Run ``requests`` streamed requests against a mock of ``turns`` through a
    ``RecordingTransport`` writing ``path``."""
    mock = MockProvider(*turns, format=format)  # type: ignore[arg-type]
    endpoint = DIALECTS[mock.format].endpoint
    assert endpoint is not None
    url = "/v1" + endpoint.replace("{modelId}", "m")
    transport = RecordingTransport(httpx.MockTransport(mock), str(path))
    with httpx.Client(transport=transport, base_url="http://mock") as client:
        for _ in range(requests):
            with client.stream("POST", url, json={"model": "m", "stream": True}) as response:
                for _ in response.iter_bytes():
                    pass


def test_the_format_is_the_one_testing_writes() -> None:
    assert (_recording.FORMAT, _recording.VERSION) == (FORMAT, VERSION)


@pytest.mark.parametrize("name", SERVED)
def test_collect_and_inspect_read_a_recording(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rec.jsonl"
    record(path, stream_of(CALLS, format=name, as_="bytes"), format=name)
    expected = callstream.collect(stream_of(CALLS, format=name))
    for source in (path.read_text(encoding="utf-8"), path.read_bytes()):
        assert callstream.collect(source).tool_calls == expected.tool_calls
    with path.open("rb") as lines:
        assert callstream.collect(lines).tool_calls == expected.tool_calls
    capsys.readouterr()
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "get_weather" in out and "get_time" in out
    assert main(["replay", str(path), "--output", "jsonl", "--speed", "0"]) == 0
    lines_out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line]
    assert lines_out
    # and testing's own replay answers with the same body
    replayed = ReplayTransport(load_recording(path))
    endpoint = DIALECTS[name].endpoint
    assert endpoint is not None
    with httpx.Client(transport=replayed, base_url="http://mock") as client:
        url = "/v1" + endpoint.replace("{modelId}", "m")
        body = client.post(url, json={"model": "m", "stream": True}).content
    assert callstream.collect(body).tool_calls == expected.tool_calls


def test_the_first_streamed_exchange_is_read(tmp_path: Path) -> None:
    """An error turn first (its body is no stream), then two streamed turns: the first
    streamed one is the stream read; the turns after it are not."""
    path = tmp_path / "rec.jsonl"
    first = stream_of(CALLS[:1], format="openai-chat", as_="bytes")
    second = stream_of(CALLS[1:], format="openai-chat", as_="bytes")
    record(path, Turn.error(429), first, second, format="openai-chat", requests=3)
    result = callstream.collect(path.read_bytes())
    assert [c["name"] for c in result.tool_calls] == ["get_weather"]


def test_a_recording_with_no_streamed_exchange_is_no_stream(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    record(path, Turn.error(500), format="anthropic")
    with pytest.raises(callstream.UnknownFormatError):
        callstream.collect(path.read_text(encoding="utf-8"))
    assert main(["inspect", str(path)]) == 2
