"""Vertex / Gemini streamed ``partialArgs`` leaves -> JSON text of the call's arguments.

Vertex's ``streamFunctionCallArguments`` sends a call's arguments not as text but as
*leaves*: ``{"jsonPath": "$.a.b[3].c", "stringValue" | "numberValue" | "boolValue" |
"nullValue": ..., "willContinue"?}``. A string leaf with ``willContinue`` is continued by
the next leaves at the same path; a leaf with no value continues an open string (else it
is ``null``). Containers are never sent: they are implied by the paths, so an empty
object or array cannot be expressed.

:class:`PartialArgsWriter` turns the leaves of one call back into ordinary JSON text, so
the assembler's incremental parser sees the same kind of fragments as from any other
format. It knows nothing of the translator::

    writer = PartialArgsWriter()
    text = writer.feed(entries)  # the JSON text these leaves add ("" when none)
    end = writer.finish()        # ArgsText | ArgsValue | ArgsError

Theory of operation. Leaves normally arrive depth-first in document order; then each leaf
closes the containers it leaves, opens the ones it enters and writes its value (*text
mode*), and :meth:`~PartialArgsWriter.finish` returns the closing text. A leaf that does
not fit that order (a key seen before, an array position that is not the next one, a
container re-entered) switches the writer to *replay mode*: text output stops, and at the
end the value is rebuilt from the log of all leaves (last write wins) and handed over whole
as an :class:`ArgsValue`. Bad data (an unreadable entry, an array position never filled)
is never raised: it is an :class:`ArgsError` reason (:attr:`~PartialArgsWriter.error`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from callstream.providers._fields import alternate_key, get, get_str
from callstream.providers._plain import describe, json_string_body, scalar_value

__all__ = (
    "MAX_INDEX_GAP",
    "MAX_PATH_DEPTH",
    "ArgsError",
    "ArgsText",
    "ArgsValue",
    "PartialArgsWriter",
    "parse_json_path",
)

#: Deepest ``jsonPath`` accepted in streamed arguments (deeper is an :class:`ArgsError`).
MAX_PATH_DEPTH = 512

#: Largest jump past the end of an array that an out-of-order leaf may make (the
#: positions in between must be filled by later leaves). Arrays being rebuilt are sparse,
#: so a jump costs no memory; this only rejects a hopeless call early.
MAX_INDEX_GAP = 10_000

Path: TypeAlias = tuple[str | int, ...]
LeafKind: TypeAlias = Literal["string", "scalar", "empty"]
"""A leaf's kind: a string piece, a scalar's JSON text, or no value at all (an empty
continuation of an open string, else ``null``)."""

_Leaf: TypeAlias = tuple[Path, LeafKind, str, bool]  # value: a string piece or JSON text


class _BadLeaves(Exception):
    """The leaves cannot make a value; ``args[0]`` is the reason (never escapes the module)."""


# --- results ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArgsText:
    """Text mode end: ``text`` completes the JSON document written so far (may be ``""``)."""

    text: str


@dataclass(frozen=True, slots=True)
class ArgsValue:
    """Replay mode end: the whole value rebuilt from the leaves (replaces the text sent)."""

    value: Any


@dataclass(frozen=True, slots=True)
class ArgsError:
    """The leaves cannot make a value; ``reason`` says why (readable, one line)."""

    reason: str


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


# --- the writer -------------------------------------------------------------------------


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


class PartialArgsWriter:
    """Writes the JSON text of one streamed call from its ``partialArgs`` entries.

    Invariants: the texts :meth:`feed` returns only append. While in text mode, the text
    so far plus the closing text is JSON (``json.dumps`` spacing) for a sub-document of
    the final value (when each path is written once: fewer keys, array and string
    prefixes); leaves in document order end as ``json.dumps`` of the value. Once replaying,
    :meth:`feed` returns ``""``; once :attr:`error` is set, later entries are ignored.

    Cost: O(length of the entry's path + value) per entry; the leaves are also kept in a
    log (memory O(total leaf size)) so that replay mode is possible, and a replay costs
    O(total leaf size + n log n in the array positions written) once, at :meth:`finish`.
    """

    def __init__(self) -> None:
        self._frames: list[_Frame] = []
        self._keys: list[str | int] = []  # _keys[i] leads from _frames[i] into _frames[i + 1]
        self._rooted = False  # the first leaf was written in text mode
        self._string_path: Path | None = None
        self._replay = False
        self._log: list[_Leaf] = []
        self._error: str | None = None

    @property
    def started(self) -> bool:
        """True once a usable leaf has been taken (text was written or a replay began)."""
        return bool(self._log)

    @property
    def replaying(self) -> bool:
        """True once the leaves went out of document order (no more text; see the class)."""
        return self._replay

    @property
    def error(self) -> str | None:
        """Why the leaves cannot be used (set by a bad entry or a failed replay), or None."""
        return self._error

    def feed(self, entries: Iterable[Any]) -> str:
        """Take ``partialArgs`` entries (wire dicts or SDK objects); return the JSON text
        they add. At an unusable entry, :attr:`error` is set and the text written before
        it is returned; that entry and all later ones are ignored. Never raises on data."""
        if self._error is not None:
            return ""
        out: list[str] = []
        for entry in entries:
            try:
                leaf = _read_leaf(entry)
            except _BadLeaves as exc:
                self._error = str(exc)
                break
            self._log.append(leaf)
            if not self._replay:
                self._write(leaf, out)
        return "".join(out)

    def finish(self) -> ArgsText | ArgsValue | ArgsError:
        """End the call: the closing text (text mode), the rebuilt value (replay mode), or
        why there is no value. Call once; the writer is spent afterwards."""
        if self._error is None and self._replay:
            try:
                return ArgsValue(_rebuild(self._log))
            except _BadLeaves as exc:
                self._error = str(exc)
        if self._error is not None:
            return ArgsError(self._error)
        out = ['"'] if self._string_path is not None else []
        self._string_path = None
        while self._frames:
            out.append("]" if self._frames.pop().is_array else "}")
        self._keys.clear()
        return ArgsText("".join(out))

    # --- text mode -----------------------------------------------------------------------

    def _write(self, leaf: _Leaf, out: list[str]) -> None:
        """Append the text of one leaf to ``out``, or switch to replay mode."""
        path, kind, value, more = leaf
        if self._string_path is not None:
            if kind != "scalar" and path == self._string_path:
                if kind == "string":
                    out.append(json_string_body(value))
                if not more:
                    out.append('"')
                    self._string_path = None
                return
            out.append('"')
            self._string_path = None
        if not self._place(path, out):
            self._replay = True
        elif kind == "string":
            out.append('"' + json_string_body(value))
            if more:
                self._string_path = path
            else:
                out.append('"')
        else:
            out.append(value)

    def _place(self, path: Path, out: list[str]) -> bool:
        """Write what comes before the value at ``path``; False (and nothing written) if
        it cannot be written in document order."""
        if not self._rooted:
            if any(type(segment) is int and segment != 0 for segment in path):
                return False
            self._rooted = True
            if path:
                self._open(path[0], out)
            self._enter(path, 0, out)
            return True
        if not self._frames or not path:
            return False  # the root value is complete (a scalar), or a second root
        parent = path[:-1]
        depth = 0
        limit = min(len(self._keys), len(parent))
        while depth < limit and self._keys[depth] == parent[depth]:
            depth += 1
        if not self._frames[depth].accepts(path[depth]):
            return False
        if any(type(seg) is int and seg != 0 for seg in path[depth + 1 :]):
            return False
        while len(self._frames) > depth + 1:
            out.append("]" if self._frames.pop().is_array else "}")
            self._keys.pop()
        self._enter(path, depth, out)
        return True

    def _enter(self, path: Path, depth: int, out: list[str]) -> None:
        """Add member ``path[depth]`` to frame ``depth``, opening containers down to the
        leaf's parent. The caller checked that the path fits."""
        for level in range(depth, len(path)):
            frame = self._frames[level]
            segment = path[level]
            if frame.count:
                out.append(", ")
            frame.count += 1
            if isinstance(segment, str):
                frame.keys.add(segment)
                out.append(json.dumps(segment) + ": ")
            if level + 1 < len(path):
                self._keys.append(segment)
                self._open(path[level + 1], out)

    def _open(self, first_segment: str | int, out: list[str]) -> None:
        is_array = type(first_segment) is int
        self._frames.append(_Frame(is_array))
        out.append("[" if is_array else "{")


# --- reading one entry ------------------------------------------------------------------


def _read_leaf(entry: Any) -> _Leaf:
    """Decode one ``partialArgs`` entry. Raises _BadLeaves with the reason it is unusable."""
    raw_path = get_str(entry, "jsonPath")
    if raw_path is None:
        raise _BadLeaves("a partialArgs entry has no jsonPath")
    path = parse_json_path(raw_path)
    if path is None:
        raise _BadLeaves(f"unreadable jsonPath {raw_path!r}")
    if len(path) > MAX_PATH_DEPTH:
        raise _BadLeaves(f"jsonPath deeper than {MAX_PATH_DEPTH} levels")
    more = get(entry, "willContinue") is True
    raw_string = get(entry, "stringValue")
    string = scalar_value(raw_string)
    if type(string) is str:
        return path, "string", string, more
    if raw_string is not None:
        raise _BadLeaves(f"stringValue at {raw_path} is not a string: {describe(raw_string)}")
    scalar = _number_text(entry, raw_path)
    if scalar is None:
        scalar = _bool_or_null_text(entry, raw_path)
    if scalar is None:  # no value at all: an empty continuation of an open string, else null
        return path, "empty", "null", more
    return path, "scalar", scalar, False


def _number_text(entry: Any, raw_path: str) -> str | None:
    """The JSON text of the entry's ``numberValue`` (None without one). Raises _BadLeaves
    for a number that cannot be written (unreadable text, NaN / infinity, too long)."""
    raw_number = get(entry, "numberValue")
    number = scalar_value(raw_number)  # an enum or a subclass: its plain value
    if type(number) is str:
        try:
            number = float(number)
        except ValueError:
            raise _BadLeaves(f"unreadable numberValue {number!r} at {raw_path}") from None
    if raw_number is None:
        return None
    if type(number) is not int and type(number) is not float:
        raise _BadLeaves(f"numberValue at {raw_path} is not a number: {describe(raw_number)}")
    if type(number) is float and not math.isfinite(number):
        raise _BadLeaves(f"non-finite numberValue at {raw_path}")
    try:
        return json.dumps(number)
    except ValueError:  # an int too long to write
        raise _BadLeaves(f"unreadable numberValue at {raw_path}") from None


def _bool_or_null_text(entry: Any, raw_path: str) -> str | None:
    """``true`` / ``false`` / ``null`` for a ``boolValue`` or ``nullValue`` (None without).
    Raises _BadLeaves for a ``boolValue`` that is not a bool."""
    boolean = get(entry, "boolValue")
    if type(boolean) is bool:
        return "true" if boolean else "false"
    if boolean is not None:
        raise _BadLeaves(f"boolValue at {raw_path} is not a bool: {describe(boolean)}")
    if _has_key(entry, "nullValue") or get(entry, "nullValue") is not None:
        return "null"
    return None


def _has_key(obj: Any, key: str) -> bool:
    """True if a mapping has ``key`` (or its snake-case twin), even with a null value."""
    try:
        if not isinstance(obj, Mapping):
            return False
        return key in obj or alternate_key(key) in obj
    except Exception:
        return False


# --- replay mode ------------------------------------------------------------------------


class _Strings(list[str]):
    """A string value built from pieces (joined once at the end)."""


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


def _rebuild(log: list[_Leaf]) -> Any:
    """Rebuild the value from the leaf log, in any leaf order (last write wins; a string
    continues only at the leaf right after its previous piece).

    Raises _BadLeaves when an array position is never filled (or a leaf jumps more than
    ``MAX_INDEX_GAP`` positions past an array's end)."""
    root: Any = None
    open_string: Path | None = None
    for path, kind, value, more in log:
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
                raise _BadLeaves(f"array position {segment} is far past the end")
            if segment >= current.size:
                current.size = segment + 1
            items = current.items
            value = item if last else _container_for(items.get(segment), path[level + 1])
            items[segment] = value
        elif isinstance(current, dict) and isinstance(segment, str):
            value = item if last else _container_for(current.get(segment), path[level + 1])
            current[segment] = value
        else:  # only for a segment neither str nor int: parse_json_path never makes one
            raise _BadLeaves("inconsistent path")
        current = value
    return root


def _container_for(existing: Any, segment: str | int) -> Any:
    if type(segment) is int:
        return existing if isinstance(existing, _Array) else _Array()
    return existing if isinstance(existing, dict) else {}


def _materialize(root: Any) -> Any:
    """Join the string pieces and turn sparse arrays into lists; raise _BadLeaves at an
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
                raise _BadLeaves(f"array position {hole} has no value")
            items = value.items
            array = [items[i] for i in range(value.size)]
            parent[slot] = array
            stack.extend((array, i) for i in reversed(range(len(array))))
    return holder[0]
