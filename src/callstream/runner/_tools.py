"""The tools a runner knows: what each one is called, how its arguments are checked, how
it is called. No anyio here: :mod:`callstream.runner._turn` runs what this prepares.

Three kinds of tool, each checked before anything runs:

- a function (sync or ``async def``, or any callable object): its parameters are
  described by :func:`callstream.tools.describe_tool` (type hints, defaults, Google
  docstring) and the arguments are validated by that pydantic model, then passed as
  keywords (positional-only parameters by position);
- a pydantic model class (or a ``TypedDict`` / dataclass): the arguments are validated
  into an instance, which is the output (a structured-output "tool" that returns what
  the model filled in);
- a LangChain ``BaseTool`` (extra ``callstream[langchain]``): the tool validates its own
  input; it is called with the arguments dict (``ainvoke`` when it has a coroutine,
  else ``invoke`` in a worker thread). LangChain's async API needs asyncio: under trio
  an async LangChain tool runs in a worker thread on an asyncio loop of its own.

A custom tool call's text input (arguments ``{"__arg1": text}``) goes to the tool's one
string parameter, by the rule of :mod:`callstream.providers._custom_input` (the output
parsers apply the same one); a tool that cannot take a text gives an error result.

:class:`Tool` wraps any of them to set its name, opt it out of eager runs (a tool with
side effects) or give it its own timeout.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from callstream._errors import OptionTypeError, OptionValueError, ToolDefinitionError, UsageError
from callstream.providers._custom_input import (
    TextParameter,
    as_text_input,
    text_input,
    text_parameter,
)
from callstream.tools import describe_tool

__all__ = ("BoundTool", "Prepared", "Tool", "bind_tools", "check_timeout", "describe_errors")


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool for :class:`~callstream.ToolRunner` with its own settings.

    Attributes:
        tool: a function (sync or async), a pydantic model class, or a LangChain
            ``BaseTool``.
        name: the name the model calls it by (default: the function's name, the model's
            schema title, the LangChain tool's ``name``).
        eager: False: never run before the stream has ended and its calls stand (a tool
            with side effects, which a voided stream must not have started). None: the
            runner's ``eager`` decides.
        timeout: seconds this tool may run (None: the runner's ``timeout``).
    """

    tool: Any
    name: str | None = None
    eager: bool | None = None
    timeout: float | None = None


def check_timeout(timeout: object, what: str) -> float | None:
    """``timeout`` as a float of seconds (> 0), or None; raises on anything else."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise OptionTypeError(f"{what} must be a number of seconds or None, got {timeout!r:.60}")
    if not timeout > 0:
        raise OptionValueError(f"{what} must be > 0, got {timeout!r}")
    return float(timeout)


def describe_errors(exc: ValidationError, limit: int = 8) -> str:
    """A pydantic validation error in one line: ``where: what`` per error, at most
    ``limit`` (then how many more)."""
    parts = []
    errors = exc.errors(include_url=False)
    for error in errors[:limit]:
        where = ".".join(str(part) for part in error.get("loc", ())) or "(arguments)"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    if len(errors) > limit:
        parts.append(f"and {len(errors) - limit} more")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A call ready to run: ``run`` is the callable, ``args`` / ``kwargs`` its arguments;
    ``is_async``: calling it returns an awaitable (else it runs in a worker thread);
    ``direct``: ``run`` needs no thread (it only returns a validated value);
    ``asyncio_only``: the awaitable needs an asyncio loop (LangChain's async tools): off
    asyncio it runs in a worker thread with an asyncio loop of its own."""

    run: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] | None = None
    is_async: bool = False
    direct: bool = False
    asyncio_only: bool = False


def _is_async(func: Any) -> bool:
    if inspect.iscoroutinefunction(func):
        return True
    call = getattr(func, "__call__", None)  # noqa: B004  (a callable object's method)
    return call is not None and inspect.iscoroutinefunction(call)


def _is_langchain_tool(obj: Any) -> bool:
    base = _langchain_base()
    return base is not None and isinstance(obj, base)


def _langchain_base() -> type | None:
    import sys

    module = sys.modules.get("langchain_core.tools")
    if module is None:  # never imported: it cannot be one (importing it costs ~0.5 s)
        return None
    base: type | None = getattr(module, "BaseTool", None)
    return base


def _identity(value: Any) -> Any:
    return value


class BoundTool:
    """One tool, resolved: its name, settings and how to prepare a call (internal)."""

    __slots__ = (
        "_adapter",
        "_func",
        "_kind",
        "_positional",
        "_schema",
        "_text",
        "eager",
        "name",
        "timeout",
    )

    def __init__(self, spec: Any) -> None:
        settings = spec if isinstance(spec, Tool) else Tool(spec)
        obj = settings.tool
        if settings.eager is not None and not isinstance(settings.eager, bool):
            raise OptionTypeError(f"Tool eager must be a bool or None, got {settings.eager!r:.60}")
        self.eager: bool | None = settings.eager
        self.timeout = check_timeout(settings.timeout, "Tool timeout")
        self._func: Any = obj
        self._adapter: Any = None
        self._positional: tuple[str, ...] = ()
        self._schema: dict[str, Any] | None = None  # the arguments' JSON schema
        self._text: TextParameter | None = None  # where a text input goes (once asked)
        if _is_langchain_tool(obj):
            self._kind = "langchain"
            name = settings.name if settings.name is not None else obj.name
        elif isinstance(obj, type):  # a pydantic model, TypedDict or dataclass
            self._kind = "model"
            definition = describe_tool(obj, name=settings.name)
            self._adapter = definition.adapter
            self._schema = definition.parameters
            name = definition.name
        elif callable(obj) and not isinstance(obj, type):
            self._kind = "async" if _is_async(obj) else "function"
            definition = describe_tool(obj, name=settings.name)
            self._adapter = definition.adapter
            self._schema = definition.parameters
            name = definition.name
            self._positional = _positional_only(obj)
        else:
            raise ToolDefinitionError(
                f"cannot run {obj!r:.80} as a tool: give a function, a pydantic model class "
                "or a LangChain BaseTool"
            )
        if not isinstance(name, str) or not name:
            raise ToolDefinitionError(f"tool {obj!r:.80} has no usable name; pass Tool(name=...)")
        self.name: str = name

    def prepare(self, args: dict[str, Any]) -> Prepared | str:
        """Check ``args`` for this tool: the call to make, or why it cannot be made (the
        text the model gets back). A text input (a custom tool call's ``{"__arg1":
        text}``) goes to the tool's text parameter first (see the module docstring).
        Never raises for bad arguments."""
        if text_input(args) is not None:
            where = self.text_parameter()
            if where.refusal is not None:
                return f"Error: {where.refusal}"
            args = as_text_input(args, where)
        if self._kind == "langchain":
            tool = self._func
            if getattr(tool, "coroutine", None) is not None:
                return Prepared(tool.ainvoke, (args,), is_async=True, asyncio_only=True)
            return Prepared(tool.invoke, (args,))
        try:
            value = self._adapter.validate_python(args)
        except ValidationError as exc:
            return f"Error: invalid arguments for {self.name}: {describe_errors(exc)}"
        if self._kind == "model":
            return Prepared(_identity, (value,), direct=True)
        fields = {key: getattr(value, key) for key in type(value).model_fields}
        positional = tuple(fields.pop(key) for key in self._positional if key in fields)
        return Prepared(self._func, positional, fields, is_async=self._kind == "async")

    def text_parameter(self) -> TextParameter:
        """Where this tool takes a text input (read from its arguments schema once: the
        function's or model's, or LangChain's own description of a LangChain tool)."""
        where = self._text
        if where is None:
            schema = self._schema
            if schema is None and self._kind == "langchain":
                schema = _langchain_schema(self._func)
            where = self._text = text_parameter(schema, self.name)
        return where


def _langchain_schema(tool: Any) -> dict[str, Any] | None:
    """The JSON schema of a LangChain tool's arguments as LangChain describes it to a
    model (``convert_to_openai_tool``: a one-text ``Tool`` as ``{"__arg1": string}``),
    None when LangChain cannot describe it."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    try:
        parameters = convert_to_openai_tool(tool)["function"]["parameters"]
    except Exception:  # a tool LangChain itself cannot describe: no text parameter
        return None
    return parameters if isinstance(parameters, dict) else None


def _positional_only(func: Any) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in parameters if p.kind is inspect.Parameter.POSITIONAL_ONLY)


def bind_tools(tools: Iterable[Any] | Mapping[str, Any]) -> dict[str, BoundTool]:
    """Resolve the runner's tools into a name -> tool table.

    ``tools`` is an iterable of tools (functions, models, LangChain tools, :class:`Tool`)
    or a mapping of name -> tool (the name wins over the tool's own).

    Raises:
        UsageError: ``tools`` is not a collection of tools, or two tools share a name.
        ToolDefinitionError: a tool cannot be described or run (the message says why).
    """
    if isinstance(tools, Mapping):
        items: list[Any] = []
        for name, spec in tools.items():
            if not isinstance(name, str):
                raise UsageError(f"tool names must be str, got {name!r:.60}")
            inner = spec if isinstance(spec, Tool) else Tool(spec)
            items.append(Tool(inner.tool, name=name, eager=inner.eager, timeout=inner.timeout))
    elif isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable):
        raise UsageError(f"tools must be a list (or a name -> tool mapping), got {tools!r:.60}")
    else:
        items = list(tools)
    table: dict[str, BoundTool] = {}
    for spec in items:
        bound = BoundTool(spec)
        if bound.name in table:
            raise UsageError(f"two tools are named {bound.name!r}; give one Tool(name=...)")
        table[bound.name] = bound
    return table
