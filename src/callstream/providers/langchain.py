"""LangChain message chunks, content-block events and plain tool-call chunk dicts ->
assembler signals.

Accepts, by duck typing (LangChain is never imported):

- content-block protocol events (``langchain_protocol``'s ``MessagesData`` dicts:
  ``message-start``, ``content-block-start`` / ``-delta`` / ``-finish``,
  ``message-finish``, ``error``), what ``stream_events(version="v3")`` yields and a
  ``ChatModelStream`` iterates; read by
  :class:`~callstream.providers._langchain_events.Events` (every argument delta is a
  preview; blocks of the same kinds as below, read the same way).
- what LangGraph wraps around messages and events (:func:`unwrap`): the
  ``stream_mode="messages"`` ``(message, metadata)`` pairs, ``stream(version="v2")``
  ``StreamPart`` dicts, the ``(mode, data)`` / ``(namespace, data)`` tuples, and
  ``stream_events(version="v3")`` protocol events (``{"type": "event", "method":
  "messages", "params": ...}``, in process or over the wire). Parts of other modes are
  part of the stream with nothing to read. One stream reads one model message: the
  first; a message of another namespace or model run is not mixed into it.

- ``AIMessageChunk`` objects (or their dict dumps): their ``tool_call_chunks`` are passed
  on. The end of the stream is read from ``response_metadata`` (``finish_reason`` from
  OpenAI-style models, ``stop_reason`` from Anthropic, ``done_reason`` from Ollama) or,
  failing that, from ``chunk_position == "last"``.
- server-side tool calls in the message ``content`` (tools the provider runs itself; they
  are never in ``tool_call_chunks``): LangChain's standard blocks ``server_tool_call_chunk``
  (``name``, ``id``, ``args`` text, ``index``) and ``server_tool_call`` (complete ``args``
  object), and the Anthropic-native blocks langchain-anthropic passes through
  (``server_tool_use`` / ``mcp_tool_use`` with ``id``, ``name``, ``input``, ``index``, then
  ``input_json_delta`` blocks with ``partial_json`` at the same index). Each such call is
  marked with ``ServerToolUse`` before its first chunk, so it is a server call from its
  first event on, reported in ``server_tool_calls`` and never in ``tool_calls``.
- plain ``ToolCallChunk`` dicts (``{"name", "args", "id", "index"}``), one per payload or a
  list of them; ``server_tool_call_chunk`` / ``server_tool_call`` dicts likewise.
- text of a message chunk: its ``content`` when it is a string, else the ``text`` of its
  content blocks of type ``text``; reasoning from blocks of type ``reasoning``
  (LangChain's standard block, ``reasoning`` field) and ``thinking`` (Anthropic's,
  ``thinking`` field) and from ``additional_kwargs["reasoning_content"]`` (DeepSeek,
  Groq, Ollama integrations; first, and only when no block carried reasoning). Each
  becomes a :class:`~callstream.TextDelta`, in block order.

Chunks written by users are checked once, at this boundary, with the assembler's own
field checks (they then travel as :class:`~callstream.CallChunk`); a wrong type raises
:class:`~callstream.ChunkValidationError` naming the field and the value
(``index='lc_0'``, ``args=5``, ``name=7``), since that is a bug in the calling code, not
provider data. ``index`` may be a string of digits (``"0"``). Content blocks are
provider data: they never raise; a string ``index`` such as ``"lc_ws_1"`` (LangChain's own
block indexes) names its call through a private key, and a block whose fields have
impossible types fails its call with a reason. Cost: one validation per chunk, O(size of
the chunk).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callstream._assembly.types import (
    CallChunk,
    CallEnd,
    CallFailure,
    ServerToolUse,
    Signal,
    StreamEnd,
    TextDelta,
    ToolCallChunk,
)
from callstream._assembly.validation import chunk_fields
from callstream._errors import ChunkValidationError
from callstream._json.dump import RECURSION_SAFE_DEPTH, nesting_depth
from callstream.providers._arguments import read_arguments
from callstream.providers._bad_index import BadIndex, BadIndexCalls, get_index
from callstream.providers._base import unreadable
from callstream.providers._fields import get, get_str, is_record, is_sequence, sequence_items
from callstream.providers._langchain_events import Events, metadata_end
from callstream.providers._plain import describe, to_plain
from callstream.providers._text import add_text

__all__ = ("LangChainTranslator", "detect", "validate_chunk")

_CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})


def _checked(chunk: Any) -> CallChunk:
    """One user-supplied tool-call chunk, checked once, as a :class:`CallChunk`.

    Missing keys read as None; unknown keys are ignored. The checks are the assembler's
    own (:mod:`callstream._assembly.validation`), so a chunk fed here or to
    :meth:`ToolCallAssembler.feed` is accepted or refused alike, with the same message.

    Raises:
        ChunkValidationError: not a mapping (nor an object that reads as one), or a field
            of the wrong type (the message names the field, the value and what was
            expected).
    """
    if not isinstance(chunk, Mapping):
        plain = to_plain(chunk)
        if not isinstance(plain, Mapping):
            raise ChunkValidationError(
                f"a tool call chunk must be a mapping, got {type(chunk).__name__}"
            )
        chunk = plain
    index, id_, name, args = chunk_fields(chunk, _WHERE)
    return CallChunk(index, id_, name, args)


_WHERE = "tool call chunk: "


def validate_chunk(chunk: Any) -> ToolCallChunk:
    """Check one user-supplied tool-call chunk and return it as a ``ToolCallChunk``.

    Missing keys read as None; unknown keys are dropped; an ``index`` of digits becomes
    an int.

    Raises:
        ChunkValidationError: a field has the wrong type (the message names the field,
            the value and what was expected).
    """
    checked = _checked(chunk)
    return {
        "name": checked.name,
        "args": checked.args,
        "id": checked.id,
        "index": checked.index,
        "type": "tool_call_chunk",
    }


#: Content-block types that carry a server-side tool call (see the module docstring).
SERVER_BLOCK_TYPES = frozenset(
    {"server_tool_call_chunk", "server_tool_call", "server_tool_use", "mcp_tool_use"}
)


def _is_chunk_dict(payload: Any) -> bool:
    if not isinstance(payload, Mapping) or not payload:
        return False
    if get(payload, "type") is not None:
        return get_str(payload, "type") == "tool_call_chunk"
    return all(type(k) is str and k in _CHUNK_KEYS for k in payload)


def _is_server_dict(payload: Any) -> bool:
    return isinstance(payload, Mapping) and get_str(payload, "type") in SERVER_BLOCK_TYPES


def detect(payload: Any) -> bool:
    """True for an ``AIMessageChunk`` (anything with ``tool_call_chunks``), chunk dicts
    (tool-call chunks and server-side tool-call blocks), a content-block event (an
    ``event`` of :data:`EVENTS`) and anything LangGraph wraps (:func:`unwrap`)."""
    inner, ident = unwrap(payload)
    if inner is not payload or ident is not None:  # a LangGraph wrapper, whatever it holds
        return True
    if type(get(payload, "event")) is str and is_record(payload):
        return get_str(payload, "event") in EVENTS
    if isinstance(get(payload, "tool_call_chunks"), (list, tuple)):
        return True
    if isinstance(payload, (list, tuple)):
        return bool(payload) and all(
            _is_chunk_dict(item) or _is_server_dict(item) for item in payload
        )
    return _is_chunk_dict(payload) or _is_server_dict(payload)


# --- what LangGraph wraps around messages ------------------------------------------------

#: The ``event`` of each content-block protocol event (``langchain_protocol``'s
#: ``MessagesData``), what ``stream_events(version="v3")`` and ``ChatModelStream`` yield.
EVENTS = frozenset(
    {
        "message-start",
        "content-block-start",
        "content-block-delta",
        "content-block-finish",
        "message-finish",
        "error",
    }
)

#: LangGraph's stream modes: the ``type`` of a ``stream(version="v2")`` ``StreamPart``
#: and the mode in ``(mode, data)`` tuples (``stream_mode=[...]``).
STREAM_MODES = frozenset(
    {"values", "updates", "messages", "custom", "checkpoints", "tasks", "debug"}
)

OTHER_PART: Any = object()
"""What :func:`unwrap` gives for a LangGraph part that holds no message (``values``,
``updates``, ``lifecycle``...): part of the stream, nothing to read."""

Identity = tuple[tuple[str, ...] | None, str | None]
"""Which model message a wrapped payload belongs to: (LangGraph namespace, model run id),
each None when the wrapper does not say."""


def unwrap(payload: Any) -> tuple[Any, Identity | None]:
    """The message or event inside LangGraph's wrappers, and whose it is.

    Reads, outermost first: a ``stream_events(version="v3")`` protocol event
    (``{"type": "event", "method": "messages", "params": {"namespace", "data"}}``; its
    ``data`` a ``(event, metadata)`` pair in process, the event itself over the wire); a
    ``stream(version="v2")`` ``StreamPart`` (``{"type": "messages", "ns", "data"}``); the
    tuples of ``stream(stream_mode=...)``: ``(namespace, data)`` with ``subgraphs=True``,
    ``(mode, data)`` for a list of modes, ``(namespace, mode, data)`` for both; and the
    ``(message, metadata)`` pair of ``stream_mode="messages"`` (``metadata["run_id"]`` names
    the model run under ``version="v3"``). A part of another mode is :data:`OTHER_PART`.
    Anything else is returned as it is with identity None. Never raises; O(1).
    """
    namespace: tuple[str, ...] | None = None
    wrapped = False
    if isinstance(payload, Mapping):  # LangGraph's wrappers are dicts
        kind = get_str(payload, "type")
        params = get(payload, "params") if kind == "event" else None
        if is_record(params) and type(get(payload, "method")) is str:
            if get_str(payload, "method") != "messages":
                return OTHER_PART, (None, None)
            namespace = _namespace(get(params, "namespace"))
            payload, wrapped = get(params, "data"), True
        elif kind in STREAM_MODES and _has(payload, "ns") and _has(payload, "data"):
            if kind != "messages":
                return OTHER_PART, (None, None)
            namespace = _namespace(get(payload, "ns"))
            payload, wrapped = get(payload, "data"), True
    items = sequence_items(payload) if is_sequence(payload) else None
    if items is not None and len(items) == 3 and _namespace(items[0]) is not None:
        namespace = _namespace(items[0])
        items, wrapped = items[1:], True
    if items is not None and len(items) == 2:
        head, data = items
        if type(head) is str and head in STREAM_MODES:  # (mode, data)
            if head != "messages":
                return OTHER_PART, (None, None)
            payload, wrapped = data, True
        elif _namespace(head) is not None and not _is_message(data) and is_sequence(data):
            namespace, payload, wrapped = _namespace(head), data, True  # (namespace, data)
        items = sequence_items(payload) if is_sequence(payload) else None
    run: str | None = None
    if items is not None and len(items) == 2 and _is_message(items[0]):
        if is_record(items[1]) and not isinstance(items[1], (list, tuple)):
            run = get_str(items[1], "run_id") or None
            payload, wrapped = items[0], True
    return payload, ((namespace, run) if wrapped else None)


def _has(record: Any, key: str) -> bool:
    return isinstance(record, Mapping) and key in record


def _namespace(value: Any) -> tuple[str, ...] | None:
    """A LangGraph namespace (a list or tuple of strings, maybe empty), else None."""
    items = sequence_items(value) if is_sequence(value) else None
    if items is None or not all(type(item) is str for item in items):
        return None
    return tuple(items)


def _is_message(value: Any) -> bool:
    """Whether ``value`` is a LangChain message or a content-block event (what LangGraph
    pairs with its metadata): an event dict, anything with ``tool_call_chunks``, or an
    object or dict with ``content`` and a ``type`` (``"ai"``, ``"tool"``...)."""
    if not is_record(value) or isinstance(value, (list, tuple)):
        return False
    if type(get(value, "event")) is str:
        return get_str(value, "event") in EVENTS
    if isinstance(get(value, "tool_call_chunks"), (list, tuple)):
        return True
    return get(value, "content") is not None and bool(get_str(value, "type"))


class _Server:
    """One server-side call seen in content blocks: its id, whether it is marked (its
    marker was sent, before its first chunk), and whether it still takes text."""

    __slots__ = ("id", "marked", "open")

    def __init__(self, id_: str | None) -> None:
        self.id = id_
        self.marked = False
        self.open = True


class LangChainTranslator:
    """Translate ``AIMessageChunk`` objects and plain ``ToolCallChunk`` dicts.

    Server-side calls (content blocks, see the module docstring) are keyed by their block
    ``index``, which LangChain shares with ``tool_call_chunks``: a usable index (a
    non-negative int or a string of digits) is the key; any other string gets a private
    key of its own (the same string, the same key: a
    :class:`~callstream.providers._bad_index.BadIndexCalls` without a cap on distinct values,
    since these are real calls); a block without an index continues the
    call with its ``id``, else the last server call. For each new server call the signals
    are: ``ServerToolUse``, a chunk with its ``name`` and ``id``, then its argument text;
    a complete ``server_tool_call`` (or an Anthropic block whose ``input`` is already
    complete) ends with ``CallEnd`` carrying the arguments as JSON text. An
    ``input_json_delta`` block is read only for an open server call and only when the
    same message has no tool-call chunk at that index (client calls' text comes in
    ``tool_call_chunks``). A tool-call chunk whose ``args`` object nests deeper than
    ``json.dumps`` can write is passed on as JSON text written iteratively.

    Every message chunk that states an end of the stream gives a ``StreamEnd`` (last in
    its signals); the assembler keeps the first. State: one small record per server call.
    """

    name = "langchain"

    def __init__(self) -> None:
        self._servers: dict[int, _Server] = {}
        self._by_id: dict[str, int] = {}
        self._keys = BadIndexCalls(max_keys=None)  # for string and unusable block indexes
        self._last: int | None = None
        self._events = Events(self)  # content-block events (created here: cheap)
        self._followed: Identity | None = None  # the LangGraph message this stream reads

    def translate(self, payload: Any) -> list[Signal]:
        """Return the validated chunks of one payload, then the end of stream if stated.

        Server-side calls in the message content come first, so each is marked before
        a tool-call chunk at the same index could add text to it. A LangGraph wrapper is
        read for the message inside (:func:`unwrap`); a message of another namespace or
        model run than the first one gives nothing.

        Raises:
            ChunkValidationError: a chunk has a field of the wrong type.
        """
        kind: str | None = None  # dispatch, never raise: callstream.providers._base
        try:
            chunks = get(payload, "tool_call_chunks")  # a message chunk: the common case
            if not isinstance(chunks, (list, tuple)):
                if isinstance(payload, Mapping):
                    event = payload.get("event")
                    if type(event) is str and event in EVENTS:
                        kind = event
                        return self._events.read(payload, event)
                    if "type" not in payload:  # a plain chunk dict: never a wrapper
                        return self._message(payload, None)
                payload, ident = unwrap(payload)
                if ident is not None and (
                    payload is OTHER_PART
                    or not is_record(payload)  # a wrapper's odd data
                    or isinstance(payload, (list, tuple))
                    or not self._follows(ident, payload)
                ):
                    return []
                event = get(payload, "event") if isinstance(payload, Mapping) else None
                if type(event) is str and event in EVENTS:
                    kind = event
                    return self._events.read(payload, event)
                chunks = get(payload, "tool_call_chunks")
            return self._message(payload, chunks)
        except ChunkValidationError:
            raise  # a chunk written by users: a bug in the calling code
        except Exception as exc:
            return unreadable(self.name, kind, exc)

    def _message(self, payload: Any, chunks: Any) -> list[Signal]:
        """A message chunk (``chunks``: its ``tool_call_chunks``), or tool-call chunk
        dicts (see :meth:`translate`)."""
        if isinstance(chunks, (list, tuple)):
            valid = [_checked(chunk) for chunk in chunks]
            signals = self._content(payload, valid)
            for chunk in valid:
                signals.extend(self._chunk(chunk))
            end = self._end_of(payload)
            if end is not None:  # every message stating an end: the assembler keeps the first
                signals.append(end)
            return signals
        if isinstance(payload, (list, tuple)):
            out: list[Signal] = []
            for item in payload:
                if _is_server_dict(item):
                    out.extend(self._block(item, set()))
                else:
                    out.extend(self._chunk(_checked(item)))
            return out
        if _is_server_dict(payload):
            return self._block(payload, set())
        if _is_chunk_dict(payload):
            return self._chunk(_checked(payload))
        return []

    def _follows(self, ident: Identity, payload: Any) -> bool:
        """Whether a wrapped payload belongs to the message this stream reads: the first
        model message (an AI chunk or a ``message-start`` of role ``ai``) names it; until
        then every payload is read. Payloads that say nothing (identity (None, None)) are
        read. Cost: O(1)."""
        if ident == (None, None):
            return True
        followed = self._followed
        if followed is None:
            if isinstance(get(payload, "tool_call_chunks"), (list, tuple)) or (
                get_str(payload, "event") == "message-start"
                and get_str(payload, "role") in (None, "ai")
            ):
                self._followed = ident
            return True
        return ident == followed

    def _content(self, message: Any, valid: list[CallChunk]) -> list[Signal]:
        """The signals of a message chunk's content and ``additional_kwargs``: its text
        and reasoning, and the server-side calls in its blocks (before its tool-call
        chunks: each server call is marked before a chunk at its index adds text)."""
        signals: list[Signal] = []
        content = get(message, "content")
        if isinstance(content, (list, tuple)):
            taken = {c.index for c in valid if c.index is not None}
            for block in content:
                signals.extend(self._block(block, taken))
        elif content is not None:
            add_text(signals, content, False)
        extra = get(message, "additional_kwargs")
        if extra is not None and (type(extra) is not dict or extra):  # most chunks: {}
            if not any(type(s) is TextDelta and s.reasoning for s in signals):
                # (not when blocks carried it too: LangChain's v1 output shows both)
                ahead: list[Signal] = []
                add_text(ahead, get(extra, "reasoning_content"), True)
                signals[:0] = ahead
        return signals

    # --- tool-call chunks ----------------------------------------------------------------

    def _chunk(self, chunk: CallChunk) -> list[Signal]:
        """A checked chunk, with a deep ``args`` object turned into text first, and the
        server marker before it when its index is a server call's not yet sent."""
        args = chunk.args
        out: list[Signal] = [chunk]
        if isinstance(args, dict) and nesting_depth(args, RECURSION_SAFE_DEPTH) is None:
            text, error = read_arguments(args, as_text=True)
            chunk = CallChunk(chunk.index, chunk.id, chunk.name, text)
            out = [chunk]
            if error is not None:
                out.append(CallFailure(error=error, index=chunk.index, id=chunk.id))
        key = chunk.index
        server = self._servers.get(key) if key is not None else None
        if server is not None and not server.marked and key is not None:
            if chunk.id or chunk.name or chunk.args:
                out.insert(0, ServerToolUse(index=key, id=chunk.id or None))
                server.marked = True
        return out

    # --- server-side calls in content blocks ---------------------------------------------

    def _block(self, block: Any, taken: set[int]) -> list[Signal]:
        """The signals of one content block."""
        kind: str | None = None
        try:
            kind = get_str(block, "type")
            if kind == "input_json_delta":
                return self._json_delta(block, taken)
            if kind not in SERVER_BLOCK_TYPES:
                return _block_text(block, kind)
            return self._server_block(kind, block, taken)
        except Exception as exc:  # one block: the message's other blocks still count
            return unreadable(self.name, kind, exc)

    def _key(self, block: Any) -> tuple[int | None, str | None]:
        """(key, why the index is unusable) for a block; key None: no call to name."""
        index = get_index(block, "index")
        if isinstance(index, int):
            return index, None
        if index is None:
            id_ = get_str(block, "id")
            if id_:
                known = self._by_id.get(id_)
                return (known if known is not None else self._keys.fresh()), None
            return self._last, None
        if type(get(block, "index")) is str:  # LangChain's own block indexes ("lc_...")
            return self._keys.key(index), None
        return self._keys.key(index), self._keys.reason(index, "index")

    def _server_block(self, kind: str, block: Any, taken: set[int]) -> list[Signal]:
        key, bad_index = self._key(block)
        if key is None:
            return []
        id_ = get_str(block, "id") or None
        name = get_str(block, "name") or None
        text: str | None = None
        complete: str | None = None  # the complete arguments (JSON text), when given
        error: str | None = bad_index
        if kind == "server_tool_call_chunk":
            raw = get(block, "args")
            if isinstance(raw, str):
                text = raw
            elif raw is not None:
                error = error or f"args must be JSON text, got {describe(raw)}"
        elif kind == "server_tool_call":
            raw = get(block, "args")
            complete, why = read_arguments(raw, as_text=True)
            error = error or why
            if complete is None and why is None:
                complete = "{}"  # a complete call without arguments
        else:  # Anthropic-native server_tool_use / mcp_tool_use
            partial = get(block, "partial_json")
            raw = get(block, "input")
            if isinstance(partial, str):
                text = partial  # a gathered block: the text so far
            elif raw is not None:
                complete, why = read_arguments(raw, as_text=True)
                error = error or why
                if complete == "{}":  # Anthropic's placeholder: deltas follow
                    complete = None
        out = self._server_piece(key, id_, name, None if key in taken else text)
        if error is not None:
            self._close(key)
            out.append(CallFailure(error=f"LangChain {kind} block: {error}", index=key))
        elif complete is not None and key not in taken:
            self._close(key)
            out.append(CallEnd(index=key, args=complete))
        return out

    def _json_delta(self, block: Any, taken: set[int]) -> list[Signal]:
        index = get_index(block, "index")
        key = self._keys.find(index) if isinstance(index, BadIndex) else index
        text = get_str(block, "partial_json")
        server = self._servers.get(key) if key is not None else None
        if key is None or server is None or not server.open or key in taken or not text:
            return []
        return [CallChunk(key, None, None, text)]

    def _server_piece(
        self, key: int, id_: str | None, name: str | None, text: str | None
    ) -> list[Signal]:
        """Chunks for a piece of server call ``key``: the marker before the call's first
        chunk (so it is a server call from its first event), its identity, then its
        text. An ended call takes nothing more, unless a new id starts a new call at the
        same key."""
        server = self._servers.get(key)
        if server is not None and not server.open:
            if not id_ or id_ == server.id:
                return []
            server = None  # a new call reusing the index
        if server is None:
            server = self._servers[key] = _Server(id_)
        elif server.id is None and id_:
            server.id = id_
        self._last = key
        if id_:
            self._by_id[id_] = key
        out: list[Signal] = []
        identity = id_ is not None or name is not None
        if not server.marked and (identity or text):
            out.append(ServerToolUse(index=key, id=id_ or None))
            server.marked = True
        if identity:
            out.append(CallChunk(key, id_, name, None))
        if text:
            out.append(CallChunk(key, None, None, text))
        return out

    def _close(self, key: int) -> None:
        server = self._servers.get(key)
        if server is not None:
            server.open = False

    @staticmethod
    def _end_of(message: Any) -> StreamEnd | None:
        end = metadata_end(get(message, "response_metadata"))
        if end is None and get_str(message, "chunk_position") == "last":
            return StreamEnd(reason=None)
        return end


#: Content-block types that carry text, and the field holding it (reasoning for all
#: but ``text``).
_TEXT_BLOCKS = {"text": "text", "reasoning": "reasoning", "thinking": "thinking"}


def _block_text(block: Any, kind: str | None) -> list[Signal]:
    """The text of a ``text``, ``reasoning`` or ``thinking`` content block, else ``[]``."""
    key = _TEXT_BLOCKS.get(kind) if kind is not None else None
    if key is None:
        return []
    out: list[Signal] = []
    add_text(out, get(block, key), key != "text")
    return out


def stream_end(message: Any) -> StreamEnd | None:
    """The end of the stream a LangChain message states, or None: what
    :meth:`LangChainTranslator.translate` appends after a message chunk's signals (read
    the same way for a whole ``AIMessage``, which has no chunks to translate)."""
    return LangChainTranslator._end_of(message)
