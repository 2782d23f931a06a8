"""Sync driver: iterate a source, feed the shared pipeline, yield its updates.

What is closed, and when: the driver closes both the iterator it took from the source
(``iter(source)``) and the source object itself when that has a ``close()`` (an
openai / anthropic ``Stream``, a generator, a file...). It does so as soon as the
iteration ends for any reason: the source is exhausted, the source raises, the
consumer calls :meth:`ToolCallStream.close` or leaves the ``with`` block (also through
an exception), or a ``for`` loop is left with ``break`` and the stream object is
dropped (CPython frees it at once; other interpreters at their next collection).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from callstream._drive import UpdateRun
from callstream._errors import UsageError
from callstream._pipeline import Pipeline
from callstream._result import StreamResult, StreamState, StreamUpdate, attach_result
from callstream.providers import Translator

__all__ = ("ToolCallStream", "collect", "stream")


def _iterator(source: Any) -> Iterator[Any]:
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        return iter((source,))  # one raw chunk holding the whole stream
    body: Any = None if isinstance(source, Iterable) else getattr(source, "iter_bytes", None)
    if callable(body):
        return iter(body())  # a streamed httpx response: its body (the response is closed)
    if isinstance(source, Mapping) or not isinstance(source, Iterable):
        hint = " (use astream / acollect)" if hasattr(source, "__aiter__") else ""
        raise UsageError(f"source must be an iterable of payloads or chunks{hint}, got {source!r}")
    return iter(source)


class ToolCallStream(StreamState, Iterator[StreamUpdate]):
    """An iterator of :class:`StreamUpdate` s over a source; see :func:`stream`.

    The state so far stays readable during and after iteration (``tool_calls``,
    ``invalid_tool_calls``, ``finish_reason``, ``result``), also after a ``break`` or an
    error. ``close()`` (or leaving a ``with`` block) closes the source object and the
    iterator taken from it.
    """

    __slots__ = ("_owner", "_pipeline", "_source", "_updates")

    def __init__(self, source: Any, provider: str | Translator, options: dict[str, Any]) -> None:
        self._pipeline = Pipeline(provider, **options)
        self._source = _iterator(source)
        self._owner = source
        self._updates = UpdateRun(self._source, source, self._pipeline)

    def __next__(self) -> StreamUpdate:
        return self._updates.next_update()

    def close(self) -> None:
        """Stop reading and close the source object and its iterator (idempotent)."""
        self._updates.close()

    def __del__(self) -> None:
        # Dropped without close() (a `break` out of a for loop): close the source now.
        updates = getattr(self, "_updates", None)  # None when __init__ raised
        if updates is not None:
            updates.close()

    def __enter__(self) -> ToolCallStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def stream(
    source: Iterable[Any], *, provider: str | Translator = "auto", **options: Any
) -> ToolCallStream:
    """Stream tool calls out of ``source``: one :class:`StreamUpdate` per payload.

    ``source`` holds payload dicts, SDK objects (pydantic models, dataclasses) or raw
    ``str`` / ``bytes`` chunks of server-sent events or NDJSON; it may also be a
    streamed ``httpx`` response (its ``iter_bytes()`` is read, and the response closed).
    ``provider="auto"`` recognizes the format from the first payloads. The last update carries the
    ``StreamFinished`` event (the stream is finished at its end if the provider never
    said so). Cost: O(total size) plus O(calls) per update. Each update's ``args`` are
    live views (see :meth:`StreamUpdate.snapshot`).

    Options: those of :class:`~callstream.ToolCallAssembler` (``max_calls``,
    ``max_argument_chars``, ``max_chars``, ``max_depth``, ``empty_args``, ``allow``,
    ``strict``, ``allow_nan``), ``max_event_chars``, the bound on one line, SSE
    event or JSON object of raw text input (see :class:`~callstream.StreamLimitError`),
    and ``reasoning`` (default False): also keep the model's reasoning / thinking text
    (``update.reasoning``, ``result.reasoning``). The assistant's text is always kept
    (``update.text``, ``result.text``).

    Closing: the source object (when it has ``close()``: an SDK ``Stream``, a
    generator) and the iterator taken from it are closed when the iteration ends, the
    source raises, :meth:`ToolCallStream.close` is called, the ``with`` block is left
    (normally or by an exception) or the stream object is dropped after a ``break``.

    When the source raises: an SDK error carrying a provider error this library reads
    (Groq ``tool_use_failed``, Anthropic ``overloaded_error`` / ``api_error``) becomes
    what the raw stream gives (an invalid call with the provider's reason, finish
    reason ``"error"``) and the stream ends normally; any other exception (a dropped
    connection) ends the stream as interrupted -- calls that had not completed become
    invalid, ``result.interrupted`` is True -- and is re-raised unchanged. Raw text past a
    transport limit ends it the same way with :class:`~callstream.StreamLimitError`, after
    the updates of every payload before the offending part (wherever the network cut).

    Raises:
        UsageError: an unknown ``provider`` or a source that is not an iterable.
        OptionTypeError, OptionValueError: an unknown option or a bad option value.
        UnknownFormatError: (while iterating) no payload identified a format.
        ConcurrentIterationError: (while iterating) two consumers at once.
    """
    return ToolCallStream(source, provider, options)


def collect(
    source: Iterable[Any], *, provider: str | Translator = "auto", **options: Any
) -> StreamResult:
    """Read a whole stream and return its :class:`StreamResult` (see :func:`stream`).

    If the source raises (other than a provider error it understands, see
    :func:`stream`), the exception propagates unchanged, carrying the partial result
    as ``exc.callstream_result`` (``interrupted=True``) and a note saying so (unless
    the exception object refuses attributes); so does a
    :class:`~callstream.StreamLimitError` of raw text.

    Cost: that of :func:`stream` without building an update or reading the calls per
    payload: the same driver loop over a quiet pipeline (``Pipeline.quiet()``); the
    result is the one draining :func:`stream` gives.
    """
    with stream(source, provider=provider, **options) as drained:
        drained._pipeline.quiet()  # nobody reads the updates: build none (see Pipeline.quiet)
        try:
            for _ in drained:  # the same driver loop as stream(); it yields nothing
                pass
        except Exception as exc:
            if drained.result.interrupted:
                attach_result(exc, drained.result)
            raise
        return drained.result
