"""MCP Apps: the notifications a host sends a tool's view while the call streams.

An MCP App is a view of ONE tool call, in a sandboxed frame of the host. While the model
streams the call's arguments, the host may send ``ui/notifications/tool-input-partial``
with the arguments so far, then ``ui/notifications/tool-input`` with the complete ones,
then the result. :class:`McpAppsEncoder` gives those JSON-RPC notifications for every
call of a turn, each tagged with the call it is for (:class:`ViewMessage`): the host
routes it to that call's view.

What is sent, per kind of input:

- argument text of a call (:class:`~callstream.ArgumentsDelta`):
  ``ui/notifications/tool-input-partial`` with ``{"arguments": preview}`` where the
  preview is callstream's honest one (strings grow, numbers and literals appear only
  complete, no key without its value, never a placeholder), once the arguments are an
  object, at most once per ``min_interval`` seconds per call (the first at once);
- :class:`~callstream.CallDone`: ``ui/notifications/tool-input`` with the final
  arguments (always sent, whatever the throttle);
- :class:`~callstream.CallInvalid`: ``ui/notifications/tool-cancelled`` with the
  ``reason`` (the call's error);
- tool results of :class:`~callstream.ToolRunner`: ``ui/notifications/tool-result`` with
  a ``CallToolResult`` (``content`` = one text block, ``isError``, and
  ``structuredContent`` = :attr:`~callstream.runner.ToolResult.output_json` when the
  output is a JSON object: a dict, a model, a dataclass) for a tool that returned or
  failed; ``ui/notifications/tool-cancelled`` for a cancelled one;
- server-side tools, text and anything else: nothing.

The notifications are Python data for the host's own JSON writer; they follow the output
rule of :mod:`callstream._json.dump` (no lone surrogates: U+FFFD; no ``NaN``: None), so
any writer makes strict JSON of them.

Cost: each call's text is fed once to its own incremental parser (O(fragment)); a
partial notification copies the preview (O(its size)), which the throttle bounds: at
most one per call per ``min_interval``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from callstream._assembly.types import ArgumentsDelta, CallDone, CallInvalid, CallStarted
from callstream._errors import OptionTypeError, OptionValueError, PartialJSONError
from callstream._json.dump import strict_data, strict_text
from callstream._json.parser import PartialJSONParser
from callstream._result import StreamUpdate
from callstream.runner._results import ToolCancelled, ToolFailed, ToolFinished
from callstream.ui._turn_state import check_item

__all__ = ("McpAppsEncoder", "ViewMessage")


class ViewMessage(NamedTuple):
    """One notification for the view of call number ``call`` (``tool_call_id``: its id,
    or ``call_<n>`` when the provider gave none); ``message`` is the JSON-RPC notification
    (``{"jsonrpc": "2.0", "method": ..., "params": {...}}``), shared with nobody."""

    call: int
    tool_call_id: str
    message: dict[str, Any]


def _note(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


class McpAppsEncoder:
    """Turns one turn's items into MCP Apps notifications per call (see the module doc).

    Args:
        min_interval: seconds between two partial notifications of one call (0: one
            per fragment that changed the preview).
        clock: the time source for the throttle (default ``time.monotonic``).
    """

    __slots__ = ("_clock", "_ids", "_last", "_min_interval", "_parsers", "_sent")

    def __init__(
        self, *, min_interval: float = 0.1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if isinstance(min_interval, bool) or not isinstance(min_interval, (int, float)):
            raise OptionTypeError(f"min_interval must be a number, got {min_interval!r:.60}")
        if not min_interval >= 0:
            raise OptionValueError(f"min_interval must be >= 0, got {min_interval!r}")
        if not callable(clock):
            raise OptionTypeError(f"clock must be callable, got {clock!r:.60}")
        self._min_interval = float(min_interval)
        self._clock = clock
        self._ids: dict[int, str] = {}
        self._parsers: dict[int, PartialJSONParser] = {}
        self._last: dict[int, float] = {}  # when the call's last partial was sent
        self._sent: set[int] = set()  # calls whose final input was sent

    def start(self) -> list[ViewMessage]:
        """Nothing: an MCP App view has no run-wide start (there for the shared loop)."""
        return []

    def close(self) -> list[ViewMessage]:
        """Nothing: every call already got its final notification."""
        return []

    def fail(self, exc: BaseException) -> list[ViewMessage]:
        """Nothing: MCP Apps has no run-wide error notification (the host reports it)."""
        return []

    def feed(self, item: Any) -> list[ViewMessage]:
        """The notifications one item causes (an update or a tool event).

        Raises:
            UsageError: an item of another kind (raw chunks: pass them through
                ``stream()`` first).
        """
        out: list[ViewMessage] = []
        if isinstance(item, StreamUpdate):
            partial: list[int] = []
            for event in item.events:
                self._event(event, partial, out)
            for index in partial:
                self._partial(index, out)
        elif isinstance(item, (ToolFinished, ToolFailed, ToolCancelled)):
            index = item.index
            call_id = self._ids.get(index)
            if call_id is None:
                return out
            result = item.result
            if isinstance(item, ToolCancelled):
                note = _note("ui/notifications/tool-cancelled", {"reason": result.content})
            else:
                params: dict[str, Any] = {
                    "content": [{"type": "text", "text": result.content}],
                    "isError": result.is_error,
                }
                data = result.output_json
                if type(data) is dict:
                    params["structuredContent"] = data
                note = _note("ui/notifications/tool-result", params)
            out.append(ViewMessage(index, call_id, note))
        else:
            check_item(item)
        return out

    def _event(self, event: Any, partial: list[int], out: list[ViewMessage]) -> None:
        if isinstance(event, CallStarted):
            if not event.server:
                self._ids[event.index] = event.id or f"call_{event.index}"
                self._parsers[event.index] = PartialJSONParser()
        elif isinstance(event, ArgumentsDelta):
            parser = self._parsers.get(event.index)
            if parser is None or event.index in self._sent:
                return
            try:
                changes = parser.feed(event.text)
            except PartialJSONError:  # the assembler says so too: CallInvalid follows
                del self._parsers[event.index]
                return
            if changes and event.index not in partial:
                partial.append(event.index)
        elif isinstance(event, CallDone):
            call_id = self._ids.get(event.index)
            if call_id is None or event.server:
                return
            self._sent.add(event.index)
            self._parsers.pop(event.index, None)
            arguments = strict_data(event.tool_call["args"])
            note = _note("ui/notifications/tool-input", {"arguments": arguments})
            out.append(ViewMessage(event.index, call_id, note))
        elif isinstance(event, CallInvalid):
            call_id = self._ids.get(event.index)
            if call_id is None or event.server:
                return
            self._sent.add(event.index)
            self._parsers.pop(event.index, None)
            reason = strict_text(event.invalid_tool_call.get("error") or "invalid tool call")
            note = _note("ui/notifications/tool-cancelled", {"reason": reason})
            out.append(ViewMessage(event.index, call_id, note))

    def _partial(self, index: int, out: list[ViewMessage]) -> None:
        """Send call ``index``'s preview, unless the throttle says not yet."""
        parser = self._parsers.get(index)
        if parser is None or index in self._sent:
            return
        preview = parser.value
        if type(preview) is not dict:
            return
        now = self._clock()
        last = self._last.get(index)
        if last is not None and now - last < self._min_interval:
            return
        self._last[index] = now
        note = _note("ui/notifications/tool-input-partial", {"arguments": strict_data(preview)})
        out.append(ViewMessage(index, self._ids[index], note))
