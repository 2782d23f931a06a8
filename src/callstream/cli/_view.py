"""What the command shows, as plain data: the calls of a stream rebuilt from assembly events.

:class:`StreamView` applies events in order, the way a UI consuming the JSON feed would:
a call appears at ``CallStarted``; its argument tree grows from the changes of each
``ArgumentsDelta`` (no re-parsing, no snapshots); ``CallDone`` replaces the tree by the
final arguments (they agree; this also covers providers that send whole objects);
``CallInvalid`` marks the call with its error. Nothing here imports rich, so the view is
tested and reused without it.

Cost: each change is applied in O(depth of its path); a string keeps its fragments in
blocks (:mod:`callstream._json.pieces`), joined when rendered in full (a live window reads
only its tail). The view keeps counters and the calls still streaming in order of their
last change, so a live display can show a bounded window without walking every call; a
call shown for good can be :meth:`StreamView.release` d to keep memory bounded by the
open calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from callstream._assembly.types import (
    ArgumentsDelta,
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    StreamFinished,
)
from callstream._json.changes import Change, ScalarSet, StringExtended, ValueClosed, ValueStarted
from callstream._json.pieces import Text
from callstream._types import JSONPath

__all__ = (
    "ArrayNode",
    "CallView",
    "Node",
    "ObjectNode",
    "ScalarNode",
    "StreamView",
    "StringNode",
    "node_from_value",
    "scalar_text",
)


@dataclass(slots=True, eq=False)
class ObjectNode:
    """A JSON object being built: members in order of appearance."""

    members: dict[str, Node] = field(default_factory=dict)
    closed: bool = False


@dataclass(slots=True, eq=False)
class ArrayNode:
    """A JSON array being built."""

    items: list[Node] = field(default_factory=list)
    closed: bool = False


@dataclass(slots=True, eq=False)
class StringNode:
    """A JSON string being built: its decoded fragments in order, kept in blocks
    (:mod:`callstream._json.pieces`)."""

    pieces: Text = field(default_factory=Text)
    closed: bool = False

    @property
    def length(self) -> int:
        """Its length so far."""
        return self.pieces.length

    @property
    def text(self) -> str:
        """The string so far (joins the pieces once and keeps the result)."""
        return self.pieces.value()

    def append(self, text: str) -> None:
        """Add a decoded fragment. Cost: O(1) amortized."""
        self.pieces.add(text)

    def tail(self, limit: int) -> str:
        """The last ``limit`` characters, without joining the whole string.

        Cost: O(limit + number of pieces visited), however long the string is.
        """
        taken: list[str] = []
        size = 0
        for part in reversed(self.pieces.pieces):
            taken.append(part)
            size += len(part)
            if size >= limit:
                break
        text = "".join(reversed(taken))
        return text[-limit:] if limit > 0 else ""


@dataclass(slots=True, eq=False)
class ScalarNode:
    """A complete number, boolean or null (always closed)."""

    value: Any
    closed: bool = True


Node = ObjectNode | ArrayNode | StringNode | ScalarNode


def node_from_value(value: Any) -> Node:
    """Build a closed tree from a complete JSON value (iteratively; any depth)."""
    root = ObjectNode(closed=True)
    stack: list[tuple[Node, Any, Any]] = [(root, "", value)]
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, dict):
            node: Node = ObjectNode(closed=True)
            for member_key, member in reversed(list(item.items())):
                stack.append((node, str(member_key), member))
        elif isinstance(item, list | tuple):
            node = ArrayNode(closed=True)
            # placeholders keep the order while children are built out of order
            node.items.extend(ScalarNode(None) for _ in item)
            for position in range(len(item) - 1, -1, -1):
                stack.append((node, position, item[position]))
        elif isinstance(item, str):
            node = StringNode(closed=True)
            node.append(item)
        else:
            node = ScalarNode(item)
        if isinstance(parent, ObjectNode):
            parent.members[key] = node
        elif isinstance(parent, ArrayNode):
            parent.items[key] = node
    return root.members[""]


@dataclass(slots=True, eq=False)
class CallView:
    """One tool call as shown: header fields, status, argument tree, raw text."""

    index: int
    name: str
    id: str | None = None
    key: int | None = None
    status: Literal["streaming", "done", "invalid"] = "streaming"
    error: str | None = None
    tree: Node | None = None
    raw_text: Text = field(default_factory=Text)  # in blocks (callstream._json.pieces)
    values: int = 0

    @property
    def raw(self) -> str:
        """The raw argument text received so far."""
        return self.raw_text.value()

    @property
    def raw_chars(self) -> int:
        """The length of the raw argument text received so far."""
        return self.raw_text.length

    def set_raw(self, text: str) -> None:
        """Replace the raw argument text (by the whole text an invalid call ended with)."""
        self.raw_text = Text()
        self.raw_text.add(text)

    def apply_changes(self, changes: tuple[Change, ...]) -> None:
        """Apply parser changes to the argument tree; a change that does not fit is skipped."""
        for change in changes:
            self._apply(change)

    def _apply(self, change: Change) -> None:
        if isinstance(change, StringExtended):
            node = self._find(change.path)
            if isinstance(node, StringNode):
                node.append(change.text)
        elif isinstance(change, ValueClosed):
            node = self._find(change.path)
            if node is not None:
                node.closed = True
        elif isinstance(change, ValueStarted | ScalarSet):
            self._place(change.path, _new_node(change))

    def _place(self, path: JSONPath, new: Node) -> None:
        """Put a new value at ``path`` (the root, a member or the next item); else skip it."""
        if not path:
            self.tree = new
            return
        self.values += 1
        parent = self._find(path[:-1])
        last = path[-1]
        if isinstance(parent, ObjectNode) and isinstance(last, str):
            parent.members.pop(last, None)  # a repeated key moves to the end, as it is shown
            parent.members[last] = new
        elif isinstance(parent, ArrayNode) and isinstance(last, int):
            if last == len(parent.items):
                parent.items.append(new)
            elif 0 <= last < len(parent.items):
                parent.items[last] = new

    def _find(self, path: JSONPath) -> Node | None:
        node = self.tree
        for part in path:
            if isinstance(node, ObjectNode) and isinstance(part, str):
                node = node.members.get(part)
            elif isinstance(node, ArrayNode) and isinstance(part, int):
                node = node.items[part] if 0 <= part < len(node.items) else None
            else:
                return None
        return node


def _new_node(change: ValueStarted | ScalarSet) -> Node:
    """The empty node a value starts as (a scalar arrives whole)."""
    if isinstance(change, ScalarSet):
        return ScalarNode(change.value)
    if change.kind == "object":
        return ObjectNode()
    if change.kind == "array":
        return ArrayNode()
    return StringNode()


@dataclass(slots=True, eq=False)
class StreamView:
    """The calls of one stream, rebuilt from its assembly events."""

    calls: dict[int, CallView] = field(default_factory=dict)
    finished: bool = False
    finish_reason: str | None = None
    events: int = 0
    total: int = 0
    """Calls seen, including those :meth:`release` d."""
    active: dict[int, CallView] = field(default_factory=dict)
    """The calls still streaming, least recently changed first (for a live window)."""
    _counts: dict[str, int] = field(default_factory=lambda: {"done": 0, "invalid": 0})

    def apply(self, event: AssemblyEvent) -> None:
        """Apply one event (cost: O(size of the event)). Unknown calls are created on demand."""
        self.events += 1
        match event:
            case CallStarted(index=index, key=key, id=id_, name=name):
                old = self.calls.get(index)
                if old is not None:
                    self._set_status(old, "streaming")
                else:
                    self.total += 1
                call = self.calls[index] = CallView(index=index, name=name, id=id_, key=key)
                self._touch(call)
            case ArgumentsDelta(index=index, text=text, changes=changes):
                call = self._call(index)
                call.raw_text.add(text)
                call.apply_changes(changes)
                if call.status == "streaming":
                    self._touch(call)
            case CallDone(index=index, tool_call=tool_call):
                call = self._call(index, tool_call.get("name"))
                self._set_status(call, "done")
                call.id = tool_call.get("id") or call.id
                call.tree = node_from_value(tool_call.get("args", {}))
            case CallInvalid(index=index, invalid_tool_call=invalid):
                call = self._call(index, invalid.get("name"))
                self._set_status(call, "invalid")
                call.error = invalid.get("error")
                if invalid.get("id") and not call.id:
                    call.id = invalid.get("id")
                args = invalid.get("args")
                if isinstance(args, str) and len(args) >= call.raw_chars:
                    call.set_raw(args)  # the text up to and with the bad part
            case StreamFinished(reason=reason):
                self.finished = True
                self.finish_reason = reason

    def release(self, index: int) -> CallView | None:
        """Forget a call (once shown for good); it still counts in the totals. O(1)."""
        self.active.pop(index, None)
        return self.calls.pop(index, None)

    def _touch(self, call: CallView) -> None:
        self.active.pop(call.index, None)
        self.active[call.index] = call

    def _set_status(self, call: CallView, status: Literal["streaming", "done", "invalid"]) -> None:
        if call.status != "streaming":
            self._counts[call.status] -= 1
        call.status = status
        if status == "streaming":
            self._touch(call)
        else:
            self._counts[status] += 1
            self.active.pop(call.index, None)

    def _call(self, index: int, name: str | None = None) -> CallView:
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = CallView(index=index, name=name or "?")
            self.total += 1
            self._touch(call)
        return call

    @property
    def valid(self) -> int:
        """Number of calls that ended valid. O(1)."""
        return self._counts["done"]

    @property
    def invalid(self) -> int:
        """Number of calls that ended invalid. O(1)."""
        return self._counts["invalid"]


def scalar_text(value: Any) -> str:
    """JSON spelling of a scalar (``true``, ``null``, ``1.5``; non-finite floats as is)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return str(value)
