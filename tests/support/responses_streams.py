"""OpenAI Responses streams of our own, written in the wire shapes openai-python types
(every event validates against ``openai.types.responses.ResponseStreamEvent``, see
``tests/providers/openai_responses/test_providers_openai_responses_items.py``): one stream per output item kind, with
the calls each must give. Field names are checked against the installed SDK's models;
xAI's server-run custom tool follows the shape of xAI's own streams (``status`` on the
item, ``x_search`` declared, ``x_keyword_search`` called).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from callstream.testing import sse_event

__all__ = ("STREAMS", "Expected", "Stream", "response", "sse", "wire")


def response(status: str = "in_progress", tools: list[Any] | None = None) -> dict[str, Any]:
    """A ``Response`` object with the fields the SDK requires."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1_760_000_000,
        "model": "gpt-test",
        "status": status,
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": tools or [],
    }


def created(tools: list[Any] | None = None) -> dict[str, Any]:
    return {"type": "response.created", "response": response(tools=tools)}


def completed() -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed")}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def event(kind: str, index: int, item_id: str | None = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind, "output_index": index, **fields}
    if item_id is not None:
        out["item_id"] = item_id
    return out


def wire(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events numbered as the API numbers them (``sequence_number``)."""
    return [{**e, "sequence_number": n} for n, e in enumerate(events)]


def sse(events: list[dict[str, Any]]) -> str:
    """The events as the API's server-sent events (``event:`` and ``data:`` lines)."""
    return "".join(sse_event(e, e["type"]) for e in wire(events))


@dataclass(frozen=True)
class Expected:
    """The verdicts a stream must give: ``(name, id, args)`` of each valid client call,
    of each server call, ``(name, id)`` of each invalid call, and the extras by id."""

    tool_calls: list[tuple[str, str | None, dict[str, Any]]] = field(default_factory=list)
    server_tool_calls: list[tuple[str, str | None, dict[str, Any]]] = field(default_factory=list)
    invalid: list[tuple[str | None, str | None]] = field(default_factory=list)
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str = "tool_calls"


@dataclass(frozen=True)
class Stream:
    """A stream, what it must give, and the event types in it that are the provider's
    own (not openai-python's types: xAI's tool list)."""

    name: str
    events: list[dict[str, Any]]
    expected: Expected
    own_events: frozenset[str] = frozenset()


# --- function calls: namespace, a program caller, late deltas -------------------------------

LOOKUP_ARGS = '{"customer": "ACME", "fields": ["owner", "tier"]}'

_fc = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_ns",
    "name": "lookup",
    "namespace": "crm",
    "arguments": "",
    "status": "in_progress",
}
_program_fc = {
    "type": "function_call",
    "id": "fc_2",
    "call_id": "call_prog",
    "name": "get_weather",
    "arguments": "",
    "caller": {"type": "program", "caller_id": "call_program_1"},
    "status": "in_progress",
}
_direct_fc = {
    "type": "function_call",
    "id": "fc_3",
    "call_id": "call_direct",
    "name": "get_time",
    "arguments": "",
    "caller": {"type": "direct"},
    "status": "in_progress",
}
FUNCTION_CALLS = Stream(
    "function_call",
    [
        created(),
        added(0, _fc),
        event("response.function_call_arguments.delta", 0, "fc_1", delta=LOOKUP_ARGS[:20]),
        event("response.function_call_arguments.delta", 0, "fc_1", delta=LOOKUP_ARGS[20:]),
        event("response.function_call_arguments.done", 0, "fc_1", arguments=LOOKUP_ARGS),
        # a late delta (pydantic-ai #5757): the .done text stands
        event("response.function_call_arguments.delta", 0, "fc_1", delta=', "x": 1}'),
        done(0, {**_fc, "arguments": LOOKUP_ARGS, "status": "completed"}),
        added(1, _program_fc),
        event("response.function_call_arguments.delta", 1, "fc_2", delta='{"city": "Oslo"}'),
        event("response.function_call_arguments.done", 1, "fc_2", arguments='{"city": "Oslo"}'),
        done(1, {**_program_fc, "arguments": '{"city": "Oslo"}', "status": "completed"}),
        added(2, _direct_fc),
        event("response.function_call_arguments.done", 2, "fc_3", arguments="{}"),
        done(2, {**_direct_fc, "arguments": "{}", "status": "completed"}),
        completed(),
    ],
    Expected(
        tool_calls=[
            ("lookup", "call_ns", {"customer": "ACME", "fields": ["owner", "tier"]}),
            ("get_weather", "call_prog", {"city": "Oslo"}),
            ("get_time", "call_direct", {}),
        ],
        extras={
            "call_ns": {"namespace": "crm"},
            "call_prog": {"caller": {"type": "program", "caller_id": "call_program_1"}},
        },
    ),
)

# --- custom (free-form) tools ---------------------------------------------------------------

PATCH = '*** Begin Patch\n*** Update File: "a\\b.py"\n+print("\t\u00e9\U0001f600")\n*** End Patch\n'
_high, _low = "\ud83d", "\ude00"  # the pair of the emoji, as json.loads gives a cut pair
_cut = PATCH.index("\U0001f600")
PATCH_PIECES = [PATCH[:10], PATCH[10:_cut] + _high, _low + PATCH[_cut + 1 :]]
_ctc = {
    "type": "custom_tool_call",
    "id": "ctc_1",
    "call_id": "call_patch",
    "name": "apply_patch",
    "input": "",
    "namespace": "editor",
    "status": "in_progress",
}
CUSTOM = Stream(
    "custom_tool_call",
    [
        created(
            tools=[
                {
                    "type": "namespace",
                    "name": "editor",
                    "description": "files",
                    "tools": [{"type": "custom", "name": "apply_patch"}],
                }
            ]
        ),
        added(0, _ctc),
        *(
            event("response.custom_tool_call_input.delta", 0, "ctc_1", delta=piece)
            for piece in PATCH_PIECES
        ),
        event("response.custom_tool_call_input.done", 0, "ctc_1", input=PATCH),
        event("response.custom_tool_call_input.delta", 0, "ctc_1", delta="late"),
        done(0, {**_ctc, "input": PATCH, "status": "completed"}),
        completed(),
    ],
    Expected(
        tool_calls=[("apply_patch", "call_patch", {"__arg1": PATCH})],
        extras={
            "call_patch": {"item_type": "custom_tool_call", "namespace": "editor", "input": PATCH}
        },
    ),
)

XAI_QUERY = '{"query":"from:xai filter:media","limit":20,"mode":"Latest"}'
_xs = {
    "type": "custom_tool_call",
    "id": "ctc_resp_xs_call_1",
    "call_id": "xs_call_1",
    "name": "x_keyword_search",
    "input": "",
    "status": "in_progress",
}
XAI_SEARCH = Stream(
    "custom_tool_call (xAI, server-run)",
    [
        created(tools=[{"type": "x_search"}]),
        added(0, _xs),
        event("response.custom_tool_call_input.delta", 0, "ctc_resp_xs_call_1", delta=XAI_QUERY),
        event("response.custom_tool_call_input.done", 0, "ctc_resp_xs_call_1", input=XAI_QUERY),
        done(0, {**_xs, "input": XAI_QUERY, "status": "completed"}),
        completed(),
    ],
    Expected(
        server_tool_calls=[("x_keyword_search", "xs_call_1", {"__arg1": XAI_QUERY})],
        extras={
            "xs_call_1": {
                "item_type": "custom_tool_call",
                "status": "completed",
                "input": XAI_QUERY,
            }
        },
        finish_reason="stop",
    ),
    own_events=frozenset({"response.created"}),  # xAI's tools: {"type": "x_search"}
)

# --- client-run built-in tools --------------------------------------------------------------

_shell = {
    "type": "shell_call",
    "id": "sh_1",
    "call_id": "call_sh",
    "action": {"commands": [], "timeout_ms": 5000, "max_output_length": None},
    "environment": {"type": "local"},
    "status": "in_progress",
}
SHELL_ACTION = {"commands": ['ls -la "/tmp"', "echo \u00e9\\n"], "timeout_ms": 5000}
SHELL = Stream(
    "shell_call",
    [
        created(tools=[{"type": "shell", "environment": {"type": "local"}}]),
        added(0, _shell),
        event("response.shell_call_command.added", 0, command="ls", command_index=0),
        event("response.shell_call_command.delta", 0, delta=' -la "/tmp"', command_index=0),
        event("response.shell_call_command.done", 0, command='ls -la "/tmp"', command_index=0),
        event("response.shell_call_command.added", 0, command="", command_index=1),
        event("response.shell_call_command.delta", 0, delta="echo \u00e9", command_index=1),
        event("response.shell_call_command.delta", 0, delta="\\n", command_index=1),
        event("response.shell_call_command.done", 0, command="echo \u00e9\\n", command_index=1),
        done(0, {**_shell, "action": SHELL_ACTION, "status": "completed"}),
        completed(),
    ],
    Expected(
        tool_calls=[("shell", "call_sh", {"action": SHELL_ACTION})],
        extras={"call_sh": {"item_type": "shell_call"}},
    ),
)

_hosted = {
    "type": "shell_call",
    "id": "sh_2",
    "call_id": "call_hosted",
    "action": {"commands": ["python --version"]},
    "environment": {"type": "container_reference", "container_id": "cntr_1"},
    "status": "in_progress",
}
HOSTED_SHELL = Stream(
    "shell_call (hosted)",
    [
        created(tools=[{"type": "shell", "environment": {"type": "container_auto"}}]),
        added(0, _hosted),
        done(0, {**_hosted, "status": "completed"}),
        {
            "type": "response.shell_call_output_content.delta",
            "output_index": 1,
            "item_id": "sho_1",
            "command_index": 0,
            "delta": {"stdout": "Python 3.12\n"},
        },
        completed(),
    ],
    Expected(
        server_tool_calls=[
            ("shell", "call_hosted", {"action": {"commands": ["python --version"]}})
        ],
        extras={"call_hosted": {"item_type": "shell_call", "status": "completed"}},
        finish_reason="stop",
    ),
)

_local = {
    "type": "local_shell_call",
    "id": "lsh_1",
    "call_id": "call_local",
    "action": {"type": "exec", "command": ["ls"], "env": {"A": "1"}, "user": None},
    "status": "in_progress",
}
_patch = {
    "type": "apply_patch_call",
    "id": "apc_1",
    "call_id": "call_apc",
    "operation": {"type": "update_file", "path": "a.py", "diff": "@@\n-x\n+y\n"},
    "status": "in_progress",
    "caller": {"type": "program", "caller_id": "call_program_1"},
}
_computer = {
    "type": "computer_call",
    "id": "cu_1",
    "call_id": "call_cu",
    "action": {"type": "click", "button": "left", "x": 10, "y": 20, "keys": None},
    "pending_safety_checks": [{"id": "sc_1", "code": "malicious_instructions"}],
    "status": "in_progress",
}
_search_client = {
    "type": "tool_search_call",
    "id": "tsc_1",
    "call_id": "call_tsc",
    "arguments": {"query": "crm tools"},
    "execution": "client",
    "status": "in_progress",
}
_approval = {
    "type": "mcp_approval_request",
    "id": "mcpr_1",
    "name": "create_issue",
    "arguments": '{"title": "Bug"}',
    "server_label": "github",
}
CLIENT_BUILTINS = Stream(
    "local_shell_call, apply_patch_call, computer_call, tool_search_call, mcp_approval_request",
    [
        created(),
        added(0, _local),
        done(0, {**_local, "status": "completed"}),
        added(1, _patch),
        done(1, {**_patch, "status": "completed"}),
        added(2, _computer),
        done(2, {**_computer, "status": "completed"}),
        added(3, _search_client),
        done(3, {**_search_client, "status": "completed"}),
        added(4, _approval),
        done(4, _approval),
        completed(),
    ],
    Expected(
        tool_calls=[
            (
                "local_shell",
                "call_local",
                {"action": {"type": "exec", "command": ["ls"], "env": {"A": "1"}}},
            ),
            ("apply_patch", "call_apc", {"operation": _patch["operation"]}),
            (
                "computer",
                "call_cu",
                {
                    "action": {"type": "click", "button": "left", "x": 10, "y": 20},
                    "pending_safety_checks": [{"id": "sc_1", "code": "malicious_instructions"}],
                },
            ),
            ("tool_search", "call_tsc", {"query": "crm tools"}),
            (
                "mcp_approval_request",
                "mcpr_1",
                {"name": "create_issue", "arguments": '{"title": "Bug"}', "server_label": "github"},
            ),
        ],
        extras={
            "call_local": {"item_type": "local_shell_call"},
            "call_apc": {
                "item_type": "apply_patch_call",
                "caller": {"type": "program", "caller_id": "call_program_1"},
            },
            "call_cu": {"item_type": "computer_call"},
            "call_tsc": {"item_type": "tool_search_call"},
            "mcpr_1": {"item_type": "mcp_approval_request"},
        },
    ),
)

# --- hosted (provider-run) tools ------------------------------------------------------------

_ws = {
    "type": "web_search_call",
    "id": "ws_1",
    "action": {"type": "search", "query": "", "sources": []},
    "status": "in_progress",
}
_ws_done = {
    **_ws,
    "action": {"type": "search", "query": "Oslo weather", "sources": [{"type": "url", "url": "u"}]},
    "status": "completed",
}
_fs = {"type": "file_search_call", "id": "fs_1", "queries": ["refunds"], "status": "in_progress"}
_ci = {
    "type": "code_interpreter_call",
    "id": "ci_1",
    "container_id": "cntr_9",
    "code": "",
    "outputs": None,
    "status": "in_progress",
}
CODE = 'print("a\\tb")\nx = "\u00e9"\n'
_img = {"type": "image_generation_call", "id": "ig_1", "status": "in_progress", "result": None}
_img_done = {
    **_img,
    "status": "completed",
    "result": "iVBORw0KGgo=",
    "size": "1024x1024",
    "quality": "high",
    "revised_prompt": "a red fox",
}
_mcp_list = {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "github", "tools": []}
_mcp = {
    "type": "mcp_call",
    "id": "mcp_1",
    "name": "create_issue",
    "server_label": "github",
    "arguments": "",
    "status": "in_progress",
}
_mcp_done = {
    **_mcp,
    "arguments": '{"title": "Bug"}',
    "status": "failed",
    "error": {"type": "mcp_tool_execution_error", "content": [{"type": "text", "text": "nope"}]},
}
_program = {
    "type": "program",
    "id": "prg_1",
    "call_id": "call_program_1",
    "code": "await tools.get_weather({city: 'Oslo'})",
    "fingerprint": "fp_1",
}
_search_server = {**_search_client, "id": "tsc_2", "call_id": None, "execution": "server"}
HOSTED = Stream(
    "web_search_call, file_search_call, code_interpreter_call, image_generation_call, "
    "mcp_list_tools, mcp_call, program, tool_search_call (server)",
    [
        created(),
        added(0, _ws),
        event("response.web_search_call.in_progress", 0, "ws_1"),
        event("response.web_search_call.searching", 0, "ws_1"),
        event("response.web_search_call.completed", 0, "ws_1"),
        done(0, _ws_done),
        added(1, _fs),
        event("response.file_search_call.searching", 1, "fs_1"),
        done(1, {**_fs, "status": "completed", "results": [{"file_id": "f", "text": "t"}]}),
        added(2, _ci),
        event("response.code_interpreter_call.in_progress", 2, "ci_1"),
        event("response.code_interpreter_call_code.delta", 2, "ci_1", delta=CODE[:9]),
        event("response.code_interpreter_call_code.delta", 2, "ci_1", delta=CODE[9:]),
        event("response.code_interpreter_call_code.done", 2, "ci_1", code=CODE),
        event("response.code_interpreter_call.interpreting", 2, "ci_1"),
        event("response.code_interpreter_call.completed", 2, "ci_1"),
        done(
            2,
            {
                **_ci,
                "code": CODE,
                "status": "completed",
                "outputs": [{"type": "logs", "logs": "a"}],
            },
        ),
        added(3, _img),
        event("response.image_generation_call.generating", 3, "ig_1"),
        event(
            "response.image_generation_call.partial_image",
            3,
            "ig_1",
            partial_image_b64="iVBO",
            partial_image_index=0,
        ),
        done(3, _img_done),
        added(4, _mcp_list),
        event("response.mcp_list_tools.completed", 4, "mcpl_1"),
        done(4, _mcp_list),
        added(5, _mcp),
        event("response.mcp_call_arguments.delta", 5, "mcp_1", delta='{"title": '),
        event("response.mcp_call_arguments.delta", 5, "mcp_1", delta='"Bug"}'),
        event("response.mcp_call_arguments.done", 5, "mcp_1", arguments='{"title": "Bug"}'),
        event("response.mcp_call.failed", 5, "mcp_1"),
        done(5, _mcp_done),
        added(6, _program),
        done(6, _program),
        added(7, _search_server),
        done(7, {**_search_server, "status": "completed"}),
        completed(),
    ],
    Expected(
        server_tool_calls=[
            ("web_search", "ws_1", {"action": _ws_done["action"]}),
            ("file_search", "fs_1", {"queries": ["refunds"]}),
            ("code_interpreter", "ci_1", {"container_id": "cntr_9", "code": CODE}),
            (
                "image_generation",
                "ig_1",
                {"size": "1024x1024", "quality": "high", "revised_prompt": "a red fox"},
            ),
            ("mcp_list_tools", "mcpl_1", {}),
            ("create_issue", "mcp_1", {"title": "Bug"}),
            ("program", "call_program_1", {"code": _program["code"]}),
            ("tool_search", "tsc_2", {"query": "crm tools"}),
        ],
        extras={
            "ws_1": {"item_type": "web_search_call", "status": "completed"},
            "fs_1": {"item_type": "file_search_call", "status": "completed"},
            "ci_1": {"item_type": "code_interpreter_call", "status": "completed"},
            "ig_1": {"item_type": "image_generation_call", "status": "completed"},
            "mcpl_1": {
                "item_type": "mcp_list_tools",
                "status": "completed",
                "server_label": "github",
            },
            "mcp_1": {
                "item_type": "mcp_call",
                "status": "failed",
                "server_label": "github",
                "error": _mcp_done["error"],
            },
            "call_program_1": {"item_type": "program"},
            "tsc_2": {"item_type": "tool_search_call", "status": "completed"},
        },
        finish_reason="stop",
    ),
)

STREAMS: list[Stream] = [
    FUNCTION_CALLS,
    CUSTOM,
    XAI_SEARCH,
    SHELL,
    HOSTED_SHELL,
    CLIENT_BUILTINS,
    HOSTED,
]
"""Every stream, each item kind in at least one of them."""
