"""ToolsParser: what the tools parsers share (configuration, hooks, streaming loops).

Theory of operation. A parser object is configuration (which calls, which tools); its
work happens in a :class:`ParseSession`, a sans-I/O state machine for one stream. A
session takes items one at a time (:meth:`ParseSession.feed`): a ``StreamUpdate`` from
``callstream.stream()`` (its ``.events``), assembly events or lists of them (what
``ToolCallAssembler.feed`` returns), or raw ``ToolCallChunk`` dicts / signals or lists of
them, which the session assembles itself with its own ``ToolCallAssembler``. Each item's
events update per-call state; when an item changed what the parser shows, ``feed``
returns a fresh result (a list of :class:`~callstream.parsers.ParsedCall`), else None.
:meth:`ParseSession.close` ends the input and returns the final result.

Per call, a :class:`ClosedValueTree` rebuilds the arguments from the assembler's changes,
keeping only complete values. The JSON parsers react to values closing (a number,
literal or string complete), never to bare text fragments; the pydantic parser also
feeds the call's partial object (``callstream.partial``), whose strings grow as they
stream. What a change triggers (a new snapshot, a copy of the partial object) is the
parser's business (:meth:`ToolsParser._refresh`). A call's result
object is rebuilt only when that call changed; the result list is updated in place for
the calls that changed and handed out as a fresh copy (one C-speed pointer copy per call
shown). Those copies are bounded: a result is handed out only while all the results of
the session together copied at most :data:`RESULT_COPY_FACTOR` entries per event read,
so a stream of n calls costs O(n) in total, not O(n^2); past that bound (only streams
with well over a thousand calls reach it), a change waits for a later item (or the end)
before it is shown. The final result is always handed out.

``stream`` / ``astream`` are thin loops over a session, so the sync and async forms
cannot drift apart.

Modules: this one holds :class:`ToolsParser` (configuration, hooks, streaming loops);
``_hooks`` the hooks a session calls, as a protocol (:class:`ParserHooks`);
``_session`` the :class:`ParseSession` (input and events), over ``_shown`` (the result
lists and the copy budget); ``_call_state`` the per-call state; ``_parse_input`` the
kinds of input item and finished results read as events.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Generic, TypeVar

from callstream._assembly.types import ToolCall
from callstream.parsers._call_state import CallState
from callstream.parsers._parse_input import finished_events
from callstream.parsers._parsed_call import ParsedCall
from callstream.parsers._session import ParseSession
from callstream.parsers._shown import RESULT_COPY_FACTOR

__all__ = ("RESULT_COPY_FACTOR", "CallState", "ParseSession", "ToolsParser")

T = TypeVar("T")


class ToolsParser(Generic[T]):
    """Base of the tools parsers: selection options, sessions, sync and async streaming.

    Subclasses decide what a call's ``value`` is (:meth:`_refresh`, :meth:`_finalize`).
    """

    def __init__(self, *, first_tool_only: bool = False, key_name: str | None = None) -> None:
        self.first_tool_only = first_tool_only
        self.key_name = key_name

    # --- the hooks its sessions call (stated in ParserHooks, parsers/_hooks.py) ---------

    def _start(self, call: CallState) -> None:
        """A call was announced (nothing to do by default)."""

    def _refresh(self, call: CallState) -> bool:
        """See :meth:`ParserHooks._refresh`; a subclass decides."""
        raise NotImplementedError

    def _finalize(self, call: CallState, tool_call: ToolCall) -> None:
        """See :meth:`ParserHooks._finalize`; a subclass decides."""
        raise NotImplementedError

    def _partial_value(self, call: CallState, args: dict[str, Any]) -> Any:
        """See :meth:`ParserHooks._partial_value`; a subclass decides."""
        raise NotImplementedError

    def _selects(self, call: CallState) -> bool:
        """The calls named ``key_name``, or all of them."""
        return self.key_name is None or call.name == self.key_name

    # --- public API -------------------------------------------------------------------

    def session(self, **assembler_options: Any) -> ParseSession[T]:
        """A sans-I/O session for one stream (``assembler_options`` configure the
        assembler used when the session is fed raw chunks)."""
        return ParseSession(self, assembler_options)

    def parse_session(self, result: Any) -> ParseSession[T]:
        """Like :meth:`parse`, but the closed session: its ``result`` (the calls) and its
        ``server_calls`` (server-side tools found in ``result``: its ``server_tool_calls``,
        or ``server_tool_call`` dicts in a list)."""
        return self._parse(result)

    def stream(
        self, source: Iterable[Any], **assembler_options: Any
    ) -> Iterator[list[ParsedCall[T]]]:
        """Yield the parsed calls each time an item of ``source`` changed them.

        Args:
            source: ``StreamUpdate`` s (from ``callstream.stream``), assembly events or
                lists of them, or ``ToolCallChunk`` dicts / signals or lists of them.
            **assembler_options: for the assembler that raw chunks go through.

        Yields:
            A fresh list of :class:`ParsedCall` per change; the last one is final (every
            call valid or invalid). At least one list is yielded.

        Raises:
            UsageError: an item of a kind the parser does not read.
        """
        session = self.session(**assembler_options)
        for item in source:
            result = session.feed(item)
            if result is not None:
                yield result
        final = session.close()
        if final is not None:
            yield final

    async def astream(
        self, source: AsyncIterable[Any] | Iterable[Any], **assembler_options: Any
    ) -> AsyncIterator[list[ParsedCall[T]]]:
        """The async form of :meth:`stream` (``source`` may be sync or async)."""
        if not isinstance(source, AsyncIterable):
            for calls in self.stream(source, **assembler_options):
                yield calls
            return
        session = self.session(**assembler_options)
        async for item in source:
            result = session.feed(item)
            if result is not None:
                yield result
        final = session.close()
        if final is not None:
            yield final

    def parse(self, result: Any) -> list[ParsedCall[T]]:
        """Parse a finished result: every call in it, final (valid or invalid).

        Calls keep the order given: a list's order; for an object, its valid calls then
        its invalid ones, unless every call carries an ``index`` (then by index).
        Server-side tools (``server_tool_call`` dicts, Anthropic ``srvtoolu_`` ids, an
        object's ``server_tool_calls``) are left out (see :meth:`parse_session`).

        Args:
            result: a list of ``ToolCall`` / ``InvalidToolCall`` dicts (an
                ``InvalidToolCall`` has an ``error`` key), or an object with
                ``tool_calls`` and ``invalid_tool_calls`` (a ``StreamResult``, a finished
                ``ToolCallAssembler``, a LangChain ``AIMessage``).

        Raises:
            UsageError: ``result`` is none of these, or an assembler not finished yet.
        """
        return self._parse(result).result

    def _parse(self, result: Any) -> ParseSession[T]:
        events = finished_events(result)
        session = self.session()
        session._mode = "events"
        session._apply(events, ())
        session.close()
        return session
