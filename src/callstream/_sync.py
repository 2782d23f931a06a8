"""Sync driver: :func:`stream`, :func:`collect` and :class:`ToolCallStream`, and the state
views both drivers' stream objects offer (:class:`StreamState`).

The loop, and when the source is closed: :class:`~callstream._drive.UpdateRun`; what is
read from the source and how it is closed: :mod:`callstream._sources`. A ``for`` loop left
with ``break`` closes the source when the stream object is dropped (CPython frees it at
once; other interpreters at their next collection). The loop is in its own module because
it is compiled and this face is not (see :mod:`callstream._drive`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from callstream._assembly.types import InvalidToolCall, ServerToolCall, ToolCall
from callstream._drive import UpdateRun
from callstream._pipeline import Pipeline
from callstream._result import StreamResult, StreamUpdate, attach_result
from callstream.providers import Translator

__all__ = ("StreamState", "ToolCallStream", "collect", "stream")


class StreamState:
    """The state views both drivers' stream objects offer, read from their pipeline.

    Readable at any time, also after the iteration was closed or cancelled.
    """

    __slots__ = ()  # the driver classes are slotted; keep their instances free of __dict__

    _pipeline: Pipeline

    @property
    def result(self) -> StreamResult:
        """The result so far (final once the iteration ended)."""
        return self._pipeline.result()

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls so far (valid and final once the iteration ended)."""
        return self._pipeline.assembler.tool_calls

    @property
    def invalid_tool_calls(self) -> list[InvalidToolCall]:
        """The invalid tool calls so far."""
        return self._pipeline.assembler.invalid_tool_calls

    @property
    def server_tool_calls(self) -> list[ServerToolCall]:
        """The server-side tool calls so far (run by the provider, not by you)."""
        return self._pipeline.assembler.server_tool_calls

    @property
    def call_extras(self) -> dict[str, dict[str, Any]]:
        """Facts about calls beyond LangChain's keys, by call id (see
        :attr:`StreamResult.call_extras`)."""
        return self._pipeline.assembler.call_extras

    @property
    def finish_reason(self) -> str | None:
        """The finish reason, once the stream finished (see :class:`StreamResult`)."""
        return self._pipeline.assembler.finish_reason

    @property
    def provider_finish_reason(self) -> str | None:
        """The provider's own word for the finish reason, once the stream finished."""
        return self._pipeline.assembler.provider_finish_reason

    @property
    def provider_error(self) -> str | None:
        """The provider's message when it ended the stream with an error (see
        :class:`StreamResult`)."""
        return self._pipeline.assembler.provider_error


class ToolCallStream(StreamState, Iterator[StreamUpdate]):
    """An iterator of :class:`StreamUpdate` s over a source; see :func:`stream`.

    The state so far stays readable during and after iteration (``tool_calls``,
    ``invalid_tool_calls``, ``finish_reason``, ``result``), also after a ``break`` or an
    error. ``close()`` (or leaving a ``with`` block) closes the source object and the
    iterator taken from it.
    """

    __slots__ = ("_pipeline", "_updates")

    def __init__(self, source: Any, provider: str | Translator, options: dict[str, Any]) -> None:
        self._pipeline = Pipeline(provider, **options)
        self._updates = UpdateRun(source, self._pipeline)

    def __next__(self) -> StreamUpdate:
        return next(self._updates)

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
    (``update.text``, ``result.text``). ``tool_parser`` (a family name such as
    ``"hermes"``, or ``"auto"``) reads the calls an open-weight model writes in its text
    (with ``tools`` and ``prefill``; :mod:`callstream.tool_parsers`, the open-weight
    models guide).

    Closing: the source object (when it has ``close()``: an SDK ``Stream``, a
    generator) and the iterator taken from it are closed when the iteration ends, the
    source raises, :meth:`ToolCallStream.close` is called, the ``with`` block is left
    (normally or by an exception) or the stream object is dropped after a ``break``.

    When the source raises: an SDK error carrying a provider error this library reads
    (Groq ``tool_use_failed``, Anthropic ``overloaded_error`` / ``api_error``) becomes
    what the raw stream gives (an invalid call with the provider's reason, finish
    reason ``"error"``) and the stream ends normally; any other exception ends the
    stream -- calls that had not completed become invalid, ``result.finished`` is False
    -- and is re-raised unchanged; ``result.interrupted`` is True when it is an
    interruption (a dropped connection, a timeout: the list is in
    :mod:`callstream._result`), False when code failed (a bug in your generator). Raw
    text past a transport limit ends it as interrupted with
    :class:`~callstream.StreamLimitError`, after the updates of every payload before the
    offending part (wherever the network cut).

    Raises:
        UsageError: an unknown ``provider`` or a source that is not an iterable.
        OptionTypeError, OptionValueError: an unknown option or a bad option value.
        UnknownFormatError: (while iterating) no payload identified a format, or the
            format named (or recognized) does not read the stream (the partial result
            rides on it: see the reading guide).
        ConcurrentIterationError: (while iterating) two consumers at once.
    """
    return ToolCallStream(source, provider, options)


def collect(
    source: Iterable[Any], *, provider: str | Translator = "auto", **options: Any
) -> StreamResult:
    """Read a whole stream and return its :class:`StreamResult` (see :func:`stream`).

    If the source raises (other than a provider error it understands, see
    :func:`stream`), the exception propagates unchanged, carrying the partial result
    as ``exc.callstream_result`` (unless the exception object refuses attributes); an
    interruption (``result.interrupted``) also gets a note saying so, an exception of
    code does not. So does a :class:`~callstream.StreamLimitError` of raw text.

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
            if drained._pipeline.failed:  # the exception ended the stream
                attach_result(exc, drained.result)
            raise
        return drained.result
