"""Tool definitions for LLM providers, from a function, a pydantic model or a JSON schema.

Three sources describe a tool:

- a Python function: the name is the function's name, the description is the docstring's
  text before its first Google-style section, and the parameters come from the type hints,
  the defaults and the ``Args:`` section (one description per parameter);
- a pydantic model (or a ``TypedDict`` / dataclass): the name is the schema title (the class
  name unless ``model_config["title"]`` says otherwise), the description is the class
  docstring, and ``Field`` descriptions and constraints become the parameters' schema;
- a JSON-schema dict: an OpenAI tool (``{"type": "function", "function": {...}}``), an
  OpenAI function or Responses tool (``{"name", "parameters"}``), an Anthropic tool
  (``{"name", "input_schema"}``), or a bare object schema whose ``title`` is the name.

:func:`describe_tool` turns any of them into a :class:`ToolDefinition`;
:func:`to_openai_tool` and :func:`to_anthropic_tool` render it in the provider's format;
:func:`tool_adapter` gives the pydantic ``TypeAdapter`` that
:class:`callstream.parsers.PydanticToolsParser` validates the arguments with.

Schemas are built by pydantic (``create_model`` from a function's signature), so
``Literal`` / ``Enum``, ``Optional``, defaults, nested models (as ``$defs`` / ``$ref``),
lists and constraints (``ge``, ``le``, ``pattern``, ...) carry through exactly as pydantic
validates them. Field titles that pydantic derives from field names are left out (noise
for a model); titles set explicitly are kept.

What cannot be described raises :class:`ToolDefinitionError`: ``*args`` / ``**kwargs``,
a parameter without a type hint when ``strict=True``, a type pydantic cannot build a
schema for, an unnamed schema, a name providers reject.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, Field, PydanticUserError, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import is_typeddict

from callstream._errors import ToolDefinitionError

__all__ = (
    "ToolDefinition",
    "ToolDefinitionError",
    "describe_tool",
    "to_anthropic_tool",
    "to_openai_tool",
    "tool_adapter",
    "tool_name",
)

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# Google-style section headers; the text before the first one is the description.
_SECTION_RE = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Exceptions?|Examples?|Notes?|Attributes|Warnings?|Warns|"
    r"See Also|Todo|References|Methods)\s*:\s*$"
)
_ARGS_SECTIONS = frozenset(
    {
        "Args",
        "Arguments",
        "Parameters",
        "Params",
        "Keyword Args",
        "Keyword Arguments",
        "Other Parameters",
    }
)
# "name (type): text", "name: text", "*name: text"
_ARG_LINE_RE = re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(.*)$")


class _NoFieldTitles(GenerateJsonSchema):
    """JSON-schema generator that leaves out titles pydantic derives from field names."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDefinition:
    """A tool: its name, description and the JSON schema of its arguments object.

    ``adapter`` validates the arguments (a dict) into the tool's Python type — the model,
    or for a function a model built from its signature; it is ``None`` for a tool given
    as a JSON-schema dict, which has no Python type. ``strict`` asks the provider to hold
    the model to the schema (OpenAI / Anthropic ``strict``); the schema then closes every
    object (``additionalProperties: false``) and lists every property as required.
    """

    name: str
    description: str | None
    parameters: dict[str, Any]
    strict: bool = False
    adapter: TypeAdapter[Any] | None = field(default=None, compare=False, repr=False)

    def to_openai(self) -> dict[str, Any]:
        """This tool in OpenAI Chat Completions format (a fresh dict)."""
        function: dict[str, Any] = {"name": self.name}
        if self.description:
            function["description"] = self.description
        function["parameters"] = copy.deepcopy(self.parameters)
        if self.strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    def to_anthropic(self) -> dict[str, Any]:
        """This tool in Anthropic Messages format (a fresh dict)."""
        tool: dict[str, Any] = {"name": self.name}
        if self.description:
            tool["description"] = self.description
        tool["input_schema"] = copy.deepcopy(self.parameters)
        if self.strict:
            tool["strict"] = True
        return tool


def to_openai_tool(
    obj: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
) -> dict[str, Any]:
    """Describe ``obj`` as an OpenAI tool: ``{"type": "function", "function": {...}}``.

    Args:
        obj: A function, a pydantic model class (or ``TypedDict`` / dataclass), or a tool
            or schema dict (see the module docstring).
        name: Overrides the tool name.
        description: Overrides the description.
        strict: ``True`` requires a type on every parameter and emits a strict schema
            (``"strict": true``, closed objects, every property required); ``None`` keeps
            a dict's own ``strict`` flag (off for functions and models).

    Raises:
        ToolDefinitionError: ``obj`` cannot be described (the message says why).

    Cost: one pydantic schema build for functions and models; a deep copy for dicts.
    """
    return describe_tool(obj, name=name, description=description, strict=strict).to_openai()


def to_anthropic_tool(
    obj: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
) -> dict[str, Any]:
    """Describe ``obj`` as an Anthropic tool: ``{"name", "description", "input_schema"}``.

    Takes the same arguments as :func:`to_openai_tool`; ``strict=True`` adds
    ``"strict": true`` and the same strict schema.

    Raises:
        ToolDefinitionError: ``obj`` cannot be described (the message says why).
    """
    return describe_tool(obj, name=name, description=description, strict=strict).to_anthropic()


def tool_name(obj: Any) -> str:
    """The tool name :func:`describe_tool` gives ``obj`` (a function, model or tool dict).

    This is the default key of a tool in :class:`callstream.parsers.PydanticToolsParser`.

    Raises:
        ToolDefinitionError: ``obj`` cannot be described or has no name.
    """
    if isinstance(obj, type) and issubclass(obj, BaseModel):
        title = obj.model_config.get("title")
        return _check_name(title if isinstance(title, str) else obj.__name__, obj)
    if isinstance(obj, type) or inspect.isroutine(obj):
        name = getattr(obj, "__name__", None)
        if isinstance(name, str):
            return _check_name(name, obj)
    return describe_tool(obj).name


def tool_adapter(obj: Any, *, strict: bool = False) -> TypeAdapter[Any]:
    """The pydantic ``TypeAdapter`` that validates ``obj``'s arguments.

    For a model, ``TypedDict`` or dataclass: an adapter of that type. For a function: an
    adapter of a model built from its signature (named after the function; its fields are
    the parameters). A ``TypeAdapter`` is returned as it is.

    Raises:
        ToolDefinitionError: ``obj`` is a JSON-schema dict (it has no Python type to
            validate into) or cannot be described.
    """
    if isinstance(obj, TypeAdapter):
        return obj
    if isinstance(obj, Mapping):
        raise ToolDefinitionError(
            "a JSON-schema dict has no Python type to validate into; give a pydantic model, "
            "a TypedDict, a dataclass or a function instead"
        )
    adapter = describe_tool(obj, strict=strict).adapter
    assert adapter is not None  # functions and types always get one
    return adapter


def describe_tool(
    obj: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
) -> ToolDefinition:
    """Describe ``obj`` (a function, a model class or a tool / schema dict) as a tool.

    See :func:`to_openai_tool` for the arguments. The returned definition owns its schema
    (nothing is shared with ``obj``).

    Raises:
        ToolDefinitionError: ``obj`` cannot be described (the message says why).
    """
    if isinstance(obj, Mapping):
        definition = _from_dict(obj, name=name)
    elif isinstance(obj, type) and (
        issubclass(obj, BaseModel) or is_typeddict(obj) or dataclasses.is_dataclass(obj)
    ):
        definition = _from_type(obj)
    elif isinstance(obj, type):
        raise ToolDefinitionError(
            f"cannot describe class {obj.__qualname__!r} as a tool: give a pydantic model, "
            "a TypedDict, a dataclass, a function or a tool / JSON-schema dict"
        )
    elif callable(obj):
        definition = _from_function(obj, strict=bool(strict), name=name)
    else:
        raise ToolDefinitionError(
            f"cannot describe {type(obj).__name__} object as a tool: give a function, a "
            "pydantic model class or a tool / JSON-schema dict"
        )
    final_strict = definition.strict if strict is None else strict
    parameters = _strict_schema(definition.parameters) if final_strict else definition.parameters
    return ToolDefinition(
        name=_check_name(name if name is not None else definition.name, obj),
        description=description if description is not None else definition.description,
        parameters=parameters,
        strict=final_strict,
        adapter=definition.adapter,
    )


# --- functions ---------------------------------------------------------------------------


def _from_function(func: Callable[..., Any], *, strict: bool, name: str | None) -> ToolDefinition:
    func_name = name if name is not None else getattr(func, "__name__", None)
    if not isinstance(func_name, str) or func_name == "<lambda>":
        raise ToolDefinitionError(
            f"cannot name a tool after {func!r}: give a named function or pass name="
        )
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"cannot read the signature of {func_name}: {exc}") from exc
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:  # NameError for unresolvable forward references, and others
        raise ToolDefinitionError(f"cannot resolve the type hints of {func_name}: {exc}") from exc
    summary, arg_docs = parse_google_docstring(inspect.getdoc(func))

    fields: dict[str, Any] = {}
    params = list(signature.parameters.values())
    for position, param in enumerate(params):
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            raise ToolDefinitionError(
                f"cannot describe *{param.name} of {func_name}: a tool takes named arguments "
                "(a JSON object); replace it with a list parameter"
            )
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            raise ToolDefinitionError(
                f"cannot describe **{param.name} of {func_name}: a tool's arguments must be "
                "listed; replace it with named parameters or a dict parameter"
            )
        if (
            position == 0
            and param.name in ("self", "cls")
            and param.annotation is inspect.Parameter.empty
        ):
            continue  # an unbound method's receiver is not an argument
        if param.name.startswith("_"):
            raise ToolDefinitionError(
                f"cannot describe parameter {param.name!r} of {func_name}: pydantic treats "
                "names starting with '_' as private; rename it"
            )
        annotation: Any = hints.get(param.name, inspect.Parameter.empty)
        if annotation is inspect.Parameter.empty:
            if strict:
                raise ToolDefinitionError(
                    f"parameter {param.name!r} of {func_name} has no type hint "
                    "(strict=True requires one on every parameter)"
                )
            annotation = Any
        default: Any = param.default
        if default is inspect.Parameter.empty:
            default = ...
        doc = arg_docs.get(param.name)
        if doc is not None and not _has_description(annotation, default):
            annotation = Annotated[annotation, Field(description=doc)]
        fields[param.name] = (annotation, default)
    try:
        model: type[BaseModel] = create_model(func_name, **fields)
        model.__doc__ = summary
        schema = model.model_json_schema(schema_generator=_NoFieldTitles)
    except (PydanticUserError, TypeError, ValueError, NameError) as exc:
        raise ToolDefinitionError(
            f"cannot build a schema for the parameters of {func_name}: {exc}"
        ) from exc
    return ToolDefinition(
        name=func_name,
        description=summary,
        parameters=_parameters(schema, func_name),
        strict=False,
        adapter=TypeAdapter(model),
    )


def _has_description(annotation: Any, default: Any) -> bool:
    """Whether ``Annotated`` metadata or a ``Field`` default already gives a description."""
    if isinstance(default, FieldInfo) and default.description is not None:
        return True
    if typing.get_origin(annotation) is Annotated:
        return any(
            isinstance(meta, FieldInfo) and meta.description is not None
            for meta in annotation.__metadata__
        )
    return False


def parse_google_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts.

    The description is the text before the first section header (``Args:``,
    ``Returns:``, ...): lines of a paragraph are joined with spaces, paragraphs with a
    blank line. Argument texts come from ``Args:`` / ``Arguments:`` / ``Parameters:``
    sections, continuation lines joined with spaces; ``name (type): text`` and
    ``name: text`` are both understood.

    Cost: O(length of the docstring).
    """
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    paragraphs: list[list[str]] = [[]]
    args: dict[str, str] = {}
    i = 0
    while i < len(lines) and not _SECTION_RE.match(lines[i]):
        text = lines[i].strip()
        if text:
            paragraphs[-1].append(text)
        elif paragraphs[-1]:
            paragraphs.append([])
        i += 1
    while i < len(lines):
        header = _SECTION_RE.match(lines[i])
        if header is None:
            i += 1
            continue
        # cleandoc() dedents the lines after the first one on their own, so entries under
        # a header on the very first line may sit at its indentation.
        header_indent = _indent(lines[i]) if i > 0 else -1
        section = header.group(1)
        i += 1
        current: str | None = None
        entry_indent: int | None = None
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            indent = _indent(line)
            if indent <= header_indent:
                break  # the section ended
            if entry_indent is None:
                entry_indent = indent
            if indent <= entry_indent:
                match = _ARG_LINE_RE.match(line.strip())
                current = match.group(1) if match else None
                if section in _ARGS_SECTIONS and current is not None and match is not None:
                    args[current] = match.group(2).strip()
            elif current is not None and section in _ARGS_SECTIONS:
                args[current] = f"{args[current]} {line.strip()}".strip()
            i += 1
    description = "\n\n".join(" ".join(p) for p in paragraphs if p)
    return description or None, {k: v for k, v in args.items() if v}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# --- models, TypedDicts, dataclasses -----------------------------------------------------


def _from_type(cls: type) -> ToolDefinition:
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(cls)
        schema = adapter.json_schema(schema_generator=_NoFieldTitles)
    except (PydanticUserError, TypeError, ValueError, NameError) as exc:
        raise ToolDefinitionError(f"cannot build a schema for {cls.__qualname__}: {exc}") from exc
    schema = _resolve_root_ref(schema)
    if schema.get("type") != "object":
        raise ToolDefinitionError(
            f"{cls.__qualname__} does not describe a JSON object (a tool's arguments must be one)"
        )
    title = schema.get("title")
    name = title if isinstance(title, str) else cls.__name__
    description = schema.get("description")
    return ToolDefinition(
        name=name,
        description=description if isinstance(description, str) else None,
        parameters=_parameters(schema, name),
        strict=False,
        adapter=adapter,
    )


def _resolve_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """A recursive model's schema is ``{"$ref": ..., "$defs": ...}``: inline the root."""
    ref, defs = schema.get("$ref"), schema.get("$defs")
    if isinstance(ref, str) and isinstance(defs, dict):
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            return {**target, "$defs": defs}
    return schema


def _parameters(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The arguments schema: the root's title and description belong to the tool."""
    parameters = {k: v for k, v in schema.items() if k not in ("title", "description")}
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    return parameters


# --- dicts -------------------------------------------------------------------------------


def _from_dict(tool: Mapping[str, Any], *, name: str | None) -> ToolDefinition:
    given_name = name
    strict = False
    if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
        function = tool["function"]  # OpenAI Chat Completions tool
        name, description = function.get("name"), function.get("description")
        parameters = function.get("parameters")
        strict = function.get("strict") is True
    elif "input_schema" in tool:  # Anthropic tool
        name, description = tool.get("name"), tool.get("description")
        parameters = tool.get("input_schema")
        strict = tool.get("strict") is True
    elif "name" in tool and "properties" not in tool:  # OpenAI function / Responses tool
        if tool.get("type", "function") != "function":
            raise ToolDefinitionError(
                f"cannot describe a {tool.get('type')!r} tool: only function tools have "
                "an arguments schema"
            )
        name, description = tool.get("name"), tool.get("description")
        parameters = tool.get("parameters")
        strict = tool.get("strict") is True
    else:  # a bare JSON schema of the arguments object
        name, description = tool.get("title", given_name), tool.get("description")
        parameters = {k: v for k, v in tool.items() if k not in ("title", "description")}
        if not isinstance(name, str):
            raise ToolDefinitionError(
                "cannot name a tool after a JSON schema without a 'title': add one or pass name="
            )
    if not isinstance(name, str):
        raise ToolDefinitionError(f"a tool dict needs a string 'name', got {name!r}")
    if description is not None and not isinstance(description, str):
        raise ToolDefinitionError(f"the description of tool {name!r} is not a string")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, Mapping):
        raise ToolDefinitionError(f"the parameters schema of tool {name!r} is not a dict")
    if parameters.get("type", "object") != "object":
        raise ToolDefinitionError(
            f"the parameters schema of tool {name!r} has type {parameters.get('type')!r}; "
            "a tool's arguments must be a JSON object"
        )
    return ToolDefinition(
        name=name,
        description=description,
        parameters=copy.deepcopy(dict(parameters)),
        strict=strict,
        adapter=None,
    )


# --- shared ------------------------------------------------------------------------------


def _check_name(name: str, obj: Any) -> str:
    if not _NAME_RE.match(name):
        raise ToolDefinitionError(
            f"tool name {name!r} (from {obj!r:.60}) is not accepted by providers: use 1-64 "
            "letters, digits, '_' or '-' (pass name= to choose one)"
        )
    return name


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in the shape OpenAI's and Anthropic's strict modes expect.

    Every object with properties is closed (``additionalProperties: false``) and lists
    every property as required (optional values stay nullable through their own type);
    ``"default": null`` is dropped (strict mode always sends a value); a ``$ref`` with
    sibling keywords (pydantic writes ``{"$ref": ..., "default": ...}``), which strict mode
    rejects, is replaced by the referenced definition merged with the siblings (a
    definition referring to itself keeps its plain ``$ref``). Only schema positions are
    visited (``properties``, ``$defs``, ``items``, ``anyOf``, ...), never data such as
    ``default`` or ``enum``. Cost: O(size of the schema after inlining), iterative.
    """
    result = copy.deepcopy(schema)
    defs = result.get("$defs")
    definitions: dict[str, Any] = defs if isinstance(defs, dict) else {}
    stack: list[tuple[Any, frozenset[str]]] = [(result, frozenset())]
    while stack:
        node, inlined = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and len(node) > 1:
            target_name = ref.removeprefix("#/$defs/")
            target = definitions.get(target_name)
            if target_name in inlined or not isinstance(target, dict):
                for key in [k for k in node if k != "$ref"]:
                    del node[key]
            else:
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                node.clear()
                node.update(copy.deepcopy(target))
                node.update(siblings)
                inlined = inlined | {target_name}
        if "default" in node and node["default"] is None:
            del node["default"]
        properties = node.get("properties")
        if isinstance(properties, dict):
            node["required"] = list(properties)
            if node.get("additionalProperties", True) is True:
                node["additionalProperties"] = False
        for key in _SCHEMA_MAP_KEYWORDS:
            children = node.get(key)
            if isinstance(children, dict):
                stack.extend((child, inlined) for child in children.values())
        for key in _SCHEMA_KEYWORDS:
            child = node.get(key)
            if isinstance(child, list):
                stack.extend((item, inlined) for item in child)
            else:
                stack.append((child, inlined))
    return result


_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_KEYWORDS = (
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "contains",
)
