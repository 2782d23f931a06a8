"""Structured output over a provider stream, sync: :func:`structured`,
:func:`collect_structured`, :class:`StructuredStream`, and what both drivers give
(:class:`StructuredUpdate`, :class:`StructuredResult`, the shared steps in
:class:`StructuredRun`).

The stream is read by the tool-call driver (:func:`callstream.stream`): its updates carry
the assistant's text of every provider format (reasoning apart, and left out). That text
is fed to a :class:`~callstream.partial.StructuredParser`; each stream update becomes one
:class:`StructuredUpdate`; once the source is exhausted, one more update carries the
final, validated value (``done``), or the iteration raises
:class:`~callstream.StructuredOutputError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from callstream._errors import StructuredOutputError
from callstream._json.changes import Change
from callstream._result import StreamResult, StreamUpdate
from callstream._sync import ToolCallStream
from callstream._types import JSONPath
from callstream.partial import Extract, StructuredParser
from callstream.providers import Translator

__all__ = (
    "StructuredResult",
    "StructuredRun",
    "StructuredStream",
    "StructuredUpdate",
    "collect_structured",
    "structured",
)

_JSON_OPTIONS: Final = ("max_chars", "max_depth")
"""Stream options that bound the JSON text too (as they bound tool-call arguments)."""


class StructuredUpdate:
    """What one stream update did to the structured output.

    Attributes:
        value: the partial object so far (a live view, updated in place by later
            updates; see :class:`~callstream.partial.StructuredParser`), the final
            validated value in the last update (``done``); None before the value began.
        partial: the JSON preview so far (plain data, a live view); None before it began.
        closed: the paths of the values this update completed (``()``: the whole value),
            so a UI knows which parts are final.
        changes: the JSON parser's changes this update made to :attr:`partial` (values
            started, strings extended, scalars set, values closed), in order: what a UI
            applies to its own copy (see :mod:`callstream.ui`).
        delta: the text this update added (``""`` for none).
        done: True in the last update only, which carries the final, validated value.
        update: the stream update this one comes from (payload, finish reason, tool-call
            events); None for the last update.
    """

    __slots__ = (
        "_parser",
        "changes",
        "chars",
        "closed",
        "delta",
        "done",
        "partial",
        "update",
        "value",
    )

    def __init__(  # noqa: PLR0917 - one per attribute
        self,
        parser: StructuredParser,
        value: Any,
        partial: Any,
        closed: tuple[JSONPath, ...],
        delta: str,
        done: bool,
        update: StreamUpdate | None,
    ) -> None:
        self._parser = parser
        self.chars = parser.chars
        self.value = value
        self.partial = partial
        self.closed = closed
        self.changes: tuple[Change, ...] = () if done else tuple(parser.changes)
        self.delta = delta
        self.done = done
        self.update = update

    @property
    def text(self) -> str:
        """The whole text up to this update. Cost: O(its length) (join and slice): read
        it when needed, use :attr:`delta` per update."""
        return self._parser.text[: self.chars]

    def __repr__(self) -> str:
        return (
            f"StructuredUpdate(value={self.value!r}, closed={self.closed!r}, "
            f"delta={self.delta!r}, done={self.done!r})"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class StructuredResult:
    """A structured output read whole.

    Attributes:
        value: the validated value (plain JSON data without a model).
        text: the whole text the model wrote.
        json_text: the text of the JSON value (what ``extract`` kept).
        finish_reason: the stream's finish reason.
        stream: the :class:`~callstream.StreamResult` of the stream (tool calls, reasoning
            with ``reasoning=True``, the provider ...).
    """

    value: Any
    text: str
    json_text: str
    finish_reason: str | None
    stream: StreamResult


class StructuredRun:
    """The steps both drivers share: an update per stream update, the verdict at the end."""

    __slots__ = ("error", "finished", "parser", "result")

    def __init__(
        self, schema: Any, extract: Extract, options: dict[str, Any], previews: bool
    ) -> None:
        limits = {name: options[name] for name in _JSON_OPTIONS if name in options}
        self.parser = StructuredParser(schema, extract=extract, previews=previews, **limits)
        self.finished = False
        self.error: StructuredOutputError | None = None
        self.result: StructuredResult | None = None

    def step(self, update: StreamUpdate) -> StructuredUpdate:
        """One stream update read. Raises StructuredOutputError (not JSON)."""
        parser = self.parser
        delta = update.text
        try:
            closed = parser.feed(delta)
        except StructuredOutputError as exc:
            self.finished = True
            self.error = exc
            raise
        return StructuredUpdate(
            parser, parser.value, parser.partial, tuple(closed), delta, False, update
        )

    def interrupted(self, stream: StreamResult) -> None:
        """The source raised: read the text the stream kept that no update carried (the
        payloads held while the format was being recognized), so that the partial object
        and the text are those of everything that arrived. Never raises."""
        self.finished = True
        missing = stream.text[self.parser.chars :]
        if missing:
            with contextlib.suppress(StructuredOutputError):
                self.parser.feed(missing)

    def finish(self, stream: StreamResult) -> StructuredUpdate:
        """The source is exhausted: the last update, with the validated value.

        Raises:
            StructuredOutputError: no valid value (see ``StructuredParser.close``).
        """
        self.finished = True
        parser = self.parser
        try:
            value = parser.close(stream.finish_reason, stream.provider_error)
        except StructuredOutputError as exc:
            self.error = exc
            raise
        self.result = StructuredResult(
            value=value,
            text=parser.text,
            json_text=parser.json_text,
            finish_reason=stream.finish_reason,
            stream=stream,
        )
        return StructuredUpdate(parser, value, parser.partial, ((),), "", True, None)


class StructuredView:
    """The state views of both structured streams (readable at any time)."""

    __slots__ = ()

    _run: StructuredRun
    _stream: Any

    @property
    def value(self) -> Any:
        """The partial object so far; the validated value once the stream is done."""
        return self._run.parser.value

    @property
    def partial(self) -> Any:
        """The JSON preview so far (plain data)."""
        return self._run.parser.partial

    @property
    def text(self) -> str:
        """The whole text so far."""
        return self._run.parser.text

    @property
    def result(self) -> StructuredResult | None:
        """The result once the last update was read (None before, and after an error)."""
        return self._run.result

    @property
    def error(self) -> StructuredOutputError | None:
        """The error the iteration raised, if it did."""
        return self._run.error

    @property
    def stream_result(self) -> StreamResult:
        """The stream's own result so far (tool calls, finish reason, reasoning ...)."""
        result: StreamResult = self._stream.result
        return result


class StructuredStream(StructuredView, Iterator[StructuredUpdate]):
    """An iterator of :class:`StructuredUpdate` s; see :func:`structured`."""

    __slots__ = ("_run", "_stream")

    def __init__(
        self,
        source: Any,
        schema: Any,
        provider: str | Translator,
        extract: Extract,
        options: dict[str, Any],
        *,
        previews: bool = True,
    ) -> None:
        self._run = StructuredRun(schema, extract, options, previews)
        self._stream = ToolCallStream(source, provider, options)

    def __next__(self) -> StructuredUpdate:
        run = self._run
        if run.finished:
            raise StopIteration
        try:
            update = next(self._stream)
        except StopIteration:
            return run.finish(self._stream.result)
        except Exception:
            run.interrupted(self._stream.result)
            raise
        try:
            return run.step(update)
        except StructuredOutputError:
            self._stream.close()
            raise

    def close(self) -> None:
        """Stop reading and close the source (idempotent)."""
        self._run.finished = True
        self._stream.close()

    def __enter__(self) -> StructuredStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def structured(
    source: Iterable[Any],
    schema: Any = None,
    *,
    provider: str | Translator = "auto",
    extract: Extract = "json",
    **options: Any,
) -> StructuredStream:
    """Stream a structured output: the JSON a model writes as text, as a partial object.

    ``source`` is any stream :func:`callstream.stream` reads (SDK streams, payload dicts,
    raw bytes or text, LangChain chunks and content-block events); the assistant's text
    deltas are the JSON (reasoning is ignored). ``schema``: a pydantic model, any type a
    ``TypeAdapter`` takes, a ``TypeAdapter``, a JSON-schema dict (plain data, not
    validated) or None. ``extract``: ``"json"`` (the text is the value), ``"fenced"``
    (it may sit in a Markdown code fence) or ``"prose"`` (the first ``{`` or ``[`` begins
    it; text around it is ignored); see :mod:`callstream.partial`. ``options`` are
    :func:`callstream.stream`'s; ``max_chars`` and ``max_depth`` also bound the JSON.

    Yields one :class:`StructuredUpdate` per stream update (the partial object, the
    paths completed, the text added), then one with ``done`` and the final value,
    validated once from the exact JSON text (``Model.model_validate_json``). The partial
    object shows a string as it grows, a number, literal or enum value only once
    complete, a key with its value, a field as None until it arrives, and a value that
    closed validated with its real type (a model's validators run once its object is
    complete, never on a part of it; a failure is "not valid yet", not an error).

    Raises (while iterating):
        StructuredOutputError: at the end, no valid value: the token limit cut it
            (``reason="length"``), the text ended early, the provider reported an
            error, or validation failed (pydantic's message and ``errors``); at once,
            the text is not JSON. The text and the partial object are on the error and
            on the stream object (``value``, ``partial``, ``text``).
        anything the source raises, as :func:`callstream.stream` does.

    Cost: :func:`callstream.stream`'s, plus O(text) for the JSON and the validation of
    each value as it closes (linear in total: see
    :data:`~callstream.partial.VALIDATION_WORK_FACTOR`).
    """
    return StructuredStream(source, schema, provider, extract, options)


def collect_structured(
    source: Iterable[Any],
    schema: Any = None,
    *,
    provider: str | Translator = "auto",
    extract: Extract = "json",
    **options: Any,
) -> StructuredResult:
    """Read a whole structured output and return its :class:`StructuredResult`.

    The same reading as :func:`structured` (same errors), without building the partial
    object: only the final value is validated. Cost: O(text) plus one validation.
    """
    with StructuredStream(source, schema, provider, extract, options, previews=False) as drained:
        for _ in drained:
            pass
        result = drained.result
        assert result is not None  # the loop ended without an error
        return result
