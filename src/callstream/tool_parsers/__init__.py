"""Tool parsers: the calls open-weight models write as text, read while the text streams.

Hosted APIs stream tool calls as structured deltas; open-weight models write them as
text with markers (``<tool_call>{...}</tool_call>``, ``[TOOL_CALLS]``, ...), which an
inference engine's parser usually turns into deltas. A tool parser reads that text
itself: :class:`ToolParser` ``feed(piece)`` / ``close()`` give the same signals a
provider translator gives (text, reasoning, call fragments, call ends and failures), so
the calls read from text go through the assembler like any provider's. Use it through
the ``tool_parser=`` option of :func:`callstream.stream` / :func:`callstream.collect`
(it reads the text deltas of any provider), or directly with :func:`get_tool_parser`.

The families are listed in :data:`TEXT_FORMATS` (vLLM's ``--tool-call-parser`` names;
SGLang's as :data:`ALIASES`); ``"auto"`` recognizes the family from the first marker.
The layer and how a family is added: docs/design.md, "Tool parsers".
"""

from __future__ import annotations

from callstream.tool_parsers._base import TEXT_CALL_INDEX, CallReader, ToolParser
from callstream.tool_parsers._registry import (
    ALIASES,
    TEXT_FORMATS,
    get_tool_parser,
    resolve_tool_parser,
)

__all__ = (
    "ALIASES",
    "TEXT_CALL_INDEX",
    "TEXT_FORMATS",
    "CallReader",
    "ToolParser",
    "get_tool_parser",
    "resolve_tool_parser",
)
