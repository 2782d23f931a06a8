"""Follow-up messages carrying tool results back to the model, in each provider's shape.

:func:`tool_messages` turns the results of one model turn (one :class:`ToolResult` per
call, in the model's call order) into the entries a user appends to the conversation
(or to the OpenAI Responses ``input`` list) before the next request. Pure data in, plain
dicts out (LangChain ``ToolMessage`` objects for ``"langchain"``): no SDK is imported,
nothing is sent, the results are never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias

from callstream._errors import OptionTypeError, OptionValueError, UsageError
from callstream.runner._item_outputs import Reply, responses_item
from callstream.runner._tool_result import ToolResult

__all__ = ("MessageFormat", "tool_messages")

MessageFormat: TypeAlias = Literal[
    "openai",
    "openai-chat",
    "mistral",
    "openai-responses",
    "responses",
    "anthropic",
    "gemini",
    "bedrock",
    "cohere",
    "ollama",
    "langchain",
]
"""A provider's message shape for :func:`tool_messages` (compared case-insensitively,
``_`` read as ``-``): ``"openai"`` (aliases ``"openai-chat"``, ``"mistral"``),
``"openai-responses"`` (alias ``"responses"``), ``"anthropic"``, ``"gemini"``,
``"bedrock"``, ``"cohere"``, ``"ollama"``, ``"langchain"``."""


def tool_messages(results: Sequence[ToolResult], format: MessageFormat) -> list[Any]:
    """The messages that carry ``results`` back to the model, in ``format``'s own shape.

    The list is meant to be appended as it is (``messages.extend(...)``, or the Responses
    API's ``input`` list) after the assistant turn that made the calls. Results keep the
    order given (the model's call order); no results give ``[]``. Below, ``id``, ``name``
    and ``is_error`` are the result's; ``content`` is :attr:`ToolResult.content` (the
    output as text, or the error text for an error or cancelled result); ``json`` is
    :attr:`ToolResult.output_json`, the output of a done result as JSON data (models and
    dataclasses become objects, NaN and infinities ``null``, lone surrogates U+FFFD; see
    :func:`~callstream.runner.output_data`), a fresh copy that shares nothing with the
    output. A tool output that cannot be JSON data made its result an error result when
    it was built, so every message here is strict JSON data.

    - ``"openai"`` (aliases ``"openai-chat"``, ``"mistral"``; Chat Completions), one per
      result: ``{"role": "tool", "tool_call_id": id, "content": content}``.
    - ``"openai-responses"`` (alias ``"responses"``), one per result: the input item
      that answers the call's kind (:attr:`ToolResult.item_type`), ``{"type":
      "function_call_output", "call_id": id, "output": content}`` for a function call;
      ``custom_tool_call_output``, ``shell_call_output``, ``local_shell_call_output``,
      ``apply_patch_call_output``, ``computer_call_output``, ``tool_search_output`` and
      ``mcp_approval_response`` for the other kinds, in the shapes openai-python types
      (the table: :mod:`callstream.runner._item_outputs`).
    - ``"anthropic"``: ONE user message with every result (the API wants all the
      ``tool_result`` blocks of a turn in one message): ``{"role": "user", "content":
      [{"type": "tool_result", "tool_use_id": id, "content": content, "is_error":
      is_error}, ...]}``.
    - ``"gemini"``: ONE ``Content`` with every result: ``{"role": "user", "parts":
      [{"functionResponse": {"name": name, "response": response, "id": id}}, ...]}``,
      ``"id"`` only when the call had one; ``response`` is ``json`` when it is an object,
      else ``{"output": json}``, and ``{"error": content}`` for an error or cancelled
      result (the keys Gemini's docs suggest).
    - ``"bedrock"`` (Converse): ONE user message: ``{"role": "user", "content":
      [{"toolResult": {"toolUseId": id, "content": [{"json": json}], "status":
      "success"}}, ...]}``; ``[{"text": content}]`` instead when ``json`` is not an
      object, and ``"status": "error"`` for an error or cancelled result.
    - ``"cohere"`` (v2 chat), one per result: ``{"role": "tool", "tool_call_id": id,
      "content": [{"type": "document", "document": {"data": content}}]}``.
    - ``"ollama"`` (native ``/api/chat``), one per result: ``{"role": "tool", "content":
      content, "tool_name": name}``.
    - ``"langchain"``, one per result: ``langchain_core.messages.ToolMessage(content=
      content, tool_call_id=id, name=name, status="error" if is_error else "success")``
      (needs langchain-core, the ``langchain`` extra); for a custom tool call the
      content is ``[{"type": "custom_tool_call_output", "output": content}]``, the block
      ``ChatOpenAI`` sends as a ``custom_tool_call_output`` item (LangChain has no place
      for the other kinds: they go as plain tool messages).

    Args:
        results: the results of one turn (:attr:`RunResult.results`), not changed.
        format: the provider shape (:data:`MessageFormat`; case-insensitive).

    Returns:
        A new list: one entry per result, or a single message holding them all for
        ``"anthropic"``, ``"gemini"`` and ``"bedrock"``; ``[]`` for no results.

    Raises:
        OptionValueError: ``format`` is not a known format (the message lists them).
        OptionTypeError: ``format`` is not a ``str``, or an item is not a ToolResult.
        UsageError: a result has no id and the format addresses results by id (every
            format but ``"ollama"``), or has no name and the format needs one
            (``"gemini"``, ``"ollama"``): the error names the call by index and name.
            Ids are never invented. For ``"openai-responses"`` also an error or
            cancelled result of a ``computer_call`` or client ``tool_search_call``,
            whose items have no place for an error, and a result of a hosted item.
            Also raised for ``"langchain"`` without ``langchain_core`` installed.

    Cost: O(total size of the results); each output is rendered or copied once.
    """
    build = _builder(format)
    checked: list[ToolResult] = []
    for position, result in enumerate(results):
        if not isinstance(result, ToolResult):
            raise OptionTypeError(
                f"tool_messages() takes ToolResult objects; item {position} is "
                f"{type(result).__name__}"
            )
        checked.append(result)
    if not checked:
        return []
    return build(checked)


# --- the formats -------------------------------------------------------------------


def _openai_chat(results: list[ToolResult]) -> list[Any]:
    return [
        {"role": "tool", "tool_call_id": _id(r, "openai"), "content": r.content} for r in results
    ]


def _openai_responses(results: list[ToolResult]) -> list[Any]:
    return [
        responses_item(r.item_type, _reply(r, _id(r, "openai-responses"))) for r in results
    ]


def _reply(result: ToolResult, call_id: str) -> Reply:
    done = result.status == "done"
    data = result.output_json if done else None
    return Reply(call_id, done, result.content, data, _describe(result))


def _anthropic(results: list[ToolResult]) -> list[Any]:
    blocks = [
        {
            "type": "tool_result",
            "tool_use_id": _id(r, "anthropic"),
            "content": r.content,
            "is_error": r.is_error,
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]


def _gemini(results: list[ToolResult]) -> list[Any]:
    parts = []
    for r in results:
        name = _name(r, "gemini")
        response: dict[str, Any]
        if r.is_error:
            response = {"error": r.content}
        else:
            data = r.output_json
            response = data if isinstance(data, dict) else {"output": data}
        call: dict[str, Any] = {"name": name, "response": response}
        if r.id:
            call["id"] = r.id
        parts.append({"functionResponse": call})
    return [{"role": "user", "parts": parts}]


def _bedrock(results: list[ToolResult]) -> list[Any]:
    blocks = []
    for r in results:
        tool_use_id = _id(r, "bedrock")
        data = None if r.is_error else r.output_json
        content = [{"json": data}] if isinstance(data, dict) else [{"text": r.content}]
        blocks.append(
            {
                "toolResult": {
                    "toolUseId": tool_use_id,
                    "content": content,
                    "status": "error" if r.is_error else "success",
                }
            }
        )
    return [{"role": "user", "content": blocks}]


def _cohere(results: list[ToolResult]) -> list[Any]:
    return [
        {
            "role": "tool",
            "tool_call_id": _id(r, "cohere"),
            "content": [{"type": "document", "document": {"data": r.content}}],
        }
        for r in results
    ]


def _ollama(results: list[ToolResult]) -> list[Any]:
    return [
        {"role": "tool", "content": r.content, "tool_name": _name(r, "ollama")} for r in results
    ]


def _langchain(results: list[ToolResult]) -> list[Any]:
    try:
        from langchain_core.messages import ToolMessage
    except ImportError as exc:
        raise UsageError(
            "the 'langchain' message format needs langchain-core (the langchain "
            "extra): pip install langchain-core"
        ) from exc
    return [
        ToolMessage(
            content=_langchain_content(r),
            tool_call_id=_id(r, "langchain"),
            name=r.name,
            status="error" if r.is_error else "success",
        )
        for r in results
    ]


def _langchain_content(result: ToolResult) -> Any:
    """A ``ToolMessage``'s content: the text, or for a custom tool call the block
    ``ChatOpenAI`` sends as its ``custom_tool_call_output``."""
    if result.item_type == "custom_tool_call":
        return [{"type": "custom_tool_call_output", "output": result.content}]
    return result.content


_FORMATS: dict[str, Callable[[list[ToolResult]], list[Any]]] = {
    "openai": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "cohere": _cohere,
    "ollama": _ollama,
    "langchain": _langchain,
}
_ALIASES = {"openai-chat": "openai", "mistral": "openai", "responses": "openai-responses"}


# --- helpers ---------------------------------------------------------------------


def _builder(format: object) -> Callable[[list[ToolResult]], list[Any]]:
    """The builder of ``format`` (case-insensitive, ``_`` as ``-``, aliases resolved)."""
    if not isinstance(format, str):
        raise OptionTypeError(
            f"tool_messages() format must be a str such as 'openai', not {type(format).__name__}"
        )
    key = format.strip().lower().replace("_", "-")
    build = _FORMATS.get(_ALIASES.get(key, key))
    if build is None:
        known = ", ".join(repr(name) for name in [*_FORMATS, *_ALIASES])
        raise OptionValueError(f"unknown message format {format!r}; known formats: {known}")
    return build


def _describe(result: ToolResult) -> str:
    return f"call {result.index} ({result.name!r})" if result.name else f"call {result.index}"


def _id(result: ToolResult, format: str) -> str:
    """The call's id; a :class:`UsageError` when it has none (never an invented one)."""
    if not result.id:
        raise UsageError(
            f"{_describe(result)} has no id, and the {format!r} message format matches "
            "each result to its call by id; the provider sent none for this call"
        )
    return result.id


def _name(result: ToolResult, format: str) -> str:
    """The call's tool name; a :class:`UsageError` when it has none."""
    if not result.name:
        raise UsageError(
            f"{_describe(result)} has no tool name, and the {format!r} message format "
            "names the tool each result is for"
        )
    return result.name
