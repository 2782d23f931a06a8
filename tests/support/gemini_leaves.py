"""Random JSON values as Gemini ``partialArgs`` leaves: shared by the writer's tests and
the translator's."""

from __future__ import annotations

import itertools
import re
from typing import Any

from hypothesis import strategies as st

from tests.support.strategies import json_scalars, json_text

_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def path_text(path: tuple[str | int, ...]) -> str:
    """``path`` as a Gemini jsonPath (``$.a[0]['odd key']``)."""
    out = ["$"]
    for segment in path:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif _SIMPLE_KEY.match(segment):
            out.append("." + segment)
        else:
            out.append("['" + segment.replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(out)


def scalars_in_order(value: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    """(path, scalar) pairs of ``value`` in document order (empty containers have none)."""
    out: list[tuple[tuple[str | int, ...], Any]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, i), child) for i, child in reversed(list(enumerate(item))))
        else:
            out.append((path, item))
    return out


_nonempty_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=4),
        st.dictionaries(json_text, children, min_size=1, max_size=4),
    ),
    max_leaves=15,
)
#: Objects for leaves: leaves cannot express an empty container, so the values have none
#: (the object itself may be ``{}``).
objects_without_empties = st.dictionaries(json_text, _nonempty_values, max_size=5)


def string_pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at up to 4 random places into the pieces of continued string leaves,
    sometimes followed by the empty piece Vertex closes strings with."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    pieces = [text[i:j] for i, j in itertools.pairwise(bounds)]
    if draw(st.booleans()):
        pieces.append("")
    return pieces
