"""A strict JSON reader for tests: what a program in another language accepts.

:func:`strict_loads` takes the text callstream wrote (``str`` or the UTF-8 bytes it goes
out as) and accepts only RFC 8259 JSON in valid UTF-8: no ``NaN`` / ``Infinity``, no lone
surrogate escape such as ``"\\udc80"`` (which Python's ``json.loads`` accepts, but
``pydantic_core``, serde and JavaScript's ``TextDecoder`` + ``JSON.parse`` round trip
do not). Values shallow enough for it are read by ``pydantic_core.from_json`` too (a real
strict reader; it refuses nesting past about 250 levels), deeper ones by ``json.loads`` (given the recursion limit it needs)
plus a check that no decoded string holds a surrogate code point (``json.loads`` joins an
escaped pair into one character, so one left over came from a lone escape).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

import pydantic_core

from callstream._json.dump import nesting_depth

__all__ = ("deep_room", "strict_loads", "through_json_dumps")

PYDANTIC_DEPTH = 200
READER_RECURSION_LIMIT = 20_000  # json.loads recurses per level: room for the deep texts


@contextlib.contextmanager
def deep_room() -> Iterator[None]:
    """Room on the stack for ``json.loads`` (and other recursive readers) of the deep
    texts: the recursion limit raised for the block."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, READER_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _surrogate_free(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # UnicodeEncodeError for a surrogate code point
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def strict_loads(data: str | bytes) -> Any:
    """Decode ``data`` as a strict reader would; raises ValueError (or
    ``UnicodeError``) for anything it would refuse."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    text = raw.decode("utf-8", errors="strict")
    with deep_room():
        value = json.loads(text, parse_constant=_refuse_constant)
    _surrogate_free(value)
    if nesting_depth(value, PYDANTIC_DEPTH) is not None:
        assert pydantic_core.from_json(raw) == value
    return value


def through_json_dumps(value: Any) -> Any:
    """Data callstream hands out (MCP Apps notifications, ``tool_messages()``) as any
    JSON writer writes it (``json.dumps``, non-ASCII as is and as escapes, no NaN), read
    back strictly; returns what was read."""
    out = None
    for ascii_only in (False, True):
        with deep_room():
            text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=False)
        out = strict_loads(text)
    return out
