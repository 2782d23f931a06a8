"""PydanticToolsParser: tool calls validated into pydantic models, with partial previews."""

# Theory of operation
# -------------------
# Each announced call whose name is in the registry gets that tool's TypeAdapter. Its
# arguments are rebuilt from the assembler's changes keeping complete values only (see
# parsers/_tree.py), so a preview never holds a number that is still arriving, a string
# cut short, or anything else that will change.
#
# Validation is O(size of the arguments), so it never runs per fragment. After an input
# item in which a value of the call closed, the complete values so far are serialized
# (json.dumps, C speed) — leaving out an array's last item while it is an open object or
# array, so a list of models holds complete items only (pydantic's partial mode cannot
# drop an incomplete item inside a BaseModel) — and validated in JSON mode with
# experimental_allow_partial: a
# success that differs from the last preview becomes the new preview; a failure means
# "not valid yet" (a required field that has not arrived, a list's last item that is
# still incomplete) and the last good preview stays. With min_preview_growth=g > 0 a new
# preview validation also waits until the argument text has grown by the fraction g
# since the last one, which bounds the total preview work by about (1 + 1/g) times the
# final size (linear), whatever the number of values. Whatever g (even 0), a preview is
# validated only while the text validated so far for previews, plus the current text,
# stays within PREVIEW_WORK_FACTOR times the current text: the total preview work of a
# call is at most PREVIEW_WORK_FACTOR times its final size (linear), enforced.
#
# pydantic's JSON reader refuses nesting deeper than about 200 levels, and json.dumps
# recurses per level: arguments deeper than MAX_VALIDATION_DEPTH are never serialized
# for pydantic; a final call that deep is invalid with an error that says its depth
# (never a RecursionError), a preview that deep is skipped.
#
# At the call's end the final arguments are validated once, strictly (no partial), in
# JSON mode: JSON mode is what the data is, so a model with strict=True still accepts an
# ISO date string. Validation errors and unknown tool names become invalid results with
# the pydantic error text, never exceptions.
#
# A custom tool call's text input (arguments {"__arg1": text}) is validated as the tool
# runner runs it: the text under the tool's one string parameter, by the one rule of
# callstream.providers._custom_input (read from the adapter's JSON schema, once per
# tool); a tool that cannot take a text makes the call invalid with that rule's reason.

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from pydantic import TypeAdapter, ValidationError

from callstream._assembly.types import ToolCall
from callstream._errors import JSONLimitError, UsageError
from callstream._json.dump import dumps_bounded, nesting_depth
from callstream.parsers._parsed_call import dumps_or_none
from callstream.parsers._tools_parser import CallState, ToolsParser
from callstream.providers._custom_input import (
    TextParameter,
    as_text_input,
    text_input,
    text_parameter,
)
from callstream.tools import ToolDefinitionError, tool_adapter, tool_name

__all__ = ("MAX_VALIDATION_DEPTH", "PREVIEW_WORK_FACTOR", "PydanticToolsParser")

PREVIEW_WORK_FACTOR: Final = 20
"""The preview validations of one call together validate at most this many times its
argument text (whatever ``min_preview_growth``): preview work stays linear in its size."""

MAX_VALIDATION_DEPTH: Final = 200
"""Arguments nested deeper than this (the arguments object counts as 1) are not given to
pydantic, whose JSON reader refuses them: such a call is invalid, its error says its depth."""


class PydanticToolsParser(ToolsParser[Any]):
    """Tool calls validated into pydantic models (or any ``TypeAdapter``-able type).

    ``ParsedCall.value`` is the validated object: while streaming, a partial preview
    when pydantic can express one (``experimental_allow_partial``: a ``TypedDict`` or a
    list drops an incomplete last item; a ``BaseModel`` needs its required fields), else
    the last good preview or None; once valid, the strictly validated object.

    Args:
        tools: the registry. A sequence of models, ``TypedDict`` s, dataclasses or
            functions, each keyed by its tool name (:func:`callstream.tools.tool_name`:
            the class or function name, or a model's ``title``); or a mapping from tool
            name to any of these or to a ``TypeAdapter``. A function validates into a
            model built from its signature.
        first_tool_only: show only the first call (among those ``key_name`` selects).
        key_name: show only calls of this tool name.
        previews: validate partial previews while streaming (False: values only at the
            end, and no validation before it).
        min_preview_growth: validate a new preview only once the call's argument text
            grew by this fraction since the last preview validation (0: after every
            input item in which a value closed, as long as the work bound below allows).
            With the default, a call of 1 KB is previewed again after 50 more characters
            (small calls at nearly every value that closes). Whatever this option, all
            preview validations of a call together validate at most
            :data:`PREVIEW_WORK_FACTOR` (20) times its final argument text: linear in
            its size (with 0, previews come at every value closing until that bound is
            reached, then at the pace it allows).

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
        call.adapter = self.adapters.get(call.name) if call.name is not None else None

    def _refresh(self, call: CallState) -> bool:
        if not self._preview_due(call):
            return False
        value = self._preview(call)
        if value is _NO_PREVIEW or (call.value is not None and _same(call.value, value)):
            return False
        call.value = value
        return True

    def _preview_due(self, call: CallState) -> bool:
        """Whether to validate a new preview of ``call`` now: a value closed, the text
        grew by ``min_preview_growth`` and the work bound allows it (then the work is
        counted and ``dirty`` cleared; otherwise ``dirty`` stays, to wait for text)."""
        if not (call.dirty and self.previews and call.adapter is not None):
            return False
        chars = call.chars
        if chars < call.checked_chars * (1 + self.min_preview_growth):
            return False  # wait for more text
        if call.work + chars > PREVIEW_WORK_FACTOR * chars:
            return False  # over the work bound: wait for more text
        call.dirty = False
        call.checked_chars = chars
        call.work += chars
        return True

    def _preview(self, call: CallState) -> Any:
        """The complete values so far, validated partially; :data:`_NO_PREVIEW` when they
        are not an object, too deep to write, or not valid yet."""
        preview = call.tree.snapshot(open_items=False)
        if not isinstance(preview, dict):
            return _NO_PREVIEW
        if text_input(preview) is not None:
            where = self._text_parameter(call.name or "", call.adapter)
            if where.refusal is not None:
                return _NO_PREVIEW
            preview = as_text_input(preview, where)
        try:
            text = dumps_bounded(preview, max_depth=MAX_VALIDATION_DEPTH)
        except (JSONLimitError, ValueError, TypeError):
            return _NO_PREVIEW  # too deep for a preview (the final verdict will say so)
        try:
            return self._validate(call.adapter, text, partial=True)
        except Exception:  # not valid yet (or a validator that raised): keep the last preview
            return _NO_PREVIEW

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
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


_NO_PREVIEW: Any = object()  # "no new preview" (None may be a validated value)


def _validate(adapter: TypeAdapter[Any], text: str, *, partial: bool) -> Any:
    """Validate JSON ``text`` with ``adapter`` (partial: an incomplete tail is allowed)."""
    return adapter.validate_json(text, experimental_allow_partial=partial)


def _same(old: Any, new: Any) -> bool:
    try:
        return bool(old == new) and type(old) is type(new)
    except Exception:  # an __eq__ that cannot compare: treat as changed
        return False
