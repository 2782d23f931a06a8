"""Shared hypothesis strategies: JSON values, their serializations, and random splits."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from callstream.testing import strategies as public

# The value strategies are callstream.testing.strategies' (the public ones): one shape.
json_text = public.json_text()
json_scalars = public.json_scalars()
json_values = public.json_values


def json_objects(max_leaves: int = 25) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object (what tool arguments must be)."""
    return public.arguments(max_leaves)


@st.composite
def serializations(draw: st.DrawFn, value_strategy: st.SearchStrategy[Any] | None = None) -> str:
    """A JSON text of a random value, with random indent, separators and ensure_ascii."""
    value = draw(value_strategy if value_strategy is not None else json_values())
    indent = draw(st.sampled_from([None, None, 0, 2, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": "), (" ,\n", " :  ")]))
    ensure_ascii = draw(st.booleans())
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ensure_ascii)
    padding = draw(st.sampled_from(["", " ", "\n", " \r\n\t "]))
    return padding + text + draw(st.sampled_from(["", " ", "\n"]))


#: ``text`` cut into random fragments (possibly empty ones); ``"".join`` gives it back
splits = public.fragments


def split_every(text: str, size: int) -> list[str]:
    """``text`` cut into fragments of ``size`` characters (the last may be shorter)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def has_inner_empty(value: Any, top: bool = True) -> bool:
    """Whether ``value`` holds an empty array or object below the top (what Vertex's
    ``partialArgs`` cannot express)."""
    if isinstance(value, dict):
        return (not value and not top) or any(has_inner_empty(v, False) for v in value.values())
    if isinstance(value, list):
        return (not value and not top) or any(has_inner_empty(v, False) for v in value)
    return False
