"""What each OpenAI Responses output item becomes: a tool call, a server tool call, or no
call at all. The one table of it (:data:`CALL_ITEMS`, :data:`IGNORED_ITEMS`; and of the
events that carry no call, :data:`IGNORED_EVENTS`), read by
the translator (:mod:`callstream.providers.openai_responses`) and by the test that walks
openai-python's own item union.

- **Tool calls** (the client runs them; listed in ``tool_calls``): ``function_call``;
  ``custom_tool_call`` (free-form / grammar tools: ``args`` follow LangChain's
  convention ``{"__arg1": input}``, the input text as the one argument); the built-in
  tools the client executes: ``shell_call`` (local), ``local_shell_call``,
  ``apply_patch_call``, ``computer_call`` and ``tool_search_call`` with ``execution:
  "client"``, whose ``args`` are the item's own fields (``action``, ``operation`` ...);
  ``mcp_approval_request``: the server asks the client to approve an MCP call, and only
  the client can answer (an ``mcp_approval_response``), so it is a call of its own, named
  ``mcp_approval_request`` (never the MCP tool's name: a local tool of that name must not
  run), ``args`` ``{"name", "arguments", "server_label"}`` as the item gives them.
- **Server tool calls** (the provider runs them; listed in ``server_tool_calls``, with
  the item's ``status`` in ``extras``): ``web_search_call``, ``file_search_call``,
  ``code_interpreter_call``, ``image_generation_call``, ``mcp_call`` (named by the MCP
  tool, ``server_label`` in ``extras``), ``mcp_list_tools``, ``program`` (programmatic
  tool calling: the code the server runs), ``tool_search_call`` with ``execution:
  "server"``, a ``shell_call`` in a hosted container, and a ``custom_tool_call`` the
  response declares no custom tool for (xAI's ``x_keyword_search``, ``view_x_video``:
  see :class:`DeclaredTools`); and any other item type ending in ``_call`` that neither
  table lists (a provider's own hosted tool: xAI's ``x_search_call`` ...; see
  :func:`call_kind`).
- **No call** (:data:`IGNORED_ITEMS`): messages and reasoning (their text is read from
  the text events), compaction, and every ``*_output`` / response item (a result, not a
  request); ``additional_tools`` and ``tool_search_output`` only declare tools.

Extras (the call's :class:`~callstream.CallExtras` record): ``item_type`` (every item
but a plain ``function_call``), ``namespace``, ``caller`` (only a program caller:
``{"type": "program", "caller_id": ...}``), ``async`` (when true), ``status``,
``server_label`` and ``error`` (server tools), ``input`` (a custom tool's whole text,
once the provider sent it complete). Null fields are left out of ``args`` and extras
(the SDK's models show every optional field, the wire only some). Cost: O(size of the
item).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from callstream._errors import DataError
from callstream.providers._arguments import Arguments, args_error, read_arguments
from callstream.providers._fields import get, get_list, get_str
from callstream.providers._plain import to_json_data

__all__ = (
    "CALL_ITEMS",
    "CUSTOM_ARG",
    "IGNORED_EVENTS",
    "IGNORED_ITEMS",
    "TOOL_ITEMS",
    "DeclaredTools",
    "ItemCall",
    "ItemKind",
    "call_kind",
    "plain_fields",
    "read_call",
)

CUSTOM_ARG: Final = "__arg1"
"""The one argument a custom tool's input text becomes (LangChain's convention)."""


@dataclass(frozen=True, slots=True)
class ItemKind:
    """How one item type is read: ``name`` is the call's name (None: the item's own
    ``name``); ``fields`` the item fields its ``args`` object is made of (empty with
    ``text_args``: the item's JSON ``arguments`` text); ``server`` whether the provider
    runs it (None: decided per item, see :func:`read_call`); ``by_call_id`` whether its
    call id is ``call_id`` (else the item ``id``). ``fields`` None: every field but the
    item's identity, status and results (an item type of no table, see
    :func:`call_kind`)."""

    name: str | None
    fields: tuple[str, ...] | None = ()
    text_args: bool = False
    server: bool | None = False
    by_call_id: bool = True


CALL_ITEMS: Final[dict[str, ItemKind]] = {
    "function_call": ItemKind(None, text_args=True),
    "custom_tool_call": ItemKind(None, server=None),
    "shell_call": ItemKind("shell", ("action",), server=None),
    "local_shell_call": ItemKind("local_shell", ("action",)),
    "apply_patch_call": ItemKind("apply_patch", ("operation",)),
    "computer_call": ItemKind("computer", ("action", "actions", "pending_safety_checks")),
    "mcp_approval_request": ItemKind(
        "mcp_approval_request", ("name", "arguments", "server_label"), by_call_id=False
    ),
    "web_search_call": ItemKind("web_search", ("action",), server=True, by_call_id=False),
    "file_search_call": ItemKind("file_search", ("queries",), server=True, by_call_id=False),
    "code_interpreter_call": ItemKind(
        "code_interpreter", ("container_id", "code"), server=True, by_call_id=False
    ),
    "image_generation_call": ItemKind(
        "image_generation",
        ("action", "background", "output_format", "quality", "size", "revised_prompt"),
        server=True,
        by_call_id=False,
    ),
    "mcp_call": ItemKind(None, text_args=True, server=True, by_call_id=False),
    "mcp_list_tools": ItemKind("mcp_list_tools", server=True, by_call_id=False),
    "program": ItemKind("program", ("code",), server=True),
    "tool_search_call": ItemKind("tool_search", text_args=True, server=None),
}
"""Every item type that is a call (client or server), by type."""

_NOT_ARGS: Final = frozenset(
    {
        "type",
        "id",
        "call_id",
        "status",
        "created_by",
        "error",
        "output",
        "outputs",
        "result",
        "results",
    }
)
"""Fields of an item of no table that are not its arguments."""

TOOL_ITEMS: Final = frozenset({"additional_tools", "tool_search_output"})
"""Items that declare tools for the rest of the response (read by :class:`DeclaredTools`)."""

IGNORED_ITEMS: Final[dict[str, str]] = {
    "message": "the assistant's text, read from response.output_text.delta",
    "reasoning": "reasoning text, read from the reasoning text deltas",
    "compaction": "an opaque summary of earlier turns, no call",
    "additional_tools": "tool definitions (read for the custom tools they declare)",
    "tool_search_output": "tools found by a tool search (read for the custom tools)",
    "program_output": "the result of a program, not a call",
    "function_call_output": "a result the client sent, not a call",
    "custom_tool_call_output": "a result, not a call",
    "computer_call_output": "a result, not a call",
    "local_shell_call_output": "a result, not a call",
    "shell_call_output": "the output of a shell call, not a call",
    "apply_patch_call_output": "a result, not a call",
    "mcp_approval_response": "the client's answer to an approval request, not a call",
}
"""Item types that are no call, each with the reason."""

_MAX_DECLARED: Final = 4096
"""Most custom tool names remembered per response (tool lists are bounded by the event
size; past this, further names are not told apart and read as declared)."""


class DeclaredTools:
    """The custom tools and the shell a response declares (``response.tools`` in
    ``response.created`` / ``in_progress`` / ``queued``, and ``additional_tools`` /
    ``tool_search_output`` items): how a ``custom_tool_call`` or ``shell_call`` is told
    to be the client's or the provider's.

    - A ``custom_tool_call`` is a client tool call when the response declares a custom
      tool of that name (at the top level or in a namespace), or when the response
      listed no tools at all (unknown: the client's, so that a call is never lost to an
      agent loop). Otherwise the provider runs it: xAI's Responses API streams its own
      search tools (``x_keyword_search``, ``view_x_video``) as ``custom_tool_call`` items
      while the response declares only ``{"type": "x_search"}``. (Their ``status`` does
      not tell: xAI's and OpenAI's items are both ``in_progress`` when added.)
    - A ``shell_call`` runs in a hosted container (the provider's) when its
      ``environment`` is given and is not ``local``, or, without one, when the declared
      shell tool's environment is a container; otherwise the client runs it.

    Cost: O(tools in a list) per list; at most :data:`_MAX_DECLARED` names are kept.
    """

    __slots__ = ("_custom", "_full", "_hosted_shell", "_listed")

    def __init__(self) -> None:
        self._listed = False  # a non-empty tool list was seen
        self._full = False  # more names than kept: every name reads as declared
        self._custom: set[str] = set()
        self._hosted_shell = False

    def add(self, tools: Any, nested: bool = False) -> None:
        """Read one list of tool definitions (SDK objects or dicts; ``nested``: the tools
        of a namespace)."""
        listed = get_list({"tools": tools}, "tools")
        if listed:
            self._listed = True
        for tool in listed:
            kind = get_str(tool, "type")
            name = get_str(tool, "name")
            if kind == "custom" and name is not None:
                if len(self._custom) >= _MAX_DECLARED:
                    self._full = True
                else:
                    self._custom.add(name)
            elif kind == "namespace" and not nested:
                self.add(get(tool, "tools"), nested=True)
            elif kind == "shell":
                environment = get_str(get(tool, "environment"), "type")
                self._hosted_shell = environment not in (None, "local")

    def custom_is_client(self, name: str | None) -> bool:
        """Whether a ``custom_tool_call`` of ``name`` is the client's."""
        return not self._listed or self._full or name is None or name in self._custom

    def shell_is_server(self, item: Any) -> bool:
        """Whether a ``shell_call`` item runs in a hosted container."""
        environment = get_str(get(item, "environment"), "type")
        if environment is not None:
            return environment != "local"
        return self._hosted_shell


@dataclass(slots=True)
class ItemCall:
    """One call item as read: the call's ``name`` and ``id``, its ``args`` (text or an
    object, None when none yet), ``failure`` (why the arguments are unusable, or None),
    whether the provider runs it (``server``) and its ``extras``."""

    kind: str
    name: str | None
    id: str | None
    args: Arguments
    failure: str | None
    server: bool
    extras: dict[str, Any]


def call_kind(kind: str) -> ItemKind | None:
    """How an item of type ``kind`` is read, None for no call: the table's entry; for an
    item type of neither table whose name ends in ``_call`` (a provider's own hosted tool:
    xAI's ``x_search_call``, ``code_execution_call``, ``view_image_call`` ...), a server
    tool call named ``kind`` without ``_call``, whose ``args`` are the item's fields but
    its identity, status and results (never dropped, never run by the client)."""
    spec = CALL_ITEMS.get(kind)
    if spec is not None or kind in IGNORED_ITEMS or not kind.endswith("_call"):
        return spec
    return ItemKind(kind[: -len("_call")] or kind, None, server=True)


def read_call(item: Any, kind: str, spec: ItemKind, tools: DeclaredTools) -> ItemCall:
    """Read call item ``item`` of type ``kind``, as ``spec`` (:func:`call_kind`) says.

    ``args``: the JSON ``arguments`` text (or object) of a ``function_call``,
    ``mcp_call`` or ``tool_search_call``; for a ``custom_tool_call``
    ``{"__arg1": input}``; else the object of the item's fields (see :class:`ItemKind`).
    Never raises.
    """
    own_name = get_str(item, "name")
    name = own_name if spec.name is None else spec.name
    call_id = get_str(item, "call_id")
    if kind == "function_call":
        id_ = call_id  # item.id is the item's id, never the call's
    elif spec.by_call_id:
        id_ = call_id or get_str(item, "id")
    else:
        id_ = get_str(item, "id")
    args, failure = _read_args(item, kind, spec)
    server = spec.server
    if server is None:
        if kind == "custom_tool_call":
            server = not tools.custom_is_client(own_name)
        elif kind == "shell_call":
            server = tools.shell_is_server(item)
        else:  # tool_search_call: hosted unless the item says the client runs it
            server = get_str(item, "execution") != "client"
    return ItemCall(kind, name, id_, args, failure, server, _extras(item, kind, server))


def _read_args(item: Any, kind: str, spec: ItemKind) -> tuple[Arguments, str | None]:
    """The ``args`` of a call item (see :func:`read_call`) and why they are unusable."""
    if spec.text_args:
        return read_arguments(get(item, "arguments"))
    if kind == "custom_tool_call":
        given = get_str(item, "input")
        if given is None and get(item, "input") is not None:
            return None, "the input of a custom tool call is not text"
        return {CUSTOM_ARG: given or ""}, None
    if spec.fields is not None:
        fields, failure = plain_fields(item, spec.fields)
    else:  # an item of no table: every field but the bookkeeping
        every, failure = plain_fields({"item": item}, ("item",))
        whole = every.get("item")
        fields = (
            {key: value for key, value in whole.items() if key not in _NOT_ARGS}
            if type(whole) is dict
            else {}
        )
    return (fields, None) if failure is None else (None, failure)


def plain_fields(item: Any, names: tuple[str, ...]) -> tuple[dict[str, Any], str | None]:
    """The item's fields ``names`` as plain JSON data, null fields (and null members of
    objects within) left out; or ``({}, reason)`` when one is not JSON data."""
    out: dict[str, Any] = {}
    for name in names:
        value = get(item, name)
        if value is None:
            continue
        try:
            plain = to_json_data(value)
        except DataError as exc:
            return {}, f"item field {name!r}: {args_error(exc)}"
        if plain is not None:
            out[name] = _without_nulls(plain)
    return out, None


def _without_nulls(value: Any) -> Any:
    """``value`` (plain JSON data) with the null members of its objects left out, at any
    depth (iterative). Array items stay as they are, nulls included."""
    if type(value) is not dict and type(value) is not list:
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, list[Any] | dict[str, Any], Any]] = [(value, root, 0)]
    while stack:
        source, parent, slot = stack.pop()
        if type(source) is dict:
            copy: dict[str, Any] = {}
            for key, item in source.items():
                if item is None:
                    continue
                copy[key] = item
                if type(item) is dict or type(item) is list:
                    stack.append((item, copy, key))
            parent[slot] = copy
        else:
            items = list(source)
            for position, item in enumerate(items):
                if type(item) is dict or type(item) is list:
                    stack.append((item, items, position))
            parent[slot] = items
    return root[0]


def _extras(item: Any, kind: str, server: bool) -> dict[str, Any]:
    """The item's extras (see the module docstring); null and direct-caller fields are
    left out."""
    extras: dict[str, Any] = {}
    if kind != "function_call":
        extras["item_type"] = kind
    namespace = get_str(item, "namespace")
    if namespace:
        extras["namespace"] = namespace
    caller = get(item, "caller")
    if get_str(caller, "type") == "program":
        plain, _ = plain_fields({"caller": caller}, ("caller",))
        if "caller" in plain:
            extras["caller"] = plain["caller"]
    if get(item, "async") is True or get(item, "async_") is True:
        extras["async"] = True
    if server:
        status = get_str(item, "status")
        if status:
            extras["status"] = status
        label = get_str(item, "server_label")
        if label:
            extras["server_label"] = label
        error, unusable = plain_fields(item, ("error",))
        if "error" in error or unusable is not None:
            extras["error"] = error.get("error", unusable)  # the reason, when unusable
    return extras


IGNORED_EVENTS: Final[dict[str, str]] = {
    "response.output_text.done": "repeats the streamed text",
    "response.output_text.annotation.added": "a citation on text, no call",
    "response.content_part.added": "text structure, no call",
    "response.content_part.done": "repeats the streamed text",
    "response.refusal.delta": "a refusal is no call (and not the assistant's answer text)",
    "response.refusal.done": "repeats the refusal",
    "response.reasoning_summary_part.added": "reasoning structure, no call",
    "response.reasoning_summary_part.done": "repeats streamed reasoning",
    "response.reasoning_summary_text.done": "repeats streamed reasoning",
    "response.reasoning_text.done": "repeats streamed reasoning",
    "response.audio.delta": "audio, no call",
    "response.audio.done": "audio, no call",
    "response.audio.transcript.delta": "audio transcript, no call",
    "response.audio.transcript.done": "audio transcript, no call",
    "response.image_generation_call.partial_image": "image data (a result), no call",
    "response.shell_call_output_content.delta": "a hosted shell's output (a result)",
    "response.shell_call_output_content.done": "a hosted shell's output (a result)",
    "response.compaction.compacting": "context compaction, no call",
}
"""Event types that carry no call, each with the reason."""
