"""callstream: streamed LLM tool-call fragments in, honest tool calls out.

The layers, from the bottom (drawn in ``docs/design.md``): an incremental partial-JSON
parser (:class:`PartialJSONParser`), a sans-I/O assembler that merges chunks into calls
(:class:`ToolCallAssembler`), translators for each provider's wire format
(:mod:`callstream.providers`), tool schemas and output parsers (:mod:`callstream.tools`,
:mod:`callstream.parsers`), thin sync / async drivers (:func:`stream`, :func:`astream`,
:func:`collect`, :func:`acollect`), and on top of them structured output streamed as
partial objects (:func:`structured`), the tool runner (:class:`ToolRunner`), the UI
protocol encoders (:mod:`callstream.ui`) and the ``callstream`` command.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# First: it decides which build runs (compiled or pure) before any other module loads.
from callstream._build import COMPILED as COMPILED

# isort: split
from callstream._assembly import ArgumentsDelta as ArgumentsDelta
from callstream._assembly import AssemblyEvent as AssemblyEvent
from callstream._assembly import CallChunk as CallChunk
from callstream._assembly import CallDone as CallDone
from callstream._assembly import CallEnd as CallEnd
from callstream._assembly import CallExtras as CallExtras
from callstream._assembly import CallFailure as CallFailure
from callstream._assembly import CallInvalid as CallInvalid
from callstream._assembly import CallStarted as CallStarted
from callstream._assembly import InvalidToolCall as InvalidToolCall
from callstream._assembly import ServerToolCall as ServerToolCall
from callstream._assembly import ServerToolUse as ServerToolUse
from callstream._assembly import Signal as Signal
from callstream._assembly import StreamEnd as StreamEnd
from callstream._assembly import StreamFinished as StreamFinished
from callstream._assembly import TextDelta as TextDelta
from callstream._assembly import ToolCall as ToolCall
from callstream._assembly import ToolCallAssembler as ToolCallAssembler
from callstream._assembly import ToolCallChunk as ToolCallChunk
from callstream._errors import AssemblerStateError as AssemblerStateError
from callstream._errors import CallstreamError as CallstreamError
from callstream._errors import ChunkValidationError as ChunkValidationError
from callstream._errors import ConcurrentIterationError as ConcurrentIterationError
from callstream._errors import DataError as DataError
from callstream._errors import IncompleteJSONError as IncompleteJSONError
from callstream._errors import JSONLimitError as JSONLimitError
from callstream._errors import MalformedJSONError as MalformedJSONError
from callstream._errors import MalformedStreamError as MalformedStreamError
from callstream._errors import OptionTypeError as OptionTypeError
from callstream._errors import OptionValueError as OptionValueError
from callstream._errors import ParserStateError as ParserStateError
from callstream._errors import PartialJSONError as PartialJSONError
from callstream._errors import RecordingFileError as RecordingFileError
from callstream._errors import ScriptExhaustedError as ScriptExhaustedError
from callstream._errors import StreamLimitError as StreamLimitError
from callstream._errors import StructuredOutputError as StructuredOutputError
from callstream._errors import ToolDefinitionError as ToolDefinitionError
from callstream._errors import UnknownFormatError as UnknownFormatError
from callstream._errors import UnwritableCallError as UnwritableCallError
from callstream._errors import UsageError as UsageError
from callstream._json import Change as Change
from callstream._json import PartialJSONParser as PartialJSONParser
from callstream._json import ScalarSet as ScalarSet
from callstream._json import StringExtended as StringExtended
from callstream._json import ValueClosed as ValueClosed
from callstream._json import ValueStarted as ValueStarted
from callstream._json import parse_partial_json as parse_partial_json
from callstream._json import to_json_pointer as to_json_pointer
from callstream._pipeline import StreamResult as StreamResult
from callstream._pipeline import StreamUpdate as StreamUpdate
from callstream._sync import ToolCallStream as ToolCallStream
from callstream._sync import collect as collect
from callstream._sync import stream as stream
from callstream._types import MISSING as MISSING
from callstream._types import JSONPath as JSONPath

if TYPE_CHECKING:  # loaded on first use, see __getattr__
    from partial_json_parser import Allow as Allow

    from callstream._async import AsyncToolCallStream as AsyncToolCallStream
    from callstream._async import acollect as acollect
    from callstream._async import astream as astream
    from callstream.parsers import JsonToolsParser as JsonToolsParser
    from callstream.parsers import ParsedCall as ParsedCall
    from callstream.parsers import PydanticToolsParser as PydanticToolsParser
    from callstream.partial import StructuredParser as StructuredParser
    from callstream.runner import RunResult as RunResult
    from callstream.runner import Tool as Tool
    from callstream.runner import ToolCancelled as ToolCancelled
    from callstream.runner import ToolFailed as ToolFailed
    from callstream.runner import ToolFinished as ToolFinished
    from callstream.runner import ToolResult as ToolResult
    from callstream.runner import ToolRunner as ToolRunner
    from callstream.runner import ToolStarted as ToolStarted
    from callstream.structured_output import AsyncStructuredStream as AsyncStructuredStream
    from callstream.structured_output import StructuredResult as StructuredResult
    from callstream.structured_output import StructuredStream as StructuredStream
    from callstream.structured_output import StructuredUpdate as StructuredUpdate
    from callstream.structured_output import acollect_structured as acollect_structured
    from callstream.structured_output import astructured as astructured
    from callstream.structured_output import collect_structured as collect_structured
    from callstream.structured_output import structured as structured
    from callstream.tools import to_anthropic_tool as to_anthropic_tool
    from callstream.tools import to_openai_tool as to_openai_tool
    from callstream.tools import tool_adapter as tool_adapter

__version__: str
"""The installed version (read on first access: see ``__getattr__``)."""

_LAZY: dict[str, str] = {
    "Allow": "partial_json_parser",
    "AsyncToolCallStream": "callstream._async",
    "acollect": "callstream._async",
    "astream": "callstream._async",
    "JsonToolsParser": "callstream.parsers",
    "ParsedCall": "callstream.parsers",
    "PydanticToolsParser": "callstream.parsers",
    "RunResult": "callstream.runner",
    "Tool": "callstream.runner",
    "ToolCancelled": "callstream.runner",
    "ToolFailed": "callstream.runner",
    "ToolFinished": "callstream.runner",
    "ToolResult": "callstream.runner",
    "ToolRunner": "callstream.runner",
    "ToolStarted": "callstream.runner",
    "StructuredParser": "callstream.partial",
    "AsyncStructuredStream": "callstream.structured_output",
    "StructuredResult": "callstream.structured_output",
    "StructuredStream": "callstream.structured_output",
    "StructuredUpdate": "callstream.structured_output",
    "acollect_structured": "callstream.structured_output",
    "astructured": "callstream.structured_output",
    "collect_structured": "callstream.structured_output",
    "structured": "callstream.structured_output",
    "to_anthropic_tool": "callstream.tools",
    "to_openai_tool": "callstream.tools",
    "tool_adapter": "callstream.tools",
}
"""Names loaded on first use, and the module that holds each: the output parsers, tool
schemas and structured outputs build pydantic models, ``Allow`` comes from
partial-json-parser and the async driver and the tool runner import anyio, none of which
``stream()`` / ``collect()`` need."""


def _version() -> str:
    """The installed distribution's version (SemVer; ``CHANGELOG.md``), read from its
    metadata on first use (``importlib.metadata`` costs ~30 ms to import)."""
    import importlib.metadata

    try:
        return importlib.metadata.version("callstream")
    except importlib.metadata.PackageNotFoundError:  # a source tree on the path
        return "0+unknown"  # (PYTHONPATH=src) without an install: no metadata to read


def __getattr__(name: str) -> Any:
    """Load a lazily exported name (see ``_LAZY``), or ``__version__``, on first access."""
    if name == "__version__":
        globals()[name] = version = _version()
        return version
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'callstream' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = (
    "COMPILED",
    "MISSING",
    "Allow",
    "ArgumentsDelta",
    "AssemblerStateError",
    "AssemblyEvent",
    "AsyncStructuredStream",
    "AsyncToolCallStream",
    "CallChunk",
    "CallDone",
    "CallEnd",
    "CallExtras",
    "CallFailure",
    "CallInvalid",
    "CallStarted",
    "CallstreamError",
    "Change",
    "ChunkValidationError",
    "ConcurrentIterationError",
    "DataError",
    "IncompleteJSONError",
    "InvalidToolCall",
    "JSONLimitError",
    "JSONPath",
    "JsonToolsParser",
    "MalformedJSONError",
    "MalformedStreamError",
    "OptionTypeError",
    "OptionValueError",
    "ParsedCall",
    "ParserStateError",
    "PartialJSONError",
    "PartialJSONParser",
    "PydanticToolsParser",
    "RecordingFileError",
    "RunResult",
    "ScalarSet",
    "ScriptExhaustedError",
    "ServerToolCall",
    "ServerToolUse",
    "Signal",
    "StreamEnd",
    "StreamFinished",
    "StreamLimitError",
    "StreamResult",
    "StreamUpdate",
    "StringExtended",
    "StructuredOutputError",
    "StructuredParser",
    "StructuredResult",
    "StructuredStream",
    "StructuredUpdate",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallAssembler",
    "ToolCallChunk",
    "ToolCallStream",
    "ToolCancelled",
    "ToolDefinitionError",
    "ToolFailed",
    "ToolFinished",
    "ToolResult",
    "ToolRunner",
    "ToolStarted",
    "UnknownFormatError",
    "UnwritableCallError",
    "UsageError",
    "ValueClosed",
    "ValueStarted",
    "acollect",
    "acollect_structured",
    "astream",
    "astructured",
    "collect",
    "collect_structured",
    "parse_partial_json",
    "stream",
    "structured",
    "to_anthropic_tool",
    "to_json_pointer",
    "to_openai_tool",
    "tool_adapter",
)
