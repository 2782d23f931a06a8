"""The web example (examples/web/app.py) in a real browser: headless Chromium opens the page,
the page reads a replayed stream over the Vercel AI SDK UI stream or AG-UI, and what the DOM
shows at the end must be what ``callstream.collect`` makes of the same stream.

The app runs as its README command does (``python examples/web/app.py --port 0``) in a
subprocess on 127.0.0.1. Chromium is Debian's (``/usr/bin/chromium``, or
``CALLSTREAM_CHROMIUM``), driven by playwright without any browser download. Without it the
browser tests are skipped with one reason, except under ``CI=true``, where they fail.
A screenshot of every final page goes to pytest's ``tmp_path``; with
``CALLSTREAM_SCREENSHOT=1`` the README's one is written to ``docs/web-example.png`` too.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import callstream
import callstream.ui
from callstream.examples import EXAMPLES, read_example
from tests.support.browser import unavailable
from tests.support.paths import ROOT

APP = ROOT / "examples" / "web" / "app.py"
SCREENSHOT = ROOT / "docs" / "web-example.png"
SCREENSHOT_CASE = ("vercel", "openai_chat_invalid")  # the page the README shows
PROTOCOLS = ("vercel", "agui")
TIMEOUT_MS = 30_000


def _need_web_extra() -> None:
    for module in ("starlette", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            unavailable(f"{module} is not installed (pip install -e '.[web]')")


# --- the app, without a browser -------------------------------------------------------------


def _app_module() -> ModuleType:
    _need_web_extra()
    spec = importlib.util.spec_from_file_location("callstream_web_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sse_data(body: str) -> list[str]:
    blocks = [block for block in body.split("\n\n") if block]
    assert all(block.startswith("data: ") for block in blocks), blocks[:3]
    return [block.removeprefix("data: ") for block in blocks]


def test_app_endpoints_send_the_protocols_with_their_headers() -> None:
    from starlette.testclient import TestClient

    with TestClient(_app_module().app) as client:
        listed = client.get("/api/examples").json()
        assert [e["name"] for e in listed] == list(EXAMPLES)

        response = client.get("/api/vercel", params={"example": "openai_chat_invalid", "delay": 0})
        assert response.status_code == 200
        for header, value in callstream.ui.VERCEL_HEADERS.items():
            assert response.headers[header].startswith(value)
        data = _sse_data(response.text)
        assert data[-1] == "[DONE]"
        types = [json.loads(d)["type"] for d in data[:-1]]
        assert types[0] == "start" and types[-1] == "finish"
        assert types.count("tool-input-available") == 1 and types.count("tool-input-error") == 1

        response = client.get("/api/agui", params={"example": "gemini", "delay": "0"})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        types = [json.loads(d)["type"] for d in _sse_data(response.text)]
        assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
        assert types.count("TOOL_CALL_END") == 2

        assert client.get("/api/agui", params={"example": "nope"}).status_code == 404
        bad_delay = {"example": "gemini", "delay": "soon"}
        assert client.get("/api/vercel", params=bad_delay).status_code == 400
        page = client.get("/")
        assert page.status_code == 200 and 'id="turn"' in page.text
        assert client.get("/static/app.js").status_code == 200


def _long_recording(fragments: int) -> str:
    """An OpenAI Chat stream of one call whose arguments come in ``fragments`` pieces."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return json.dumps({"object": "chat.completion.chunk", "choices": [choice]}) + "\n"

    call = {"index": 0, "id": "call_long", "function": {"name": "write_file", "arguments": ""}}
    lines = [
        chunk({"tool_calls": [call]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"content": "'}}]}),
    ]
    piece = {"tool_calls": [{"index": 0, "function": {"arguments": "abcd"}}]}
    lines += [chunk(piece)] * fragments
    lines.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
    lines.append(chunk({}, "tool_calls"))
    return "".join(lines)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("leave", ["reset", "close"])
def test_a_client_that_leaves_stops_the_stream(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, protocol: str, leave: str
) -> None:
    """A real uvicorn on loopback; the client reads the start of a long replay sent without
    pauses, then goes away (a reset, or a plain close). The replay is closed soon after,
    far from its end, and nothing is logged (it was generated to its end, every send
    into the closed connection logging ``socket.send() raised exception.``)."""
    import uvicorn

    module = _app_module()
    fragments = 50_000
    text = _long_recording(fragments)
    monkeypatch.setattr(module, "EXAMPLES", {**EXAMPLES, "long": EXAMPLES["gemini"]})
    monkeypatch.setattr(module, "read_example", lambda name: text)
    replayed = {"lines": 0}
    closed = threading.Event()
    replay = module.replay

    async def counted(text: str, delay: float) -> AsyncIterator[str]:
        try:
            async for line in replay(text, delay):
                replayed["lines"] += 1
                yield line
        finally:
            closed.set()

    monkeypatch.setattr(module, "replay", counted)
    caplog.set_level(logging.INFO)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(module.app, log_config=None, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
            time.sleep(0.01)
        client = socket.create_connection(("127.0.0.1", port), timeout=30)
        request = f"GET /api/{protocol}?example=long&delay=0 HTTP/1.1\r\nHost: test\r\n\r\n"
        client.sendall(request.encode())
        received = b""
        while len(received) < 4096:
            received += client.recv(4096)
        if leave == "reset":
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
        assert received.startswith(b"HTTP/1.1 200"), received[:200]
        assert closed.wait(30), "the replay was not closed after the client left"
    finally:
        server.should_exit = True
        thread.join(30)
        listener.close()
    assert replayed["lines"] < fragments // 2, replayed
    complaints = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert complaints == [], [r.getMessage() for r in complaints[:5]]


# --- the page in Chromium -------------------------------------------------------------------


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start ``python examples/web/app.py --port 0`` and yield the address it prints."""
    _need_web_extra()
    log = tmp_path_factory.mktemp("web") / "app.stderr"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-u", str(APP), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            text=True,
        )
    try:
        first: list[str] = []
        assert process.stdout is not None
        stdout = process.stdout
        reader = threading.Thread(target=lambda: first.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout=60)
        line = first[0] if first else ""
        if "http://" not in line:
            pytest.fail(
                f"the app did not start: {line!r}\n{log.read_text(errors='replace')}",
                pytrace=False,
            )
        yield "http://" + line.split("http://", 1)[1].split()[0]
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1000, "height": 600})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
        assert errors == [], errors
    finally:
        context.close()


# Reads what the page shows: the state, the text, and per call its data attributes, the
# raw argument text, the error shown and the argument tree read back from the nested lists.
READ_DOM = """() => {
  const value = (node) => {
    const type = node.dataset.type;
    if (type === "object") {
      const out = {};
      for (const li of node.children) {
        if (li.tagName === "LI") out[li.dataset.key] = value(li.lastElementChild);
      }
      return out;
    }
    if (type === "array") {
      return node.tagName === "OL" ? [...node.children].map((li) => value(li.lastElementChild)) : [];
    }
    if (type === "string") return node.textContent;
    if (type === "number") return Number(node.textContent);
    if (type === "boolean") return node.textContent === "true";
    return null;
  };
  const turn = document.getElementById("turn");
  return {
    state: turn.dataset.state,
    status: document.getElementById("status").textContent,
    text: [...document.querySelectorAll("#parts > p.text")].map((p) => p.textContent).join(""),
    calls: [...document.querySelectorAll("#parts > section.call")].map((s) => {
      const tree = s.querySelector(".tree > [data-type]");
      return {
        id: s.dataset.callId, name: s.dataset.name, state: s.dataset.state,
        args: s.dataset.args ?? null, error: s.dataset.error ?? null,
        shownError: s.querySelector(".error")?.textContent ?? null,
        raw: s.querySelector(".raw").textContent,
        hasTree: tree !== null, tree: tree === null ? null : value(tree),
      };
    }),
  };
}"""


def _open(page: Any, base_url: str, protocol: str, name: str, delay: int) -> dict[str, Any]:
    page.goto(f"{base_url}?protocol={protocol}&example={name}&delay={delay}&autoplay=1")
    page.wait_for_selector(
        '#turn[data-state="done"], #turn[data-state="failed"]', state="attached", timeout=TIMEOUT_MS
    )
    shown: dict[str, Any] = page.evaluate(READ_DOM)
    assert shown["state"] == "done", shown["status"]
    return shown


def _same_id(shown: str, expected: str | None) -> bool:
    """The provider's id, or for calls without one (Gemini) the encoders' ``call_<n>``."""
    return shown == expected if expected is not None else shown.startswith("call_")


@pytest.mark.parametrize("name", list(EXAMPLES))
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_page_shows_what_collect_returns(
    page: Any, base_url: str, protocol: str, name: str, tmp_path: Path
) -> None:
    shown = _open(page, base_url, protocol, name, delay=0)
    page.set_viewport_size({"width": 1000, "height": 100})  # the shot ends with the page
    page.screenshot(path=str(tmp_path / f"{protocol}-{name}.png"), full_page=True)
    if (protocol, name) == SCREENSHOT_CASE and os.environ.get("CALLSTREAM_SCREENSHOT") == "1":
        page.screenshot(path=str(SCREENSHOT), full_page=True)

    result = callstream.collect(read_example(name).splitlines(keepends=True))
    calls = shown["calls"]
    assert len(calls) == len(result.tool_calls) + len(result.invalid_tool_calls)
    assert len({c["id"] for c in calls}) == len(calls)
    done = [c for c in calls if c["state"] == "done"]
    invalid = [c for c in calls if c["state"] == "invalid"]
    assert len(done) == len(result.tool_calls) and len(invalid) == len(result.invalid_tool_calls)

    for dom, call in zip(done, result.tool_calls, strict=True):
        assert dom["name"] == call["name"]
        assert _same_id(dom["id"], call["id"]), (dom["id"], call["id"])
        assert json.loads(dom["args"]) == call["args"]  # the final arguments, exactly
        assert dom["hasTree"] and dom["tree"] == call["args"]  # and as rendered
        assert dom["error"] is None and dom["shownError"] is None
    for dom, bad in zip(invalid, result.invalid_tool_calls, strict=True):
        assert dom["name"] == bad["name"]
        assert _same_id(dom["id"], bad["id"]), (dom["id"], bad["id"])
        assert dom["error"] == bad["error"] and dom["shownError"] == bad["error"]
        # The UI gets the call's text up to where it went wrong (the CallInvalid event's
        # args); collect() keeps the text that arrived after that too.
        assert dom["raw"] and (bad["args"] or "").startswith(dom["raw"])
        assert dom["args"] is None and not dom["hasTree"]
    assert shown["text"] == result.text


# Records, on every change of the page, the turn's state and each call's state and raw text.
RECORD_CHANGES = """() => {
  window.__changes = [];
  const snapshot = () => {
    const turn = document.getElementById("turn");
    if (!turn) return;
    window.__changes.push({
      state: turn.dataset.state,
      calls: [...document.querySelectorAll("#parts > section.call")].map((s) => ({
        state: s.dataset.state, raw: s.querySelector(".raw").textContent,
      })),
    });
  };
  new MutationObserver(snapshot).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
}"""


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_page_renders_the_arguments_as_they_grow(page: Any, base_url: str, protocol: str) -> None:
    """Paced, the page shows calls streaming with partial argument text before the end."""
    page.add_init_script(f"({RECORD_CHANGES})()")
    shown = _open(page, base_url, protocol, "openai_chat_parallel", delay=20)
    changes: list[dict[str, Any]] = page.evaluate("window.__changes")
    final = [c["raw"] for c in shown["calls"]]
    partial = [
        (i, call["raw"])
        for change in changes
        if change["state"] == "streaming"
        for i, call in enumerate(change["calls"])
        if call["state"] == "streaming" and 0 < len(call["raw"]) < len(final[i])
    ]
    assert partial, "no partial argument text was ever shown"
    assert all(final[i].startswith(raw) for i, raw in partial)
    assert {i for i, _ in partial} == {0, 1}  # both calls were seen growing
