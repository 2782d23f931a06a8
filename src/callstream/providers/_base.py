"""The translator protocol, and the one dispatch shape and never-raise rule of every format.

**Dispatch.** A translator reads the kind of a payload (an event's ``type``, or for a
format without one the first field its table names that the payload carries:
:func:`field_kind`) and looks it up in its module's ``_HANDLERS`` table: kind -> handler,
each ``(translator, payload) -> list[Signal]``. A kind the table does not hold is given
to :func:`ignore` and gives ``[]``: providers add event types over time and ask clients
to skip the ones they do not know; the pipeline counts such payloads when it checks that
a stream still matches its format.

**Never raise.** Provider data is read with :mod:`~callstream.providers._fields`'
accessors: a missing or wrongly typed field reads as None (absent). Malformed data a
handler can tie to a call fails that call with a readable reason (``CallFailure``: an
unusable index, arguments that are neither JSON text nor JSON data); the other calls go
on. Whatever still raises in a handler (a hostile object, a bug) is caught in
``translate`` and becomes :func:`unreadable`: one invalid call whose reason names the
format, the kind and the exception. So no payload makes a translator raise and none is
dropped without a trace; only chunks written by users raise
(:class:`~callstream.ChunkValidationError`: a bug in the calling code, not provider data).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol, runtime_checkable

from callstream._assembly.types import CallFailure, Signal, StreamEnd
from callstream._assembly.verdict import TRUNCATION_REASONS
from callstream.providers._fields import get, get_str

__all__ = (
    "Handler",
    "Translator",
    "describe_exception",
    "error_text",
    "field_kind",
    "ignore",
    "finish",
    "finish_with_error",
    "normalize_finish_reason",
    "unreadable",
)

Handler = Callable[[Any, Any], list[Signal]]
"""A handler of one payload kind: ``(translator, payload) -> signals``."""


@runtime_checkable
class Translator(Protocol):
    """A stateful, sans-I/O translator from one provider format to assembler signals.

    One instance serves one stream (it may remember which calls it has seen). ``translate``
    takes one decoded payload and returns the signals it carries, in order: call fragments
    (:class:`~callstream.CallChunk`), ``CallEnd``, ``CallFailure``, ``ServerToolUse``,
    :class:`~callstream.TextDelta` (the assistant's text and reasoning, always reported:
    the pipeline decides what to keep) and ``StreamEnd``. Dispatch and the never-raise
    rule: this module's docstring.

    Two optional members serve the raw-text formats (``provider="text"``): a true
    ``takes_raw_text`` makes the pipeline give the source's ``str`` / bytes items to
    ``translate`` as they are (not decoded as SSE or JSON), and ``end()`` returns the
    signals held until the source is exhausted (a partial character, the stream's end);
    the pipeline calls it once, at its close, for a format it reads by name.

    A translator reports every end marker it sees (a stop reason and a later stop event
    give a ``StreamEnd`` each); the assembler keeps the first and ignores every signal
    after it (:meth:`~callstream.ToolCallAssembler.apply`), so no translator tracks
    whether the stream already ended.
    """

    name: str

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one payload (cost: O(size of the payload))."""
        ...


def ignore(translator: Any, payload: Any) -> list[Signal]:
    """The handler of every kind a table does not hold: nothing to read."""
    return []


def unreadable(fmt: str, kind: str | None, exc: Exception) -> list[Signal]:
    """What a payload whose handler raised gives: one invalid call with the reason."""
    what = f"{kind} payload" if kind else "payload"
    return [CallFailure(error=f"{fmt} {what} could not be read ({describe_exception(exc)})")]


#: Token-limit stop reasons, lowercased (the assembler's, and Anthropic's and Bedrock's
#: context window): each ends the stream as ``"length"``, so open calls read as cut off.
_LENGTH: Final = TRUNCATION_REASONS | {"model_context_window_exceeded"}


def finish(reason: str | None) -> StreamEnd:
    """The end of the stream for a provider's stop reason: a token limit (``max_tokens``,
    ``MAX_TOKENS``, ...) as ``"length"``, any other as sent; the word sent is kept as
    ``provider_reason``."""
    length = reason is not None and reason.lower() in _LENGTH
    return StreamEnd(reason="length" if length else reason, provider_reason=reason)


_FINISH_REASONS: Final = {"eos_token": "stop", "eos": "stop", "max_tokens": "length"}


def normalize_finish_reason(reason: str) -> str:
    """Map OpenAI-compatible servers' own finish reasons onto OpenAI's (TGI's
    ``eos_token`` -> ``stop``, ``max_tokens`` -> ``length``); others as sent. Used by the
    Chat Completions and the legacy Completions translators."""
    return _FINISH_REASONS.get(reason.lower(), reason)


def finish_with_error(open_calls: Iterable[int], message: str) -> list[Signal]:
    """A provider error that ends the stream: each open call (by key) fails with the
    provider's ``message``, then ``StreamEnd("error")`` carries it."""
    out: list[Signal] = [CallFailure(error=message, index=index) for index in sorted(open_calls)]
    out.append(StreamEnd(reason="error", provider_error=message))
    return out


def describe_exception(exc: BaseException) -> str:
    """A short description of an exception for an error message; never raises."""
    try:
        name = type(exc).__qualname__
    except Exception:
        name = "exception"
    try:
        text = str(exc)
    except Exception:
        text = ""
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{name}: {text}" if text else name


def field_kind(payload: Any, kinds: Iterable[str | None]) -> str | None:
    """The kind of a payload whose format names none: the first of ``kinds`` (a handler
    table's keys, in order) that it has a field for; an empty list is none (a usage
    chunk's ``choices: []``). Never raises."""
    for kind in kinds:
        value = None if kind is None else get(payload, kind)
        if value is not None and (type(value) is not list or value):
            return kind
    return None


def error_text(error: Any, default: str) -> str:
    """What an ``error`` field says: the field itself when it is text (Ollama's
    ``{"error": "..."}``), else its object's ``message``, ``type`` or ``code`` (the
    OpenAI-style ``{"error": {"message", "type", "code"}}`` of vLLM and llama.cpp);
    ``default`` when it says nothing readable. Never raises."""
    text = get_str({"error": error}, "error")
    if text:
        return text
    for key in ("message", "type", "code"):
        said = get_str(error, key)
        if said:
            return said
        number = get(error, key)
        if type(number) is int:
            return str(number)
    return default
