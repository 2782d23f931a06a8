"""The JSON event feed: assembly events as JSON objects a UI in any language can apply.

Each assembly event becomes one JSON object with a ``"type"`` discriminator; paths
inside the arguments become RFC 6901 JSON Pointers (``("items", 0)`` -> ``"/items/0"``,
``""`` for the arguments object itself). The five event objects and the four change
objects are described by :func:`feed_schema`, a JSON Schema (draft 2020-12) generated
with pydantic from the ``TypedDict`` s below; ``docs/event-feed.schema.json`` is that
schema, written out, and ``docs/event-feed.md`` explains how to apply the feed.

Pydantic stays at this edge: the core events are plain records, and a single
``TypeAdapter`` over :data:`FeedEvent` produces the schema. The lines are written by the
one JSON writer under its output rule (:mod:`callstream._json.dump`).

Example:
    >>> from callstream._assembly.types import CallStarted
    >>> to_feed(CallStarted(index=0, key=0, id="call_1", name="get_weather"))
    {'type': 'call_started', 'index': 0, 'key': 0, 'id': 'call_1', 'name': 'get_weather'}
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, TypeAdapter
from typing_extensions import NotRequired, TypedDict

from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
    StreamFinished,
    ToolCall,
)
from callstream._errors import UsageError
from callstream._json.changes import (
    Change,
    ScalarSet,
    StringExtended,
    ValueClosed,
    ValueStarted,
    to_json_pointer,
)
from callstream._json.dump import dumps_bounded

__all__ = (
    "ArgumentsDeltaItem",
    "CallDoneItem",
    "CallInvalidItem",
    "CallStartedItem",
    "FeedChange",
    "FeedEvent",
    "ScalarSetItem",
    "StreamFinishedItem",
    "StringExtendedItem",
    "ValueClosedItem",
    "ValueStartedItem",
    "dumps_feed",
    "feed_schema",
    "to_feed",
)

_POINTER = "RFC 6901 JSON Pointer into the call's arguments object ('' is the object itself)."

# --- changes --------------------------------------------------------------------------------


class ValueStartedItem(TypedDict):
    """An object, array or string began at path: create an empty one there.

    For an object member this is when its key becomes visible; for an array element,
    the element is appended to the array.
    """

    type: Literal["value_started"]
    path: Annotated[str, Field(description=_POINTER)]
    kind: Literal["object", "array", "string"]


class StringExtendedItem(TypedDict):
    """The string at path grew: append text (JSON escapes already decoded)."""

    type: Literal["string_extended"]
    path: Annotated[str, Field(description=_POINTER)]
    text: str


class ScalarSetItem(TypedDict):
    """A complete number, true, false or null was set at path.

    Numbers are only reported once complete, so a value never has to be taken back.
    """

    type: Literal["scalar_set"]
    path: Annotated[str, Field(description=_POINTER)]
    value: Annotated[
        bool | int | float | None,
        Field(
            description="The JSON value (non-finite numbers, only possible with "
            "allow_nan=True, are written as null)."
        ),
    ]


class ValueClosedItem(TypedDict):
    """The object, array or string at path is complete: mark it done."""

    type: Literal["value_closed"]
    path: Annotated[str, Field(description=_POINTER)]


FeedChange: TypeAlias = Annotated[
    ValueStartedItem | StringExtendedItem | ScalarSetItem | ValueClosedItem,
    Field(discriminator="type"),
]
"""One change inside an ``arguments_delta`` event."""

_ChangeItem: TypeAlias = ValueStartedItem | StringExtendedItem | ScalarSetItem | ValueClosedItem

# --- events ---------------------------------------------------------------------------------

_EXTRAS = (
    "Facts about the call beyond its name, id and arguments (OpenAI Responses items: "
    "item_type, namespace, caller, status, a custom tool's input ...); absent when none."
)


class CallStartedItem(TypedDict):
    """A tool call has a name and is announced.

    index numbers calls in order of start (0, 1, ...) and identifies the call in every
    later event; key is the provider's own index for it, when it gave one.
    """

    type: Literal["call_started"]
    index: int
    key: int | None
    id: str | None
    name: str
    server: Annotated[
        bool,
        Field(
            description="True for a server-side tool: the provider runs it, do not run it again."
        ),
    ]
    extras: NotRequired[Annotated[dict[str, Any], Field(description=_EXTRAS)]]


class ArgumentsDeltaItem(TypedDict):
    """Argument text arrived for call index.

    text is the raw JSON text fragment; changes, applied in order, update the
    arguments tree (an empty list when the text changed nothing visible, for example
    whitespace or half an escape).
    """

    type: Literal["arguments_delta"]
    index: int
    text: str
    changes: list[FeedChange]


class CallDoneItem(TypedDict):
    """Call index is final and valid; tool_call holds its parsed arguments."""

    type: Literal["call_done"]
    index: int
    tool_call: ToolCall
    server: Annotated[
        bool,
        Field(
            description="True for a server-side tool: the provider runs it, do not run it again."
        ),
    ]
    extras: NotRequired[Annotated[dict[str, Any], Field(description=_EXTRAS)]]


class CallInvalidItem(TypedDict):
    """Call index is final and invalid; invalid_tool_call.error says why."""

    type: Literal["call_invalid"]
    index: int
    invalid_tool_call: InvalidToolCall
    server: Annotated[
        bool,
        Field(
            description="True for a server-side tool: the provider runs it, do not run it again."
        ),
    ]
    extras: NotRequired[Annotated[dict[str, Any], Field(description=_EXTRAS)]]


class StreamFinishedItem(TypedDict):
    """The stream finished, after every call's call_done or call_invalid event.

    reason is the provider's finish reason as normalized by callstream, or null.
    """

    type: Literal["stream_finished"]
    reason: str | None
    provider_error: Annotated[
        str | None,
        Field(
            description="What the provider said when it ended the stream with an error "
            "(reason 'error'), else null."
        ),
    ]


FeedEvent: TypeAlias = Annotated[
    CallStartedItem | ArgumentsDeltaItem | CallDoneItem | CallInvalidItem | StreamFinishedItem,
    Field(discriminator="type"),
]
"""One line of the event feed."""


@cache
def _adapter() -> TypeAdapter[Any]:
    # Built on first use: a TypeAdapter costs a few milliseconds to construct.
    return TypeAdapter(FeedEvent)


# --- conversion -----------------------------------------------------------------------------


def _change_item(change: Change) -> _ChangeItem:
    match change:
        case StringExtended(path=path, text=text):
            return {"type": "string_extended", "path": to_json_pointer(path), "text": text}
        case ValueStarted(path=path, kind=kind):
            return {"type": "value_started", "path": to_json_pointer(path), "kind": kind}
        case ScalarSet(path=path, value=value):
            return {"type": "scalar_set", "path": to_json_pointer(path), "value": value}
        case ValueClosed(path=path):
            return {"type": "value_closed", "path": to_json_pointer(path)}
    raise UsageError(f"not a callstream change: {change!r}")


def to_feed(event: AssemblyEvent) -> FeedEvent:
    """Turn one assembly event into its feed object (a plain ``dict``).

    Cost: O(size of the event). The result holds the event's own values (argument
    dicts are not copied); serialize it with :func:`dumps_feed` or ``json.dumps``.

    Raises:
        UsageError: ``event`` is not one of the five assembly event types.
    """
    match event:
        case ArgumentsDelta(index=index, text=text, changes=changes):
            return {
                "type": "arguments_delta",
                "index": index,
                "text": text,
                "changes": [_change_item(c) for c in changes],
            }
        case CallStarted(
            index=index, key=key, id=id_, name=name, server=server, extras=extras
        ):
            started: CallStartedItem = {
                "type": "call_started",
                "index": index,
                "key": key,
                "id": id_,
                "name": name,
                "server": server,
            }
            if extras is not None:
                started["extras"] = extras
            return started
        case CallDone(index=index, tool_call=tool_call, server=server, extras=extras):
            done: CallDoneItem = {
                "type": "call_done",
                "index": index,
                "tool_call": tool_call,
                "server": server,
            }
            if extras is not None:
                done["extras"] = extras
            return done
        case CallInvalid(index=index, invalid_tool_call=invalid, server=server, extras=extras):
            bad: CallInvalidItem = {
                "type": "call_invalid",
                "index": index,
                "invalid_tool_call": invalid,
                "server": server,
            }
            if extras is not None:
                bad["extras"] = extras
            return bad
        case StreamFinished(reason=reason, provider_error=provider_error):
            return {"type": "stream_finished", "reason": reason, "provider_error": provider_error}
    raise UsageError(f"not a callstream assembly event: {event!r}")


def dumps_feed(event: AssemblyEvent) -> str:
    """Serialize one assembly event as one line of the feed (compact JSON, no newline).

    The line follows the output rule of :mod:`callstream._json.dump`: UTF-8 JSON with
    non-ASCII text as is; a lone surrogate in a string or a key (possible in complete
    arguments such as ``"\\udc80"``, which ``json.loads`` accepts) is written as U+FFFD;
    non-finite numbers (only with ``allow_nan=True``) as ``null``; arguments of any
    depth, without recursion. Cost: O(size of the event).
    """
    return dumps_bounded(to_feed(event), max_depth=None, strict=True, separators=(",", ":"))


def feed_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of one feed line, generated from the types.

    The same document is stored as ``docs/event-feed.schema.json``; a test keeps the two
    equal. Cost: a few milliseconds (pydantic schema generation) per call.
    """
    generated = _adapter().json_schema(mode="serialization")
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "callstream event feed line",
        "description": (
            "One JSON object per line (JSON Lines) or per server-sent event: what "
            "callstream's assembler reported for a stream of tool-call fragments. "
            "Events of one call come in the order call_started, arguments_delta*, then "
            "call_done or call_invalid; stream_finished comes last."
        ),
    }
    schema.update(generated)
    return schema


if __name__ == "__main__":  # pragma: no cover - regenerates docs/event-feed.schema.json
    print(json.dumps(feed_schema(), indent=2, ensure_ascii=False))
