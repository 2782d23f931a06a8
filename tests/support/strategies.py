"""Shared hypothesis strategies: JSON values, their serializations, and random splits."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Text that exercises escapes, control characters, non-ASCII and astral characters
# (surrogate pairs once ensure_ascii is on).
json_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(
            ['"', "\\", "/", "\n", "\t", "\x00", "\x1f", " ", "é", "😀", "𝄞", "\u2028"]
        ),
    ),
    max_size=20,
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    json_text,
)


def json_values(max_leaves: int = 25) -> st.SearchStrategy[Any]:
    """Any JSON value (scalars, nested arrays and objects)."""
    return st.recursive(
        json_scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(json_text, children, max_size=5),
        ),
        max_leaves=max_leaves,
    )


def json_objects(max_leaves: int = 25) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object (what tool arguments must be)."""
    return st.dictionaries(json_text, json_values(max_leaves), max_size=6)


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


@st.composite
def splits(draw: st.DrawFn, text: str, max_cuts: int = 30) -> list[str]:
    """``text`` cut into random fragments (possibly empty ones); ``"".join`` gives it back."""
    if not text:
        return [""]
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=max_cuts)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def split_every(text: str, size: int) -> list[str]:
    """``text`` cut into fragments of ``size`` characters (the last may be shorter)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
