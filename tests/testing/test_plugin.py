"""callstream's pytest plugin and ``cases``: the fixtures in a throwaway project run by a
pytest of its own, the parametrize helper's cases and ids, and a plugin cheap to load."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import callstream
import callstream.testing
from callstream.testing import FORMATS, QUIRKS, SPLITS, Case, cases, combinations

SRC = Path(callstream.__file__).resolve().parents[1]
PLUGIN = "callstream.testing.pytest_plugin"

CASES_TEST = """
import pytest

import callstream
from callstream.testing import combinations

CALLS = [{"name": "get_weather", "args": {"city": "Oslo", "days": [1, 2]}, "id": "call_1"}]
PICKED = {"formats": ["openai-chat", "anthropic"], "splits": ["char", "whole"]}


@pytest.mark.callstream_cases(**PICKED, keeping_calls=True)
def test_every_case(stream_case, provider_stream):
    stream = provider_stream(CALLS)
    assert (stream.format, stream_case.split) == (stream_case.format, stream_case.split)
    assert callstream.collect(stream).tool_calls[0]["args"] == CALLS[0]["args"]


def test_a_stream_without_a_case(provider_stream):
    assert len(callstream.collect(provider_stream(CALLS, format="cohere")).tool_calls) == 1


def test_the_count():
    assert len(combinations(**PICKED, keeping_calls=True)) == EXPECTED
"""

MOCK_TEST = """
import json
import urllib.request

import httpx

import callstream

CALLS = [{"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"}]


def test_transport(provider_mock, provider_transport, provider_stream):
    mock = provider_mock(provider_stream(CALLS, format="openai-chat", split="char"))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with httpx.Client(transport=provider_transport(mock), base_url="http://test/v1") as client:
        with client.stream("POST", "/chat/completions", json=body) as response:
            lines = list(response.iter_lines())
    assert callstream.collect(lines).tool_calls[0]["args"] == {"city": "Oslo"}
    assert len(mock.requests) == 1


def test_server(provider_mock, provider_server):
    mock = provider_mock(CALLS, format="ollama")
    url = provider_server(mock)
    body = json.dumps({"model": "m", "messages": [], "stream": True}).encode()
    request = urllib.request.Request(url + "/api/chat", data=body, method="POST")
    request.add_header("content-type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        payloads = [json.loads(line) for line in response.read().splitlines() if line]
    assert callstream.collect(payloads).tool_calls[0]["id"] == "call_1"
"""


def _project(tmp_path: Path, **files: str) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # its own rootdir
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def _run_pytest(folder: Path, *, autoload: bool) -> subprocess.CompletedProcess[str]:
    """A pytest of its own in ``folder``: with the installed entry point (``autoload``), or
    with the plugin named by ``-p`` and entry points off (so it is never loaded twice)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    args = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:randomly"]
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        args += ["-p", PLUGIN]
    return subprocess.run(
        args, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _expected() -> int:
    picked = {"formats": ["openai-chat", "anthropic"], "splits": ["char", "whole"]}
    return len(combinations(**picked, keeping_calls=True))  # type: ignore[arg-type]


def test_the_fixtures_run_in_a_project_of_their_own(tmp_path: Path) -> None:
    folder = _project(tmp_path, test_project=CASES_TEST.replace("EXPECTED", str(_expected())))
    run = _run_pytest(folder, autoload=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{_expected() + 2} passed" in run.stdout, run.stdout
    assert "test_every_case[openai-chat-missing-index-char] PASSED" in run.stdout
    assert "test_every_case[anthropic-plain-whole] PASSED" in run.stdout


def _installed() -> bool:
    return any(
        ep.name == "callstream" and ep.value == PLUGIN
        for ep in importlib.metadata.entry_points(group="pytest11")
    )


@pytest.mark.skipif(
    not _installed(),
    reason="callstream's pytest11 entry point is not installed here (an install older than "
    "the plugin, or none): reinstall callstream to run pytest as a user's project would",
)
def test_an_installed_callstream_gives_a_users_pytest_the_fixtures(tmp_path: Path) -> None:
    folder = _project(tmp_path, test_project=CASES_TEST.replace("EXPECTED", str(_expected())))
    run = _run_pytest(folder, autoload=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{_expected() + 2} passed" in run.stdout, run.stdout


def test_the_mock_transport_and_server_fixtures(tmp_path: Path) -> None:
    pytest.importorskip("httpx", reason="the transport fixture's test uses httpx")
    run = _run_pytest(_project(tmp_path, test_mock=MOCK_TEST), autoload=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout, run.stdout


@pytest.mark.parametrize(("module", "allowed"), [(PLUGIN, ("pytest",)), ("callstream.testing", ())])
def test_loading_imports_no_optional_package(module: str, allowed: tuple[str, ...]) -> None:
    """The plugin loads in every pytest run of a user who installed the extra, and
    ``callstream.testing`` needs nothing beyond callstream: neither imports more."""
    optional = ("pytest", "hypothesis", "langchain_core", "httpx", "httpx2", "pydantic", "anyio")
    code = f"import sys, {module}\nprint(','.join(m for m in {optional!r} if m in sys.modules))\n"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()
    assert out == ",".join(allowed)


# --- cases and combinations ---------------------------------------------------------------


def test_every_case_pairs_a_format_with_a_quirk_that_applies() -> None:
    found = combinations()
    assert len(found) == len(set(found))
    for case in found:
        assert all(case.format in QUIRKS[q].formats for q in case.quirks)
    plain = [c for c in found if not c.quirks]
    assert len(plain) == len(FORMATS) * len(SPLITS)
    per_format = sum(1 for info in QUIRKS.values() for _ in info.formats)
    assert len(found) == (len(FORMATS) + per_format) * len(SPLITS)


def test_cases_are_pytest_params_with_readable_ids() -> None:
    params = cases(["openai-chat"], ["missing-index", "token-limit"], ["char"])
    assert [p.id for p in params] == [
        "openai-chat-plain-char",
        "openai-chat-missing-index-char",
        "openai-chat-token-limit-char",
    ]
    assert params[1].values == ("openai-chat", ("missing-index",), "char")
    assert Case("anthropic", (), "token").id == "anthropic-plain-token"


def test_quirks_that_do_not_apply_are_skipped_and_keeping_calls_filters() -> None:
    found = combinations(["gemini", "anthropic"], splits=["whole"], keeping_calls=True)
    assert [c.id for c in found] == [
        "gemini-plain-whole",
        "anthropic-plain-whole",
        "anthropic-empty-first-fragment-whole",
    ]
    assert combinations(["gemini"], ["missing-index"], plain=False) == []


@pytest.mark.parametrize(("fmt", "quirks", "split"), cases(["bedrock", "cohere"], splits=["char"]))
def test_a_parametrized_test_reads_its_case(fmt: str, quirks: tuple[str, ...], split: str) -> None:
    from callstream.testing import StreamDropped, stream_of

    calls = [
        {"name": "f", "args": {"a": [1, "b"]}, "id": "c1"},
        {"name": "g", "args": {}, "id": "c2"},
    ]
    stream = stream_of(calls, format=fmt, quirks=quirks, split=split)  # type: ignore[arg-type]
    try:
        result = callstream.collect(stream)
    except StreamDropped:
        assert quirks == ("dropped-connection",)
        return
    assert [c["id"] for c in result.tool_calls] == (
        ["c1"] if quirks in (("token-limit",), ("provider-error",)) else ["c1", "c2"]
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"formats": ["nope"]}, ValueError, "unknown format 'nope'"),
        ({"quirks": ["odd"]}, ValueError, "unknown quirk 'odd'"),
        ({"splits": ["word"]}, ValueError, "unknown split 'word'"),
        ({"formats": "anthropic"}, TypeError, "not the string 'anthropic'"),
    ],
)
def test_unknown_names_raise(kwargs: dict[str, object], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        combinations(**kwargs)  # type: ignore[arg-type]
