"""A custom tool's text input, given to a tool that takes one string: the one mapping.

A custom (free-form, grammar) tool call of the OpenAI Responses API carries one text, not
a JSON object; callstream's calls follow LangChain's convention and carry it as the
arguments ``{"__arg1": text}`` (:data:`~callstream.providers._responses_items.CUSTOM_ARG`;
LangChain reads a ``custom_tool_call`` item so, and describes a tool taking one text
that way). A tool declared with one string parameter receives that text under its own
parameter name. The rule, used by :class:`~callstream.ToolRunner` and by the output
parsers that validate (:class:`~callstream.parsers.PydanticToolsParser`,
``ToolCallsOutputParser(tools=...)``), so that a call validates the same way in both:

- arguments that are exactly ``{"__arg1": <str>}`` are a text input (whatever the call's
  kind: a function call with those arguments means the same in LangChain);
- a tool whose arguments schema has a ``__arg1`` property of its own (a LangChain
  ``Tool`` taking one text) gets them as they are;
- otherwise the text goes to the tool's *text parameter*: its one required parameter,
  or, when it has none required, its only parameter; that parameter must take a string
  (schema ``type`` ``string``, a union with a string, an enum of strings, or no type at
  all). Other parameters keep their defaults;
- any other tool (two required parameters, none at all, a parameter that takes no
  string) cannot take a text: the call gets an error (the runner's error result, the
  parser's invalid call) saying why, in the words of :func:`text_parameter`.

Pure functions over a JSON schema (``{"type": "object", "properties", "required"}``, as
:func:`callstream.tools.describe_tool`, pydantic's ``json_schema()`` and LangChain's
``convert_to_openai_tool`` write it). Cost: O(size of the schema) once per tool, O(1)
per call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callstream.providers._responses_items import CUSTOM_ARG

__all__ = ("TextParameter", "as_text_input", "text_input", "text_parameter")


class TextParameter:
    """Where a tool takes a text input (internal): ``name`` is the parameter the text
    goes to (None: the arguments go as they are, the tool has ``__arg1`` itself), or
    ``refusal`` says why the tool cannot take a text (then ``name`` is None)."""

    __slots__ = ("name", "refusal")

    def __init__(self, name: str | None, refusal: str | None = None) -> None:
        self.name = name
        self.refusal = refusal


def text_input(args: Any) -> str | None:
    """The text of arguments that are a text input (exactly ``{"__arg1": <str>}``),
    else None."""
    if type(args) is dict and len(args) == 1:
        text = args.get(CUSTOM_ARG)
        if type(text) is str:
            return text
    return None


def text_parameter(schema: Any, tool: str) -> TextParameter:
    """Where tool ``tool`` (its name, for the refusal's words) takes a text input, read
    from the JSON schema of its arguments (see the module docstring). Never raises."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        properties = {}
    if CUSTOM_ARG in properties:
        return TextParameter(None)
    names = [name for name in properties if isinstance(name, str)]
    given = schema.get("required") if isinstance(schema, Mapping) else None
    required = [name for name in given if name in properties] if isinstance(given, list) else []
    if len(required) == 1:
        name = required[0]
    elif not required and len(names) == 1:
        name = names[0]
    else:
        listed = ", ".join(repr(n) for n in (required or names)) or "none"
        which = "required parameters" if required else "parameters"
        return TextParameter(
            None,
            f"{tool} cannot take the text input of a custom tool call (arguments "
            f'{{"{CUSTOM_ARG}": text}}): it needs one string parameter, and its {which} '
            f"are: {listed}",
        )
    if not _takes_text(properties[name], schema):
        return TextParameter(
            None,
            f"{tool} cannot take the text input of a custom tool call (arguments "
            f'{{"{CUSTOM_ARG}": text}}): its parameter {name!r} does not take a string',
        )
    return TextParameter(name)


def as_text_input(args: dict[str, Any], where: TextParameter) -> dict[str, Any]:
    """The arguments a tool gets for text-input ``args`` (see :func:`text_input`):
    ``{where.name: text}``, or ``args`` as they are when the tool has ``__arg1``.
    ``where`` must not be a refusal."""
    if where.name is None:
        return args
    return {where.name: args[CUSTOM_ARG]}


def _takes_text(prop: Any, schema: Any, depth: int = 0) -> bool:
    """Whether a property schema accepts a string (``$ref`` into ``$defs`` followed)."""
    if not isinstance(prop, Mapping) or depth > 8:
        return False
    ref = prop.get("$ref")
    kind = prop.get("type")
    members = prop.get("anyOf", prop.get("oneOf"))
    both = prop.get("allOf")
    if isinstance(ref, str):
        takes = _takes_text(_resolve(ref, schema), schema, depth + 1)
    elif kind is not None:
        takes = kind == "string" or (isinstance(kind, list) and "string" in kind)
    elif isinstance(members, list):
        takes = any(_takes_text(member, schema, depth + 1) for member in members)
    elif isinstance(both, list) and len(both) == 1:
        takes = _takes_text(both[0], schema, depth + 1)
    elif isinstance(prop.get("enum"), list):
        takes = any(type(value) is str for value in prop["enum"])
    elif "const" in prop:
        takes = type(prop["const"]) is str
    else:
        takes = True  # no type at all: any value (an unannotated parameter)
    return takes


def _resolve(ref: str, schema: Any) -> Any:
    """The schema ``ref`` (``#/$defs/Name`` or ``#/definitions/Name``) points to."""
    for prefix, key in (("#/$defs/", "$defs"), ("#/definitions/", "definitions")):
        if ref.startswith(prefix) and isinstance(schema, Mapping):
            defs = schema.get(key)
            if isinstance(defs, Mapping):
                return defs.get(ref[len(prefix) :])
    return None
