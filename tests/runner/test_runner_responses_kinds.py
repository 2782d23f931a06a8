"""The tool runner over every kind of OpenAI Responses call (issue 23, item 2).

A custom tool call runs with its text (a tool with one ``str`` parameter gets it, also a
pydantic model or a LangChain tool; other signatures give an error result saying why);
shell, patch, computer, tool-search and MCP-approval calls run with the item's own
fields; hosted tools never run, whatever tools the runner has. Each call is sealed at its
own end (``custom_tool_call_input.done``, the item's ``output_item.done``). And
``tool_messages("openai-responses")`` answers each call with its own input item, checked
against openai-python's own types (the ``TypedDict`` s the client sends, and the pydantic
models it reads back). Streams: ``tests/support/responses_streams.py``, fed as dicts, as raw SSE
whole and cut anywhere, under asyncio and trio.
"""

from __future__ import annotations

import typing
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

import callstream
from callstream import ToolRunner, UsageError
from callstream.providers._responses_items import CALL_ITEMS
from callstream.runner import RunResult, ToolResult, ToolStarted, tool_messages
from callstream.runner._item_outputs import RESPONSES_OUTPUTS
from tests.support.responses_streams import (
    CLIENT_BUILTINS,
    CUSTOM,
    HOSTED,
    HOSTED_SHELL,
    PATCH,
    SHELL,
    SHELL_ACTION,
    XAI_SEARCH,
    Stream,
    added,
    completed,
    done,
    event,
    sse,
)
from tests.support.runner_helpers import on_fake_clock, paced
from tests.support.strategies import splits

# --- openai-python's own input item types ---------------------------------------------------


def _input_types() -> dict[str, tuple[Any, Any]]:
    """``type`` literal -> (the TypedDict the client sends, the pydantic model it reads)."""
    params = pytest.importorskip("openai.types.responses.response_input_item_param")
    models = pytest.importorskip("openai.types.responses.response_input_item")
    sent: dict[str, Any] = {}
    for cls in typing.get_args(params.ResponseInputItemParam):
        hints = typing.get_type_hints(cls, include_extras=True)
        literal = typing.get_args(hints["type"])
        while literal and not isinstance(literal[0], str):  # Required[Literal[...]]
            literal = typing.get_args(literal[0])
        for value in literal:
            sent[value] = cls
    read: dict[str, Any] = {}
    for model in typing.get_args(typing.get_args(models.ResponseInputItem)[0]):
        for value in typing.get_args(model.model_fields["type"].annotation):
            read[value] = model
    return {kind: (sent[kind], read[kind]) for kind in sent if kind in read}


def check_input_item(item: dict[str, Any]) -> None:
    """``item`` is an input item exactly as openai-python types it: its ``TypedDict``
    (every required key, no key it does not know, each value of its type) and its
    pydantic model."""
    sent, read = _input_types()[item["type"]]
    keys = set(typing.get_type_hints(sent))
    assert set(item) <= keys, f"keys the SDK does not know: {set(item) - keys}"
    assert sent.__required_keys__ <= set(item), f"missing: {sent.__required_keys__ - set(item)}"
    TypeAdapter(sent).validate_python(item, strict=True)
    read.model_validate(item)


def test_the_item_check_can_fail() -> None:
    check_input_item({"type": "custom_tool_call_output", "call_id": "c", "output": "x"})
    for bad in (
        {"type": "custom_tool_call_output", "call_id": "c"},  # no output
        {"type": "custom_tool_call_output", "call_id": "c", "output": "x", "name": "n"},
        {"type": "local_shell_call_output", "call_id": "c", "output": "x"},  # the SDK: id
        {"type": "mcp_approval_response", "approval_request_id": "r", "approve": "yes"},
        {"type": "shell_call_output", "call_id": "c", "output": [{"stdout": "x"}]},
    ):
        with pytest.raises(Exception):
            check_input_item(bad)


def test_every_kind_the_client_runs_has_its_own_output_item() -> None:
    client = {
        kind for kind, spec in CALL_ITEMS.items() if spec.server is not True
    }  # the kinds a client may have to run (None: decided per item)
    assert client == set(RESPONSES_OUTPUTS)
    known = _input_types()
    for output in RESPONSES_OUTPUTS.values():
        assert output in known, output


# --- the tools ------------------------------------------------------------------------------

SEEN: list[tuple[str, Any]] = []


def apply_patch(patch: str) -> str:
    """Apply a patch (the custom tool: one text)."""
    SEEN.append(("apply_patch", patch))
    return f"applied {len(patch)} characters"


def shell(action: dict[str, Any]) -> str:
    SEEN.append(("shell", action))
    return "total 0\n"


def local_shell(action: dict[str, Any]) -> dict[str, Any]:
    SEEN.append(("local_shell", action))
    return {"stdout": "a.py\n", "exit_code": 0}


def computer(action: dict[str, Any], pending_safety_checks: list[Any] | None = None) -> Any:
    SEEN.append(("computer", action))
    return {
        "output": {"image_url": "data:image/png;base64,iVBORw0KGgo="},
        "acknowledged_safety_checks": pending_safety_checks or [],
    }


def tool_search(query: str) -> list[dict[str, Any]]:
    SEEN.append(("tool_search", query))
    return [{"type": "function", "name": "crm_lookup", "parameters": {"type": "object"}}]


def mcp_approval_request(name: str, arguments: str, server_label: str) -> dict[str, Any]:
    SEEN.append(("mcp_approval_request", (name, arguments, server_label)))
    return {"approve": server_label == "github", "reason": "trusted server"}


CLIENT_TOOLS = [apply_patch, shell, local_shell, computer, tool_search, mcp_approval_request]


def _feeds(stream: Stream) -> dict[str, list[Any]]:
    text = sse(stream.events)
    return {"dicts": stream.events, "sse": [text], "sse-bytes": [text.encode()]}


@pytest.fixture(autouse=True)
def _fresh() -> None:
    SEEN.clear()


@pytest.fixture(params=["asyncio", "trio"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run(tools: list[Any], source: list[Any], backend: str = "asyncio") -> RunResult:
    async def go() -> RunResult:
        return await ToolRunner(tools).arun(source)

    return anyio.run(go, backend=backend)


# --- custom tools: the text reaches a tool with one str parameter ----------------------------


@pytest.mark.parametrize("feed", ["dicts", "sse", "sse-bytes"])
def test_a_custom_call_runs_a_function_with_its_text(feed: str, backend: str) -> None:
    result = run([apply_patch], _feeds(CUSTOM)[feed], backend)
    [r] = result.results
    assert SEEN == [("apply_patch", PATCH)]
    assert (r.status, r.name, r.id) == ("done", "apply_patch", "call_patch")
    assert r.output == f"applied {len(PATCH)} characters"
    assert r.args == {"__arg1": PATCH}  # the call's own arguments, as the model sent them
    assert r.item_type == "custom_tool_call"
    assert r.extras == result.stream.call_extras["call_patch"]  # the one record, copied
    assert r.extras is not result.stream.call_extras["call_patch"]
    [message] = result.tool_messages("openai-responses")
    assert message == {
        "type": "custom_tool_call_output",
        "call_id": "call_patch",
        "output": f"applied {len(PATCH)} characters",
    }
    check_input_item(message)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_custom_call_cut_anywhere_runs_with_the_whole_text(data: st.DataObject) -> None:
    SEEN.clear()
    pieces = data.draw(splits(sse(CUSTOM.events), max_cuts=40))
    result = run([apply_patch], pieces)
    assert SEEN == [("apply_patch", PATCH)] and result.results[0].status == "done"


class Patch(BaseModel):
    """A patch, as a model with one text field."""

    diff: str


def test_a_custom_call_validates_into_a_model_with_one_str_field(backend: str) -> None:
    result = run([callstream.Tool(Patch, name="apply_patch")], CUSTOM.events, backend)
    [r] = result.results
    assert r.status == "done" and r.output == Patch(diff=PATCH)


def test_a_custom_call_runs_a_langchain_tool_with_one_str_field() -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")

    @lc_tools.tool
    def apply_patch(patch: str, dry_run: bool = False) -> str:
        """Apply a patch."""
        return f"{'checked' if dry_run else 'applied'} {patch.count(chr(10))} lines"

    echo = lc_tools.Tool(name="apply_patch", func=lambda text: f"got {len(text)}", description="")
    for tool, output in ((apply_patch, "applied 4 lines"), (echo, f"got {len(PATCH)}")):
        [r] = run([tool], CUSTOM.events).results  # echo: LangChain's own {"__arg1"} tool
        assert (r.status, r.output) == ("done", output), r


def _extra(patch: str, dry_run: bool = False) -> str:
    return f"{patch[:3]} dry={dry_run}"


def _two(patch: str, path: str) -> str:
    return patch


def _number(count: int) -> int:
    return count


def _none() -> str:
    return "no parameters"


def _optional(note: str | None = None) -> str:
    return f"note={note!r:.8}"


def _any(text) -> str:  # type: ignore[no-untyped-def]
    return f"{text[:3]}"


@pytest.mark.parametrize(
    ("tool", "status", "said"),
    [
        (_extra, "done", "*** dry=False"),  # the one required str parameter; defaults kept
        (_optional, "done", "note='*** Beg"),  # its only parameter takes a string
        (_any, "done", "***"),  # no type: any value
        (_two, "error", "its required parameters are: 'patch', 'path'"),
        (_number, "error", "its parameter 'count' does not take a string"),
        (_none, "error", "its parameters are: none"),
    ],
)
def test_which_signatures_take_a_custom_call_s_text(tool: Any, status: str, said: str) -> None:
    [r] = run([callstream.Tool(tool, name="apply_patch")], CUSTOM.events).results
    assert r.status == status, r
    if status == "done":
        assert r.output == said
    else:
        assert r.error == (
            "Error: apply_patch cannot take the text input of a custom tool call "
            f'(arguments {{"__arg1": text}}): {"it needs one string parameter, and " if "are:" in said else ""}'
            f"{said}"
        )
        [message] = tool_messages([r], "openai-responses")
        assert message["type"] == "custom_tool_call_output" and message["output"] == r.error
        check_input_item(message)


# --- client-run built-in items ---------------------------------------------------------------


@pytest.mark.parametrize("feed", ["dicts", "sse", "sse-bytes"])
def test_shell_and_the_other_built_in_items_run_with_their_fields(feed: str, backend: str) -> None:
    result = run(CLIENT_TOOLS, _feeds(SHELL)[feed], backend)
    more = run(CLIENT_TOOLS, _feeds(CLIENT_BUILTINS)[feed], backend)
    calls = {c["id"]: c["args"] for c in [*result.tool_calls, *more.tool_calls]}
    assert sorted(SEEN, key=repr) == sorted(  # sync tools run in threads: any order
        [
            ("shell", SHELL_ACTION),
            ("local_shell", calls["call_local"]["action"]),
            ("computer", calls["call_cu"]["action"]),
            ("tool_search", "crm tools"),
            ("mcp_approval_request", ("create_issue", '{"title": "Bug"}', "github")),
        ],
        key=repr,
    )
    results = [*result.results, *more.results]
    kinds = {r.id: (r.status, r.item_type) for r in results}
    assert kinds == {
        "call_sh": ("done", "shell_call"),
        "call_local": ("done", "local_shell_call"),
        "call_apc": ("error", "apply_patch_call"),  # the custom tool's apply_patch: no text
        "call_cu": ("done", "computer_call"),
        "call_tsc": ("done", "tool_search_call"),
        "mcpr_1": ("done", "mcp_approval_request"),
    }
    messages = [*result.tool_messages("openai-responses"), *more.tool_messages("responses")]
    for message in messages:
        check_input_item(message)
    by_id = {m.get("call_id") or m.get("id") or m.get("approval_request_id"): m for m in messages}
    assert by_id["call_sh"] == {
        "type": "shell_call_output",
        "call_id": "call_sh",
        "output": [
            {"stdout": "total 0\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
        ],
    }
    assert by_id["call_local"] == {
        "type": "local_shell_call_output",
        "id": "call_local",
        "output": '{"stdout":"a.py\\n","exit_code":0}',
    }
    assert by_id["call_apc"]["type"] == "apply_patch_call_output"
    assert by_id["call_apc"]["status"] == "failed"
    assert by_id["call_apc"]["output"].startswith("Error: invalid arguments for apply_patch")
    assert by_id["call_cu"] == {
        "type": "computer_call_output",
        "call_id": "call_cu",
        "output": {
            "type": "computer_screenshot",
            "image_url": "data:image/png;base64,iVBORw0KGgo=",
        },
        "acknowledged_safety_checks": [{"id": "sc_1", "code": "malicious_instructions"}],
    }
    assert by_id["call_tsc"] == {
        "type": "tool_search_output",
        "call_id": "call_tsc",
        "execution": "client",
        "tools": [{"type": "function", "name": "crm_lookup", "parameters": {"type": "object"}}],
    }
    assert by_id["mcpr_1"] == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": True,
        "reason": "trusted server",
    }


def test_a_patch_tool_that_applies_the_operation_gives_a_completed_output() -> None:
    def apply(operation: dict[str, Any]) -> str:
        return f"updated {operation['path']}"

    source = [e for e in CLIENT_BUILTINS.events if "apc_1" in str(e) or "response." in e["type"]]
    result = run([callstream.Tool(apply, name="apply_patch")], source)
    [r] = [r for r in result.results if r.id == "call_apc"]
    [message] = tool_messages([r], "openai-responses")
    assert message == {
        "type": "apply_patch_call_output",
        "call_id": "call_apc",
        "status": "completed",
        "output": "updated a.py",
    }
    check_input_item(message)


def _result(item_type: str | None, status: str, output: Any = None, **more: Any) -> ToolResult:
    extras = {"item_type": item_type} if item_type else None
    error = None if status == "done" else "Error: it broke"
    return ToolResult(
        index=0,
        id="call_1",
        name="t",
        args={},
        status=status,
        output=output,
        error=error,
        extras=extras,
        **more,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("output", "entries"),
    [
        (
            [{"stdout": "a", "stderr": "b", "outcome": {"type": "exit", "exit_code": 2}}],
            [{"stdout": "a", "stderr": "b", "outcome": {"type": "exit", "exit_code": 2}}],
        ),
        (
            {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}},
            [{"stdout": "", "stderr": "", "outcome": {"type": "timeout"}}],
        ),
        (  # not the item's entries: the output is the stdout
            {"stdout": "a", "exit_code": 0},
            [
                {
                    "stdout": '{"stdout":"a","exit_code":0}',
                    "stderr": "",
                    "outcome": {"type": "exit", "exit_code": 0},
                }
            ],
        ),
        ([], [{"stdout": "[]", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]),
    ],
)
def test_a_shell_tool_may_return_the_item_s_own_entries(output: Any, entries: Any) -> None:
    [message] = tool_messages([_result("shell_call", "done", output)], "openai-responses")
    assert message == {"type": "shell_call_output", "call_id": "call_1", "output": entries}
    check_input_item(message)


@pytest.mark.parametrize("status", ["error", "cancelled"])
def test_error_results_of_each_kind(status: str) -> None:
    expected = {
        None: {"type": "function_call_output", "call_id": "call_1", "output": "Error: it broke"},
        "custom_tool_call": {
            "type": "custom_tool_call_output",
            "call_id": "call_1",
            "output": "Error: it broke",
        },
        "shell_call": {
            "type": "shell_call_output",
            "call_id": "call_1",
            "output": [
                {
                    "stdout": "",
                    "stderr": "Error: it broke",
                    "outcome": {"type": "exit", "exit_code": 1},
                }
            ],
        },
        "local_shell_call": {
            "type": "local_shell_call_output",
            "id": "call_1",
            "output": "Error: it broke",
        },
        "apply_patch_call": {
            "type": "apply_patch_call_output",
            "call_id": "call_1",
            "status": "failed",
            "output": "Error: it broke",
        },
        "mcp_approval_request": {
            "type": "mcp_approval_response",
            "approval_request_id": "call_1",
            "approve": False,  # nothing runs that was not approved
            "reason": "Error: it broke",
        },
    }
    for kind, message in expected.items():
        assert tool_messages([_result(kind, status)], "openai-responses") == [message], kind
        check_input_item(message)
    for kind in ("computer_call", "tool_search_call"):  # no place for an error in the item
        with pytest.raises(
            UsageError,
            match=r"call 0 \('t'\) has no output to send \(Error: it broke\).*no place for an error",
        ):
            tool_messages([_result(kind, status)], "openai-responses")


@pytest.mark.parametrize(
    ("kind", "output", "sent"),
    [
        (
            "computer_call",
            "data:image/png;base64,AA",
            {"type": "computer_screenshot", "image_url": "data:image/png;base64,AA"},
        ),
        (
            "computer_call",
            {"file_id": "file_1"},
            {"type": "computer_screenshot", "file_id": "file_1"},
        ),
        (
            "computer_call",
            {"type": "computer_screenshot", "image_url": "https://x/s.png"},
            {"type": "computer_screenshot", "image_url": "https://x/s.png"},
        ),
        ("mcp_approval_request", False, False),
        ("mcp_approval_request", {"approve": True}, True),
        ("tool_search_call", {"tools": []}, []),
    ],
)
def test_outputs_of_the_fixed_shape_kinds(kind: str, output: Any, sent: Any) -> None:
    result = _result(kind, "done", output)
    assert result.status == "done"
    [message] = tool_messages([result], "openai-responses")
    check_input_item(message)
    key = {
        "computer_call": "output",
        "mcp_approval_request": "approve",
        "tool_search_call": "tools",
    }
    assert message[key[kind]] == sent


@pytest.mark.parametrize(
    ("kind", "output", "wants"),
    [
        ("computer_call", "clicked", "a screenshot"),
        ("computer_call", {"image_url": 3}, "a screenshot"),
        ("computer_call", {"output": {"image_url": "https://x"}, "extra": 1}, "a screenshot"),
        (
            "computer_call",
            {"output": "https://x", "acknowledged_safety_checks": [{"code": "x"}]},
            "a screenshot",
        ),
        ("mcp_approval_request", "yes", "the decision"),
        ("mcp_approval_request", {"approve": 1}, "the decision"),
        ("tool_search_call", "crm", "the tools it found"),
        ("tool_search_call", [{"name": "no type"}], "the tools it found"),
    ],
)
def test_an_output_a_fixed_shape_kind_cannot_send_is_an_error_result(
    kind: str, output: Any, wants: str
) -> None:
    result = _result(kind, "done", output)
    assert result.status == "error" and result.output is None
    assert result.error is not None
    assert result.error.startswith(
        f"Error: t returned an output that cannot be sent to the model: the output of a {kind} must be {wants}"
    )


def test_a_result_of_a_hosted_kind_has_no_output_to_send() -> None:
    with pytest.raises(UsageError, match="web_search_call item, which the provider runs itself"):
        tool_messages([_result("web_search_call", "done", "x")], "openai-responses")


def test_results_of_other_providers_keep_the_function_call_output() -> None:
    [message] = tool_messages([_result(None, "done", {"a": 1})], "openai-responses")
    assert message == {"type": "function_call_output", "call_id": "call_1", "output": '{"a":1}'}


# --- hosted tools never run --------------------------------------------------------------------


@pytest.mark.parametrize("stream", [HOSTED, HOSTED_SHELL, XAI_SEARCH], ids=lambda s: s.name[:30])
@pytest.mark.parametrize("feed", ["dicts", "sse"])
def test_hosted_tools_never_run_and_get_no_result(stream: Stream, feed: str, backend: str) -> None:
    tools = [callstream.Tool(_hosted_probe, name=c["name"]) for c in _server_calls(stream)]
    result = run(tools, _feeds(stream)[feed], backend)
    assert SEEN == []
    assert result.results == [] and result.tool_calls == [] and result.invalid_tool_calls == []
    assert [c["name"] for c in result.server_tool_calls] == [
        c["name"] for c in _server_calls(stream)
    ]
    assert result.tool_messages("openai-responses") == []


def _server_calls(stream: Stream) -> list[Any]:
    calls = callstream.collect(stream.events).server_tool_calls
    assert calls
    return calls


def _hosted_probe(action: Any = None, code: str = "", title: str = "", query: str = "") -> str:
    SEEN.append(("hosted tool ran", action))
    return "ran"


def test_a_voided_turn_cancels_no_hosted_call() -> None:
    # A hosted call still open when the response fails gets no (cancelled) result either.
    events = [e for e in HOSTED.events if e["type"] != "response.completed"][:4]
    events.append({"type": "response.failed", "response": {"error": {"message": "boom"}}})
    result = run([callstream.Tool(_hosted_probe, name="web_search")], events)
    assert result.results == [] and result.voided == "error"


# --- each kind is sealed at its own end ---------------------------------------------------


def _sealing_position(events: list[dict[str, Any]], kind: str) -> int:
    return next(n for n, e in enumerate(events) if e["type"] == kind)


@pytest.mark.parametrize(
    ("stream", "tools", "ends_at"),
    [
        (CUSTOM, [apply_patch], "response.custom_tool_call_input.done"),
        (SHELL, [shell], "response.output_item.done"),
    ],
    ids=["custom", "shell"],
)
def test_each_kind_is_sealed_and_started_at_its_own_end(
    stream: Stream, tools: list[Any], ends_at: str
) -> None:
    # One more call follows, so the stream is far from over when the first is sealed.
    later = [
        added(
            1,
            {
                "type": "function_call",
                "id": "fc_9",
                "call_id": "call_9",
                "name": "later",
                "arguments": "",
            },
        ),
        event("response.function_call_arguments.done", 1, "fc_9", arguments="{}"),
        done(
            1,
            {
                "type": "function_call",
                "id": "fc_9",
                "call_id": "call_9",
                "name": "later",
                "arguments": "{}",
            },
        ),
    ]
    events = stream.events[:-1] + later + [completed()]
    position = _sealing_position(events, ends_at)

    async def go() -> list[ToolStarted]:
        started = []
        async with ToolRunner(tools).astream(paced(events)) as items:
            async for item in items:
                if isinstance(item, ToolStarted):
                    started.append(item)
        return started

    first = on_fake_clock(go)[0]
    assert first.eager and first.at == position + 1  # payload k arrives at k + 1 s


def test_the_built_in_items_are_sealed_at_their_output_item_done() -> None:
    events = CLIENT_BUILTINS.events
    ends = [n for n, e in enumerate(events) if e["type"] == "response.output_item.done"]

    async def go() -> list[ToolStarted]:
        async with ToolRunner(CLIENT_TOOLS).astream(paced(events)) as items:
            return [item async for item in items if isinstance(item, ToolStarted)]

    started = on_fake_clock(go)
    by_id = {s.id: s.at for s in started}
    order = ["call_local", "call_cu", "call_tsc", "mcpr_1"]  # call_apc: invalid arguments
    assert [by_id[i] for i in order] == [ends[n] + 1 for n in (0, 2, 3, 4)]


# --- the LangChain shape of a custom tool's result -----------------------------------------


def test_a_custom_result_as_a_langchain_message_reaches_the_api_as_its_own_item() -> None:
    pytest.importorskip("langchain_openai")
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_openai import ChatOpenAI

    from tests.support.real_clients import Replay

    result = run([apply_patch], CUSTOM.events)
    [tool_message] = result.tool_messages("langchain")
    replay = Replay(sse(CUSTOM.events).encode(), "openai-responses", times=2)
    model = ChatOpenAI(
        model="gpt-test",
        api_key="test",  # type: ignore[arg-type]
        base_url="http://test/v1",
        http_client=replay.client(),
        max_retries=0,
        use_responses_api=True,
        streaming=True,  # the replay is a stream
    )
    first = model.invoke("patch it")
    assert isinstance(first, AIMessage) and first.tool_calls[0]["id"] == "call_patch"
    model.invoke([HumanMessage("patch it"), first, tool_message])
    sent = replay.requests[-1].body["input"]
    [output] = [item for item in sent if item.get("call_id") == "call_patch" and "output" in item]
    assert output == {
        "type": "custom_tool_call_output",
        "call_id": "call_patch",
        "output": f"applied {len(PATCH)} characters",
    }
    check_input_item(output)
