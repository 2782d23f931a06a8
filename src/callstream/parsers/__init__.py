"""L4: output parsers for tool calls (JSON and pydantic), streaming-aware.

- :class:`JsonToolsParser`: calls with their JSON arguments (all, the first, or one tool's);
- :class:`PydanticToolsParser`: calls validated into pydantic models, with partial
  previews while streaming and strict validation at the end;
- :class:`ParsedCall`: one call in a result (``status`` partial / valid / invalid);
- :class:`ParseSession`: the sans-I/O state of one stream through a parser.

Parsers read ``StreamUpdate`` s from ``callstream.stream()`` / ``astream()``, assembly
events, or raw ``ToolCallChunk`` dicts; ``parse()`` takes finished results. The LangChain
output parsers live in :mod:`callstream.parsers.langchain` (needs ``langchain-core``).
"""

from __future__ import annotations

from callstream.parsers._parsed_call import ParsedCall, Status
from callstream.parsers._tools_parser import ParseSession, ToolsParser
from callstream.parsers.json_tools import JsonToolsParser
from callstream.parsers.pydantic_tools import PydanticToolsParser

__all__ = (
    "JsonToolsParser",
    "ParseSession",
    "ParsedCall",
    "PydanticToolsParser",
    "Status",
    "ToolsParser",
)
