"""What :meth:`~callstream._pipeline.Pipeline.feed` returns per payload: :class:`StreamUpdate`,
and the deep copy of JSON values its :meth:`~StreamUpdate.snapshot` uses. Compiled with
mypyc in the compiled build; apart from :mod:`callstream._result` (the stream's
``StreamResult``, a dataclass that stays interpreted) for that reason only.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, final

from callstream._assembly.types import (
    AssemblyEvent,
    InvalidToolCall,
    ServerToolCall,
    ToolCall,
)
from callstream._types import Record

__all__ = ("StreamUpdate", "copy_json")


@final
class StreamUpdate(Record):
    """What one payload changed, and the state of every call after it.

    Attributes:
        events: the assembly events this payload caused (often empty: text, usage...).
        tool_calls: the calls so far, best effort (final and valid once finished). The
            ``args`` of a call still streaming is a live view that keeps growing (it is
            the same object in every later update, so ``list(stream(...))`` shows the
            final args everywhere); :meth:`snapshot` keeps a copy of one update.
        invalid_tool_calls: the calls known to be invalid so far.
        finish_reason: the stream's finish reason once it finished, else None.
        payload: the decoded payload (None for the update that ends the stream).
        server_tool_calls: tools the provider runs itself (never in ``tool_calls``).
        text: the assistant text this payload carried (its pieces joined), ``""`` when
            none; text after the end of the stream is ignored.
        reasoning: the reasoning / thinking text this payload carried; always ``""``
            unless the stream was opened with ``reasoning=True``.

    A :class:`~callstream._types.Record`: compared on every field but ``payload``.
    """

    __match_args__: ClassVar = (
        "events",
        "tool_calls",
        "invalid_tool_calls",
        "finish_reason",
        "payload",
        "server_tool_calls",
        "text",
        "reasoning",
    )
    __slots__ = __match_args__
    _compared: ClassVar = tuple(name for name in __match_args__ if name != "payload")

    def __init__(  # noqa: PLR0917 - by position or keyword, as every record
        self,
        events: tuple[AssemblyEvent, ...],
        tool_calls: list[ToolCall],
        invalid_tool_calls: list[InvalidToolCall],
        finish_reason: str | None,
        payload: Any = None,
        server_tool_calls: list[ServerToolCall] | None = None,
        text: str = "",
        reasoning: str = "",
    ) -> None:
        self.events: Final = events
        self.tool_calls: Final = tool_calls
        self.invalid_tool_calls: Final = invalid_tool_calls
        self.finish_reason: Final = finish_reason
        self.payload: Final = payload
        self.server_tool_calls: Final[list[ServerToolCall]] = (
            [] if server_tool_calls is None else server_tool_calls
        )
        self.text: Final = text
        self.reasoning: Final = reasoning

    def snapshot(self) -> StreamUpdate:
        """This update with its calls frozen in time: the ``args`` are deep copies.

        The copy shares nothing mutable with the live views (``events`` and ``payload``
        are shared: events are immutable, the payload is the source's). Deeply nested
        arguments are copied without recursion.

        Cost: O(total size of the calls' arguments); the updates themselves cost O(1)
        because they share the live views, so copy only the ones you keep.
        """
        return StreamUpdate(
            events=self.events,
            tool_calls=[copy_call(c) for c in self.tool_calls],
            invalid_tool_calls=[copy_call(c) for c in self.invalid_tool_calls],
            finish_reason=self.finish_reason,
            payload=self.payload,
            server_tool_calls=[copy_call(c) for c in self.server_tool_calls],
            text=self.text,
            reasoning=self.reasoning,
        )


def copy_call(call: Any) -> Any:
    """A copy of one call dict whose ``args`` (and any other container) is deep-copied."""
    return {key: copy_json(value) for key, value in call.items()}


def copy_json(value: Any) -> Any:
    """Deep copy of dicts and lists (other values shared), iterative: O(size), no recursion."""
    if type(value) is not dict and type(value) is not list:
        return value
    root: Any = {} if type(value) is dict else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        if type(source) is dict:
            for key, item in source.items():
                if type(item) is dict or type(item) is list:
                    copy: Any = {} if type(item) is dict else []
                    stack.append((item, copy))
                    target[key] = copy
                else:
                    target[key] = item
        else:
            for item in source:
                if type(item) is dict or type(item) is list:
                    copy = {} if type(item) is dict else []
                    stack.append((item, copy))
                    target.append(copy)
                else:
                    target.append(item)
    return root
