"""L1: sans-I/O incremental partial-JSON parser (standard library only)."""

from __future__ import annotations

from callstream._json.changes import (
    Change,
    ScalarSet,
    StringExtended,
    ValueClosed,
    ValueStarted,
    to_json_pointer,
)
from callstream._json.parser import PartialJSONParser, parse_partial_json

__all__ = (
    "Change",
    "PartialJSONParser",
    "ScalarSet",
    "StringExtended",
    "ValueClosed",
    "ValueStarted",
    "parse_partial_json",
    "to_json_pointer",
)
