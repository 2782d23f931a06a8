"""LangChain message chunks and plain tool-call chunk dicts -> assembler signals.

Accepts, by duck typing (LangChain is never imported):

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

from callstream._assembly.assembler import TRUNCATION_REASONS
from callstream._assembly.records import new_call_chunk as tool_chunk
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
from callstream.providers._fields import get, get_str, is_record
from callstream.providers._plain import describe, to_plain
from callstream.providers._text import add_text

__all__ = ("LangChainTranslator", "detect", "validate_chunk")

#: Token-limit words of the providers LangChain wraps (beyond the assembler's own).
_LENGTH_WORDS = frozenset({"MAX_TOKENS", "model_context_window_exceeded"})

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
    return tool_chunk(index, id_, name, args)


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
    """True for an ``AIMessageChunk`` (anything with ``tool_call_chunks``) or chunk dicts
    (tool-call chunks and server-side tool-call blocks)."""
    if isinstance(get(payload, "tool_call_chunks"), (list, tuple)):
        return True
    if isinstance(payload, (list, tuple)):
        return bool(payload) and all(
            _is_chunk_dict(item) or _is_server_dict(item) for item in payload
        )
    return _is_chunk_dict(payload) or _is_server_dict(payload)


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

    def translate(self, payload: Any) -> list[Signal]:
        """Return the validated chunks of one payload, then the end of stream if stated.

        Server-side calls in the message content come first, so each is marked before
        a tool-call chunk at the same index could add text to it.

        Raises:
            ChunkValidationError: a chunk has a field of the wrong type.
        """
        chunks = get(payload, "tool_call_chunks")
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
            chunk = tool_chunk(chunk.index, chunk.id, chunk.name, text)
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
        """The signals of one content block (never raises: content is provider data)."""
        try:
            kind = get_str(block, "type")
            if kind == "input_json_delta":
                return self._json_delta(block, taken)
            if kind not in SERVER_BLOCK_TYPES:
                return _block_text(block, kind)
            return self._server_block(kind, block, taken)
        except Exception:  # a hostile block defeated the accessors: not a call
            return []

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
        return [tool_chunk(key, None, None, text)]

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
            out.append(tool_chunk(key, id_, name, None))
        if text:
            out.append(tool_chunk(key, None, None, text))
        return out

    def _close(self, key: int) -> None:
        server = self._servers.get(key)
        if server is not None:
            server.open = False

    @staticmethod
    def _end_of(message: Any) -> StreamEnd | None:
        metadata = get(message, "response_metadata")
        empty = type(metadata) is dict and not metadata  # most chunks carry {}: nothing to read
        if not empty and is_record(metadata):
            for key in ("finish_reason", "stop_reason", "done_reason"):
                reason = get_str(metadata, key)
                if reason:
                    length = reason.lower() in TRUNCATION_REASONS or reason in _LENGTH_WORDS
                    return StreamEnd(reason="length" if length else reason, provider_reason=reason)
        if get_str(message, "chunk_position") == "last":
            return StreamEnd(reason=None)
        return None


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
