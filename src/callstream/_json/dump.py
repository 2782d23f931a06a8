"""The one JSON writer: decoded values (dicts, lists, scalars) as JSON text, never recursing.

Every JSON text callstream makes from a value goes through :func:`dumps_bounded`: the
arguments providers send as decoded objects (Ollama, Gemini, Anthropic ``input``,
llama.cpp), which callstream turns into JSON text and parses again, and everything it
writes for others to read: the UI protocols' events (:mod:`callstream.ui`), the event
feed (:func:`callstream.feed.dumps_feed`), the command's JSON output, tool outputs as
text for the model (:func:`callstream.runner.render_output`).

``json.dumps`` recurses once per nesting level and raises ``RecursionError`` on deep
values (sooner under a deep caller stack). With a ``max_depth`` the depth is measured
first, iteratively, stopping at the limit (a value past it raises
:class:`~callstream.JSONLimitError`); a value at most :data:`RECURSION_SAFE_DEPTH` deep
is written by ``json.dumps`` (C speed), a deeper one by an iterative writer with the
same output. Without a limit (``max_depth=None``: the output writers) ``json.dumps`` is
tried first and the iterative writer takes over when it refuses (``RecursionError``: a
deep value, or a caller's stack already near the limit). No value raises
``RecursionError``, whatever its depth.

Two modes:

- plain (the default): exactly ``json.dumps(value, ensure_ascii=..., separators=...,
  indent=...)`` for every value within the limit;
- strict (``strict=True``), for text sent to other programs. **The output rule**: the
  text is UTF-8 JSON any strict reader accepts (RFC 8259: ``pydantic_core``, the AG-UI
  models, JavaScript's ``JSON.parse`` + ``TextDecoder``, serde), non-ASCII written as is:

  - every surrogate code point (U+D800-U+DFFF) in a string or a key is written as U+FFFD
    (the replacement character). A Python ``str`` can hold one (``json.loads`` of
    ``"\\udc80"``, SDK objects, bytes decoded with ``surrogateescape``), but it has no
    UTF-8 form and strict readers refuse its ``\\udc80`` escape. A ``str`` never holds a
    valid pair as two code points (``json.loads`` joins an escaped pair into one
    character), so each one is lone;
  - ``NaN``, ``Infinity`` and ``-Infinity`` are written as ``null``.

  :func:`strict_data` applies the same rule to values handed out as Python data (MCP Apps
  notifications); :func:`strict_text` to one string.

Cost: O(size of the value) for the depth check, plus the serialization (and one regex
pass over the text in strict mode).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from callstream._errors import JSONLimitError

__all__ = (
    "RECURSION_SAFE_DEPTH",
    "dumps_bounded",
    "nesting_depth",
    "same_json",
    "strict_data",
    "strict_text",
)

RECURSION_SAFE_DEPTH: Final = 200
"""Values at most this deep are written by ``json.dumps`` itself (its C encoder recurses
once per level, well within Python's default recursion limit)."""

# chr(): no surrogates in string literals (docs/design.md, "Compiled build")
_SURROGATE: Final = re.compile(f"[{chr(0xD800)}-{chr(0xDFFF)}]")
_REPLACEMENT: Final = "\ufffd"
_END: Final[Any] = object()  # an exhausted iterator's marker
_EXIT: Final[Any] = object()  # stack marker of strict_data: leave a container


def _children(value: Any) -> Iterator[Any] | None:
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return None  # the common leaves, before the slower ABC check
    if isinstance(value, Mapping):
        return iter(value.values())
    if isinstance(value, (list, tuple)):
        return iter(value)
    return None


def nesting_depth(value: Any, limit: int) -> int | None:
    """Return how deeply ``value`` nests containers (a scalar: 0, ``[]``: 1, ``[[1]]``: 2),
    or None as soon as it exceeds ``limit``.

    Iterative (an explicit stack), so it never raises ``RecursionError``; a cyclic value
    exceeds any limit. Cost: O(size of the value up to the limit).
    """
    root = _children(value)
    if root is None:
        return 0
    stack = [root]
    deepest = 1
    if deepest > limit:
        return None
    while stack:
        child = next(stack[-1], stack)  # the stack itself marks "exhausted"
        if child is stack:
            stack.pop()
            continue
        inner = _children(child)
        if inner is not None:
            stack.append(inner)
            if len(stack) > deepest:
                deepest = len(stack)
                if deepest > limit:
                    return None
    return deepest


def same_json(a: Any, b: Any) -> bool:
    """``a == b`` for decoded JSON values (dicts, lists, scalars), without recursion on
    deep values: the C comparison for a shallow ``a``, an explicit stack otherwise.
    Cost: O(size)."""
    if nesting_depth(a, RECURSION_SAFE_DEPTH) is not None:
        return bool(a == b)  # the C comparison recurses at most as deep as ``a``
    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict):
            if not isinstance(y, dict) or len(x) != len(y):
                return False
            for key, value in x.items():
                if key not in y:
                    return False
                stack.append((value, y[key]))
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(y, (dict, list)) or x != y:
            return False
    return True


def strict_text(text: str) -> str:
    """``text`` with every surrogate code point replaced by U+FFFD (the output rule of
    the module docstring); ``text`` itself when it has none. Cost: O(len(text))."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(_REPLACEMENT, text)


def dumps_bounded(
    value: Any,
    *,
    max_depth: int | None,
    ensure_ascii: bool = False,
    strict: bool = False,
    separators: tuple[str, str] | None = None,
    indent: int | None = None,
) -> str:
    """``json.dumps(value, ensure_ascii=..., separators=..., indent=...)``, refusing
    values nested deeper than ``max_depth`` (None: no limit) and never raising
    ``RecursionError``; ``strict=True`` applies the output rule of the module docstring
    (no surrogates, no ``NaN``; non-ASCII as is, so ``ensure_ascii`` must be False).

    Raises:
        JSONLimitError: the value nests deeper than ``max_depth``, or holds itself (a
            cycle) under a limit (``position`` 0: a decoded value has no text positions).
        TypeError, ValueError: as ``json.dumps`` for values JSON cannot hold (an
            unknown type; a cycle without a limit: "Circular reference detected").
    """
    if strict and ensure_ascii:
        raise ValueError("strict JSON is written with non-ASCII as is (ensure_ascii=False)")
    if separators is None:
        separators = (",", ": ") if indent is not None else (", ", ": ")
    shallow = True  # without a limit, json.dumps is tried first (it refuses deep values)
    if max_depth is not None:
        depth = nesting_depth(value, max_depth)
        if depth is None:
            raise JSONLimitError(f"nesting deeper than max_depth={max_depth}", 0)
        shallow = depth <= RECURSION_SAFE_DEPTH
    text: str | None = None
    if shallow:
        try:
            text = _encoder(ensure_ascii, strict, separators, indent).encode(value)
        except RecursionError:  # deep, or the caller's stack is: write iteratively
            text = None
        except ValueError:  # a non-finite number (strict), or a cycle (without a limit):
            text = None  # the iterative writer writes null, or raises for the cycle
    if text is None:
        pad = None if indent is None else " " * indent
        text = _dumps_iterative(value, ensure_ascii, strict, separators, pad)
    return strict_text(text) if strict else text


_ENCODERS: Final[dict[tuple[bool, bool, tuple[str, str], int | None], json.JSONEncoder]] = {}


def _encoder(
    ensure_ascii: bool, strict: bool, separators: tuple[str, str], indent: int | None
) -> json.JSONEncoder:
    """The ``json.dumps`` encoder for these options, made once (``json.dumps`` makes one
    per call for any option but the defaults)."""
    key = (ensure_ascii, strict, separators, indent)
    encoder = _ENCODERS.get(key)
    if encoder is None:
        encoder = json.JSONEncoder(
            ensure_ascii=ensure_ascii, allow_nan=not strict, separators=separators, indent=indent
        )
        if len(_ENCODERS) < 64:  # a few option sets are used; never grow without bound
            _ENCODERS[key] = encoder
    return encoder


def _scalar(value: Any, ensure_ascii: bool, strict: bool) -> str:
    if strict and isinstance(value, float) and not math.isfinite(value):
        return "null"
    return json.dumps(value, ensure_ascii=ensure_ascii)


def _key(key: Any, ensure_ascii: bool) -> str:
    if isinstance(key, str):
        return json.dumps(key, ensure_ascii=ensure_ascii)
    # json.dumps's own key conversion (numbers, booleans, None; else TypeError)
    text = json.dumps({key: 0}, ensure_ascii=ensure_ascii, separators=(",", ":"))
    return text[1 : text.rindex(":")]


_Frame = tuple[Iterator[Any], bool, str, int]
"""An open container of the iterative writer: its items' iterator, whether it is a
mapping, its closing bracket, its id."""


def _write_value(
    item: Any,
    out: list[str],
    frames: list[_Frame],
    active: set[int],
    *,
    ensure_ascii: bool,
    strict: bool,
) -> bool:
    """Write a scalar or an empty container whole, or open a container (its bracket, a
    new frame). Returns whether a frame was opened. Raises ValueError for a container
    inside itself."""
    mapping = isinstance(item, Mapping)
    if not (mapping or isinstance(item, (list, tuple))):
        out.append(_scalar(item, ensure_ascii, strict))
        return False
    if len(item) == 0:
        out.append("{}" if mapping else "[]")
        return False
    marker = id(item)
    if marker in active:
        raise ValueError("Circular reference detected")
    active.add(marker)
    out.append("{" if mapping else "[")
    items = iter(item.items()) if mapping else iter(item)
    frames.append((items, mapping, "}" if mapping else "]", marker))
    return True


def _dumps_iterative(
    value: Any,
    ensure_ascii: bool,
    strict: bool,
    separators: tuple[str, str],
    indent: str | None,
) -> str:
    """The iterative writer behind :func:`dumps_bounded` (same output as ``json.dumps``).

    ``fresh`` says, per open frame, whether it has written no item yet. Raises
    ValueError for a container inside itself, as ``json.dumps`` does.
    """
    item_sep, key_sep = separators
    out: list[str] = []
    frames: list[_Frame] = []
    fresh: list[bool] = []
    active: set[int] = set()
    if _write_value(value, out, frames, active, ensure_ascii=ensure_ascii, strict=strict):
        fresh.append(True)
    while frames:
        items, in_mapping, closing, marker = frames[-1]
        entry = next(items, _END)
        if entry is _END:  # close the container
            frames.pop()
            fresh.pop()
            active.discard(marker)
            if indent is not None:
                out.append("\n" + indent * len(frames))
            out.append(closing)
            continue
        if fresh[-1]:
            fresh[-1] = False
        else:
            out.append(item_sep)
        if indent is not None:
            out.append("\n" + indent * len(frames))
        if in_mapping:
            key, item = entry
            out.append(_key(key, ensure_ascii))
            out.append(key_sep)
        else:
            item = entry
        if _write_value(item, out, frames, active, ensure_ascii=ensure_ascii, strict=strict):
            fresh.append(True)
    return "".join(out)


def strict_data(value: Any) -> Any:
    """A copy of ``value`` that follows the output rule of the module docstring, for data
    handed out as Python objects (to be written by someone else's JSON writer).

    Dicts and other mappings become new dicts, lists and tuples new lists; every ``str``
    (values and keys) has its surrogates replaced by U+FFFD (two keys that become equal
    keep the later value, as a JSON reader keeps the later of two equal keys); ``NaN``
    and infinities become None; other values are kept as they are (shared). Iterative:
    any depth, no ``RecursionError``.

    Raises:
        ValueError: a container holds itself (a cycle).

    Cost: O(size of the value).
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    active: set[int] = set()
    while stack:
        target, slot, item = stack.pop()
        if target is _EXIT:
            active.discard(slot)
        elif isinstance(item, str):
            target[slot] = strict_text(item)
        elif isinstance(item, float):
            target[slot] = item if math.isfinite(item) else None
        elif isinstance(item, (Mapping, list, tuple)):
            marker = id(item)
            if marker in active:
                raise ValueError("Circular reference detected")
            active.add(marker)
            stack.append((_EXIT, marker, item))
            # pushed last to first, so they are filled first to last (the later of two
            # keys that became equal wins)
            if isinstance(item, Mapping):
                copy: dict[Any, Any] = {}
                entries = list(item.items())
                for key, _ in entries:
                    copy[strict_text(key) if isinstance(key, str) else key] = None
                for key, child in reversed(entries):
                    stack.append((copy, strict_text(key) if isinstance(key, str) else key, child))
                target[slot] = copy
            else:
                seq: list[Any] = [None] * len(item)
                for position in range(len(seq) - 1, -1, -1):
                    stack.append((seq, position, item[position]))
                target[slot] = seq
        else:
            target[slot] = item
    return root[0]
