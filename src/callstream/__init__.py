"""callstream: streamed LLM tool-call fragments in, honest tool calls out."""

from __future__ import annotations

from partial_json_parser import Allow as Allow

from callstream._errors import CallstreamError as CallstreamError
from callstream._errors import DataError as DataError
from callstream._errors import IncompleteJSONError as IncompleteJSONError
from callstream._errors import JSONLimitError as JSONLimitError
from callstream._errors import MalformedJSONError as MalformedJSONError
from callstream._errors import ParserStateError as ParserStateError
from callstream._errors import PartialJSONError as PartialJSONError
from callstream._errors import UsageError as UsageError
from callstream._json import Change as Change
from callstream._json import PartialJSONParser as PartialJSONParser
from callstream._json import ScalarSet as ScalarSet
from callstream._json import StringExtended as StringExtended
from callstream._json import ValueClosed as ValueClosed
from callstream._json import ValueStarted as ValueStarted
from callstream._json import parse_partial_json as parse_partial_json
from callstream._json import to_json_pointer as to_json_pointer
from callstream._types import MISSING as MISSING
from callstream._types import JSONPath as JSONPath

__all__ = (
    "MISSING",
    "Allow",
    "CallstreamError",
    "Change",
    "DataError",
    "IncompleteJSONError",
    "JSONLimitError",
    "JSONPath",
    "MalformedJSONError",
    "ParserStateError",
    "PartialJSONError",
    "PartialJSONParser",
    "ScalarSet",
    "StringExtended",
    "UsageError",
    "ValueClosed",
    "ValueStarted",
    "parse_partial_json",
    "to_json_pointer",
)
