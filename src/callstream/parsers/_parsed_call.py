"""ParsedCall: one tool call as an output parser sees it (partial, valid or invalid)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall
from callstream._errors import JSONLimitError
from callstream._json.dump import dumps_bounded

__all__ = ("ParsedCall", "Status", "dumps_or_none")

T = TypeVar("T")

Status = Literal["partial", "valid", "invalid"]
"""``"partial"`` while the call streams; ``"valid"`` / ``"invalid"`` once it is final."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedCall(Generic[T]):
    """One tool call in a parser's result: identity, status, arguments and parsed value.

    Attributes:
        index: the call's number in order of start (0, 1, ...), as in assembly events.
        name: the tool name (None only for an invalid call that never had one).
        id: the provider's call id, None when the provider gives none.
        status: ``"partial"`` while streaming, then ``"valid"`` or ``"invalid"``.
        args: the arguments: while partial, the values complete so far in their open
            objects and arrays (a number, literal or string appears once complete, so
            nothing shown ever changes); once valid, the final arguments; once invalid,
            the best arguments known (often partial, ``{}`` when none).
        value: what the parser made of the arguments: the ``args`` for the JSON parser;
            for the pydantic parser, the validated object (a partial preview while
            streaming, the strictly validated object once valid), None when there is none.
        error: why the call is invalid (None otherwise): the assembler's reason, the
            pydantic validation error text, or an unknown tool name.
        raw_args: for an invalid call, its raw argument text (as an ``InvalidToolCall``
            carries it); None otherwise.
        server: a server-side tool (run by the provider itself, such as web search or
            code execution): listed in ``ParseSession.server_calls``, never in results,
            never validated (``value`` is None).

    A ``ParsedCall`` is immutable and is not changed by later input; its ``args`` and its
    ``value`` share complete sub-values with later results, so treat them as read-only.
    """

    index: int
    name: str | None
    id: str | None
    status: Status
    args: dict[str, Any]
    value: T | None
    error: str | None = None
    raw_args: str | None = None
    server: bool = False

    @property
    def done(self) -> bool:
        """Whether the call is final (valid or invalid)."""
        return self.status != "partial"

    @property
    def valid(self) -> bool:
        """Whether the call is final and valid."""
        return self.status == "valid"

    def to_dict(self) -> ToolCall | InvalidToolCall | ServerToolCall:
        """This call as a LangChain-shaped dict: a ``ServerToolCall`` block for a
        server-side tool, ``InvalidToolCall`` when invalid, else ``ToolCall`` (with the
        partial arguments while streaming)."""
        if self.server:
            return ServerToolCall(
                type="server_tool_call", name=self.name or "", args=self.args, id=self.id
            )
        if self.status == "invalid":
            raw = self.raw_args
            if raw is None and self.args:
                raw = dumps_or_none(self.args)
            return InvalidToolCall(
                name=self.name, args=raw, id=self.id, error=self.error, type="invalid_tool_call"
            )
        return ToolCall(name=self.name or "", args=self.args, id=self.id, type="tool_call")


MAX_DUMP_DEPTH = 100_000
"""Arguments nested deeper than this are not written back as text (``raw_args`` None)."""


def dumps_or_none(args: Any) -> str | None:
    """``args`` as JSON text, or None when it cannot be written (nested deeper than
    :data:`MAX_DUMP_DEPTH`, or not JSON). Never recurses. Cost: O(size of ``args``)."""
    try:
        return dumps_bounded(args, max_depth=MAX_DUMP_DEPTH, ensure_ascii=False)
    except (JSONLimitError, ValueError, TypeError):
        return None
