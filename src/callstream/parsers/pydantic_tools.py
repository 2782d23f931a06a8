"""PydanticToolsParser: tool calls validated into pydantic models, with partial previews."""

# Theory of operation
# -------------------
# Each announced call whose name is in the registry gets that tool's TypeAdapter and, with
# previews, a PartialBuilder for the adapter's shape (callstream.partial: the machinery of
# structured output, so a tool's arguments and a structured output preview alike; the
# rules are stated once, in callstream/partial/_builder.py). The session feeds it every
# fragment's changes after the call's ClosedValueTree, whose containers it reads; it keeps
# the partial object live: strings grow, scalars appear complete and valid, a closed value
# is validated with its real type as it closes (within the builder's own work bound).
#
# Results never change once handed out, so a result's value is a copy of the live
# partial object (PartialBuilder.snapshot: the open containers copied, closed values
# shared), taken only when a preview is due: the object changed (a value closed, or the
# open string grew by STRING_GROWTH), the argument text grew by min_preview_growth since
# the last copy, and the copies so far hold at most PREVIEW_WORK_FACTOR entries per
# argument character. So the copying of a call costs at most PREVIEW_WORK_FACTOR times its
# final text plus one copy: linear, whatever the number of values.
#
# At the call's end the final arguments are validated once, strictly, in JSON mode: JSON
# mode is what the data is, so a model with strict=True still accepts an ISO date string.
# pydantic's JSON reader refuses nesting deeper than about 200 levels: arguments deeper
# than MAX_VALIDATION_DEPTH (the arguments object counts as 1; the one limit of
# callstream.partial, re-exported here) are never written for pydantic; such a call is
# invalid with an error that says its depth (never a RecursionError). Validation errors
# and unknown tool names become invalid results with the pydantic error text, never
# exceptions.
#
# A custom tool call's text input (arguments {"__arg1": text}) is validated as the tool
# runner runs it: the text under the tool's one string parameter, by the one rule of
# callstream.providers._custom_input (read from the adapter's JSON schema, once per
# tool); a tool that cannot take a text makes the call invalid with that rule's reason.
# Its previews show the tool's partial object with nothing set (``__arg1`` is no field).

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from pydantic import TypeAdapter, ValidationError

from callstream._assembly.types import ToolCall
from callstream._errors import JSONLimitError, UsageError
from callstream._json.dump import dumps_bounded, nesting_depth
from callstream.parsers._parsed_call import dumps_or_none
from callstream.parsers._tools_parser import CallState, ToolsParser
from callstream.partial._builder import PartialBuilder
from callstream.partial._shapes import MAX_VALIDATION_DEPTH, adapter_shape
from callstream.providers._custom_input import (
    TextParameter,
    as_text_input,
    text_input,
    text_parameter,
)
from callstream.tools import ToolDefinitionError, tool_adapter, tool_name

__all__ = ("MAX_VALIDATION_DEPTH", "PREVIEW_WORK_FACTOR", "PydanticToolsParser")

PREVIEW_WORK_FACTOR: Final = 20
"""A preview of a call is copied only while its copies so far hold at most this many
entries (list items, dict keys, model fields) per character of its argument text
(whatever ``min_preview_growth``): the copying stays linear in its size."""

class PydanticToolsParser(ToolsParser[Any]):
    """Tool calls validated into pydantic models (or any ``TypeAdapter``-able type).

    ``ParsedCall.value`` is the tool's object: while streaming, its partial object, built
    by the machinery of structured output, so a tool's arguments and a structured output
    preview alike (one implementation; the rules are stated in
    ``callstream/partial/_builder.py`` and summed up under "What the partial object
    shows" in the structured-output guide); None before the arguments began; once
    valid, the strictly validated object. Each result holds its own copy: later input
    never changes a value handed out (complete sub-values, such as validated models, are
    shared between results: treat them as read-only). Inside an ``Any``-typed
    container, a string shows once complete, as in ``args``.

    Args:
        tools: the registry. A sequence of models, ``TypedDict`` s, dataclasses or
            functions, each keyed by its tool name (:func:`callstream.tools.tool_name`:
            the class or function name, or a model's ``title``); or a mapping from tool
            name to any of these or to a ``TypeAdapter``. A function validates into a
            model built from its signature.
        first_tool_only: show only the first call (among those ``key_name`` selects).
        key_name: show only calls of this tool name.
        previews: build partial objects while streaming (False: values only at the
            end, and no validation before it).
        min_preview_growth: hand out a new preview only once the call's argument text
            grew by this fraction since the last one (0: after every input item that
            changed the partial object, as long as the work bound below allows). With
            the default, a call of 1 KB is previewed again after 50 more characters
            (small calls at nearly every change). Whatever this option, the previews of
            a call together copy at most :data:`PREVIEW_WORK_FACTOR` (20) entries per
            character of its final argument text, plus one copy: linear in its size
            (with 0, previews come at every change until that bound is reached, then at
            the pace it allows).

    A custom tool call's text input (arguments ``{"__arg1": text}``, LangChain's
    convention) validates into the tool's one string parameter, as
    :class:`~callstream.ToolRunner` runs it (:mod:`callstream.providers._custom_input`);
    ``args`` stay the call's own.

    Results: unknown tool names and validation failures are invalid results whose
    ``error`` is the pydantic error text (or names the known tools); arguments nested
    deeper than :data:`MAX_VALIDATION_DEPTH` are invalid with an error giving their
    depth; nothing is raised while streaming. Server-side tools (run by the provider)
    are not validated and are never "unknown tools": see ``ParseSession.server_calls``.

    Raises:
        UsageError: a registry entry that cannot be keyed or validated, or two entries
            with the same name.

    Example::

        parser = PydanticToolsParser([GetWeather, SearchWeb])
        for calls in parser.stream(callstream.stream(response)):
            print([call.value for call in calls])  # previews, then validated models
    """

    def __init__(
        self,
        tools: Iterable[Any] | Mapping[str, Any],
        *,
        first_tool_only: bool = False,
        key_name: str | None = None,
        previews: bool = True,
        min_preview_growth: float = 0.05,
    ) -> None:
        super().__init__(first_tool_only=first_tool_only, key_name=key_name)
        if min_preview_growth < 0:
            raise UsageError(f"min_preview_growth must be >= 0, got {min_preview_growth!r}")
        self.previews = previews
        self.min_preview_growth = min_preview_growth
        self.adapters: dict[str, TypeAdapter[Any]] = {}
        self._text: dict[str, TextParameter] = {}  # where each tool takes a text input
        if isinstance(tools, type) or callable(tools) or isinstance(tools, TypeAdapter):
            raise UsageError("tools must be a list of tools or a mapping of names to tools")
        if isinstance(tools, Mapping):
            entries: list[tuple[str | None, Any]] = list(tools.items())
        else:
            entries = [(None, tool) for tool in tools]
        for key, tool in entries:
            try:
                name = key if key is not None else tool_name(tool)
                adapter = tool_adapter(tool)
            except ToolDefinitionError as exc:
                raise UsageError(f"cannot register {tool!r:.60} as a tool: {exc}") from exc
            if name in self.adapters:
                raise UsageError(f"two tools are named {name!r}; key them with a mapping")
            self.adapters[name] = adapter
        # hook for tests and instrumentation: the function every validation goes through
        self._validate: Callable[..., Any] = _validate

    def _start(self, call: CallState) -> None:
        adapter = self.adapters.get(call.name) if call.name is not None else None
        call.adapter = adapter
        if adapter is not None and self.previews and self._selects(call):
            call.builder = PartialBuilder(adapter_shape(adapter))

    def _refresh(self, call: CallState) -> bool:
        builder = call.builder
        if builder is None:
            return False
        if builder.refresh():
            call.dirty = True
        if not self._preview_due(call):
            return False
        call.value, copied = builder.snapshot()
        call.work += copied
        return True

    def _preview_due(self, call: CallState) -> bool:
        """Whether to copy a new preview of ``call`` now: its partial object changed, the
        text grew by ``min_preview_growth`` and the work bound allows it (then ``dirty``
        is cleared; otherwise it stays, to wait for text)."""
        if not call.dirty:
            return False
        chars = call.chars
        if chars < call.checked_chars * (1 + self.min_preview_growth):
            return False  # wait for more text
        if call.work > PREVIEW_WORK_FACTOR * chars:
            return False  # over the work bound: wait for more text
        call.dirty = False
        call.checked_chars = chars
        return True

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
        call.builder = None
        adapter = call.adapter
        if adapter is None:
            adapter = call.adapter = self.adapters.get(tool_call["name"])
        if adapter is None:
            known = ", ".join(repr(name) for name in self.adapters) or "none"
            self._fail(call, f"unknown tool {tool_call['name']!r} (known tools: {known})")
            return
        args = tool_call["args"]
        if text_input(args) is not None:
            where = self._text_parameter(tool_call["name"], adapter)
            if where.refusal is not None:
                self._fail(call, where.refusal)
                return
            args = as_text_input(args, where)
        try:
            text = dumps_bounded(args, max_depth=MAX_VALIDATION_DEPTH)
        except JSONLimitError:
            depth = nesting_depth(args, 1 << 30)
            self._fail(
                call,
                f"arguments nest {depth} levels deep, more than the {MAX_VALIDATION_DEPTH} "
                "levels pydantic validation accepts (limit: MAX_VALIDATION_DEPTH)",
            )
            return
        except (ValueError, TypeError) as exc:  # not JSON (a value json cannot write)
            self._fail(call, f"arguments cannot be written as JSON: {exc}")
            return
        try:
            value = self._validate(adapter, text, partial=False)
        except ValidationError as exc:
            self._fail(call, str(exc))
            return
        except Exception as exc:  # a validator that raised something else
            self._fail(call, f"{type(exc).__name__}: {exc}")
            return
        call.status = "valid"
        call.value = value

    def _text_parameter(self, name: str, adapter: TypeAdapter[Any]) -> TextParameter:
        """Where tool ``name`` takes a text input (from its adapter's schema, once)."""
        where = self._text.get(name)
        if where is None:
            try:
                schema: Any = adapter.json_schema()
            except Exception:  # no JSON schema (a type pydantic cannot describe)
                schema = None
            where = self._text[name] = text_parameter(schema, name)
        return where

    def _fail(self, call: CallState, error: str) -> None:
        call.status = "invalid"
        call.error = error
        call.value = None
        call.raw_args = dumps_or_none(call.args)

    def _partial_value(self, call: CallState, args: dict[str, Any]) -> Any:
        return call.value


def _validate(adapter: TypeAdapter[Any], text: str, *, partial: bool) -> Any:
    """Validate JSON ``text`` with ``adapter`` (the final verdict: ``partial`` False; a
    hook for tests and instrumentation)."""
    return adapter.validate_json(text, experimental_allow_partial=partial)
