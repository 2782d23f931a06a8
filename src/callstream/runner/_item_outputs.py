"""What a result of each kind of OpenAI Responses call sends back: the one table.

A Responses tool call is an output item of some type (its ``item_type`` extra, see
:mod:`callstream.providers._responses_items`; none for a plain ``function_call``), and
the API wants each call answered by the input item of its own type
(:data:`RESPONSES_OUTPUTS`), in the shape openai-python types it
(``openai.types.responses.response_input_item_param``). What a tool returns becomes that
item's content (``content`` is :attr:`~callstream.runner.ToolResult.content`, ``data``
:attr:`~callstream.runner.ToolResult.output_json`):

- ``function_call`` -> ``function_call_output`` and ``custom_tool_call`` ->
  ``custom_tool_call_output``: ``{"call_id", "output": content}`` (the error text for an
  error or cancelled result);
- ``shell_call`` -> ``shell_call_output``: ``{"call_id", "output": [entries]}``, one
  entry ``{"stdout", "stderr", "outcome"}`` per command (``outcome`` ``{"type": "exit",
  "exit_code": n}`` or ``{"type": "timeout"}``). A tool that returns those entries (a
  list, or one entry) has them sent as they are; any other output is the stdout of a
  run that exited 0 (``content``); an error or cancelled result is one entry with the
  error text as stderr and exit code 1 (the commands did not run as asked);
- ``local_shell_call`` -> ``local_shell_call_output``: ``{"id": call id, "output":
  content}`` (openai-python's type names the call's id ``id`` here);
- ``apply_patch_call`` -> ``apply_patch_call_output``: ``{"call_id", "status":
  "completed", "output": content}``, ``"failed"`` with the error text for an error or
  cancelled result (a tool that could not apply the patch raises);
- ``computer_call`` -> ``computer_call_output``: ``{"call_id", "output": {"type":
  "computer_screenshot", "image_url" | "file_id"}}`` (plus ``acknowledged_safety_checks``
  when the tool gives them). The tool returns the screenshot: an image URL (``data:`` or
  ``http(s):``), ``{"image_url": ...}`` / ``{"file_id": ...}`` (``type`` optional), or
  ``{"output": <screenshot>, "acknowledged_safety_checks": [{"id", ...}]}``; any other
  output makes the result an error result. The item has no place for an error, so an
  error or cancelled result cannot be sent: :func:`responses_item` raises
  :class:`~callstream.UsageError` for it (send a screenshot of the screen as it is);
- ``tool_search_call`` (``execution: "client"``) -> ``tool_search_output``:
  ``{"call_id", "execution": "client", "tools": [...]}``; the tool returns the tool
  definitions it found (a list, or ``{"tools": [...]}``; else an error result); an error
  result cannot be sent either (no place for it: :class:`~callstream.UsageError`);
- ``mcp_approval_request`` -> ``mcp_approval_response``: ``{"approval_request_id": call
  id, "approve": bool}`` (plus ``reason``); the tool returns the decision: ``True`` /
  ``False``, or ``{"approve": bool, "reason": str}`` (else an error result); an error or
  cancelled result is ``approve: false`` with the error text as the reason (nothing
  runs that was not approved).

:func:`output_problem` is the check a done result's output passes when the result is
built (so the UIs show the same verdict); :func:`responses_item` builds the item. Pure
data, no SDK import. Cost: O(size of the output).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, NamedTuple

from callstream._errors import UsageError

__all__ = ("RESPONSES_OUTPUTS", "Reply", "output_problem", "responses_item")

RESPONSES_OUTPUTS: Final[dict[str, str]] = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "shell_call": "shell_call_output",
    "local_shell_call": "local_shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "computer_call": "computer_call_output",
    "tool_search_call": "tool_search_output",
    "mcp_approval_request": "mcp_approval_response",
}
"""The input item that answers each kind of call the client runs (by item type)."""

_SCREENSHOT = (
    "a screenshot: an image URL (data: or http(s):), {'image_url': ...} or "
    "{'file_id': ...}, or {'output': <screenshot>, 'acknowledged_safety_checks': [...]}"
)
_DECISION = "the decision: True / False, or {'approve': bool, 'reason': str}"
_TOOLS = "the tools it found: a list of tool definitions, or {'tools': [...]}"

_WANTS: Final[dict[str, str]] = {
    "computer_call": _SCREENSHOT,
    "mcp_approval_request": _DECISION,
    "tool_search_call": _TOOLS,
}


def output_problem(item_type: str | None, data: Any) -> str | None:
    """Why a done result's output (as JSON data) cannot answer a call of ``item_type``,
    or None when it can (every kind but the three whose item has a fixed shape)."""
    wants = _WANTS.get(item_type or "")
    if wants is None:
        return None
    if item_type == "computer_call":
        ok = _computer_output(data) is not None
    elif item_type == "mcp_approval_request":
        ok = _decision(data) is not None
    else:
        ok = _tools(data) is not None
    return None if ok else f"the output of a {item_type} must be {wants}"


class Reply(NamedTuple):
    """What answers one call: its id, whether the tool returned (``done``: ``data`` is
    its output as JSON data, checked by :func:`output_problem`), ``content`` (the output
    as text, or the error text) and ``what`` (the call, named for errors)."""

    call_id: str
    done: bool
    content: str
    data: Any
    what: str


def responses_item(item_type: str | None, reply: Reply) -> dict[str, Any]:
    """The input item answering ``reply``'s call, of ``item_type`` (None: a function
    call): see the module docstring.

    Raises:
        UsageError: the kind is not one the client answers (a hosted tool), or an error
            result of a kind whose item has no place for an error (``computer_call``,
            ``tool_search_call``).
    """
    kind = item_type or "function_call"
    build = _BUILDERS.get(kind)
    if build is None:
        raise UsageError(
            f"{reply.what} is a {kind} item, which the provider runs itself: the client "
            "sends no output for it"
        )
    if not reply.done and kind in _WANTS and kind != "mcp_approval_request":
        raise UsageError(
            f"{reply.what} has no output to send ({reply.content}): a "
            f"{RESPONSES_OUTPUTS[kind]} item carries {_WANTS[kind]} and has no place for "
            "an error; send one yourself (and tool_messages() for the other results)"
        )
    item = build(reply)
    return {"type": RESPONSES_OUTPUTS[kind], **item}


def _text_output(reply: Reply) -> dict[str, Any]:
    return {"call_id": reply.call_id, "output": reply.content}


def _local_shell_output(reply: Reply) -> dict[str, Any]:
    return {"id": reply.call_id, "output": reply.content}  # openai-python's type: "id"


def _patch_output(reply: Reply) -> dict[str, Any]:
    status = "completed" if reply.done else "failed"
    return {"call_id": reply.call_id, "status": status, "output": reply.content}


def _shell_output(reply: Reply) -> dict[str, Any]:
    entries = _shell_entries(reply.data) if reply.done else None
    if entries is None:
        stdout, stderr, code = (reply.content, "", 0) if reply.done else ("", reply.content, 1)
        outcome = {"type": "exit", "exit_code": code}
        entries = [{"stdout": stdout, "stderr": stderr, "outcome": outcome}]
    return {"call_id": reply.call_id, "output": entries}


def _approval(reply: Reply) -> dict[str, Any]:
    decision = _decision(reply.data) if reply.done else None
    approve, reason = decision if decision is not None else (False, reply.content)
    item: dict[str, Any] = {"approval_request_id": reply.call_id, "approve": approve}
    if reason is not None:
        item["reason"] = reason
    return item


def _computer(reply: Reply) -> dict[str, Any]:
    found = _computer_output(reply.data)
    if found is None:  # a done result passed output_problem: only a hand-made one
        raise UsageError(f"{reply.what}: the output of a computer_call must be {_SCREENSHOT}")
    screenshot, checks = found
    item: dict[str, Any] = {"call_id": reply.call_id, "output": screenshot}
    if checks is not None:
        item["acknowledged_safety_checks"] = checks
    return item


def _tool_search(reply: Reply) -> dict[str, Any]:
    tools = _tools(reply.data)
    if tools is None:  # a done result passed output_problem: only a hand-made one
        raise UsageError(f"{reply.what}: the output of a tool_search_call must be {_TOOLS}")
    return {"call_id": reply.call_id, "execution": "client", "tools": tools}


_BUILDERS: Final[dict[str, Callable[[Reply], dict[str, Any]]]] = {
    "function_call": _text_output,
    "custom_tool_call": _text_output,
    "shell_call": _shell_output,
    "local_shell_call": _local_shell_output,
    "apply_patch_call": _patch_output,
    "computer_call": _computer,
    "tool_search_call": _tool_search,
    "mcp_approval_request": _approval,
}
"""How each kind's item is built (the keys are :data:`RESPONSES_OUTPUTS`')."""


# --- the shapes ------------------------------------------------------------------------


def _shell_entries(data: Any) -> list[dict[str, Any]] | None:
    """The shell output entries ``data`` is (a list of them, or one), else None."""
    items = data if type(data) is list else [data]
    if not items:
        return None
    entries = []
    for item in items:
        if type(item) is not dict or set(item) != {"stdout", "stderr", "outcome"}:
            return None
        stdout, stderr, outcome = item["stdout"], item["stderr"], item["outcome"]
        if type(stdout) is not str or type(stderr) is not str or type(outcome) is not dict:
            return None
        if outcome == {"type": "timeout"}:
            checked: dict[str, Any] = {"type": "timeout"}
        elif (
            set(outcome) == {"type", "exit_code"}
            and outcome["type"] == "exit"
            and type(outcome["exit_code"]) is int
        ):
            checked = {"type": "exit", "exit_code": outcome["exit_code"]}
        else:
            return None
        entries.append({"stdout": stdout, "stderr": stderr, "outcome": checked})
    return entries


def _screenshot(data: Any) -> dict[str, Any] | None:
    """The ``computer_screenshot`` ``data`` is (an image URL, or the object), else None."""
    if type(data) is str:
        if data.startswith(("data:image/", "https://", "http://")):
            return {"type": "computer_screenshot", "image_url": data}
        return None
    if type(data) is not dict or not data or not set(data) <= {"type", "image_url", "file_id"}:
        return None
    if data.get("type", "computer_screenshot") != "computer_screenshot":
        return None
    shot: dict[str, Any] = {"type": "computer_screenshot"}
    for key in ("image_url", "file_id"):
        value = data.get(key)
        if value is not None:
            if type(value) is not str:
                return None
            shot[key] = value
    return shot if len(shot) > 1 else None


def _computer_output(data: Any) -> tuple[dict[str, Any], list[Any] | None] | None:
    """(screenshot, acknowledged safety checks or None) of a computer tool's output."""
    if type(data) is dict and "output" in data:
        if not set(data) <= {"output", "acknowledged_safety_checks"}:
            return None
        shot = _screenshot(data["output"])
        checks = data.get("acknowledged_safety_checks")
        if shot is None or not (checks is None or _safety_checks(checks)):
            return None
        return shot, checks
    shot = _screenshot(data)
    return None if shot is None else (shot, None)


def _safety_checks(checks: Any) -> bool:
    if type(checks) is not list:
        return False
    for check in checks:
        if type(check) is not dict or type(check.get("id")) is not str:
            return False
        if not set(check) <= {"id", "code", "message"}:
            return False
        if any(check.get(k) is not None and type(check[k]) is not str for k in ("code", "message")):
            return False
    return True


def _decision(data: Any) -> tuple[bool, str | None] | None:
    """(approve, reason) of an approval tool's output, else None."""
    if type(data) is bool:
        return data, None
    if type(data) is dict and type(data.get("approve")) is bool:
        reason = data.get("reason")
        if set(data) <= {"approve", "reason"} and (reason is None or type(reason) is str):
            return data["approve"], reason
    return None


def _tools(data: Any) -> list[Any] | None:
    """The tool definitions of a tool search's output, else None."""
    if type(data) is dict and set(data) == {"tools"}:
        data = data["tools"]
    if type(data) is not list:
        return None
    if all(type(tool) is dict and type(tool.get("type")) is str for tool in data):
        return data
    return None
