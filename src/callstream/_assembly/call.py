"""One tool call's state inside the assembler: identity, verdict, argument text, view entries.

A plain slotted record with the builders of its view entries. Routing
(:mod:`~callstream._assembly.routing`) reads it (and gives it the index it adopts, rule
1b); the assembly state (:mod:`~callstream._assembly.assembly_state`) changes its identity, text and
verdict, and the views (:mod:`~callstream._assembly.views`) its view entries.
"""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.arguments import ArgumentText
from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall, ToolCallChunk

__all__ = ("INVALID", "UNDECIDED", "VALID", "Call")

UNDECIDED: Final = 0
"""No verdict yet: still receiving data (pending while it has no name, streaming once it
has one)."""
VALID: Final = 1
"""Final and valid: ``final`` holds the arguments object."""
INVALID: Final = 2
"""Known bad (reported): ``error`` says why. Raw text may still grow until input closes."""


class Call:
    """State of one tool call (internal).

    ``number`` is our call number (order of start, the ``index`` of events and of
    ``tool_call_chunks``); ``key`` is the provider's index the call arrived on (None
    when it came without one).

    Invariants: ``verdict`` only moves UNDECIDED -> VALID or UNDECIDED -> INVALID;
    ``announced`` and ``input_closed`` only go from False to True; ``arguments`` holds the
    raw text and its parser. View entries (``view`` in ``tool_calls``, ``invalid_view`` in
    ``invalid_tool_calls``, ``server_view`` in ``server_tool_calls``, ``chunk_view`` in
    ``tool_call_chunks``) are the call's own dicts, not None exactly while the call is
    listed in that view; the assembler updates them in place until the call is final.
    ``chunk_rejoin_at`` / ``invalid_rejoin_at`` are the raw length at which the chunk /
    invalid entry's ``args`` text is next re-joined (doubling, so that reading a view after
    every fragment stays linear). ``extras`` is the call's :class:`CallExtras` record (None
    until one arrives), a dict replaced by each merge and never changed in place.
    """

    __slots__ = (
        "announced",
        "arguments",
        "chunk_lags",
        "chunk_rejoin_at",
        "chunk_view",
        "error",
        "extras",
        "final",
        "id",
        "input_closed",
        "invalid_lags",
        "invalid_rejoin_at",
        "invalid_view",
        "key",
        "name",
        "number",
        "preview_changed",
        "refused",
        "server",
        "server_view",
        "verdict",
        "view",
        "view_args",
    )

    def __init__(self, number: int, key: int | None, arguments: ArgumentText) -> None:
        self.number = number
        self.key = key
        self.id: str | None = None
        self.name: str | None = None
        self.verdict = UNDECIDED
        self.error: str | None = None
        self.announced = False  # CallStarted emitted
        self.input_closed = False  # end marker, provider failure or finish: no more data
        self.server = False  # a server-side tool (run by the provider): not a tool call
        self.arguments = arguments
        self.final: dict[str, Any] | None = None
        self.preview_changed = False  # in the assembler's list of calls whose preview may
        # have been replaced
        self.view: ToolCall | None = None
        self.view_args: Any = None
        self.invalid_view: InvalidToolCall | None = None
        self.chunk_view: ToolCallChunk | None = None
        self.server_view: ServerToolCall | None = None
        self.chunk_lags = False  # in the assembler's list of calls whose chunk text may lag
        self.invalid_lags = False  # in the list of invalid calls whose text may lag
        self.chunk_rejoin_at = 0
        self.invalid_rejoin_at = 0
        self.refused = 0  # the overflow record (past max_calls): calls refused so far
        self.extras: dict[str, Any] | None = None  # the CallExtras record: replaced, never
        # changed, once handed out

    def tool_call(self) -> ToolCall:
        """The ``ToolCall`` view: final arguments when valid, else the live preview.

        The preview is the parser's live value when it is an object, else a new ``{}``.
        Cost: O(1) plus the parser's preview refresh.
        """
        if self.verdict == VALID:
            args: Any = self.final
            self.view_args = args
        else:
            parser = self.arguments.parser
            value = parser.value if parser is not None else None
            self.view_args = value
            args = value if type(value) is dict else {}
        return {"name": self.name or "", "args": args, "id": self.id, "type": "tool_call"}

    def server_tool_call(self) -> ServerToolCall:
        """The ``ServerToolCall`` view: final arguments when valid, else the live preview
        (``{}`` until it is an object), and ``extras`` when the call has any. Cost: O(1)
        plus the parser's preview refresh."""
        if self.verdict == VALID:
            args: Any = self.final
        else:
            parser = self.arguments.parser
            value = parser.value if parser is not None and self.verdict == UNDECIDED else None
            args = value if type(value) is dict else {}
        entry: ServerToolCall = {
            "type": "server_tool_call",
            "name": self.name or "",
            "args": args,
            "id": self.id,
        }
        if self.extras is not None:
            entry["extras"] = self.extras
        return entry

    def invalid_tool_call(self) -> InvalidToolCall:
        """The ``InvalidToolCall`` view (raw text). Cost: O(raw length) when it grew."""
        return {
            "name": self.name,
            "args": self.arguments.raw_or_none(),
            "id": self.id,
            "error": self.error,
            "type": "invalid_tool_call",
        }
