"""callstream: streamed LLM tool-call fragments in, honest tool calls out."""

from __future__ import annotations

from callstream._errors import CallstreamError as CallstreamError
from callstream._types import MISSING as MISSING

__all__ = ("MISSING", "CallstreamError")
