"""JsonToolsParser: tool calls as JSON arguments, on finished results and while streaming."""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import ToolCall
from callstream.parsers._base import CallState, ToolsParser

__all__ = ("JsonToolsParser",)


class JsonToolsParser(ToolsParser[dict[str, Any]]):
    """Tool calls with their arguments as JSON objects (``ParsedCall.value`` is ``args``).

    In the spirit of LangChain's ``JsonOutputToolsParser`` / ``JsonOutputKeyToolsParser``,
    but honest while streaming and explicit about failures:

    - while streaming, a call's arguments show only complete values (a number, ``true``,
      a string appears once it is complete; objects and arrays as they open), so nothing
      shown is ever taken back; a new result is produced when a call starts, when a value
      in a shown call closes, and when a call becomes final — not on every fragment;
    - a truncated or malformed call becomes an invalid result with the assembler's
      reason (``status="invalid"``, ``error``), never a silent ``{}`` or an exception;
    - ids are carried when the provider gives them and are None otherwise (calls are
      identified by ``index``).

    Args:
        first_tool_only: show only the first call (among those ``key_name`` selects);
            results are then lists of at most one call.
        key_name: show only calls of this tool name.

    Cost: a fragment costs O(its size) in the assembler plus O(changes); a result costs
    O(calls shown) plus one shallow copy of each open object or array of a changed call.

    Example::

        parser = JsonToolsParser(key_name="get_weather")
        for calls in parser.stream(callstream.stream(response)):
            render(calls)  # the last list is final
    """

    def _refresh(self, call: CallState) -> bool:
        changed = call.dirty
        call.dirty = False
        call.checked_chars = call.chars
        return changed

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
        call.status = "valid"
        call.value = tool_call["args"]

    def _partial_value(self, call: CallState, args: dict[str, Any]) -> Any:
        return args
