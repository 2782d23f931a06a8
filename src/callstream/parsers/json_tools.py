"""JsonToolsParser: tool calls as JSON arguments, on finished results and while streaming."""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.types import ToolCall
from callstream.parsers._tools_parser import CallState, ToolsParser

__all__ = ("SNAPSHOT_COPY_FACTOR", "JsonToolsParser")

SNAPSHOT_COPY_FACTOR: Final = 16
"""The partial results of one call together copy at most this many container entries
per value in its arguments (a result's ``args`` is a copy of the open objects and
arrays): linear in the size of the arguments, however long an open array grows."""


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
    O(calls changed) plus one pointer copy per call shown (the fresh list, at C speed),
    plus one shallow copy of each open object or array of a changed call. Those copies
    are bounded: a partial result of a call is made only while all its partial results
    together copied at most :data:`SNAPSHOT_COPY_FACTOR` (16) entries per value received
    (so an open array of n items costs O(n) in total, not O(n^2)); past that bound, a
    value closing in a very large open array waits for a later one (or the call's end)
    before it is shown. Likewise the fresh lists of a stream together copy at most
    :data:`~callstream.parsers._tools_parser.RESULT_COPY_FACTOR` entries per event read (so n
    calls cost O(n), not O(n^2)); past that (well over a thousand calls), a change is
    shown with a later one. The final result is always yielded.

    Example::

        parser = JsonToolsParser(key_name="get_weather")
        for calls in parser.stream(callstream.stream(response)):
            render(calls)  # the last list is final
    """

    def _refresh(self, call: CallState) -> bool:
        if not call.dirty:
            return False
        tree = call.tree
        cost = tree.open_entries()
        if call.work + cost > SNAPSHOT_COPY_FACTOR * tree.placed:
            return False  # over the copy bound: keep dirty, show it after more values
        call.work += cost
        call.dirty = False
        call.checked_chars = call.chars
        return True

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
        call.status = "valid"
        call.value = tool_call["args"]

    def _partial_value(self, call: CallState, args: dict[str, Any]) -> Any:
        return args
