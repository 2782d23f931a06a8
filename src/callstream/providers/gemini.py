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

The streamed leaves are turned back into ordinary JSON text (containers opened as paths
appear, strings escaped with :func:`json.dumps`, containers closed at the end), so the
assembler's incremental parser sees the same kind of fragments as from any other format.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from callstream._assembly.types import CallEnd, CallFailure, Signal, StreamEnd
from callstream._errors import DataError
from callstream.providers._base import (
    alternate_key,
    args_error,
    get,
    get_int,
    get_list,
    get_str,
    is_record,
    is_sequence,
    scalar_value,
    tool_chunk,
)
from callstream.providers._base import path as field_path
from callstream.providers.openai_chat import args_value

__all__ = ("GeminiTranslator", "detect", "parse_json_path")

#: Finish reasons saying the model's function call itself was bad.
FAILURE_REASONS = frozenset(
    {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}
)
_LENGTH_REASONS = frozenset({"MAX_TOKENS"})
_NORMAL_REASONS = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})

#: Deepest ``jsonPath`` accepted in streamed arguments (deeper is an invalid call).
MAX_PATH_DEPTH = 512

#: Largest jump past the end of an array that an out-of-order leaf may make (the
#: positions in between must be filled by later leaves). Arrays being rebuilt are sparse,
#: so a jump costs no memory; this only rejects a hopeless call early.
MAX_INDEX_GAP = 10_000

Path: TypeAlias = tuple[str | int, ...]
LeafKind: TypeAlias = Literal["string", "scalar", "empty"]
"""A leaf's kind: a string piece, a scalar's JSON text, or no value at all (an empty
continuation of an open string, else ``null``)."""


def detect(payload: Any) -> bool:
    """Return True if ``payload`` looks like a Gemini ``GenerateContentResponse`` chunk
    (it has a ``candidates`` list, or is a JSON array of such chunks). Cost: O(1)."""
    if is_sequence(payload):
        items = field_path(payload, 0)
        return items is not None and not is_sequence(items) and detect(items)
    return is_sequence(get(payload, "candidates"))


# --- jsonPath ---------------------------------------------------------------------------

_INDEX = re.compile(r"\[([0-9]+)\]")
_MAX_INDEX_DIGITS = 18  # int() of a longer digit run costs more (and may be refused)


def parse_json_path(text: str) -> Path | None:
    """Parse a streamed-argument ``jsonPath`` (``$.a.b[3]['c d']``) into a path tuple.

    Returns None when the text is not of that form. Cost: O(len(text)).
    """
    if not text.startswith("$"):
        return None
    out: list[str | int] = []
    i, n = 1, len(text)
    while i < n:
        char = text[i]
        if char == ".":
            j = i + 1
            while j < n and text[j] not in ".[":
                j += 1
            if j == i + 1:
                return None
            out.append(text[i + 1 : j])
            i = j
        elif char == "[" and i + 1 < n and text[i + 1] in "'\"":
            quote, j, buf = text[i + 1], i + 2, []
            while j < n and text[j] != quote:
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(text[j])
                j += 1
            if j + 1 >= n or text[j + 1] != "]":
                return None
            out.append("".join(buf))
            i = j + 2
        elif char == "[":
            match = _INDEX.match(text, i)
            if match is None or match.end() - i > _MAX_INDEX_DIGITS + 2:
                return None  # not an index, or one too long to be a real position
            out.append(int(match.group(1)))
            i = match.end()
        else:
            return None
    return tuple(out)


# --- partialArgs leaves -> JSON text ----------------------------------------------------


class _Frame:
    """An open container in the JSON text being written."""

    __slots__ = ("count", "is_array", "keys")

    def __init__(self, is_array: bool) -> None:
        self.is_array = is_array
        self.count = 0
        self.keys: set[str] = set()

    def accepts(self, segment: str | int) -> bool:
        if self.is_array:
            return type(segment) is int and segment == self.count
        return isinstance(segment, str) and segment not in self.keys


class _Strings(list[str]):
    """A string value built from pieces (joined once at the end)."""


class _LeafWriter:
    """Writes the JSON text of one streamed call from its ``partialArgs`` leaves.

    Leaves must arrive depth-first in document order (what Vertex sends): each leaf closes
    the containers it leaves, opens the ones it enters and writes its value. A leaf that
    does not fit that order (a key seen before, an array index that is not the next one,
    a container re-entered) switches the writer to *replay mode*: text output stops and
    the final value is rebuilt from the log of leaves (last write wins), to be handed over
    whole at the end. Cost: O(length of the leaf's path + value) per leaf; the leaves are
    also kept in a log (memory O(total leaf size)) so that replay mode is possible.
    """

    def __init__(self) -> None:
        self.frames: list[_Frame] = []
        self.keys: list[str | int] = []  # keys[i] leads from frames[i] into frames[i + 1]
        self.started = False
        self.string_path: Path | None = None
        self.replay = False
        self.log: list[tuple[Path, LeafKind, Any, bool]] = []

    def leaf(self, path: Path, kind: LeafKind, value: Any, more: bool) -> str:
        """Take one leaf; return the JSON text it adds (``""`` in replay mode)."""
        self.log.append((path, kind, value, more))
        if self.replay:
            return ""
        out: list[str] = []
        if self.string_path is not None:
            if kind != "scalar" and path == self.string_path:
                if kind == "string":
                    out.append(_escape(value))
                if not more:
                    out.append('"')
                    self.string_path = None
                return "".join(out)
            out.append('"')
            self.string_path = None
        if not self._place(path, out):
            self.replay = True
            return "".join(out)
        if kind == "string":
            out.append('"' + _escape(value))
            if more:
                self.string_path = path
            else:
                out.append('"')
        else:
            out.append(value)
        return "".join(out)

    def _place(self, path: Path, out: list[str]) -> bool:
        """Write what comes before the value at ``path``; False if it cannot be written."""
        if not self.started:
            if any(type(segment) is int and segment != 0 for segment in path):
                return False
            self.started = True
            if path:
                self._open(path[0], out)
            self._enter(path, 0, out)
            return True
        if not self.frames or not path:
            return False  # the root value is complete (a scalar), or a second root
        parent = path[:-1]
        depth = 0
        limit = min(len(self.keys), len(parent))
        while depth < limit and self.keys[depth] == parent[depth]:
            depth += 1
        if not self.frames[depth].accepts(path[depth]):
            return False
        if any(type(seg) is int and seg != 0 for seg in path[depth + 1 :]):
            return False
        while len(self.frames) > depth + 1:
            out.append("]" if self.frames.pop().is_array else "}")
            self.keys.pop()
        self._enter(path, depth, out)
        return True

    def _enter(self, path: Path, depth: int, out: list[str]) -> None:
        """Add member ``path[depth]`` to frame ``depth``, opening containers down to the
        leaf's parent. The caller checked that the path fits."""
        for level in range(depth, len(path)):
            frame = self.frames[level]
            segment = path[level]
            if frame.count:
                out.append(", ")
            frame.count += 1
            if isinstance(segment, str):
                frame.keys.add(segment)
                out.append(json.dumps(segment) + ": ")
            if level + 1 < len(path):
                self.keys.append(segment)
                self._open(path[level + 1], out)

    def _open(self, first_segment: str | int, out: list[str]) -> None:
        is_array = type(first_segment) is int
        self.frames.append(_Frame(is_array))
        out.append("[" if is_array else "{")

    def close(self) -> str:
        """Return the text that completes the value (``""`` in replay mode)."""
        if self.replay:
            return ""
        out = ['"'] if self.string_path is not None else []
        self.string_path = None
        while self.frames:
            out.append("]" if self.frames.pop().is_array else "}")
        self.keys.clear()
        return "".join(out)

    def rebuild(self) -> Any:
        """Rebuild the value from the leaf log (replay mode), in any leaf order.

        Raises ValueError when an array position is never filled (or a leaf jumps more
        than ``MAX_INDEX_GAP`` positions past an array's end)."""
        root: Any = None
        open_string: Path | None = None
        for path, kind, value, more in self.log:
            if kind != "scalar" and path == open_string:
                target = _lookup(root, path)
                if isinstance(target, _Strings):
                    if kind == "string":
                        target.append(value)
                    open_string = path if more else None
                    continue
            item: Any = _Strings([value]) if kind == "string" else json.loads(value)
            root = _assign(root, path, item)
            open_string = path if kind == "string" and more else None
        return _materialize(root)


def _escape(text: str) -> str:
    """JSON string-body escape of ``text`` (ASCII-only, so a split surrogate pair stays a
    pair of escapes)."""
    return json.dumps(text)[1:-1]


class _Array:
    """An array being rebuilt in replay mode, kept sparse: only the positions a leaf has
    written exist (a dict), so a leaf far past the end costs O(1), not O(gap). It becomes
    a list at the end, when every position from 0 to the last must be filled.

    ``size`` is one past the highest position written (the array's length so far).
    """

    __slots__ = ("items", "size")

    def __init__(self) -> None:
        self.items: dict[int, Any] = {}
        self.size = 0

    def first_hole(self) -> int | None:
        """The lowest position no leaf filled, None when all are (O(n log n) in the
        positions written, never in the gaps)."""
        if len(self.items) == self.size:
            return None
        for expected, position in enumerate(sorted(self.items)):
            if position != expected:
                return expected
        return len(self.items)  # pragma: no cover - size > len(items) implies a gap above


def _lookup(root: Any, path: Path) -> Any:
    current = root
    for segment in path:
        if isinstance(current, dict) and isinstance(segment, str):
            current = current.get(segment)
        elif isinstance(current, _Array) and type(segment) is int:
            current = current.items.get(segment)
        else:
            return None
    return current


def _assign(root: Any, path: Path, item: Any) -> Any:
    """Set ``item`` at ``path`` under ``root`` (creating containers; last write wins).

    Cost: O(len(path)); arrays are sparse (:class:`_Array`), so the memory is O(leaves)
    whatever positions the leaves name.
    """
    if not path:
        return item
    root = _container_for(root, path[0])
    current = root
    for level, segment in enumerate(path):
        last = level + 1 == len(path)
        if isinstance(current, _Array) and type(segment) is int:
            if segment - current.size > MAX_INDEX_GAP:
                raise ValueError(f"array position {segment} is far past the end")
            if segment >= current.size:
                current.size = segment + 1
            items = current.items
            value = item if last else _container_for(items.get(segment), path[level + 1])
            items[segment] = value
        elif isinstance(current, dict) and isinstance(segment, str):
            value = item if last else _container_for(current.get(segment), path[level + 1])
            current[segment] = value
        else:  # cannot happen: containers are made to match the next segment
            raise ValueError("inconsistent path")
        current = value
    return root


def _container_for(existing: Any, segment: str | int) -> Any:
    if type(segment) is int:
        return existing if isinstance(existing, _Array) else _Array()
    return existing if isinstance(existing, dict) else {}


def _materialize(root: Any) -> Any:
    """Join the string pieces and turn sparse arrays into lists; raise ValueError at an
    array position never filled (iterative, no recursion). Cost: O(size of the value)."""
    holder = [root]
    stack: list[tuple[Any, Any]] = [(holder, 0)]
    while stack:
        parent, slot = stack.pop()
        value = parent[slot]
        if isinstance(value, _Strings):
            parent[slot] = "".join(value)
        elif isinstance(value, dict):
            stack.extend((value, key) for key in value)
        elif isinstance(value, _Array):
            hole = value.first_hole()
            if hole is not None:
                raise ValueError(f"array position {hole} has no value")
            items = value.items
            array = [items[i] for i in range(value.size)]
            parent[slot] = array
            stack.extend((array, i) for i in reversed(range(len(array))))
    return holder[0]


def _read_leaf(leaf: Any) -> tuple[Path, LeafKind, Any, bool] | str:
    """Decode one ``partialArgs`` entry; a string result is why it cannot be used."""
    raw_path = get_str(leaf, "jsonPath")
    if raw_path is None:
        return "a partialArgs entry has no jsonPath"
    path = parse_json_path(raw_path)
    if path is None:
        return f"unreadable jsonPath {raw_path!r}"
    if len(path) > MAX_PATH_DEPTH:
        return f"jsonPath deeper than {MAX_PATH_DEPTH} levels"
    more = get(leaf, "willContinue") is True
    string = scalar_value(get(leaf, "stringValue"))
    if type(string) is str:
        return path, "string", string, more
    number = scalar_value(get(leaf, "numberValue"))
    if type(number) is str:
        try:
            number = float(number)
        except (ValueError, OverflowError):
            return f"unreadable numberValue {number!r} at {raw_path}"
    if type(number) is int or type(number) is float:
        if type(number) is float and not math.isfinite(number):
            return f"non-finite numberValue at {raw_path}"
        try:
            return path, "scalar", json.dumps(number), False
        except ValueError:  # an int too long to write
            return f"unreadable numberValue at {raw_path}"
    boolean = get(leaf, "boolValue")
    if type(boolean) is bool:
        return path, "scalar", "true" if boolean else "false", False
    if _has_key(leaf, "nullValue") or get(leaf, "nullValue") is not None:
        return path, "scalar", "null", False
    # No value at all: an empty continuation of an open string, else null.
    return path, "empty", "null", more


def _has_key(obj: Any, key: str) -> bool:
    """True if a mapping has ``key`` (or its snake-case twin), even with a null value."""
    try:
        if not isinstance(obj, Mapping):
            return False
        return key in obj or alternate_key(key) in obj
    except Exception:
        return False


# --- the translator ---------------------------------------------------------------------


class _StreamedCall:
    """The call whose arguments are being streamed as ``partialArgs``."""

    __slots__ = ("failed", "index", "start_args", "start_error", "writer")

    def __init__(self, index: int, start_args: dict[str, Any] | None) -> None:
        self.index = index
        self.start_args = start_args
        self.start_error: str | None = None  # why the opener's ``args`` were unusable
        self.writer = _LeafWriter()
        self.failed = False


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
      an ``error`` object -> ``CallFailure`` for an open call and ``StreamEnd("error")``.

    Only the first candidate is read (streaming with several candidates is not
    supported). A JSON array of chunks (``alt=json`` streaming) is read item by item.
    Cost: O(size of the payload); state is one streamed call at a time.
    """

    name = "gemini"

    def __init__(self) -> None:
        self._next_index = 0
        self._call: _StreamedCall | None = None
        self._ended = False

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one chunk (dict, SDK object, or list of chunks)."""
        if is_sequence(payload):  # a JSON array of chunks (one level: no recursion)
            signals: list[Signal] = []
            for item in get_list({"items": payload}, "items"):
                if not is_sequence(item):
                    signals.extend(self.translate(item))
            return signals
        candidates = get_list(payload, "candidates")
        if candidates:
            return self._candidate(_first_candidate(candidates))
        error = get(payload, "error")
        if error is not None:
            return self._stream_error(error)
        block = get_str(get(payload, "promptFeedback"), "blockReason")
        if block is not None:
            return self._end(block)
        return []

    # --- parts ---------------------------------------------------------------------------

    def _candidate(self, candidate: Any) -> list[Signal]:
        out: list[Signal] = []
        touched: list[int] = []  # calls that appeared in this chunk
        for part in get_list(get(candidate, "content"), "parts"):
            call = get(part, "functionCall")
            if call is not None and is_record(call):
                self._function_call(call, out, touched)
        reason = get_str(candidate, "finishReason")
        if reason is None:
            return out
        message = get_str(candidate, "finishMessage")
        if reason in FAILURE_REASONS:
            return self._fail_chunk(out, touched, reason, message)
        if self._call is not None:
            if reason in _NORMAL_REASONS:
                self._finish_call(out)
            elif reason not in _LENGTH_REASONS:
                index = self._call.index
                self._call = None
                error = f"generation stopped ({reason}) before the call was complete"
                out.append(CallFailure(error=_with_message(error, message), index=index))
        out.extend(self._end(reason))
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
            try:
                args = _whole_args(get(call, "args"))
            except DataError as exc:
                args = None
                args_failure: str | None = args_error(exc)
            else:
                args_failure = None
            if not more and not leaves:
                whole = tool_chunk(index, get_str(call, "id"), name, args)
                out.append(whole)
                if args_failure is not None:
                    out.append(CallFailure(error=args_failure, index=index))
                else:
                    out.append(CallEnd(index=index))
                return
            start_args = args if isinstance(args, dict) and args else None
            self._call = _StreamedCall(index, start_args)
            self._call.start_error = args_failure
            opener = tool_chunk(index, get_str(call, "id"), name, None)
            out.append(opener)
        elif self._call is None:
            if not leaves:
                return  # a stray terminator or separator
            index = self._next_index  # arguments for a call whose start we never saw
            self._next_index += 1
            self._call = _StreamedCall(index, None)
            nameless = tool_chunk(index, get_str(call, "id"), None, None)
            out.append(nameless)
        current = self._call
        assert current is not None
        if current.index not in touched:
            touched.append(current.index)
        if leaves and not current.failed:
            self._feed_leaves(current, leaves, out)
        if not more:
            self._finish_call(out)

    def _feed_leaves(self, call: _StreamedCall, leaves: list[Any], out: list[Signal]) -> None:
        pieces: list[str] = []
        for entry in leaves:
            leaf = _read_leaf(entry)
            if isinstance(leaf, str):
                self._flush(call, pieces, out)
                call.failed = True
                out.append(CallFailure(error=f"streamed arguments: {leaf}", index=call.index))
                return
            pieces.append(call.writer.leaf(*leaf))
        self._flush(call, pieces, out)

    @staticmethod
    def _flush(call: _StreamedCall, pieces: list[str], out: list[Signal]) -> None:
        text = "".join(pieces)
        pieces.clear()
        if text:
            chunk = tool_chunk(call.index, None, None, text)
            out.append(chunk)

    def _finish_call(self, out: list[Signal]) -> None:
        """End the open streamed call: closing text, then ``CallEnd`` (with the rebuilt
        value in replay mode, or the opener's ``args`` when no leaf came)."""
        call = self._call
        self._call = None
        if call is None or call.failed:
            return
        writer = call.writer
        if writer.replay:
            try:
                value = writer.rebuild()
            except ValueError as exc:
                out.append(CallFailure(error=f"streamed arguments: {exc}", index=call.index))
                return
            try:
                args = args_value(value)
            except DataError as exc:  # deeper than the assembler's default limit
                out.append(CallFailure(error=args_error(exc), index=call.index))
                return
            out.append(CallEnd(index=call.index, args=args))
            return
        self._flush(call, [writer.close()], out)
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
        kept.extend(self._end(reason))
        return kept

    def _stream_error(self, error: Any) -> list[Signal]:
        plain = scalar_value(error)
        if type(plain) is str:
            text = f"Gemini stream error: {plain}"
        else:
            status = get_str(error, "status") or get_int(error, "code")
            detail = get_str(error, "message")
            text = "Gemini stream error" + (f" ({status})" if status else "")
            text += f": {detail}" if detail else ""
        out: list[Signal] = []
        if self._call is not None:
            out.append(CallFailure(error=text, index=self._call.index))
            self._call = None
        out.extend(self._end("error", from_provider=False))
        return out

    def _end(self, reason: str, *, from_provider: bool = True) -> list[Signal]:
        if self._ended:
            return []
        self._ended = True
        if not from_provider:
            return [StreamEnd(reason=reason)]
        normalized = "length" if reason in _LENGTH_REASONS else reason
        return [StreamEnd(reason=normalized, provider_reason=reason)]


def _first_candidate(candidates: list[Any]) -> Any:
    for candidate in candidates:
        if get_int(candidate, "index") in (None, 0):
            return candidate
    return candidates[0]


def _whole_args(raw: Any) -> str | dict[str, Any] | None:
    """A whole call's ``args``: an object (SDK values made plain); other JSON as text.

    Raises:
        DataError: not JSON data, cyclic, or nested deeper than ``DEFAULT_MAX_DEPTH``
            (see :func:`~callstream.providers.openai_chat.args_value`).
    """
    value = args_value(raw)
    return None if value == "" else value


def _with_message(reason: str, message: str | None) -> str:
    return f"{reason}: {message}" if message else reason
