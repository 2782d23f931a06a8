"""Serialize decoded JSON values (dicts, lists, scalars) without recursion.

Providers sometimes send tool arguments as decoded objects (Ollama, Gemini, Anthropic
``input``, llama.cpp); callstream turns them into JSON text. ``json.dumps`` recurses once
per nesting level and raises ``RecursionError`` on deep values, so every place that
serializes a value it did not build itself goes through :func:`dumps_bounded`: it
measures the depth first (iteratively, stopping at the limit), then uses ``json.dumps``
when the value is shallow and an iterative writer otherwise. Its output equals
``json.dumps(value, ensure_ascii=...)`` for every value within the limit.

Cost: O(size of the value) for the depth check, plus the serialization.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from callstream._errors import JSONLimitError

__all__ = ("RECURSION_SAFE_DEPTH", "dumps_bounded", "nesting_depth")

RECURSION_SAFE_DEPTH: Final = 200
"""Values at most this deep are written by ``json.dumps`` itself (its C encoder recurses
once per level, well within Python's default recursion limit)."""


def _children(value: Any) -> Iterator[Any] | None:
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


def dumps_bounded(value: Any, *, max_depth: int, ensure_ascii: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=ensure_ascii)``, refusing values nested deeper
    than ``max_depth`` and never raising ``RecursionError``.

    Raises:
        JSONLimitError: the value nests deeper than ``max_depth`` (``position`` 0: a
            decoded value has no text positions).
        TypeError, ValueError: as ``json.dumps`` for values JSON cannot hold.
    """
    depth = nesting_depth(value, max_depth)
    if depth is None:
        raise JSONLimitError(f"nesting deeper than max_depth={max_depth}", 0)
    if depth <= RECURSION_SAFE_DEPTH:
        return json.dumps(value, ensure_ascii=ensure_ascii)
    return _dumps_iterative(value, ensure_ascii)


def _scalar(value: Any, ensure_ascii: bool) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii)


def _dumps_iterative(value: Any, ensure_ascii: bool) -> str:
    """The iterative writer behind :func:`dumps_bounded` for deep values (same output)."""
    out: list[str] = []
    # Each frame: (iterator over items, is_mapping, closing bracket, first-item flag list).
    stack: list[tuple[Iterator[Any], bool, str, list[bool]]] = []

    def open_container(item: Any) -> bool:
        if isinstance(item, Mapping):
            out.append("{")
            stack.append((iter(item.items()), True, "}", [True]))
            return True
        if isinstance(item, (list, tuple)):
            out.append("[")
            stack.append((iter(item), False, "]", [True]))
            return True
        return False

    if not open_container(value):
        return _scalar(value, ensure_ascii)
    while stack:
        items, is_mapping, closing, first = stack[-1]
        entry = next(items, stack)
        if entry is stack:
            stack.pop()
            out.append(closing)
            continue
        if not first[0]:
            out.append(", ")
        first[0] = False
        if is_mapping:
            key, item = entry
            if isinstance(key, str):
                out.append(_scalar(key, ensure_ascii))
                out.append(": ")
            else:  # json.dumps's own key conversion (numbers, booleans, None; else TypeError)
                text = json.dumps({key: 0}, ensure_ascii=ensure_ascii)
                out.append(text[1 : text.rindex(":") + 2])
        else:
            item = entry
        if not open_container(item):
            out.append(_scalar(item, ensure_ascii))
    return "".join(out)
