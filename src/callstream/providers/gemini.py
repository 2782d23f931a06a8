"""Gemini ``streamGenerateContent`` chunks (Gemini API and Vertex AI) -> assembler signals.

Wire facts (from real recordings):

- A chunk is a ``GenerateContentResponse``: ``candidates[].content.parts[]`` and
  ``candidates[].finishReason`` (``STOP``, ``MAX_TOKENS``, ``MALFORMED_FUNCTION_CALL``,
  ``UNEXPECTED_TOOL_CALL``, ``SAFETY``, ...) with an optional ``finishMessage``.
- Whole calls: a part ``{"functionCall": {"name", "args": {...}, "id"?}}`` is one
  complete call; there is no index (each part is a new call) and usually no id. A
  ``thoughtSignature`` may sit next to ``functionCall`` in the part; it is ignored.
- Streamed arguments (Vertex ``streamFunctionCallArguments``): a part
  ``{"functionCall": {"name", "willContinue": true}}`` opens a call; the following parts
  carry ``functionCall.partialArgs``, a list of leaves ``{"jsonPath": "$.a.b[3].c",
  "stringValue" | "numberValue" | "boolValue" | "nullValue", "willContinue"?}``. A string
  leaf with ``willContinue`` is continued by the next leaves at the same path (the last
  piece is often ``""`` without ``willContinue``). Parts that only say
  ``{"willContinue": true}`` separate array elements. The call ends at a part without
  ``willContinue`` (possibly with the last leaves) or at an empty ``functionCall {}``.

Text: a part with ``text`` is the assistant's text, or reasoning when the part has
``thought: true`` (a thought summary); each becomes a :class:`~callstream.TextDelta`, in
part order with the calls. A ``thoughtSignature`` carries no text.

The streamed leaves are turned back into ordinary JSON text by
:class:`~callstream.providers._gemini_args.PartialArgsWriter` (containers opened as paths
appear, strings escaped with :func:`json.dumps`, containers closed at the end; leaves out
of document order are replayed into a whole value), so the assembler's incremental parser
sees the same kind of fragments as from any other format.
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import CallChunk, CallEnd, CallFailure, Signal
from callstream.providers._arguments import read_arguments
from callstream.providers._base import (
    Handler,
    field_kind,
    finish,
    finish_with_error,
    ignore,
    unreadable,
)
from callstream.providers._fields import (
    get,
    get_int,
    get_list,
    get_str,
    is_record,
    is_sequence,
    path,
)
from callstream.providers._gemini_args import (  # the limits: still importable from here
    MAX_INDEX_GAP,  # noqa: F401
    MAX_PATH_DEPTH,  # noqa: F401
    ArgsError,
    ArgsValue,
    PartialArgsWriter,
    parse_json_path,
)
from callstream.providers._plain import scalar_value
from callstream.providers._text import add_text

__all__ = ("GeminiTranslator", "detect", "parse_json_path")

#: Finish reasons saying the model's function call itself was bad.
FAILURE_REASONS = frozenset(
    {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}
)
_NORMAL_REASONS = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})


def detect(payload: Any) -> bool:
    """Return True if ``payload`` looks like a Gemini ``GenerateContentResponse`` chunk
    (it has a ``candidates`` list, or is a JSON array of such chunks). Cost: O(1)."""
    if is_sequence(payload):
        items = path(payload, 0)
        return items is not None and not is_sequence(items) and detect(items)
    return is_sequence(get(payload, "candidates"))


# --- the translator ---------------------------------------------------------------------


class _StreamedCall:
    """The call whose arguments are being streamed as ``partialArgs``."""

    __slots__ = ("index", "start_args", "start_error", "writer")

    def __init__(self, index: int, start_args: dict[str, Any] | None) -> None:
        self.index = index
        self.start_args = start_args
        self.start_error: str | None = None  # why the opener's ``args`` were unusable
        self.writer = PartialArgsWriter()


class GeminiTranslator:
    """Translate Gemini / Vertex ``streamGenerateContent`` chunks into signals.

    Gemini gives calls no index, so the translator numbers them itself in order of
    appearance (0, 1, ...) and uses that number as the chunk ``index``.

    - A ``functionCall`` part with a ``name`` and no ``willContinue`` is a whole call: a
      chunk with the name, ``id`` (when given) and ``args`` object, then ``CallEnd``.
    - A ``functionCall`` part with a ``name`` and ``willContinue: true`` opens a streamed
      call; its ``partialArgs`` leaves become argument text chunks (see the module
      docstring); a part without ``willContinue`` or an empty ``functionCall`` ends it
      (closing text, then ``CallEnd``). A new name while a call is open ends that call
      first. A leaf with an unreadable ``jsonPath`` makes the call a ``CallFailure``.
    - ``finishReason``: ``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL`` and
      ``TOO_MANY_TOOL_CALLS`` -> ``CallFailure`` with the ``finishMessage`` for the calls
      of that chunk and any open call (or one new invalid call when there is none);
      ``MAX_TOKENS`` -> ``StreamEnd("length")`` with an open call left open (the assembler
      marks it cut off); ``STOP`` ends an open call normally; any other reason fails an
      open call. Then ``StreamEnd`` with the reason (``MAX_TOKENS`` as ``"length"``).
    - ``promptFeedback.blockReason`` without candidates -> ``StreamEnd`` with that reason;
      an ``error`` object -> ``CallFailure`` for an open call and ``StreamEnd("error")``
      with the error's status and message as ``provider_error``.

    Only the first candidate is read (streaming with several candidates is not
    supported). A JSON array of chunks (``alt=json`` streaming) is read item by item.
    Cost: O(size of the payload); state is one streamed call at a time.
    """

    name = "gemini"

    def __init__(self) -> None:
        self._next_index = 0
        self._call: _StreamedCall | None = None

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one chunk (dict, SDK object, or list of chunks)."""
        kind: str | None = None  # dispatch, never raise: callstream.providers._base
        try:
            kind = "chunks" if is_sequence(payload) else field_kind(payload, _HANDLERS)
            return _HANDLERS.get(kind, ignore)(self, payload)
        except Exception as exc:
            return unreadable(self.name, kind, exc)

    def _chunks(self, payload: Any) -> list[Signal]:
        """A JSON array of chunks, read item by item (one level: no recursion)."""
        signals: list[Signal] = []
        for item in get_list({"items": payload}, "items"):
            if not is_sequence(item):
                signals.extend(self.translate(item))
        return signals

    def _blocked(self, payload: Any) -> list[Signal]:
        block = get_str(get(payload, "promptFeedback"), "blockReason")
        return [] if block is None else [finish(block)]

    # --- parts ---------------------------------------------------------------------------

    def _candidates(self, payload: Any) -> list[Signal]:
        candidate = _first_candidate(get_list(payload, "candidates"))
        out: list[Signal] = []
        touched: list[int] = []  # calls that appeared in this chunk
        for part in get_list(get(candidate, "content"), "parts"):
            call = get(part, "functionCall")
            if call is not None and is_record(call):
                self._function_call(call, out, touched)
            else:
                text = get(part, "text")
                if text is not None:
                    add_text(out, text, get(part, "thought") is True)
        reason = get_str(candidate, "finishReason")
        if reason is None:
            return out
        message = get_str(candidate, "finishMessage")
        if reason in FAILURE_REASONS:
            return self._fail_chunk(out, touched, reason, message)
        if self._call is not None:
            if reason in _NORMAL_REASONS:
                self._finish_call(out)
            elif reason != "MAX_TOKENS":
                index = self._call.index
                self._call = None
                error = f"generation stopped ({reason}) before the call was complete"
                out.append(CallFailure(error=_with_message(error, message), index=index))
        out.append(finish(reason))
        return out

    def _function_call(self, call: Any, out: list[Signal], touched: list[int]) -> None:
        name = get_str(call, "name")
        more = get(call, "willContinue") is True
        leaves = get_list(call, "partialArgs")
        if name:
            if self._call is not None:
                self._finish_call(out)  # a new call begins: the open one had no terminator
            index = self._next_index
            self._next_index += 1
            touched.append(index)
            args, args_failure = read_arguments(get(call, "args"))
            if not more and not leaves:
                whole = CallChunk(index, get_str(call, "id"), name, args)
                out.append(whole)
                if args_failure is not None:
                    out.append(CallFailure(error=args_failure, index=index))
                else:
                    out.append(CallEnd(index=index))
                return
            start_args = args if isinstance(args, dict) and args else None
            self._call = _StreamedCall(index, start_args)
            self._call.start_error = args_failure
            opener = CallChunk(index, get_str(call, "id"), name, None)
            out.append(opener)
        elif self._call is None:
            if not leaves:
                return  # a stray terminator or separator
            index = self._next_index  # arguments for a call whose start we never saw
            self._next_index += 1
            self._call = _StreamedCall(index, None)
            nameless = CallChunk(index, get_str(call, "id"), None, None)
            out.append(nameless)
        current = self._call
        assert current is not None
        if current.index not in touched:
            touched.append(current.index)
        if leaves and current.writer.error is None:
            self._feed_leaves(current, leaves, out)
        if not more:
            self._finish_call(out)

    def _feed_leaves(self, call: _StreamedCall, leaves: list[Any], out: list[Signal]) -> None:
        """Pass the leaves' text on; an unusable leaf fails the call (its rest is ignored)."""
        self._flush(call, [call.writer.feed(leaves)], out)
        if call.writer.error is not None:
            out.append(
                CallFailure(error=f"streamed arguments: {call.writer.error}", index=call.index)
            )

    @staticmethod
    def _flush(call: _StreamedCall, pieces: list[str], out: list[Signal]) -> None:
        text = "".join(pieces)
        pieces.clear()
        if text:
            chunk = CallChunk(call.index, None, None, text)
            out.append(chunk)

    def _finish_call(self, out: list[Signal]) -> None:
        """End the open streamed call: closing text, then ``CallEnd`` (with the rebuilt
        value in replay mode, or the opener's ``args`` when no leaf came)."""
        call = self._call
        self._call = None
        if call is None or call.writer.error is not None:
            return  # no call, or one already failed by a bad leaf
        writer = call.writer
        end = writer.finish()
        if isinstance(end, ArgsError):
            out.append(CallFailure(error=f"streamed arguments: {end.reason}", index=call.index))
            return
        if isinstance(end, ArgsValue):
            args, failure = read_arguments(end.value)
            if failure is not None:  # deeper than the assembler's default limit
                out.append(CallFailure(error=failure, index=call.index))
                return
            out.append(CallEnd(index=call.index, args=args))
            return
        self._flush(call, [end.text], out)
        if not writer.started and call.start_error is not None:
            out.append(CallFailure(error=call.start_error, index=call.index))
        elif not writer.started and call.start_args:
            out.append(CallEnd(index=call.index, args=call.start_args))
        else:
            out.append(CallEnd(index=call.index))

    # --- ends ----------------------------------------------------------------------------

    def _fail_chunk(
        self, out: list[Signal], touched: list[int], reason: str, message: str | None
    ) -> list[Signal]:
        """A tool-call failure reason: fail the calls of this chunk and any open call."""
        failed = set(touched)
        if self._call is not None:
            failed.add(self._call.index)
            self._call = None
        error = _with_message(reason, message)
        kept: list[Signal] = [
            s for s in out if not (isinstance(s, (CallEnd, CallFailure)) and s.index in failed)
        ]
        if failed:
            kept.extend(CallFailure(error=error, index=index) for index in sorted(failed))
        else:
            kept.append(CallFailure(error=error))
        kept.append(finish(reason))
        return kept

    def _error(self, payload: Any) -> list[Signal]:
        error = get(payload, "error")
        plain = scalar_value(error)
        if type(plain) is str:
            text = f"Gemini stream error: {plain}"
        else:
            status = get_str(error, "status") or get_int(error, "code")
            detail = get_str(error, "message")
            text = "Gemini stream error" + (f" ({status})" if status else "")
            text += f": {detail}" if detail else ""
        call, self._call = self._call, None
        return finish_with_error([] if call is None else [call.index], text)


def _first_candidate(candidates: list[Any]) -> Any:
    for candidate in candidates:
        if get_int(candidate, "index") in (None, 0):
            return candidate
    return candidates[0]


def _with_message(reason: str, message: str | None) -> str:
    return f"{reason}: {message}" if message else reason


#: Payload kind -> its handler: the first of these fields a chunk carries (in this
#: order), or ``chunks``: a JSON array of them.
_HANDLERS: dict[str | None, Handler] = {
    "candidates": GeminiTranslator._candidates,
    "error": GeminiTranslator._error,
    "promptFeedback": GeminiTranslator._blocked,
    "chunks": GeminiTranslator._chunks,
}
