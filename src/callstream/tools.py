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

Modules: this one reads the three sources; :mod:`callstream._tool_docstrings` parses
Google-style docstrings (:func:`parse_google_docstring`, importable from here) and
:mod:`callstream._tool_schema` tidies pydantic's schemas and builds the strict-mode shape.
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
from typing_extensions import is_typeddict

from callstream._errors import OptionTypeError, ToolDefinitionError
from callstream._tool_docstrings import parse_google_docstring
from callstream._tool_schema import (
    NoFieldTitles,
    arguments_schema,
    resolve_root_ref,
    strict_schema,
)

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
        OptionTypeError: an option of the wrong type (``name=5``, ``strict="yes"``).

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
        OptionTypeError: an option of the wrong type.
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
        OptionTypeError: ``strict`` is not a ``bool``.
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
        OptionTypeError: ``name`` or ``description`` is not a ``str`` (nor None), or
            ``strict`` is not a ``bool`` (nor None).
    """
    _check_options(name, description, strict)
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
    parameters = strict_schema(definition.parameters) if final_strict else definition.parameters
    return ToolDefinition(
        name=_check_name(name if name is not None else definition.name, obj),
        description=description if description is not None else definition.description,
        parameters=parameters,
        strict=final_strict,
        adapter=definition.adapter,
    )


def _check_options(name: object, description: object, strict: object) -> None:
    for option, value in (("name", name), ("description", description)):
        if value is not None and not isinstance(value, str):
            raise OptionTypeError(f"{option} must be a str or None, got {value!r:.60}")
    if strict is not None and not isinstance(strict, bool):
        raise OptionTypeError(f"strict must be a bool or None, got {strict!r:.60}")


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
    for position, param in enumerate(signature.parameters.values()):
        if (
            position == 0
            and param.name in ("self", "cls")
            and param.annotation is inspect.Parameter.empty
        ):
            continue  # an unbound method's receiver is not an argument
        _check_parameter(param, func_name)
        annotation: Any = hints.get(param.name, inspect.Parameter.empty)
        if annotation is inspect.Parameter.empty:
            if strict:
                raise ToolDefinitionError(
                    f"parameter {param.name!r} of {func_name} has no type hint "
                    "(strict=True requires one on every parameter)"
                )
            annotation = Any
        default: Any = ... if param.default is inspect.Parameter.empty else param.default
        doc = arg_docs.get(param.name)
        if doc is not None and not _has_description(annotation, default):
            annotation = Annotated[annotation, Field(description=doc)]
        fields[param.name] = (annotation, default)
    try:
        model: type[BaseModel] = create_model(func_name, **fields)
        model.__doc__ = summary
        schema = model.model_json_schema(schema_generator=NoFieldTitles)
    except (PydanticUserError, TypeError, ValueError, NameError) as exc:
        raise ToolDefinitionError(
            f"cannot build a schema for the parameters of {func_name}: {exc}"
        ) from exc
    return ToolDefinition(
        name=func_name,
        description=summary,
        parameters=arguments_schema(schema),
        strict=False,
        adapter=TypeAdapter(model),
    )


def _check_parameter(param: inspect.Parameter, func_name: str) -> None:
    """Refuse a parameter a tool cannot take: ``*args``, ``**kwargs``, a private name."""
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
    if param.name.startswith("_"):
        raise ToolDefinitionError(
            f"cannot describe parameter {param.name!r} of {func_name}: pydantic treats "
            "names starting with '_' as private; rename it"
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


# --- models, TypedDicts, dataclasses -----------------------------------------------------


def _from_type(cls: type) -> ToolDefinition:
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(cls)
        schema = adapter.json_schema(schema_generator=NoFieldTitles)
    except (PydanticUserError, TypeError, ValueError, NameError) as exc:
        raise ToolDefinitionError(f"cannot build a schema for {cls.__qualname__}: {exc}") from exc
    schema = resolve_root_ref(schema)
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
        parameters=arguments_schema(schema),
        strict=False,
        adapter=adapter,
    )


# --- dicts -------------------------------------------------------------------------------


def _from_dict(tool: Mapping[str, Any], *, name: str | None) -> ToolDefinition:
    definition_name, description, parameters, strict = _dict_fields(tool, name)
    if not isinstance(definition_name, str):
        raise ToolDefinitionError(f"a tool dict needs a string 'name', got {definition_name!r}")
    if description is not None and not isinstance(description, str):
        raise ToolDefinitionError(f"the description of tool {definition_name!r} is not a string")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, Mapping):
        raise ToolDefinitionError(
            f"the parameters schema of tool {definition_name!r} is not a dict"
        )
    if parameters.get("type", "object") != "object":
        raise ToolDefinitionError(
            f"the parameters schema of tool {definition_name!r} has type "
            f"{parameters.get('type')!r}; a tool's arguments must be a JSON object"
        )
    return ToolDefinition(
        name=definition_name,
        description=description,
        parameters=copy.deepcopy(dict(parameters)),
        strict=strict,
        adapter=None,
    )


def _dict_fields(tool: Mapping[str, Any], given_name: str | None) -> tuple[Any, Any, Any, bool]:
    """(name, description, parameters, strict) as the dict's shape places them, unchecked.

    Raises:
        ToolDefinitionError: a tool of another type than ``function``, or a bare schema
            without a ``title`` and no ``given_name``.
    """
    if tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
        function = tool["function"]  # OpenAI Chat Completions tool
        return (
            function.get("name"),
            function.get("description"),
            function.get("parameters"),
            function.get("strict") is True,
        )
    if "input_schema" in tool:  # Anthropic tool
        return (
            tool.get("name"),
            tool.get("description"),
            tool.get("input_schema"),
            tool.get("strict") is True,
        )
    if "name" in tool and "properties" not in tool:  # OpenAI function / Responses tool
        if tool.get("type", "function") != "function":
            raise ToolDefinitionError(
                f"cannot describe a {tool.get('type')!r} tool: only function tools have "
                "an arguments schema"
            )
        return (
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            tool.get("strict") is True,
        )
    # a bare JSON schema of the arguments object
    name = tool.get("title", given_name)
    if not isinstance(name, str):
        raise ToolDefinitionError(
            "cannot name a tool after a JSON schema without a 'title': add one or pass name="
        )
    parameters = {k: v for k, v in tool.items() if k not in ("title", "description")}
    return name, tool.get("description"), parameters, False


# --- shared ------------------------------------------------------------------------------


def _check_name(name: str, obj: Any) -> str:
    if not _NAME_RE.match(name):
        raise ToolDefinitionError(
            f"tool name {name!r} (from {obj!r:.60}) is not accepted by providers: use 1-64 "
            "letters, digits, '_' or '-' (pass name= to choose one)"
        )
    return name
