"""One call inside a parse session: its state, and the marks naming server-side calls.

:class:`CallState` is what a session keeps per call and what the parsers' hooks read and
set (status, arguments tree, value, the pydantic parser's partial-object builder); it
holds no logic beyond a snapshot of the complete arguments. Server-side tools (run by the
provider) are named by a :class:`ServerMark` (an index or an id, in order among the
events) or by an Anthropic ``srvtoolu_`` id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from callstream._types import MISSING
from callstream.parsers._parsed_call import ParsedCall, Status
from callstream.parsers._tree import ClosedValueTree
from callstream.partial._builder import PartialBuilder

__all__ = ("NO_VERDICT", "SERVER_ID_PREFIX", "CallState", "ServerMark", "is_server_id")

NO_VERDICT = "the stream ended before this call was final (no end marker, no StreamFinished)"

SERVER_ID_PREFIX = "srvtoolu_"
"""Anthropic's ids of server-side tool uses (web search, code execution...)."""


def is_server_id(id_: Any) -> bool:
    """Whether ``id_`` is an Anthropic server-side tool use id (``srvtoolu_...``)."""
    return isinstance(id_, str) and id_.startswith(SERVER_ID_PREFIX)


class CallState:
    """One call inside a session (internal; parsers read and set its fields)."""

    __slots__ = (
        "adapter",
        "args",
        "builder",
        "chars",
        "checked_chars",
        "dirty",
        "error",
        "id",
        "index",
        "name",
        "raw_args",
        "result",
        "server",
        "status",
        "tree",
        "value",
        "work",
    )

    def __init__(self, index: int, name: str | None, id_: str | None) -> None:
        self.index = index
        self.name = name
        self.id = id_
        self.status: Status = "partial"
        self.tree = ClosedValueTree()
        self.chars = 0  # argument characters received
        self.dirty = False  # a value closed since the parser last looked
        self.checked_chars = 0  # ``chars`` when the parser last looked
        self.args: dict[str, Any] | None = None  # final (or best known) arguments
        self.value: Any = None
        self.error: str | None = None
        self.raw_args: str | None = None
        self.adapter: Any = None  # parser-specific (the pydantic parser's TypeAdapter)
        # the pydantic parser's partial object of the arguments, fed by the session with
        # each fragment's changes after ``tree`` (whose containers it reads); None: none
        self.builder: PartialBuilder | None = None
        self.result: ParsedCall[Any] | None = None  # cached; None when stale
        self.server = False  # a server-side tool: listed apart, never validated
        self.work = 0  # the parser's cost counter (snapshot entries copied, text validated)

    def root(self) -> Any:
        """The root value of ``tree`` (what ``builder`` reads): None before it began."""
        root = self.tree.root
        return None if root is MISSING else root

    def partial_args(self) -> dict[str, Any]:
        """The arguments complete so far (a snapshot); ``{}`` unless they are an object."""
        snapshot = self.tree.snapshot()
        return snapshot if isinstance(snapshot, dict) else {}


@dataclass(frozen=True, slots=True)
class ServerMark:
    """Internal: a server-side marker, in order among a session's events."""

    index: int | None
    id: str | None


def by_index(call: CallState) -> int:
    """Sort key: a call's index."""
    return call.index
