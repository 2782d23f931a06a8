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
    │   └── OptionTypeError (+TypeError) an option or an argument has the wrong type
    └── DataError (ValueError)           the model or provider sent bad data
        ├── PartialJSONError             base of the JSON parser's verdicts (.position, .reason)
        │   ├── IncompleteJSONError      the text ended before the value did
        │   ├── MalformedJSONError       the text cannot be JSON, whatever follows
        │   └── JSONLimitError           a limit was exceeded (depth, size, digits)
        ├── StreamLimitError             the stream exceeded a limit (event, line or total size)
        └── UnknownFormatError           a stream whose provider format cannot be recognized

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
    "OptionTypeError",
    "OptionValueError",
    "ParserStateError",
    "PartialJSONError",
    "StreamLimitError",
    "ToolDefinitionError",
    "UnknownFormatError",
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


class OptionTypeError(UsageError, TypeError):
    """An option, or a value given to a method, has the wrong type."""


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


class UnknownFormatError(DataError):
    """A stream's payloads match none of the supported provider formats."""
