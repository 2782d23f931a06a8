"""Live tool-call previews in the UI protocols front ends already speak.

Three protocols, each a sans-I/O encoder (items in, protocol events out) and a function
that drives it over a stream of items and frames the result:

- AG-UI: :class:`AGUIEncoder`, :func:`agui_stream` (server-sent events);
- the Vercel AI SDK UI message stream (v1, what ``useChat`` reads):
  :class:`VercelEncoder`, :func:`vercel_stream` (server-sent events ending with
  ``data: [DONE]``; send :data:`VERCEL_HEADERS` with it);
- MCP Apps: :class:`McpAppsEncoder`, :func:`mcp_apps_notifications` (JSON-RPC
  notifications per tool call's view).

The items are what :func:`callstream.stream` / :func:`~callstream.astream` yield
(:class:`~callstream.StreamUpdate` s) or what ``ToolRunner.stream`` / ``astream`` yield
(updates and tool events, so tool results reach the UI too). A sync iterable gives a
sync generator, an async one an async generator, so either drops into a Starlette /
FastAPI ``StreamingResponse``::

    async def chat(request):
        updates = callstream.astream(await provider_stream(request))
        return StreamingResponse(callstream.ui.vercel_stream(updates),
                                 headers=callstream.ui.VERCEL_HEADERS)

A structured output (:func:`callstream.structured`) becomes UI state:
:class:`AGUIStateEncoder` (``STATE_SNAPSHOT`` / ``STATE_DELTA`` with JSON Patch) and
:class:`VercelDataEncoder` (``data-*`` parts), and whole runs of them,
:func:`structured_agui_events` and :func:`structured_vercel_parts` (async twins with an
``a`` in front).

Each encoder's module docstring lists what it sends for every kind of input. Cost per
item: O(size of the item); no encoder copies a growing preview per chunk (MCP Apps copies
one per throttled partial notification).
"""

from __future__ import annotations

from callstream.ui._agui import AGUIEncoder as AGUIEncoder
from callstream.ui._frames import agui_stream as agui_stream
from callstream.ui._frames import mcp_apps_notifications as mcp_apps_notifications
from callstream.ui._frames import sse_frame as sse_frame
from callstream.ui._frames import vercel_stream as vercel_stream
from callstream.ui._mcp_apps import McpAppsEncoder as McpAppsEncoder
from callstream.ui._mcp_apps import ViewMessage as ViewMessage
from callstream.ui._structured import AGUIStateEncoder as AGUIStateEncoder
from callstream.ui._structured import VercelDataEncoder as VercelDataEncoder
from callstream.ui._structured import astructured_agui_events as astructured_agui_events
from callstream.ui._structured import astructured_vercel_parts as astructured_vercel_parts
from callstream.ui._structured import structured_agui_events as structured_agui_events
from callstream.ui._structured import structured_vercel_parts as structured_vercel_parts
from callstream.ui._vercel import VERCEL_HEADERS as VERCEL_HEADERS
from callstream.ui._vercel import VercelEncoder as VercelEncoder

__all__ = (
    "VERCEL_HEADERS",
    "AGUIEncoder",
    "AGUIStateEncoder",
    "McpAppsEncoder",
    "VercelDataEncoder",
    "VercelEncoder",
    "ViewMessage",
    "agui_stream",
    "astructured_agui_events",
    "astructured_vercel_parts",
    "mcp_apps_notifications",
    "sse_frame",
    "structured_agui_events",
    "structured_vercel_parts",
    "vercel_stream",
)
