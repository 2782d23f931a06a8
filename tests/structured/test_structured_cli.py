"""``callstream replay --structured`` (issue 27 item 3): the growing object as JSON lines,
AG-UI state events, Vercel data parts or a rich window; the final value validated with
``--schema``; status 1 for an output that is not valid."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Event as AGUIEvent
from pydantic import TypeAdapter

from callstream._json.dump import same_json
from callstream.cli import run
from tests.structured.models import Doc
from tests.structured.payloads import payloads, split_text
from tests.support.strict_json import strict_loads

TEXT = json.dumps({"title": "Trip", "items": [{"name": "tent", "qty": 2}], "mode": "slow"})
SCHEMA = "tests.structured.models:Doc"


def recording(tmp_path: Path, pieces: list[str], finish: str = "stop") -> str:
    path = tmp_path / "stream.jsonl"
    lines = [json.dumps(p) for p in payloads("openai-chat", pieces, finish)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def cli(*argv: str, console: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(list(argv), stdout=out, stderr=err, console=console)
    return status, out.getvalue(), err.getvalue()


def test_jsonl_shows_the_object_growing_then_the_validated_value(tmp_path: Path) -> None:
    path = recording(tmp_path, split_text(TEXT, 3))
    status, out, err = cli("replay", path, "--structured", "--schema", SCHEMA, "--output", "jsonl")
    assert (status, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1] == {"value": Doc.model_validate_json(TEXT).model_dump(mode="json")}
    partials = [line["partial"] for line in lines[:-1]]
    assert {"title": "T"} in partials and partials[-1] == json.loads(TEXT)  # strings grow
    closed = [pointer for line in lines[:-1] for pointer in line["closed"]]
    assert "/title" in closed and "/items/0/qty" in closed and closed[-1] == ""
    status, out, _ = cli("replay", path, "--structured", "--output", "jsonl")
    assert json.loads(out.splitlines()[-1]) == {"value": json.loads(TEXT)}  # no schema


def test_a_cut_or_invalid_output_exits_1_with_the_error(tmp_path: Path) -> None:
    cut = recording(tmp_path, split_text(TEXT[:30], 5), finish="length")
    status, out, _ = cli("replay", cut, "--structured", "--output", "jsonl")
    last = json.loads(out.splitlines()[-1])
    assert status == 1 and last["reason"] == "length"
    assert last["partial"] == {"title": "Trip", "items": [{}]}  # TEXT[:30] ends in the item
    invalid = recording(tmp_path, ['{"title": 1, "items": []}'])
    status, out, _ = cli("replay", invalid, "--structured", "--schema", SCHEMA, "--output", "jsonl")
    assert status == 1 and json.loads(out.splitlines()[-1])["reason"] == "validation"


def test_agui_and_vercel_outputs(tmp_path: Path) -> None:
    path = recording(tmp_path, split_text(TEXT, 4))
    status, out, _ = cli("replay", path, "--structured", "--output", "agui")
    events = [json.loads(frame[len("data: ") :]) for frame in out.split("\n\n") if frame]
    adapter = TypeAdapter(AGUIEvent)
    for event in events:
        adapter.validate_python(event)
    assert status == 0 and events[0]["type"] == "RUN_STARTED"
    assert events[-2] == {"type": "STATE_SNAPSHOT", "snapshot": json.loads(TEXT)}
    status, out, _ = cli("replay", path, "--structured", "--output", "vercel")
    frames = [frame for frame in out.split("\n\n") if frame]
    assert status == 0 and frames[-1] == "data: [DONE]"
    parts = [json.loads(frame[len("data: ") :]) for frame in frames[:-1]]
    assert parts[-1] == {"type": "finish", "finishReason": "stop"}
    assert parts[-2]["type"] == "data-object" and parts[-2]["data"] == json.loads(TEXT)


@pytest.mark.parametrize("terminal", [True, False])
def test_rich_prints_the_final_value(tmp_path: Path, terminal: bool) -> None:
    pytest.importorskip("rich")
    from rich.console import Console

    path = recording(tmp_path, split_text(TEXT, 4))
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=terminal, width=80, color_system=None)
    status, _, _ = cli("replay", path, "--structured", "--schema", SCHEMA, console=console)
    shown = buffer.getvalue()
    assert status == 0 and "structured output" in shown and '"qty": 2' in shown
    assert '"color": "red"' in shown  # the validated value: defaults filled in
    cut = recording(tmp_path, split_text(TEXT[:30], 5), finish="length")
    buffer.truncate(0)
    status, _, _ = cli("replay", cut, "--structured", console=console)
    assert status == 1 and "invalid (length)" in buffer.getvalue()


def test_the_schema_module_is_found_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``python -m`` finds it, not only as the console script's ``sys.path`` does (its
    first entry is the script's folder); the folder is on the path for that import only."""
    (tmp_path / "picnic_models.py").write_text(
        "from pydantic import BaseModel\n\n\nclass Trip(BaseModel):\n    title: str\n",
        encoding="utf-8",
    )
    path = recording(tmp_path, [json.dumps({"title": "Trip", "extra": 1})])
    monkeypatch.chdir(tmp_path)
    script_path = [p for p in sys.path if p not in ("", str(tmp_path))]
    monkeypatch.setattr(sys, "path", script_path)
    monkeypatch.delitem(sys.modules, "picnic_models", raising=False)
    argv = ("replay", path, "--structured", "--schema", "picnic_models:Trip", "--output", "jsonl")
    status, out, err = cli(*argv)
    monkeypatch.delitem(sys.modules, "picnic_models", raising=False)
    assert (status, err) == (0, "")
    assert json.loads(out.splitlines()[-1]) == {"value": {"title": "Trip"}}  # validated
    assert sys.path == script_path  # put back


def test_a_bad_schema_is_a_usage_error(tmp_path: Path) -> None:
    path = recording(tmp_path, [TEXT])
    status, _, err = cli("replay", path, "--structured", "--schema", "nope")
    assert status == 2 and "MODULE:NAME" in err
    status, _, err = cli("replay", path, "--structured", "--schema", "json:nothing_here")
    assert status == 2 and "cannot import" in err


@pytest.mark.parametrize("output", ["jsonl", "agui", "vercel"])
def test_a_lone_surrogate_key_and_a_deep_value_are_written_by_the_output_rule(
    tmp_path: Path, output: str
) -> None:
    # Read without a model, the value may hold what pydantic's writer refuses: a lone
    # surrogate in a key, nesting past 255 levels. The command writes it (U+FFFD).
    text = '{"\\ud800": ' + "[" * 400 + "]" * 400 + "}"
    path = recording(tmp_path, split_text(text, 7))
    status, out, err = cli("replay", path, "--structured", "--output", output)
    assert (status, err) == (0, "")
    lines = [
        line.removeprefix("data: ") for line in out.splitlines() if line and line != "data: [DONE]"
    ]
    read = [strict_loads(line) for line in lines]  # every line strict UTF-8 JSON
    want = {"\ufffd": json.loads("[" * 400 + "]" * 400)}
    final = {
        "jsonl": lambda r: r[-1]["value"],
        "agui": lambda r: r[-2]["snapshot"],
        "vercel": lambda r: r[-2]["data"],
    }
    assert same_json(final[output](read), want)
