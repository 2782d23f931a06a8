"""What a parse session asks of its parser: the hooks, stated as a :class:`ParserHooks`
protocol.

A :class:`~callstream.parsers._session.ParseSession` (over
:class:`~callstream.parsers._shown.ShownCalls`) holds its parser only through this
protocol, so the session modules never import the parser's class;
:class:`~callstream.parsers.ToolsParser` satisfies it, and its subclasses
(``JsonToolsParser``, ``PydanticToolsParser``) fill in the hooks.
"""

from __future__ import annotations

from typing import Any, Protocol

from callstream._assembly.types import ToolCall
from callstream.parsers._call_state import CallState

__all__ = ("ParserHooks",)


class ParserHooks(Protocol):
    """The parser as its session sees it: which calls it shows, and what it does as a
    call starts, receives argument text and ends."""

    @property
    def first_tool_only(self) -> bool:
        """Show only the first selected call."""
        ...

    def _selects(self, call: CallState) -> bool:
        """Whether ``call`` is one the parser shows (its ``key_name`` filter)."""
        ...

    def _start(self, call: CallState) -> None:
        """A call was announced (its name is known)."""
        ...

    def _refresh(self, call: CallState) -> bool:
        """After an input item gave ``call`` new argument text; True if its result changed.

        ``call.dirty`` says whether a value closed since the last refresh that returned.
        """
        ...

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
        """The call is final and its arguments are a JSON object: set status and value."""
        ...

    def _partial_value(self, call: CallState, args: dict[str, Any]) -> Any:
        """The ``value`` shown for a partial call whose current arguments are ``args``."""
        ...
