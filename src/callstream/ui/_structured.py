"""A structured output as UI state: AG-UI ``STATE_SNAPSHOT`` / ``STATE_DELTA`` events with
RFC 6902 patches, and Vercel AI SDK ``data-*`` parts.

Both encoders are sans-I/O: ``feed`` takes each :class:`~callstream.StructuredUpdate` of
:func:`callstream.structured` and returns the protocol events to send; they follow the
preview rules of the JSON preview (:attr:`StructuredUpdate.partial`): a key appears with
its value, a number or literal once complete, a string as it grows. The last update (the
validated value) is sent whole, as JSON data (a model as ``model_dump(mode="json")``):
the state a client ends with is the validated object, defaults included.

:class:`AGUIStateEncoder`, what is sent:

- the value begins: ``STATE_SNAPSHOT`` (``snapshot``: ``{}`` or ``[]``);
- per update with changes: one ``STATE_DELTA`` (``delta``: JSON Patch operations):
  ``add`` for a key or an item as its value begins (``{}``, ``[]`` or ``""``) and for a
  number or literal once complete (list items at their index), ``replace`` for a string
  that grew (its whole text so far: JSON Patch has no append) once it grew by
  ``string_growth`` of its length (at least ``min_string_step`` characters) since it was
  last sent, and when it closes;
- the last update: ``STATE_SNAPSHOT`` with the validated value.

:class:`VercelDataEncoder`, what is sent: a ``data-<name>`` part (``id``, ``data``: the
JSON preview so far) when values closed and the text grew by ``growth`` since the last
part (the client replaces a data part by the one with the same id), and one with the
validated value at the end.

:func:`structured_agui_events` / :func:`structured_vercel_parts` wrap them into a whole
run (``RUN_STARTED`` ... ``RUN_FINISHED``, ``start`` ... ``finish``); a
:class:`~callstream.StructuredOutputError` ends the run with ``RUN_ERROR`` (``code``
``structured_output:<reason>``) / an ``error`` part and ``finish`` (``length`` for a
token-limit cut, else ``error``). Frame them with :func:`callstream.ui.sse_frame`.

Every event follows the output rule of :mod:`callstream._json.dump` as Python data
already (the protocols' own models take it): a lone surrogate in a key, a pointer or a
string is U+FFFD, ``NaN`` and infinities are None, and the final value goes out at any
depth (:func:`final_json`).

Cost: O(size of the update's changes) per update, plus the strings resent, bounded in
total by ``1 + 1 / string_growth`` times their length (AG-UI), and the previews resent,
bounded likewise by ``1 + 1 / growth`` times the text (Vercel); the final value once.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Final

from pydantic_core import to_jsonable_python

from callstream._errors import StructuredOutputError, UsageError
from callstream._json.changes import (
    ScalarSet,
    StringExtended,
    ValueClosed,
    ValueStarted,
    to_json_pointer,
)
from callstream._json.dump import strict_data, strict_text
from callstream._json.pieces import Text
from callstream._types import JSONPath
from callstream.ui._turn_state import new_id

__all__ = (
    "AGUIStateEncoder",
    "VercelDataEncoder",
    "astructured_agui_events",
    "astructured_vercel_parts",
    "structured_agui_events",
    "structured_vercel_parts",
)

Event = dict[str, Any]

_EMPTY: Final = {"object": dict, "array": list, "string": str}


def final_json(value: Any) -> Any:
    """The validated value as JSON data, by the output rule of :mod:`callstream._json.dump`
    (:func:`~callstream._json.dump.strict_data`: lone surrogates as U+FFFD, ``NaN`` and
    infinities as None, any depth): a model (a dataclass, a date ...) as pydantic writes
    it in JSON mode (``model_dump(mode="json")``), plain JSON data as it is.

    pydantic's writer refuses what only a value read without a model can hold (a model's
    value passed pydantic's JSON reader, which refuses both): nesting past about 255
    levels (``collect_structured`` reads up to ``max_depth``, 1,000 by default) and a lone
    surrogate in an object key (``json.loads`` reads a ``"\\ud800"`` escape). Such a value
    is plain JSON data already, and goes to the rule as it is. Cost: O(size of the
    value); no recursion."""
    try:
        plain = to_jsonable_python(value)
    except ValueError:  # too deep, or a key with a lone surrogate: plain JSON data
        plain = value
    return strict_data(plain)


def _check(update: Any) -> None:
    if not hasattr(update, "changes") or not hasattr(update, "done"):
        raise UsageError(
            f"expected a StructuredUpdate (from callstream.structured), got {type(update).__name__}"
        )


class AGUIStateEncoder:
    """A structured output as AG-UI state events (see the module docstring).

    Args:
        string_growth: resend a growing string once it grew by this fraction of its length.
        min_string_step: ... and by at least this many characters.
    """

    __slots__ = (
        "_sent",
        "_string",
        "_string_text",
        "min_string_step",
        "string_growth",
    )

    def __init__(self, *, string_growth: float = 0.05, min_string_step: int = 16) -> None:
        if string_growth < 0 or min_string_step < 0:
            raise UsageError("string_growth and min_string_step must be >= 0")
        self.string_growth = string_growth
        self.min_string_step = min_string_step
        self._string: JSONPath | None = None  # the open string
        self._string_text = Text()  # the open string's text so far (in blocks)
        self._sent = 0  # characters of the open string sent so far

    def feed(self, update: Any) -> list[Event]:
        """The events for one :class:`~callstream.StructuredUpdate`. Cost: O(its changes),
        plus the string resent (see the module docstring)."""
        _check(update)
        if update.done:
            return [{"type": "STATE_SNAPSHOT", "snapshot": final_json(update.value)}]
        out: list[Event] = []
        ops: list[Event] = []
        for change in update.changes:
            if type(change) is StringExtended:
                self._string_text.add(change.text)
                continue
            path = change.path
            op: str | None = "add"
            if type(change) is ValueStarted:
                value: Any = _EMPTY[change.kind]()
                if change.kind == "string":
                    self._string, self._string_text, self._sent = path, Text(), 0
                    if not path:
                        op = None  # a top-level string is sent once complete
            elif type(change) is ScalarSet:
                value = change.value
            elif type(change) is ValueClosed and path == self._string:
                value = self._string_text.value()
                op = "replace" if len(value) != self._sent or not path else None
                self._string, self._string_text = None, Text()
            else:
                continue  # a container closed: nothing changes
            if op is None:
                continue
            if path:
                ops.append(_patch(op, path, value))
            else:  # the whole value: a snapshot
                ops = _flush(ops, out)
                out.append({"type": "STATE_SNAPSHOT", "snapshot": strict_data(value)})
        self._resend_string(ops)
        _flush(ops, out)
        return out

    def _resend_string(self, ops: list[Event]) -> None:
        """The open string, still open: resend it when it grew enough."""
        string = self._string
        if not string:
            return
        grown = self._string_text.length - self._sent
        if grown and grown >= max(self.min_string_step, self.string_growth * self._sent):
            text = self._string_text.value()
            ops.append(_patch("replace", string, text))
            self._sent = len(text)


def _patch(op: str, path: JSONPath, value: Any) -> Event:
    """One JSON Patch operation, by the output rule of :mod:`callstream._json.dump` (a
    lone surrogate in the pointer or the value as U+FFFD, ``NaN`` as None), as the
    protocol's own models require. Cost: O(length of the pointer and the value)."""
    return {"op": op, "path": strict_text(to_json_pointer(path)), "value": strict_data(value)}


def _flush(ops: list[Event], out: list[Event]) -> list[Event]:
    """Append a ``STATE_DELTA`` of ``ops`` (if any) to ``out``; return a fresh list."""
    if ops:
        out.append({"type": "STATE_DELTA", "delta": ops})
        return []
    return ops


class VercelDataEncoder:
    """A structured output as Vercel AI SDK ``data-<name>`` parts (see the module
    docstring).

    Args:
        name: the part type is ``data-<name>``.
        id: the part id (one id: the client replaces the part each time); a fresh one
            by default.
        growth: send a new preview once the text grew by this fraction since the last.
    """

    __slots__ = ("_chars", "growth", "id", "name")

    def __init__(  # the protocol's word: id
        self, name: str = "object", *, id: str | None = None, growth: float = 0.05
    ) -> None:
        if not name or growth < 0:
            raise UsageError("name must be non-empty and growth >= 0")
        self.name = name
        self.id = id if id is not None else new_id("data")
        self.growth = growth
        self._chars = 0

    def feed(self, update: Any) -> list[Event]:
        """The parts for one :class:`~callstream.StructuredUpdate`: none, or one data part.
        Cost: O(1), or O(size of the preview) when a part is sent (throttled)."""
        _check(update)
        if update.done:
            return [self._part(final_json(update.value))]
        if not update.closed or update.partial is None:
            return []
        chars = update.chars
        if self._chars and chars < self._chars * (1 + self.growth):
            return []
        self._chars = chars
        return [self._part(strict_data(update.partial))]

    def _part(self, data: Any) -> Event:
        return {"type": f"data-{self.name}", "id": self.id, "data": data}


# --- whole runs ------------------------------------------------------------------------------


def _agui_error(exc: StructuredOutputError) -> Event:
    return {"type": "RUN_ERROR", "message": str(exc), "code": f"structured_output:{exc.reason}"}


def structured_agui_events(
    updates: Iterable[Any], *, thread_id: str | None = None, run_id: str | None = None
) -> Iterator[Event]:
    """A whole AG-UI run of a structured output: ``RUN_STARTED``, the state events of
    :class:`AGUIStateEncoder`, ``RUN_FINISHED`` (or ``RUN_ERROR`` on a
    :class:`~callstream.StructuredOutputError`). Cost: the encoder's."""
    thread, run = thread_id or new_id("thread"), run_id or new_id("run")
    encoder = AGUIStateEncoder()
    yield {"type": "RUN_STARTED", "threadId": thread, "runId": run}
    try:
        for update in updates:
            yield from encoder.feed(update)
    except StructuredOutputError as exc:
        yield _agui_error(exc)
        return
    yield {"type": "RUN_FINISHED", "threadId": thread, "runId": run}


async def astructured_agui_events(
    updates: AsyncIterable[Any], *, thread_id: str | None = None, run_id: str | None = None
) -> AsyncIterator[Event]:
    """Async :func:`structured_agui_events`."""
    thread, run = thread_id or new_id("thread"), run_id or new_id("run")
    encoder = AGUIStateEncoder()
    yield {"type": "RUN_STARTED", "threadId": thread, "runId": run}
    try:
        async for update in updates:
            for event in encoder.feed(update):
                yield event
    except StructuredOutputError as exc:
        yield _agui_error(exc)
        return
    yield {"type": "RUN_FINISHED", "threadId": thread, "runId": run}


def _vercel_error(exc: StructuredOutputError) -> list[Event]:
    reason = "length" if exc.reason == "length" else "error"
    return [{"type": "error", "errorText": str(exc)}, {"type": "finish", "finishReason": reason}]


def structured_vercel_parts(
    updates: Iterable[Any], *, name: str = "object", message_id: str | None = None
) -> Iterator[Event]:
    """A whole Vercel UI message stream of a structured output: ``start``, the parts of
    :class:`VercelDataEncoder`, ``finish`` (an ``error`` part and ``finish`` on a
    :class:`~callstream.StructuredOutputError`). End the framed stream with ``data:
    [DONE]``. Cost: the encoder's."""
    encoder = VercelDataEncoder(name)
    yield {"type": "start", "messageId": message_id or new_id("msg")}
    try:
        for update in updates:
            yield from encoder.feed(update)
    except StructuredOutputError as exc:
        yield from _vercel_error(exc)
        return
    yield {"type": "finish", "finishReason": "stop"}


async def astructured_vercel_parts(
    updates: AsyncIterable[Any], *, name: str = "object", message_id: str | None = None
) -> AsyncIterator[Event]:
    """Async :func:`structured_vercel_parts`."""
    encoder = VercelDataEncoder(name)
    yield {"type": "start", "messageId": message_id or new_id("msg")}
    try:
        async for update in updates:
            for part in encoder.feed(update):
                yield part
    except StructuredOutputError as exc:
        for part in _vercel_error(exc):
            yield part
        return
    yield {"type": "finish", "finishReason": "stop"}
