"""A whole LangChain message (``invoke``): its calls in the model's order, as signals.

LangChain's ``tool_calls`` of a complete ``AIMessage`` hold leniently parsed arguments
(a cut-off ``{"a": "b`` reads as valid) and lose the model's order between valid and
invalid calls, so the calls are read from the rawest form the message keeps: content
blocks (Anthropic-style ``tool_use`` / ``server_tool_use`` / ``mcp_tool_use`` with
``partial_json`` or ``input``; LangChain v1 ``tool_call`` / ``invalid_tool_call`` /
``server_tool_call`` blocks and the ``tool_call_chunk`` blocks v1 leaves for a call it
could not parse; the OpenAI Responses items ``ChatOpenAI(use_responses_api=True)`` keeps,
``function_call`` with its ``arguments`` text and ``custom_tool_call`` read as LangChain
reads it, ``{"__arg1": input}``, also inside v1 ``non_standard`` blocks),
OpenAI-style ``additional_kwargs["tool_calls"]`` argument
text, else the ``tool_calls`` and ``invalid_tool_calls`` lists; a message cut off by a
token limit has its last call reported as possibly cut off where its arguments came
already parsed.
The message is read by duck typing (this module does not import LangChain); its end
(finish reason) is read by the LangChain translator (``providers.langchain.stream_end``).
Cost: O(size of the message) (a cut-off test parses one call's text once).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from callstream._assembly.assembler import TRUNCATION_REASONS
from callstream._assembly.types import CallFailure, ServerToolUse, Signal, ToolCallChunk
from callstream._errors import IncompleteJSONError, PartialJSONError
from callstream._json import PartialJSONParser
from callstream.parsers._call_state import is_server_id
from callstream.parsers._parsed_call import dumps_or_none
from callstream.providers._responses_items import CUSTOM_ARG

__all__ = ("message_signals",)


def message_signals(message: Any, reason: str | None) -> list[Signal]:
    """The signals of a complete message: every call, in order, then nothing else (the
    caller adds the end; ``reason`` is its finish reason, as the provider sent it).

    Sources, first that fits: content blocks (Anthropic-style ``tool_use`` /
    ``server_tool_use`` / ``mcp_tool_use`` with ``partial_json`` or ``input``; LangChain
    v1 ``tool_call`` / ``invalid_tool_call`` / ``server_tool_call`` / ``tool_call_chunk``
    blocks; Responses ``function_call`` / ``custom_tool_call`` items), OpenAI-style
    ``additional_kwargs["tool_calls"]``, then ``tool_calls`` + ``invalid_tool_calls``.
    A source is used only if its client calls have the ids LangChain lists."""
    valid = list(getattr(message, "tool_calls", None) or [])
    invalid = list(getattr(message, "invalid_tool_calls", None) or [])
    expected = Counter(_id_of(c) for c in [*valid, *invalid])
    calls = _from_content(message.content)
    if calls is not None and Counter(c[2] for c in calls if not c[3]) == expected:
        calls = _distrust_cut(calls, reason)
    else:
        raw = _from_openai(getattr(message, "additional_kwargs", None))
        servers = [c for c in calls or [] if c[3]]
        if raw is not None and Counter(c[2] for c in raw) == expected:
            calls = [*raw, *servers]
        else:
            calls = _from_lists(valid, invalid, reason) + servers
    signals: list[Signal] = []
    for number, (name, args, id_, server, error) in enumerate(calls):
        if error is not None:
            raw_args = args if isinstance(args, str) else dumps_or_none(args)
            signals.append(CallFailure(error=error, index=number, id=id_, name=name, args=raw_args))
            continue
        if server:  # before the call's chunk: a server call from its first event
            signals.append(ServerToolUse(index=number, id=id_))
        signals.append(ToolCallChunk(name=name, args=args, id=id_, index=number))
    return signals


_Found = tuple[str | None, Any, str | None, bool, str | None]  # name, args, id, server, error

_RESPONSES_CALLS = frozenset({"function_call", "custom_tool_call"})
"""The Responses items ``ChatOpenAI`` lists among its ``tool_calls`` (its other call
items stay content blocks only: no tool calls in LangChain's reading)."""


def _id_of(call: Any) -> str | None:
    id_ = call.get("id") if isinstance(call, Mapping) else None
    return id_ if isinstance(id_, str) and id_ else None


def _from_content(content: Any) -> list[_Found] | None:
    if not isinstance(content, list):
        return None
    found: list[_Found] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        item = _responses_call(block)
        if item is not None:  # a Responses item (use_responses_api=True)
            found.append(item)
            continue
        kind = block.get("type")
        name = _str_or_none(block.get("name"))
        id_ = _str_or_none(block.get("id")) or None
        if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            text = block.get("partial_json")
            args: Any = text if isinstance(text, str) and text else block.get("input")
            server = kind != "tool_use" or is_server_id(id_)
            found.append((name, args if args is not None else {}, id_, server, None))
        elif kind in ("tool_call", "server_tool_call", "server_tool_call_chunk"):
            args = block.get("args")
            server = kind != "tool_call" or is_server_id(id_)
            found.append((name, args if args is not None else {}, id_, server, None))
        elif kind == "tool_call_chunk":  # v1: a call LangChain could not parse, as text
            text = block.get("args")
            found.append((name, text if isinstance(text, str) else "", id_, False, None))
        elif kind == "invalid_tool_call":
            text = block.get("args")
            if isinstance(text, str) and text.strip():
                # its text, judged as the streamed text is (LangChain's message built
                # from stream_events v3 events: a cut call "cut off", not "not JSON")
                found.append((name, text, id_, False, None))
                continue
            error = block.get("error")
            found.append((name, text, id_, False, error if isinstance(error, str) else "invalid"))
    return found if found else None


def _responses_call(block: Mapping[str, Any]) -> _Found | None:
    """A Responses ``function_call`` / ``custom_tool_call`` item kept as a content block
    (or inside a v1 ``non_standard`` block), read as LangChain reads it; else None."""
    if block.get("type") == "non_standard":  # v1: a provider's own block, in "value"
        value = block.get("value")
        block = value if isinstance(value, Mapping) else {}
    kind = block.get("type")
    if kind not in _RESPONSES_CALLS:
        return None
    if kind == "custom_tool_call":  # as LangChain reads it: {"__arg1": input}
        text = block.get("input")
        args = {CUSTOM_ARG: text} if isinstance(text, str) else text
    else:
        args = block.get("arguments")
    name = _str_or_none(block.get("name"))
    id_ = _str_or_none(block.get("call_id")) or None
    return (name, args if args is not None else "", id_, False, None)


def _distrust_cut(calls: list[_Found], reason: str | None) -> list[_Found]:
    """When a token limit cut the message, its last client call is invalid if its
    arguments came already parsed (a v1 ``tool_call`` block: LangChain parsed them
    leniently, so a cut ``{"a": "b`` reads as valid); text arguments (``partial_json``)
    are judged by the assembler itself."""
    if reason is None or reason.lower() not in TRUNCATION_REASONS:
        return calls
    for number in range(len(calls) - 1, -1, -1):
        name, args, id_, server, error = calls[number]
        if server:
            continue
        if error is None and not isinstance(args, str):
            calls = list(calls)
            calls[number] = (name, args, id_, False, _cut_error(reason))
        break
    return calls


def _from_openai(kwargs: Any) -> list[_Found] | None:
    raw = kwargs.get("tool_calls") if isinstance(kwargs, Mapping) else None
    if not isinstance(raw, list) or not raw:
        return None
    found: list[_Found] = []
    for entry in raw:
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if not isinstance(function, Mapping):
            return None
        arguments = function.get("arguments")
        found.append(
            (
                _str_or_none(function.get("name")),
                arguments if isinstance(arguments, str) else "",
                _str_or_none(entry.get("id")) or None,
                False,
                None,
            )
        )
    return found


def _from_lists(valid: list[Any], invalid: list[Any], reason: str | None) -> list[_Found]:
    """LangChain's lists (valid then invalid, or by ``index`` when every call has one).

    Their arguments may have been parsed leniently (a cut-off ``{"a": "b`` reads as
    valid), so when the message was cut off by a token limit, the last valid call is
    reported as possibly cut off (invalid) rather than trusted, unless an invalid call's
    argument text is itself cut off (a prefix of JSON): that one is the call the limit
    cut (a non-streamed message, parsed strictly), and the valid calls are complete."""
    calls: list[tuple[Any, bool]] = [(c, False) for c in valid] + [(c, True) for c in invalid]
    if calls and all(type(c.get("index")) is int for c, _ in calls):
        calls.sort(key=lambda pair: pair[0]["index"])
    found: list[_Found] = []
    for call, bad in calls:
        name = _str_or_none(call.get("name"))
        id_ = _str_or_none(call.get("id")) or None
        if bad:
            error = call.get("error")
            found.append((name, call.get("args"), id_, False, error or "invalid tool call"))
        else:
            args = call.get("args")
            found.append((name, args if args is not None else {}, id_, is_server_id(id_), None))
    cut_found = any(error is not None and _is_cut_text(args) for _, args, _, _, error in found)
    if reason is not None and reason.lower() in TRUNCATION_REASONS and not cut_found:
        for number in range(len(found) - 1, -1, -1):
            name, args, id_, server, error = found[number]
            if error is None and not server:
                found[number] = (name, args, id_, False, _cut_error(reason))
                break
    return found


def _is_cut_text(args: Any) -> bool:
    """Whether ``args`` is JSON text that ended before its value did (a prefix of valid
    JSON, as a token limit leaves it): then that invalid call is the one the limit cut,
    and the valid calls are complete. Malformed text is not a cut. Cost: O(len(args))."""
    if not isinstance(args, str) or not args.strip():
        return False
    parser = PartialJSONParser()
    try:
        parser.feed(args)
        parser.close()
    except IncompleteJSONError:
        return True
    except PartialJSONError:
        return False
    return False


def _cut_error(reason: str) -> str:
    return (
        f"the message was cut off by the token limit (finish reason {reason!r}) "
        "while this call was the last one: its arguments may be incomplete"
    )


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
