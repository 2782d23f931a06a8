"""Exceptions raised by callstream.

Two families hang off one base class, so ``except CallstreamError`` catches both:

    CallstreamError                      anything callstream raises on purpose
    ├── UsageError (RuntimeError)        you called the API in a way it does not allow
    │   ├── ParserStateError             feed/close on a parser that has failed or closed
    │   ├── AssemblerStateError          feed/finish on an assembler that has finished
    │   ├── ChunkValidationError (+TypeError)
    │   │                                a user-supplied chunk has a field of the wrong type
    │   ├── ConcurrentIterationError     two tasks iterating one stream at once
    │   ├── ToolDefinitionError (+TypeError)
    │   │                                an object cannot be described as a tool
    │   ├── OptionValueError (+ValueError)
    │   │                                an option's value is out of its range or choices
    │   │   └── UnwritableCallError      callstream.testing cannot write a call as given
    │   ├── OptionTypeError (+TypeError) an option or an argument has the wrong type
    │   └── ScriptExhaustedError (+ValueError)
    │                                    a scripted fake model was called past its turns
    └── DataError (ValueError)           the model or provider sent bad data
        ├── PartialJSONError             base of the JSON parser's verdicts (.position, .reason)
        │   ├── IncompleteJSONError      the text ended before the value did
        │   ├── MalformedJSONError       the text cannot be JSON, whatever follows
        │   └── JSONLimitError           a limit was exceeded (depth, size, digits)
        ├── StreamLimitError             the stream exceeded a limit (event, line or total size)
        ├── MalformedStreamError         the raw stream's framing is broken (AWS eventstream)
        ├── StructuredOutputError        a structured output is not a valid object (.reason, .text)
        ├── UnknownFormatError           a stream whose provider format cannot be recognized
        └── RecordingFileError           a recording file (callstream.testing) cannot be read

Data errors are what a provider may legitimately produce; the assembler turns them into
invalid tool calls (data, not exceptions). Usage errors signal a bug in the caller.
"""

from __future__ import annotations

__all__ = (
    "AssemblerStateError",
    "CallstreamError",
    "ChunkValidationError",
    "ConcurrentIterationError",
    "DataError",
    "IncompleteJSONError",
    "JSONLimitError",
    "MalformedJSONError",
    "MalformedStreamError",
    "OptionTypeError",
    "OptionValueError",
    "ParserStateError",
    "PartialJSONError",
    "RecordingFileError",
    "ScriptExhaustedError",
    "StreamLimitError",
    "StructuredOutputError",
    "ToolDefinitionError",
    "UnknownFormatError",
    "UnwritableCallError",
    "UsageError",
)


class CallstreamError(Exception):
    """Base class of every exception callstream raises on purpose."""


class UsageError(CallstreamError, RuntimeError):
    """The API was used in a way it does not allow (a bug in the calling code)."""


class ParserStateError(UsageError):
    """A parser was fed or closed after it failed or was closed."""


class AssemblerStateError(UsageError):
    """An assembler was fed or finished after it finished."""


class ChunkValidationError(UsageError, TypeError):
    """A tool-call chunk given to the assembler has a field of the wrong type."""


class ConcurrentIterationError(UsageError):
    """Two consumers tried to iterate the same stream at the same time."""


class ToolDefinitionError(UsageError, TypeError):
    """An object cannot be described as a tool (the message says which and why)."""


class OptionValueError(UsageError, ValueError):
    """An option has a value outside what it allows (a negative limit, an unknown choice)."""


class UnwritableCallError(OptionValueError):
    """A tool call given to ``callstream.testing`` cannot be written so that it reads back
    as given (an empty name, arguments that are not JSON, a nesting or an item the format
    cannot carry); the message names the call (``calls[n]``) and the reason."""


class OptionTypeError(UsageError, TypeError):
    """An option, or a value given to a method, has the wrong type."""


class ScriptExhaustedError(UsageError, ValueError):
    """A scripted fake model of ``callstream.testing`` was called more times than it has
    turns (the message gives both counts)."""


class DataError(CallstreamError, ValueError):
    """The model or the provider sent data that cannot be used as it is."""


class PartialJSONError(DataError):
    """A JSON text was rejected; ``position`` is the offset in the whole text."""

    def __init__(self, reason: str, position: int) -> None:
        super().__init__(f"{reason} at position {position}")
        self.reason = reason
        self.position = position

    def __reduce__(self) -> tuple[type[PartialJSONError], tuple[str, int]]:
        return (type(self), (self.reason, self.position))


class IncompleteJSONError(PartialJSONError):
    """The JSON text ended before its value was complete (for example, cut off)."""


class MalformedJSONError(PartialJSONError):
    """The JSON text cannot become valid JSON, whatever text would follow."""


class JSONLimitError(MalformedJSONError):
    """The JSON text exceeds a configured limit (nesting depth, length, digits)."""


class StreamLimitError(DataError):
    """The stream exceeded a configured limit (an event, a line or the total size).

    Raised by the drivers after every payload before the offending part was read, wherever
    the network cut; ``collect()`` / ``acollect()`` attach the partial result as
    ``exc.callstream_result`` (``interrupted=True``)."""


class MalformedStreamError(DataError):
    """The raw stream's framing is broken: an AWS eventstream message whose length or
    checksum is wrong, or text inside a binary stream. Nothing after it can be read.

    Raised by the drivers after every payload before the broken message was read, as
    :class:`StreamLimitError` is; ``collect()`` / ``acollect()`` attach the partial result
    as ``exc.callstream_result`` (``interrupted=True``)."""


class StructuredOutputError(DataError):
    """A structured output (JSON the model wrote as text) is not a valid object.

    Attributes:
        reason: what went wrong: ``"length"`` (the token limit cut the output),
            ``"incomplete"`` (the text ended before the JSON value did), ``"json"``
            (the text is not JSON, or is over a limit), ``"validation"`` (the JSON does
            not validate: ``errors`` holds pydantic's errors, the message pydantic's
            text), ``"provider_error"`` (the provider ended the stream with an error).
        text: the whole text the model wrote (nothing is dropped or repaired).
        partial: the JSON preview when it stopped (plain data; None if none began).
        value: the partial object when it stopped (see ``callstream.structured``).
        finish_reason: the stream's finish reason, when known.
        errors: pydantic's ``ValidationError.errors()`` for ``"validation"``, else None.
    """

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        text: str = "",
        partial: object = None,
        value: object = None,
        finish_reason: str | None = None,
        errors: list[dict[str, object]] | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.text = text
        self.partial = partial
        self.value = value
        self.finish_reason = finish_reason
        self.errors = errors

    def __reduce__(self) -> tuple[object, ...]:
        fields = {
            "reason": self.reason,
            "text": self.text,
            "partial": self.partial,
            "value": self.value,
            "finish_reason": self.finish_reason,
            "errors": self.errors,
        }
        return (_structured_error, (type(self), str(self), fields))


def _structured_error(
    cls: type[StructuredOutputError], message: str, fields: dict[str, object]
) -> StructuredOutputError:
    """Rebuild a pickled :class:`StructuredOutputError`."""
    return cls(message, **fields)  # type: ignore[arg-type]


class UnknownFormatError(DataError):
    """A stream's payloads match none of the supported provider formats, or are not of
    the format named (or chosen): see ``callstream._pipeline``, "the foreign-payload
    rule"; then the partial result rides on it as ``exc.callstream_result``."""



class RecordingFileError(DataError):
    """A recording file (the JSON Lines file of ``callstream.testing``'s
    ``RecordingTransport``) cannot be read: not UTF-8, no header, a line that is not JSON
    or not an exchange. The message starts with the file and line (``path:line:``) where
    it has one."""
