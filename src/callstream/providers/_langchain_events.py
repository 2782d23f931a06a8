"""LangChain's content-block protocol events (``stream_events(version="v3")``, what a
``ChatModelStream`` iterates): :class:`Events`, the reader
:class:`~callstream.providers.langchain.LangChainTranslator` hands them to, and
:func:`metadata_end`, the end of a stream as a message's or an event's metadata states it.

Split from :mod:`callstream.providers.langchain` (one format, two readers: message chunks
there, protocol events here); the rules of the format are in that module's docstring.
"""

from __future__ import annotations

from typing import Any, Protocol

from callstream._assembly.types import CallChunk, CallEnd, CallFailure, Signal, StreamEnd
from callstream._json.pieces import Text
from callstream.providers._arguments import read_arguments
from callstream.providers._bad_index import BadIndex, BadIndexCalls, get_block_index
from callstream.providers._base import Handler, finish
from callstream.providers._fields import get, get_str, is_record
from callstream.providers._plain import to_plain
from callstream.providers._text import add_text

__all__ = ("Events", "Owner", "metadata_end")


class Owner(Protocol):
    """What :class:`Events` shares with the translator that owns it: the keys of string
    and unusable block indexes, and the records of server-side calls."""

    _keys: BadIndexCalls

    def _server_piece(
        self, key: int, id_: str | None, name: str | None, text: str | None
    ) -> list[Signal]: ...

    def _close(self, key: int) -> None: ...


def metadata_end(metadata: Any) -> StreamEnd | None:
    """The end of the stream a message's ``response_metadata`` states (``finish_reason``
    from OpenAI-style models, ``stop_reason`` from Anthropic, ``done_reason`` from
    Ollama; a token limit normalized to ``"length"``), else None. Cost: O(1)."""
    if type(metadata) is dict and not metadata:  # most chunks carry {}: nothing to read
        return None
    if is_record(metadata):
        for key in ("finish_reason", "stop_reason", "done_reason"):
            reason = get_str(metadata, key)
            if reason:
                return finish(reason)
    return None


# --- content-block events: stream_events(version="v3"), ChatModelStream ------------------

#: Block types of a client call and of a server-side call in content-block events.
_CLIENT_CALLS = frozenset({"tool_call_chunk", "tool_call", "invalid_tool_call"})
_SERVER_CALLS = frozenset({"server_tool_call_chunk", "server_tool_call"})


class _Block:
    """One content block of the message, by its event ``index``: what it is (``"call"``,
    ``"server"``, ``"text"``, ``"reasoning"``, or None while only argument deltas came,
    before a start said whose they are), its assembler key, the text it carried (in
    blocks, joined only to compare), whether its id and name were sent, whether it ended,
    and whether a ``block-delta`` rewrote its arguments (``quiet``: no more deltas are
    read, the finished block decides)."""

    __slots__ = ("ended", "has_id", "has_name", "key", "kind", "quiet", "text")

    def __init__(self, key: int, kind: str | None) -> None:
        self.key = key
        self.kind = kind
        self.text = Text()  # in blocks (callstream._json.pieces)
        self.has_id = self.has_name = self.ended = self.quiet = False


class Events:
    """LangChain's content-block protocol events, read for one stream (the reader of
    :class:`~callstream.providers.langchain.LangChainTranslator`, sharing its server-call records).

    Per event (``index`` is the block's place in the message; calls are keyed by it):

    - ``content-block-start``: a ``tool_call_chunk`` / ``tool_call`` /
      ``invalid_tool_call`` block starts a client call (its ``id`` and ``name``, any
      argument text), a ``server_tool_call_chunk`` / ``server_tool_call`` block a
      server-side call (marked with ``ServerToolUse``); a finished block's ``{}``
      ``args`` is the start's placeholder. Text blocks and others give nothing.
    - ``content-block-delta``: ``text-delta`` and ``reasoning-delta`` are text;
      ``tool-call-delta`` appends argument text to the call its start named (deltas
      before any start are held until the block's finish says whose they are);
      ``block-delta`` carries a snapshot of a call chunk (``fields``): what extends the
      text so far is appended, a snapshot that rewrites it stops the deltas and the
      finished block decides. The older shape (a ``content_block`` slice instead of a
      ``delta``) reads as the slice's text or argument fragment.
    - ``content-block-finish``: a ``tool_call`` / ``server_tool_call`` ends its call
      (``CallEnd``; its parsed ``args`` only for a call that streamed no text or whose
      text was rewritten: the streamed text is the rawest form); an
      ``invalid_tool_call`` leaves its call open (its text, when none was streamed), so
      the end of the stream gives the verdict with its reason (a token limit: "cut
      off"), except one without arguments, which fails with LangChain's error; a text
      or reasoning block adds what its deltas lacked (the whole text, or the missing
      tail).
    - ``message-finish``: the end of the stream, the reason read from its ``metadata``
      as for a message chunk (or the older top-level ``reason``).
    - ``error``: every open call fails with the message, then ``StreamEnd("error")``.
    - ``message-start``: a new message; a message whose role is not ``ai`` is skipped to
      its finish. A message starting before the previous one finished gets keys of its
      own (its indexes restart at 0).

    A call block whose ``index`` is missing or unusable fails at its start (its later
    pieces are dropped). State: one small record per block.
    """

    __slots__ = ("_blocks", "_fresh", "_skipping", "_translator")

    def __init__(self, translator: Owner) -> None:
        self._translator = translator
        self._blocks: dict[int, _Block] = {}
        self._fresh = False  # keys from the translator's fresh keys (a later message)
        self._skipping = False  # inside a message that is not the model's

    def read(self, event: Any, kind: str) -> list[Signal]:
        """The signals of one event (its kind one of :data:`EVENTS`)."""
        if self._skipping:
            if kind in ("message-finish", "error"):
                self._skipping = False
            return []
        return _HANDLERS[kind](self, event)

    def _start_event(self, event: Any) -> list[Signal]:
        block = _event_block(event)
        return [] if block is None else self._start(get_block_index(event, "index"), block)

    def _message_start(self, event: Any) -> list[Signal]:
        role = get_str(event, "role")
        if role is not None and role != "ai":
            self._skipping = True
        elif self._blocks:
            self._blocks = {}
            self._fresh = True
        return []

    # --- blocks -----------------------------------------------------------------------

    def _record(self, index: int, kind: str | None) -> _Block:
        key = self._translator._keys.fresh() if self._fresh else index
        block = self._blocks[index] = _Block(key, kind)
        return block

    def _start(self, index: int | BadIndex, block: Any) -> list[Signal]:
        """A block begins (also a finished block or a slice whose start never came)."""
        btype = get_str(block, "type")
        server = btype in _SERVER_CALLS
        if not server and btype not in _CLIENT_CALLS:
            if isinstance(index, int) and btype in ("text", "reasoning"):
                self._record(index, btype)
            return []
        id_ = get_str(block, "id") or None
        name = get_str(block, "name") or None
        if isinstance(index, BadIndex):
            if self._translator._keys.find(index) is not None:
                return []  # a later piece of a call already refused
            where = "LangChain content-block index"
            return self._translator._keys.refuse(index, where, id_, name, server=server)
        record = self._blocks.get(index)
        if record is not None and record.kind is not None:
            return self._identify(record, id_, name)  # a second start: its identity only
        if record is None:
            record = self._record(index, "server" if server else "call")
        else:  # deltas held before this start: now known
            record.kind = "server" if server else "call"
        text, error = _start_arguments(get(block, "args"))
        held = record.text.value()
        if not held:
            record.text.clear()
        out = self._identify(record, id_, name)
        if held:
            out.extend(self._text(record, held, kept=True))
        if error is not None:
            out.extend(
                self._end(
                    record, CallFailure(error=f"LangChain {btype} block: {error}", index=record.key)
                )
            )
        elif text:
            out.extend(self._text(record, text))
        return out

    def _identify(self, record: _Block, id_: str | None, name: str | None) -> list[Signal]:
        """The call's id and name where it has none yet (never resent: a new id at the
        same key would read as another call)."""
        id_ = None if record.has_id else id_
        name = None if record.has_name else name
        if id_ is None and name is None:
            return []
        record.has_id = record.has_id or id_ is not None
        record.has_name = record.has_name or name is not None
        if record.kind == "server":
            return self._translator._server_piece(record.key, id_, name, None)
        return [CallChunk(record.key, id_, name, None)]

    def _text(self, record: _Block, text: str, *, kept: bool = False) -> list[Signal]:
        """Argument text for a call (kept in ``parts`` unless ``kept`` says it is)."""
        if record.ended or record.quiet:
            return []
        if not kept:
            record.text.add(text)
        if record.kind == "server":
            return self._translator._server_piece(record.key, None, None, text)
        if record.kind == "call":
            return [CallChunk(record.key, None, None, text)]
        return []  # held until a start or finish says whose call it is

    def _call_text(self, index: int | BadIndex, text: str) -> list[Signal]:
        if isinstance(index, BadIndex):
            return []  # its call was refused at its start (or never started)
        record = self._blocks.get(index)
        if record is None:
            record = self._record(index, None)
        elif record.kind not in ("call", "server", None):
            return []  # argument text for a text block: not a call
        return self._text(record, text)

    # --- deltas -----------------------------------------------------------------------

    def _delta(self, event: Any) -> list[Signal]:
        index = get_block_index(event, "index")
        delta = get(event, "delta")
        if not is_record(delta):
            legacy = get(event, "content_block")  # the older shape: the block's slice
            return self._slice(index, legacy) if is_record(legacy) else []
        dtype = get_str(delta, "type")
        if dtype == "text-delta":
            return self._block_text(index, get(delta, "text"), "text")
        if dtype == "reasoning-delta":
            return self._block_text(index, get(delta, "reasoning"), "reasoning")
        if dtype == "tool-call-delta":
            text = get_str(delta, "args")
            return self._call_text(index, text) if text else []
        if dtype == "block-delta":
            fields = get(delta, "fields")
            if is_record(fields) and get_str(fields, "type") in ("tool_call_chunk", *_SERVER_CALLS):
                return self._snapshot(index, fields)
        return []  # data-delta (media), and kinds this version does not know

    def _block_text(self, index: int | BadIndex, value: Any, kind: str) -> list[Signal]:
        out: list[Signal] = []
        add_text(out, value, kind != "text")
        if out and isinstance(index, int):
            record = self._blocks.get(index)
            if record is None:
                record = self._record(index, kind)
            if record.kind == kind:
                record.text.add(out[0].text)  # type: ignore[union-attr]
        return out

    def _slice(self, index: int | BadIndex, block: Any) -> list[Signal]:
        """A ``content_block`` delta (the older shape): a block slice, as a message
        chunk carries it (text, reasoning, or a call chunk appending its ``args``)."""
        btype = get_str(block, "type")
        if btype in ("text", "reasoning"):
            return self._block_text(index, get(block, btype), btype)
        if btype not in ("tool_call_chunk", "server_tool_call_chunk"):
            return []
        record = self._blocks.get(index) if isinstance(index, int) else None
        if record is None or record.kind is None:
            return self._start(index, block)
        out = self._identify(record, get_str(block, "id") or None, get_str(block, "name") or None)
        text = get_str(block, "args")
        if text:
            out.extend(self._text(record, text))
        return out

    def _snapshot(self, index: int | BadIndex, fields: Any) -> list[Signal]:
        """A ``block-delta`` call chunk: its ``args`` is the text so far, not a piece."""
        record = self._blocks.get(index) if isinstance(index, int) else None
        if record is None or record.kind is None:
            return self._start(index, fields)
        out = self._identify(record, get_str(fields, "id") or None, get_str(fields, "name") or None)
        text = get_str(fields, "args")
        if text is not None and not record.quiet:
            held = record.text.value()
            if text.startswith(held):
                if len(text) > len(held):
                    out.extend(self._text(record, text[len(held) :]))
            else:
                record.quiet = True  # rewritten: the finished block decides
        return out

    # --- finished blocks and the end --------------------------------------------------

    def _finish(self, event: Any) -> list[Signal]:
        block = _event_block(event)
        if block is None:
            return []
        index = get_block_index(event, "index")
        btype = get_str(block, "type")
        if btype in ("text", "reasoning"):
            return self._finish_text(index, block, btype)
        if btype not in _CLIENT_CALLS and btype not in _SERVER_CALLS:
            return []
        record = self._blocks.get(index) if isinstance(index, int) else None
        if record is None or record.kind is None:
            out = self._start(index, block)  # never started (or only its deltas came)
            record = self._blocks.get(index) if isinstance(index, int) else None
            if record is None or record.ended:
                return out
        else:
            out = self._identify(
                record, get_str(block, "id") or None, get_str(block, "name") or None
            )
        if not record.ended:
            out.extend(self._finish_call(record, block, btype))
        return out

    def _finish_call(self, record: _Block, block: Any, btype: str | None) -> list[Signal]:
        """A finished call block: ``CallEnd``, or (``invalid_tool_call``) its text."""
        if btype == "invalid_tool_call":
            if record.text.pieces:
                return []  # open: the end of the stream judges the streamed text
            text = get_str(block, "args")
            if text:  # its text, judged at the end of the stream like streamed text
                return self._text(record, text)
            error = f"LangChain invalid_tool_call: {get_str(block, 'error') or 'no arguments'}"
            return self._end(record, CallFailure(error=error, index=record.key))
        args: Any = None
        if record.quiet or not record.text.pieces:
            args, why = read_arguments(get(block, "args"))
            if why is not None:
                error = f"LangChain {btype} block: {why}"
                return self._end(record, CallFailure(error=error, index=record.key))
        return self._end(record, CallEnd(index=record.key, args=args))

    def _end(self, record: _Block, signal: Signal) -> list[Signal]:
        """End a call with ``signal`` (a server call takes no more text)."""
        record.ended = True
        if record.kind == "server":
            self._translator._close(record.key)
        return [signal]

    def _finish_text(self, index: int | BadIndex, block: Any, kind: str) -> list[Signal]:
        """What a finished text block adds to its deltas: the whole text when none came,
        the tail when it extends them, nothing when it rewrites them."""
        full = get_str(block, kind)
        record = self._blocks.get(index) if isinstance(index, int) else None
        seen = record.text.value() if record is not None and record.kind == kind else ""
        out: list[Signal] = []
        if full and full != seen:
            if not seen:
                add_text(out, full, kind != "text")
            elif full.startswith(seen):
                add_text(out, full[len(seen) :], kind != "text")
        return out

    def _unsettled(self) -> list[Signal]:
        """Before the end: held argument text no start or finish claimed goes to a call
        of its own (without a name: invalid), and a rewritten call never finished fails."""
        out: list[Signal] = []
        for record in self._blocks.values():
            if record.kind is None and record.text.pieces:
                record.kind = "call"
                out.append(CallChunk(record.key, None, None, record.text.value()))
            elif record.quiet and not record.ended and record.kind in ("call", "server"):
                error = (
                    "LangChain block-delta rewrote the call's arguments and no finished "
                    "block followed"
                )
                out.extend(self._end(record, CallFailure(error=error, index=record.key)))
        return out

    def _message_finish(self, event: Any) -> list[Signal]:
        out = self._unsettled()
        end = metadata_end(get(event, "metadata"))
        if end is None:
            reason = get_str(event, "reason")  # protocol < 0.0.9: a top-level reason
            end = finish(reason or None)
        out.append(end)
        return out

    def _error(self, event: Any) -> list[Signal]:
        message = get_str(event, "message") or "unknown error"
        code = get_str(event, "code")
        where = f"LangChain stream error ({code})" if code else "LangChain stream error"
        error = f"{where}: {message}"
        out = self._unsettled()
        for record in self._blocks.values():
            if record.kind in ("call", "server") and not record.ended:
                out.extend(self._end(record, CallFailure(error=error, index=record.key)))
        out.append(StreamEnd(reason="error"))
        return out


_HANDLERS: dict[str, Handler] = {
    "message-start": Events._message_start,
    "content-block-start": Events._start_event,
    "content-block-delta": Events._delta,
    "content-block-finish": Events._finish,
    "message-finish": Events._message_finish,
    "error": Events._error,
}
"""The handler of each event kind (every kind of :data:`EVENTS`)."""


def _event_block(event: Any) -> Any:
    """A start or finish event's block: ``content``, or ``content_block`` (the older
    name), else None."""
    block = get(event, "content")
    if not is_record(block):
        block = get(event, "content_block")
    return block if is_record(block) and not isinstance(block, (list, tuple)) else None


def _start_arguments(raw: Any) -> tuple[str | None, str | None]:
    """(argument text, reason it is unusable) for a block's ``args`` at its start: text as
    it is; an object (a finished block) as JSON text, except ``{}``, the start's
    placeholder."""
    if raw is None or type(raw) is str:
        return raw or None, None
    if is_record(raw) and not isinstance(raw, (list, tuple)) and not to_plain(raw):
        return None, None
    return read_arguments(raw, as_text=True)
