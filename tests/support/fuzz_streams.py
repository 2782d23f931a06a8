"""Streams of our own in each provider's wire shape, and mutations of them, for fuzzing.

``WRITERS[format](calls, cuts, finish)`` renders tool calls (id, name, argument text) into
the payload dicts that format streams, argument text cut at the given points (the writers
are ``callstream.testing``'s). Mutations
damage a stream the way a bad server or a broken proxy would: payloads dropped,
duplicated, reordered or cut off, a field replaced by a value of another type or
deleted, a string cut or grown, a stray payload inserted.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from callstream.testing import WireCall, ndjson_line, sse_event, write_calls

Call = tuple[str, str, str]  # id, name, argument text


def _pieces(text: str, cuts: list[int]) -> tuple[str, ...]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return tuple(text[a:b] for a, b in zip(points, points[1:], strict=False)) or ("",)


def _writer(fmt: str) -> Callable[[list[Call], list[int], str], list[Any]]:
    """``callstream.testing``'s writer of ``fmt``, taking (id, name, text) calls and cut
    points; ``finish == "length"`` leaves the last call open with a token-limit finish."""

    def write(calls: list[Call], cuts: list[int], finish: str) -> list[Any]:
        wire = [WireCall(id_, name, _pieces(text, cuts)) for id_, name, text in calls]
        reason = "length" if finish == "length" else "tool_calls"
        return write_calls(wire, format=fmt, reason=reason)

    return write


WRITERS: dict[str, Callable[[list[Call], list[int], str], list[Any]]] = {
    fmt: _writer(fmt)
    for fmt in (
        "openai-chat",
        "openai-responses",
        "anthropic",
        "bedrock",
        "cohere",
        "gemini",
        "ollama",
    )
}
"""Every format we fuzz, by provider name (callstream.testing writes them)."""


def raw_text(provider: str, payloads: list[Any]) -> str:
    """The payloads as the bytes a server sends: NDJSON for Ollama, else SSE (``data:``
    lines only: a damaged payload's ``type`` is no event name)."""
    if provider == "ollama":
        return "".join(ndjson_line(p) for p in payloads)
    return "".join(sse_event(p) for p in payloads)


# --- strategies -----------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.one_of(
    st.dictionaries(st.text(max_size=6), json_values, max_size=4).map(json.dumps),
    st.sampled_from(["", "{}", '{"a": [1, {"b": "c\\u00e9"}]}', "[1, 2]", '{"a": 1', '{"a" 1}']),
)
calls = st.lists(
    st.tuples(
        st.text("abcdef0123", min_size=1, max_size=6).map(lambda s: "call_" + s),
        st.sampled_from(["get_weather", "search", "write_file"]),
        arguments,
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda c: c[0],
)
odd_values = st.sampled_from(
    [None, True, False, 0, -1, 1.5, "", "abc", "0", [], [0], {}, {"a": 1}, "x" * 50, "\udc80"]
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    stack = [(value, prefix)]
    while stack:
        node, path = stack.pop()
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, child in items:
            out.append((*path, key))
            stack.append((child, (*path, key)))
    return out


@st.composite
def mutated(draw: st.DrawFn, payloads: list[Any]) -> list[Any]:
    """``payloads`` with one to three mutations applied (a deep copy; the input is kept)."""
    out = copy.deepcopy(payloads)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not out:
            break
        kind = draw(
            st.sampled_from(["drop", "dup", "swap", "cut", "field", "delete", "string", "insert"])
        )
        i = draw(st.integers(min_value=0, max_value=len(out) - 1))
        if kind == "drop":
            del out[i]
        elif kind == "dup":
            out.insert(i, copy.deepcopy(out[i]))
        elif kind == "swap" and i + 1 < len(out):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif kind == "cut":
            del out[i:]
        elif kind == "insert":
            out.insert(
                i,
                draw(
                    st.dictionaries(
                        st.sampled_from(["type", "index", "choices", "delta", "id"]),
                        json_values,
                        max_size=3,
                    )
                ),
            )
        else:
            paths = [p for p in _paths(out[i]) if p]
            if not paths:
                continue
            path = draw(st.sampled_from(paths))
            parent = out[i]
            for key in path[:-1]:
                parent = parent[key]
            last = path[-1]
            if kind == "field":
                parent[last] = draw(odd_values)
            elif kind == "delete" and isinstance(parent, dict):
                del parent[last]
            elif kind == "string" and isinstance(parent[last], str):
                text = parent[last]
                at = draw(st.integers(min_value=0, max_value=len(text)))
                parent[last] = (
                    text[:at]
                    + draw(st.sampled_from(["", '"', "}", "{", "\\", "é", "\x00"]))
                    + text[at + 1 :]
                )
    return out
