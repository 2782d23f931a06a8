"""The pure per-item pipeline both drivers share: source item -> payloads -> signals -> events.

Theory of operation. A driver hands every item it takes from the source to
:meth:`Pipeline.feed` and, when the source is exhausted, calls :meth:`Pipeline.close`;
both return :class:`StreamUpdate` s to yield (none once :meth:`Pipeline.quiet`: the
``collect()`` path, which reads only the result). An item is either a raw transport chunk
(``str`` / bytes: decoded incrementally into payloads, SSE or JSON found automatically)
or a payload (a dict or an SDK object). Each payload goes through the provider's
translator (signals) and the assembler (events), and becomes exactly one update, so a
consumer also sees payloads that changed no tool call. The text the model wrote
(:class:`~callstream.TextDelta` signals) skips the assembler: it rides on the payload's
update (``text``; ``reasoning`` only when the pipeline was made with ``reasoning=True``)
and is kept for the result as text (in blocks of pieces: :mod:`callstream._json.pieces`),
joined whole when :meth:`Pipeline.result` is read.

With ``provider="auto"`` payloads are held back until the format is known; then the
held payloads are translated in order. A payload's shape is only a guess (one stray
``{"type": "message_start"}`` looks like Anthropic), so the format is chosen on
evidence: a payload with a tool-call or end-of-stream field of a format (see
:func:`~callstream.providers.has_evidence`), or :data:`MIN_VOTES` payloads shaped like
the same format; at :meth:`close` (or past :data:`MAX_UNRECOGNIZED` held payloads) the
format most payloads looked like.

The foreign-payload rule. Once the format is known, named (``provider="openai-chat"``)
or chosen by ``"auto"``, a payload that gives no signal and carries no field of the
format (:func:`~callstream.providers.recognizes`) is *foreign*; a payload the format
ignores on purpose is not (a keep-alive ``ping``, a usage-only chunk, an event type
added later: they have its fields; ``[DONE]`` and comments are no payloads). The stream
is not of that format, and :class:`~callstream.UnknownFormatError` is raised, when more
than :data:`MAX_MISMATCHED` foreign payloads come in a row, or when it ends after
payloads of which none was of the format. The message
names the format the foreign payloads look like, when detection recognizes one ("the
payloads look like 'anthropic'; pass provider='anthropic' or 'auto'"). The error carries
the partial result, as a transport limit error does (the stream ends as interrupted
first, see :meth:`interrupt`). Checked only for payloads that gave no signal: O(1) each,
plus a detection (a few field reads per format) for each of the at most
``MAX_MISMATCHED + 1`` foreign payloads before any of the format. A translator object
of your own is never checked (its fields are unknown).

:meth:`close` flushes the transport, raises ``UnknownFormatError`` if payloads were seen
but none looked like a format (``"auto"``), if raw text held no payload but dropped
undecodable text (a blank or empty stream, or one of only comments and ``[DONE]``, is
fine), or by the foreign-payload rule, and finishes the assembler if no ``StreamEnd``
arrived, so every stream ends with a ``StreamFinished`` event. Signals a translator
produces after the end of the stream are ignored (a usage chunk, a second stop event).

When the source itself fails, a driver hands the exception to :meth:`Pipeline.recover`
first: an SDK exception carrying a provider error body this library understands (Groq's
``tool_use_failed``, an Anthropic mid-stream ``error`` event) is fed through the same
translator as the raw-bytes path, so both paths give the same result, and the stream
ends normally. Any other exception goes to :meth:`Pipeline.interrupt`, which ends the
assembler honestly (calls that had not completed become invalid) before the driver
re-raises it unchanged; the result is ``interrupted`` only when the exception is an
interruption (:func:`~callstream._result.is_interruption`: a dropped connection, a
transport limit), not when code failed.

No I/O, no ``async``: the sync and async drivers are thin loops around this class, so
they cannot drift apart. The update type is in :mod:`callstream._update`, the result
type in :mod:`callstream._result`; reading an SDK exception's provider error is
:mod:`callstream.providers._provider_errors`.
Cost per payload: the translator's O(payload) plus the assembler's O(fragment), plus
building the update, which reads the assembler's views (O(1) when unchanged; a quiet
pipeline does neither).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import AssemblyEvent, CallChunk, Signal, TextDelta
from callstream._errors import (
    OptionTypeError,
    UnknownFormatError,
    UsageError,
)
from callstream._json.pieces import Text
from callstream._result import StreamResult, StreamUpdate, failure_cause, is_interruption
from callstream._text_calls import TextCalls, text_calls
from callstream.providers import (
    Translator,
    detect_format,
    get_translator,
    has_evidence,
    recognizes,
    resolve_format,
)
from callstream.providers._provider_errors import error_signals, provider_error_payload
from callstream.providers.transport import (
    DEFAULT_MAX_EVENT_CHARS,
    STREAM_ERRORS,
    StreamError,
    TransportDecoder,
    TransportMessage,
    check_max_event_chars,
    is_transport_chunk,
)

if TYPE_CHECKING:
    from callstream._argtypes import BoolArg, IntArg, OptStrArg

__all__ = (
    "MAX_MISMATCHED",
    "MAX_UNRECOGNIZED",
    "MAX_UNRECOGNIZED_OBJECTS",
    "MIN_VOTES",
    "Pipeline",
    "StreamResult",
    "StreamUpdate",
)

MAX_UNRECOGNIZED: Final = 64
"""Payloads held back by ``provider="auto"`` before giving up on recognizing the format."""

MAX_UNRECOGNIZED_OBJECTS: Final = 8
"""SDK objects (not dicts) held back, none of a known shape, before giving up: a stream
of objects is recognized from its first payloads or never, so it fails fast."""

MIN_VOTES: Final = 3
"""Payloads shaped like one format that choose it without evidence (text-only streams)."""

MAX_MISMATCHED: Final = 16
"""Consecutive foreign payloads (no signal, no field of the format read) tolerated; one
more raises (see the module docstring, "the foreign-payload rule")."""


def _normalize(message: TransportMessage) -> Any:
    """An SSE ``event: error`` whose data lacks an ``error`` field is wrapped in one."""
    payload = message.payload
    if message.event == "error" and isinstance(payload, Mapping) and "error" not in payload:
        return {"error": dict(payload)}
    return payload


_ASSEMBLER_OPTIONS: Final = (
    "allow",
    "strict",
    "allow_nan",
    "max_depth",
    "max_calls",
    "max_argument_chars",
    "max_chars",
    "empty_args",
)
"""The keyword options of :class:`ToolCallAssembler`, in its signature's order, written
out (no signature to read when compiled: ``docs/design.md``, "Compiled build")."""


def _describe(payload: Any) -> str:
    if isinstance(payload, Mapping):
        keys = ", ".join(repr(k) for k in list(payload)[:8])
        return f"a dict with keys {keys}" if keys else "an empty dict"
    return f"a {type(payload).__module__}.{type(payload).__qualname__} object"


class Pipeline:
    """One stream's translator, transport decoder and assembler, driven item by item."""

    __slots__ = (
        "_assembler",
        "_closed",
        "_failed",
        "_foreign",
        "_format",
        "_held",
        "_interrupted",
        "_looks_like",
        "_matched",
        "_max_event_chars",
        "_misses",
        "_pending",
        "_quiet",
        "_reasoning",
        "_reasoning_text",
        "_seen",
        "_text",
        "_text_calls",
        "_translate_payload",
        "_translator",
        "_transport",
        "_votes",
    )

    def __init__(
        self,
        provider: str | Translator = "auto",
        *,
        max_event_chars: IntArg = DEFAULT_MAX_EVENT_CHARS,
        reasoning: BoolArg = False,
        tool_parser: Any = None,
        tools: Any = None,
        prefill: OptStrArg = None,
        **assembler_options: Any,
    ) -> None:
        """Set up for one stream.

        Args:
            provider: ``"auto"``, a format name or alias (see ``callstream.providers``),
                or a translator object of your own.
            max_event_chars: bound on one line, one SSE event's data and one JSON object
                of raw text input (default 32 Mi characters); past it the stream raises
                :class:`~callstream.StreamLimitError`. Decoded payloads are not affected.
            reasoning: keep the reasoning / thinking text the model streams (on
                :attr:`StreamUpdate.reasoning` and :attr:`StreamResult.reasoning`);
                by default it is dropped and only the assistant's text is kept.
            tool_parser: read the calls the model wrote in its text
                (:mod:`callstream.tool_parsers`): a family name, ``"auto"``, or a
                ``ToolParser`` object; None (the default): text is text.
            tools: the tools offered to the model, for the tool parser (names checked,
                raw values typed by their schema).
            prefill: the generation prompt as the chat template renders it, for the
                tool parser (the state it leaves; never reported).
            **assembler_options: passed to :class:`~callstream.ToolCallAssembler`.

        Raises:
            UsageError: an unknown format name, or an unusable ``provider`` object.
            OptionTypeError: an unknown assembler option (or one of a wrong type), or a
                ``reasoning`` that is not a bool.
            OptionValueError: an assembler option out of its range (raised by the
                assembler, passed on unchanged).
        """
        unknown = [name for name in assembler_options if name not in _ASSEMBLER_OPTIONS]
        if unknown:
            raise OptionTypeError(
                f"unknown option {unknown[0]!r}; the options are provider, "
                "max_event_chars, reasoning, tool_parser, tools, prefill and "
                + ", ".join(_ASSEMBLER_OPTIONS)
            )
        if type(reasoning) is not bool:
            raise OptionTypeError(f"reasoning must be a bool, got {reasoning!r}")
        self._max_event_chars = check_max_event_chars(max_event_chars)
        self._reasoning = reasoning
        self._assembler = ToolCallAssembler(**assembler_options)
        self._text_calls: TextCalls | None = text_calls(tool_parser, tools, prefill)
        self._translator: Translator | None = None
        # the format read, checked for foreign payloads: named, or chosen by "auto"
        self._format: str | None = None
        if isinstance(provider, str):
            if provider.strip().lower() != "auto":
                self._translator = get_translator(provider)
                self._format = resolve_format(provider)
        elif callable(getattr(provider, "translate", None)):
            self._translator = provider
        else:
            raise UsageError(
                f"provider must be 'auto', a format name or a translator, got {provider!r}"
            )
        # the bound method, looked up once (a translator is any object with translate())
        self._translate_payload: Callable[[Any], list[Signal]] | None = (
            None if self._translator is None else self._translator.translate
        )
        self._transport: TransportDecoder | None = None
        # raised by raise_held()
        self._held: StreamError | None = None
        self._pending: list[Any] = []
        self._votes: dict[str, int] = {}  # format -> held payloads shaped like it
        self._misses = 0  # foreign payloads in a row
        self._matched = False  # whether a payload was of the format
        self._foreign: Any = None  # the first payload, when it is foreign
        self._looks_like: str | None = None  # the format it (or a later one) looks like
        self._seen = False  # whether a payload went through _payloads (raw text, or "auto")
        self._closed = False
        self._failed = False  # ended by an exception (interrupt())
        self._interrupted = False  # ... that is an interruption
        self._quiet = False  # build no updates (see quiet())
        # the whole text so far (kept in blocks: _json/pieces.py); reasoning only with
        # reasoning=True
        self._text = Text()
        self._reasoning_text = Text()

    def quiet(self) -> Pipeline:
        """Build no :class:`StreamUpdate` from now on; returns this pipeline.

        For a consumer that reads only :meth:`result` (``collect()``): :meth:`feed`,
        :meth:`close`, :meth:`recover` and :meth:`interrupt` then return empty lists
        (``recover`` still None when it recovers nothing), and the assembler's views are
        not read per payload. Everything else is unchanged: detection, transport
        decoding and its limits, the errors raised, recovery, the final result. Saves
        building one update and reading the views per payload; irreversible.
        """
        self._quiet = True
        return self

    @property
    def assembler(self) -> ToolCallAssembler:
        """The assembler (read its views; feeding it directly bypasses the pipeline)."""
        return self._assembler

    @property
    def provider(self) -> str | None:
        """The format name in use, None until ``provider="auto"`` recognized one."""
        if self._translator is None:
            return None
        name = getattr(self._translator, "name", None)
        return name if isinstance(name, str) else type(self._translator).__name__

    def result(self) -> StreamResult:
        """The result so far (final once :meth:`close` ran).

        Cost: reading the views, plus joining the text (and reasoning) that arrived since
        the last call, once: the joined text is kept, so reading the result after every
        payload of a stream whose text does not change costs O(1) for it (a stream that
        adds text between two reads pays one copy of the text for the new string).
        """
        assembler = self._assembler
        return StreamResult(
            tool_calls=assembler.tool_calls,
            invalid_tool_calls=assembler.invalid_tool_calls,
            finish_reason=assembler.finish_reason,
            provider=self.provider,
            finished=self._closed and not self._failed,
            server_tool_calls=assembler.server_tool_calls,
            interrupted=self._interrupted,
            provider_finish_reason=assembler.provider_finish_reason,
            text=self._text.value(),
            reasoning=self._reasoning_text.value(),
            provider_error=assembler.provider_error,
            call_extras=assembler.call_extras,
        )

    def recover(self, exc: BaseException) -> list[StreamUpdate] | None:
        """The source raised ``exc``: end the stream from the provider error it carries.

        When ``exc`` carries a provider error body this library understands (see
        :func:`provider_error_payload`), that payload is fed like any other and the
        pipeline is closed: returns the updates (the driver ends normally, as the raw
        bytes path would). Otherwise returns None and changes nothing.

        Raises:
            UsageError: the pipeline was closed.
            UnknownFormatError: as :meth:`close`.
        """
        if self._closed:
            raise UsageError("recover() after the stream ended")
        payload = provider_error_payload(exc)
        if payload is None:
            return None
        updates: list[StreamUpdate] = []
        if self._translator is None and self._votes:
            self._commit(self._likeliest(), updates)  # held payloads, in their own format
        self._misses = 0  # the error is read whatever came before it (see _foreign_error)
        updates += self.feed(payload)
        if not self._assembler.finished:  # the format has no error events (LangChain chunks)
            self._foreign_error(payload, updates)
        return updates + self.close()

    def _foreign_error(self, payload: Mapping[str, Any], out: list[StreamUpdate]) -> None:
        """Apply a provider error the chosen translator ignored (LangChain message chunks
        carry none): its own provider's signals (:func:`error_signals`), which end the
        stream with reason ``"error"`` (open calls get their verdict: incomplete
        arguments are invalid). The error was read, so it is no foreign payload.
        Cost: O(size of the error)."""
        self._misses = 0
        self._matched = True
        events: list[AssemblyEvent] = []
        for signal in error_signals(payload):
            events += self._assembler.apply(signal)
        self._emit(out, events, payload)

    @property
    def failed(self) -> bool:
        """Whether the stream was ended by an exception (:meth:`interrupt` ran), an
        interruption or not: the partial result then rides on it (``collect()``)."""
        return self._failed

    def interrupt(self, exc: BaseException | str) -> list[StreamUpdate]:
        """The source failed mid-stream: end the assembler honestly, without its end.

        Calls whose arguments had not completed become invalid ("the stream was
        interrupted before the call completed (<cause>)"); complete ones keep their
        verdict. The result is then ``finished=False``, and ``interrupted=True`` when
        ``exc`` is an interruption (a ``str`` cause is one; see
        :func:`~callstream._result.is_interruption`). Any other exception is code
        failing: the cause says "the source raised <exception>" and ``interrupted``
        stays False. Payloads
        ``provider="auto"`` held back while the format was open are read first, in the
        format most of them looked like (as :meth:`close` does: they arrived, so they are
        in the partial result); an incomplete transport line and payloads of no known
        shape are dropped. Returns the updates of those payloads and the one holding the
        interruption's events (none for it if the assembler had already finished).
        Cost: O(number of calls), plus translating the held payloads.

        Raises:
            UsageError: the stream already ended.
        """
        if self._closed:
            raise UsageError("interrupt() after the stream ended")
        updates: list[StreamUpdate] = []
        if self._translator is None and self._votes:
            # unchecked: a run of foreign payloads must not hide ``exc`` behind an error
            self._commit(self._likeliest(), updates, checked=False)
        interruption = isinstance(exc, str) or is_interruption(exc)
        self._closed = self._failed = True
        self._interrupted = interruption
        if self._assembler.finished:
            return updates
        if self._text_calls is not None:  # the text held back, the call cut
            self._apply(self._text_calls.close(interrupted=True), None, updates)
        self._emit(updates, self._assembler.interrupt(failure_cause(exc)), None)
        return updates

    def feed(self, item: Any) -> list[StreamUpdate]:
        """Take one item from the source; return one update per payload it completed.

        A raw chunk past a transport limit (see :class:`~callstream.StreamLimitError`), or
        whose framing is broken (:class:`~callstream.MalformedStreamError`), still gives the
        updates of the payloads it completed before the offending line, event, object or
        message; the error is then held for :meth:`raise_held` (which a driver
        calls before reading the next item; the next ``feed`` / ``close`` calls it too),
        so neither the updates nor the result depend on where the network cut.

        Raises:
            StreamLimitError: a raw chunk past a limit with no payload before it, or the
                error held from the last call; the stream ends as interrupted first.
            MalformedStreamError: the same, for a raw chunk whose framing is broken.
            UnknownFormatError: ``provider="auto"`` held back too many unrecognized payloads.
            UsageError: the pipeline was closed.
        """
        if self._held is not None:  # raise_held() only when it raises (see views.parsed)
            self.raise_held()
        if self._closed:
            raise UsageError("feed() after close(): this stream is over")
        updates: list[StreamUpdate] = []
        if type(item) is not dict and is_transport_chunk(item):
            transport = self._transport
            if transport is None:
                transport = self._transport = TransportDecoder(
                    max_event_chars=self._max_event_chars
                )
            try:
                messages = transport.feed(item)
            except STREAM_ERRORS as exc:
                self.interrupt(exc)
                raise
            self._payloads([_normalize(m) for m in messages], updates)
            self._held = transport.error
        elif self._translator is not None:  # the common case: one payload, format known
            self._translate(item, updates)
        else:
            self._payloads([item], updates)
        return updates

    def close(self) -> list[StreamUpdate]:
        """End of the source: flush, check the format was found, finish the assembler.

        Raises:
            UnknownFormatError: payloads arrived but none looked like a format, raw text
                held no payload, or none of the payloads was of the format read (the
                foreign-payload rule of the module docstring; the stream ends as
                interrupted first).
            StreamLimitError: the raw text's last event is over a limit, or the error held
                from the last :meth:`feed`; the stream ends as interrupted first.
            UsageError: called twice.
        """
        self.raise_held()
        if self._closed:
            raise UsageError("close() was already called")
        updates: list[StreamUpdate] = []
        transport = self._transport
        if transport is not None:
            try:
                messages = transport.close()
            except STREAM_ERRORS as exc:
                self.interrupt(exc)
                raise
            self._payloads([_normalize(m) for m in messages], updates)
        if self._translator is None and self._pending:
            if not self._votes:
                self._closed = True
                raise self._unknown()
            self._commit(self._likeliest(), updates)
        if transport is not None and transport.dropped and not self._seen:
            self._closed = True
            raise UnknownFormatError(
                "the raw text decoded to no payload: it is neither server-sent events with"
                " JSON data nor a stream of JSON objects (a line iterator whose lines lost"
                " their line ends is read too; see callstream.providers.transport)"
            )
        if self._misses and not self._matched:
            raise self._not_of_format(None, ended=True)
        self._closed = True
        if self._text_calls is not None and not self._assembler.finished:
            self._apply(self._text_calls.close(), None, updates)
        if not self._assembler.finished:
            self._emit(updates, self._assembler.finish(None), None)
        return updates

    def raise_held(self) -> None:
        """Raise the :class:`~callstream.StreamLimitError` (or
        :class:`~callstream.MalformedStreamError`) the last :meth:`feed` held back,
        after ending the stream as :meth:`interrupt` does (the partial result names the
        error); does nothing when none is held. Cost: O(1), O(number of calls) when it
        raises.
        """
        error = self._held
        if error is not None:
            self._held = None
            if not self._closed:
                self.interrupt(error)
            raise error

    def _payloads(self, payloads: list[Any], out: list[StreamUpdate]) -> None:
        """Take decoded payloads in order; their updates go to ``out``."""
        for payload in payloads:
            self._seen = True
            if self._translator is None:
                self._detect(payload, out)
            else:
                self._translate(payload, out)

    def _detect(self, payload: Any, out: list[StreamUpdate]) -> None:
        """Hold ``payload`` back; once the evidence names a format, translate all held.

        Raises:
            UnknownFormatError: too many payloads held and none looked like any format.
        """
        pending = self._pending
        pending.append(payload)
        name = detect_format(payload)
        if name is not None:
            votes = self._votes[name] = self._votes.get(name, 0) + 1
            if votes >= MIN_VOTES or has_evidence(name, payload):
                self._commit(name, out)
                return
        if len(pending) > MAX_UNRECOGNIZED or (
            not self._votes
            and not isinstance(payload, Mapping)
            and len(pending) >= MAX_UNRECOGNIZED_OBJECTS
        ):
            if not self._votes:
                raise self._unknown()
            self._commit(self._likeliest(), out)

    def _likeliest(self) -> str:
        """The format most held payloads looked like (on a tie, the one seen last)."""
        return max(reversed(self._votes.items()), key=lambda item: item[1])[0]

    def _commit(self, name: str, out: list[StreamUpdate], *, checked: bool = True) -> None:
        """Read the stream as ``name`` from now on; translate the held payloads into ``out``
        (``checked``: counting the payloads without a field of the format, see
        :meth:`_mismatch`)."""
        self._translator = get_translator(name)
        self._translate_payload = self._translator.translate
        self._format = name if checked else None
        held, self._pending = self._pending, []
        self._votes = {}
        for payload in held:
            self._translate(payload, out)
        self._format = name

    def _mismatch(self, payload: Any) -> None:
        """Count a payload that gave no signal when it is foreign; raise past a run of
        them (the foreign-payload rule of the module docstring)."""
        name = self._format
        assert name is not None
        if recognizes(name, payload):
            self._misses = 0
            self._matched = True
            return
        self._misses += 1
        if not self._matched:  # at most MAX_MISMATCHED + 1 of them: it raises then
            if self._misses == 1:  # the stream's first payload
                self._foreign = payload
            if self._looks_like is None:
                self._looks_like = detect_format(payload)
        if self._misses > MAX_MISMATCHED:
            raise self._not_of_format(payload)

    def _not_of_format(self, last: Any, *, ended: bool = False) -> UnknownFormatError:
        """The error of the foreign-payload rule (``last``: the last foreign payload;
        ``ended``: the stream ended), after ending the stream as :meth:`interrupt` does,
        so the partial result rides on it."""
        name = self._format
        assert name is not None
        if self._matched:
            what = (
                f"the stream was read as {name!r}, but its last {self._misses} payloads"
                f" have no field of that format (the last is {_describe(last)})"
            )
            other = detect_format(last)
        else:
            count = f"{self._misses}" if ended else f"first {self._misses}"
            what = (
                f"the stream was read as {name!r}, but none of its {count} payloads"
                f" has a field of that format (the first is {_describe(self._foreign)})"
            )
            other = self._looks_like
        if other is not None and other != name:
            hint = f"the payloads look like {other!r}; pass provider={other!r} or 'auto'"
        else:
            hint = "the format was misjudged or the stream changed: pass provider= its format"
        error = UnknownFormatError(f"{what}; {hint}")
        if not self._closed:
            self.interrupt(error)
        return error

    def _translate(self, payload: Any, out: list[StreamUpdate]) -> None:
        """Translate one payload and apply its signals; its update goes to ``out``.

        :class:`TextDelta` signals are taken out before the assembler: the payload's text
        (its pieces joined) goes on its update and is kept for the result; reasoning only
        with ``reasoning=True``; text after the end of the stream is ignored. A payload
        that carries only text gave signals, so it counts as of the format.
        """
        assert self._translate_payload is not None
        signals: list[Signal] = self._translate_payload(payload)
        if self._format is not None:
            if signals:
                self._misses = 0
                self._matched = True
            else:
                self._mismatch(payload)
        if self._text_calls is not None:  # the calls written in the text (tool_parser=)
            signals = self._text_calls.read(signals)
        self._apply(signals, payload, out)

    def _apply(self, signals: list[Signal], payload: Any, out: list[StreamUpdate]) -> None:
        """Apply one payload's signals (see :meth:`_translate`); its update goes to ``out``."""
        assembler = self._assembler
        if len(signals) == 1 and type(signals[0]) is CallChunk:  # most payloads: no text,
            self._emit(out, assembler.apply(signals[0]), payload)  # nothing to gather
            return
        events: list[AssemblyEvent] = []
        text = reasoning = ""
        for signal in signals:  # the assembler ignores signals after the stream's end
            if type(signal) is not TextDelta:
                events += assembler.apply(signal)
            elif not assembler.finished:  # text after the end is ignored too
                if not signal.reasoning:
                    text += signal.text
                elif self._reasoning:
                    reasoning += signal.text
        if self._text_calls is not None and self._text_calls.text_was_reasoning():
            self._move_text_to_reasoning()
        if text:
            self._text.add(text)
        if reasoning:
            self._reasoning_text.add(reasoning)
        self._emit(out, events, payload, text, reasoning)

    def _move_text_to_reasoning(self) -> None:
        """A reasoning closer with no opener: the text kept so far was reasoning."""
        moved, self._text = self._text, Text()
        if self._reasoning and moved.length:
            self._reasoning_text.add(moved.value())

    def _emit(
        self,
        out: list[StreamUpdate],
        events: list[AssemblyEvent],
        payload: Any,
        text: str = "",
        reasoning: str = "",
    ) -> None:
        """Append the update for ``events`` to ``out``, unless the pipeline is quiet (it
        reads the assembler's views, so a quiet pipeline never does)."""
        if not self._quiet:
            assembler = self._assembler
            tool_calls, invalid_tool_calls, server_tool_calls = assembler.current_views()
            out.append(
                StreamUpdate(
                    tuple(events),
                    tool_calls,
                    invalid_tool_calls,
                    assembler.finish_reason,
                    payload,
                    server_tool_calls,
                    text,
                    reasoning,
                )
            )

    def _unknown(self) -> UnknownFormatError:
        first = self._pending[0]
        return UnknownFormatError(
            f"cannot recognize the stream's format from its first {len(self._pending)}"
            f" payload(s) (the first is {_describe(first)}); pass provider= one of"
            " 'openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock', 'cohere',"
            " 'ollama', 'langchain'"
        )
