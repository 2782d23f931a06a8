"""The tool calls :func:`~callstream.testing.stream_of` can write: each one must read back
as it is given (with callstream's default limits), or an error says why not
(:class:`~callstream.UnwritableCallError`; :class:`~callstream.OptionTypeError` for a value
of the wrong type)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callstream._assembly.options import MAX_NAME_CHARS
from callstream._errors import (
    JSONLimitError,
    OptionTypeError,
    PartialJSONError,
    UnwritableCallError,
)
from callstream._json.dump import dumps_bounded, nesting_depth
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream.providers._gemini_args import MAX_PATH_DEPTH
from callstream.providers._responses_items import CALL_ITEMS, CUSTOM_ARG
from callstream.testing._formats import ITEM_TYPES, read_json

__all__ = ("check_calls", "check_item")


def check_calls(calls: Sequence[Mapping[str, Any]], format: str) -> None:
    """Each call is a ``ToolCall`` dict that callstream reads back as it is given (with
    its default limits), or the error says why not."""
    for n, call in enumerate(calls):
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise OptionTypeError(
                f"calls[{n}] must be a mapping with a str 'name' (a ToolCall dict)"
            )
        if not isinstance(call.get("args", {}), Mapping):
            raise OptionTypeError(f"calls[{n}]['args'] must be a mapping (the arguments object)")
        if call.get("id") is not None and not isinstance(call.get("id"), str):
            raise OptionTypeError(f"calls[{n}]['id'] must be a str or None")
        _check_identity(n, call["name"], call.get("id"))
        args = dict(call.get("args", {}))
        _args_text(n, args)
        if format == "vertex" and nesting_depth(args, MAX_PATH_DEPTH) is None:
            raise UnwritableCallError(
                f"calls[{n}]['args'] nest deeper than {MAX_PATH_DEPTH} levels: vertex "
                "partialArgs leaves that deep are read back as an invalid call"
            )
    ids = [call.get("id") or f"call_{n}" for n, call in enumerate(calls)]
    if len(set(ids)) != len(ids):
        raise UnwritableCallError("call ids must be distinct within one stream")


def _check_identity(n: int, name: str, id_: str | None) -> None:
    """A name and an id callstream reads back as they are: not empty, at most
    ``MAX_NAME_CHARS`` characters (a missing id, None, becomes ``call_<n>``)."""
    if not name:
        raise UnwritableCallError(
            f"calls[{n}]['name'] is empty: a call without a name is read back invalid"
        )
    if id_ == "":
        raise UnwritableCallError(
            f"calls[{n}]['id'] is empty, which is read back as no id: leave it out (or None) "
            f"for call_{n}, or give one"
        )
    for field_name, value in (("name", name), ("id", id_)):
        if value is not None and len(value) > MAX_NAME_CHARS:
            raise UnwritableCallError(
                f"calls[{n}][{field_name!r}] is longer than {MAX_NAME_CHARS} characters: "
                "read back as an invalid call"
            )


def _args_text(n: int, args: dict[str, Any]) -> str:
    """The JSON text of ``calls[n]``'s arguments, checked as callstream reads it back
    (its parser, default limits): JSON data, at most ``DEFAULT_MAX_DEPTH`` levels deep,
    no ``NaN`` or infinity. Written and read without recursion, whatever the depth."""
    try:
        text = dumps_bounded(args, max_depth=DEFAULT_MAX_DEPTH, ensure_ascii=False)
    except JSONLimitError as exc:
        raise UnwritableCallError(
            f"calls[{n}]['args'] is not JSON callstream reads back ({exc.reason}): its "
            "arguments would be an invalid call"
        ) from None
    except (TypeError, ValueError) as exc:
        raise OptionTypeError(f"calls[{n}]['args'] is not JSON data: {exc}") from None
    try:
        read_json(text)
    except PartialJSONError:  # NaN or an infinity: no JSON text can carry it
        raise UnwritableCallError(
            f"calls[{n}]['args'] is not JSON: Out of range float values (NaN, Infinity) are "
            "not JSON compliant"
        ) from None
    return text


def check_item(n: int, call: Mapping[str, Any], format: str) -> str:
    """The Responses item type of ``calls[n]``, checked against what callstream gives
    back for that item (its fixed name, the fields it reads)."""
    kind = call.get("item_type", "function_call")
    if not isinstance(kind, str) or kind not in ITEM_TYPES:
        raise UnwritableCallError(
            f"calls[{n}]['item_type'] {kind!r}: one of {', '.join(ITEM_TYPES)}"
        )
    if kind == "function_call":
        return kind
    if format != "openai-responses":
        raise UnwritableCallError(f"calls[{n}]: a {kind} item is written in openai-responses only")
    args = dict(call.get("args", {}))
    spec = CALL_ITEMS[kind]
    if spec.name is not None and call["name"] != spec.name:
        raise UnwritableCallError(
            f"calls[{n}]: a {kind} is read back named {spec.name!r}, not {call['name']!r}"
        )
    if kind == "custom_tool_call":
        if set(args) != {CUSTOM_ARG} or not isinstance(args[CUSTOM_ARG], str):
            raise UnwritableCallError(
                f"calls[{n}]: a custom_tool_call's args are {{{CUSTOM_ARG!r}: input text}}"
            )
        return kind
    if kind == "mcp_call":
        return kind
    fields = spec.fields or ()
    extra = sorted(set(args) - set(fields))
    if extra:
        raise UnwritableCallError(
            f"calls[{n}]: a {kind}'s args are its fields {', '.join(fields)}; "
            f"not {', '.join(map(repr, extra))}"
        )
    missing = [name for name in _REQUIRED.get(kind, ()) if name not in args]
    if missing:
        raise UnwritableCallError(
            f"calls[{n}]: a {kind} needs args {', '.join(map(repr, missing))}"
        )
    where = _null_member(args)
    if where is not None:
        raise UnwritableCallError(
            f"calls[{n}]: a {kind}'s null member {where} would be left out when read back"
        )
    _check_values(n, kind, args)
    return kind


def _check_values(n: int, kind: str, args: Mapping[str, Any]) -> None:
    """The values of the fields callstream streams: a shell call's commands, a code
    interpreter's container and code."""
    if kind == "shell_call":
        action = args["action"]
        commands = action.get("commands") if isinstance(action, Mapping) else None
        if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
            raise UnwritableCallError(
                f"calls[{n}]: a shell_call's action needs 'commands', a list of str"
            )
    if kind == "code_interpreter_call" and not all(
        isinstance(args[name], str) for name in ("container_id", "code")
    ):
        raise UnwritableCallError(
            f"calls[{n}]: a code_interpreter_call's container_id and code are str"
        )


#: the fields an item's args must have (openai-python's models require them)
_REQUIRED = {
    "shell_call": ("action",),
    "local_shell_call": ("action",),
    "apply_patch_call": ("operation",),
    "web_search_call": ("action",),
    "file_search_call": ("queries",),
    "code_interpreter_call": ("container_id", "code"),
}


def _null_member(value: Any) -> str | None:
    """Where ``value`` has an object member that is null (callstream leaves them out of a
    Responses item's fields), or None: the first in document order. Iterative (any
    depth)."""
    stack: list[tuple[Any, str]] = [(value, "args")]
    while stack:
        item, where = stack.pop()
        if item is None:
            return where
        if isinstance(item, Mapping):
            stack.extend(reversed([(m, f"{where}[{k!r}]") for k, m in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([(m, f"{where}[{i}]") for i, m in enumerate(item)]))
    return None
