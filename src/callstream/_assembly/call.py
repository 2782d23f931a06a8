"""One tool call's state inside the assembler: identity, raw text, parser, verdict, views.

A plain slotted record with small helpers; the merge rules live in
:mod:`callstream._assembly.assembler`, which is the only module that mutates it.
"""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall, ToolCallChunk
from callstream._json.changes import Change
from callstream._json.parser import PartialJSONParser

__all__ = ("DONE", "INVALID", "OPEN", "Call", "json_kind")

OPEN: Final = 0
"""Still receiving data (pending while it has no name, streaming once it has one)."""
DONE: Final = 1
"""Final and valid: ``final`` holds the arguments object."""
INVALID: Final = 2
"""Known bad (reported): ``error`` says why. Raw text may still grow until it ends."""


class Call:
    """State of one tool call (internal).

    Invariants: ``state`` only moves OPEN -> DONE or OPEN -> INVALID; ``announced`` and
    ``state != OPEN`` only go from False to True; ``parts`` joined is the raw argument
    text received (capped at ``max_argument_chars``); ``chars == len("".join(parts))``;
    ``buf_text``/``buf_changes`` hold what arrived before the call was announced.
    View entries (``view`` in ``tool_calls``, ``inv_view`` in ``invalid_tool_calls``,
    ``srv_view`` in ``server_tool_calls``, ``chunk_view`` in ``tool_call_chunks``) are the
    call's own dicts, not None exactly while the call is listed in that view; the
    assembler updates them in place until the call is final. ``cnext`` / ``inext`` are the
    raw length at which the chunk / invalid entry's ``args`` text is next re-joined
    (doubling, so that reading a view after every fragment stays linear).
    """

    __slots__ = (
        "announced",
        "args_seen",
        "buf_changes",
        "buf_text",
        "chars",
        "chunk_view",
        "cgrown",
        "cnext",
        "dropped",
        "ended",
        "error",
        "final",
        "id",
        "igrown",
        "inext",
        "inv_view",
        "key",
        "loose",
        "name",
        "number",
        "parser",
        "parts",
        "refused",
        "server",
        "srv_view",
        "state",
        "touched",
        "view",
        "view_args",
        "whole",
    )

    def __init__(self, number: int, key: int | None) -> None:
        self.number = number
        self.key = key
        self.id: str | None = None
        self.name: str | None = None
        self.state = OPEN
        self.error: str | None = None
        self.announced = False  # CallStarted emitted
        self.ended = False  # end marker, provider failure or finish: no more data
        self.args_seen = False  # non-empty argument text (or an object) has arrived
        self.whole = False  # the arguments came as a complete object
        self.server = False  # a server-side tool (run by the provider): not a tool call
        self.dropped = False  # argument text is no longer kept (a limit was hit)
        self.parser: PartialJSONParser | None = None
        self.parts: list[str] = []
        self.loose = 0  # fragments appended to ``parts`` since they were last joined
        self.chars = 0
        self.buf_text: list[str] | None = None
        self.buf_changes: list[Change] | None = None
        self.final: dict[str, Any] | None = None
        self.touched = False  # in the assembler's list of calls whose preview may have grown
        self.view: ToolCall | None = None
        self.view_args: Any = None
        self.inv_view: InvalidToolCall | None = None
        self.chunk_view: ToolCallChunk | None = None
        self.srv_view: ServerToolCall | None = None
        self.cgrown = False  # in the assembler's list of calls whose chunk text may lag
        self.igrown = False  # in the assembler's list of invalid calls whose text may lag
        self.cnext = 0
        self.inext = 0
        self.refused = 0  # the overflow record (past max_calls): calls refused so far

    def raw(self) -> str:
        """The raw argument text so far. Cost: O(length) when new parts arrived, else O(1)."""
        parts = self.parts
        if len(parts) > 1:
            joined = "".join(parts)
            parts.clear()
            parts.append(joined)
            self.loose = 0
            return joined
        return parts[0] if parts else ""

    def raw_or_none(self) -> str | None:
        """The raw argument text, or None when none arrived."""
        return self.raw() if self.parts else None

    def tool_call(self) -> ToolCall:
        """The ``ToolCall`` view: final arguments when done, else the live preview.

        The preview is the parser's live value when it is an object, else a new ``{}``.
        Cost: O(1) plus the parser's preview refresh.
        """
        if self.state == DONE:
            args: Any = self.final
            self.view_args = args
        else:
            parser = self.parser
            value = parser.value if parser is not None else None
            self.view_args = value
            args = value if type(value) is dict else {}
        return {"name": self.name or "", "args": args, "id": self.id, "type": "tool_call"}

    def server_tool_call(self) -> ServerToolCall:
        """The ``ServerToolCall`` view: final arguments when done, else the live preview
        (``{}`` until it is an object). Cost: O(1) plus the parser's preview refresh."""
        if self.state == DONE:
            args: Any = self.final
        else:
            parser = self.parser
            value = parser.value if parser is not None and self.state == OPEN else None
            args = value if type(value) is dict else {}
        return {"type": "server_tool_call", "name": self.name or "", "args": args, "id": self.id}

    def invalid_tool_call(self) -> InvalidToolCall:
        """The ``InvalidToolCall`` view (raw text). Cost: O(raw length) when it grew."""
        return {
            "name": self.name,
            "args": self.raw_or_none(),
            "id": self.id,
            "error": self.error,
            "type": "invalid_tool_call",
        }

    def chunk(self) -> ToolCallChunk:
        """The merged ``ToolCallChunk`` (``index`` = call number). Cost: O(raw length)."""
        return {
            "name": self.name,
            "args": self.raw_or_none(),
            "id": self.id,
            "index": self.number,
            "type": "tool_call_chunk",
        }


def json_kind(value: object) -> str:
    """JSON kind name of a decoded value: object, array, string, number, boolean or null."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
