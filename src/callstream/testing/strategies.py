"""Hypothesis strategies for tool calls, their argument values, splits and written streams.

``tool_calls()`` draws what an agent may receive (names every provider accepts, distinct
ids, nested JSON-object arguments with escapes, control characters, non-ASCII and astral
text, big and small numbers); ``splits()`` draws a :data:`~callstream.testing.Split`;
``streams()`` draws calls and writes them with :func:`~callstream.testing.stream_of` in a
format, split and quirk that keep the calls, so ``collect(stream) == calls`` is a property
to test. ``fragments(text)`` cuts a text at random places (a fragment may be empty).

Needs hypothesis (the ``testing`` extra); this module imports it and is
imported only when asked for (``callstream.testing`` does not import it).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from callstream._errors import OptionValueError
from callstream.testing._stream import FORMATS, QUIRKS, SPLITS, WireStream, stream_of

__all__ = (
    "NAME_PATTERN",
    "arguments",
    "fragments",
    "json_scalars",
    "json_text",
    "json_values",
    "splits",
    "streams",
    "tool_call_ids",
    "tool_calls",
    "tool_names",
)

NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_-]{0,63}"
"""Tool names every provider accepts (OpenAI, Anthropic, Gemini, Bedrock, Cohere, Mistral,
Ollama): a letter or underscore, then up to 63 letters, digits, underscores or dashes."""

#: text that trips JSON writers and readers: escapes, controls, non-ASCII, astral
_AWKWARD = ['"', "\\", "/", "\n", "\t", "\x00", "\x1f", " ", "é", "😀", "𝄞", "\u2028"]


def json_text(max_size: int = 20) -> st.SearchStrategy[str]:
    """Strings with escapes, control characters, non-ASCII and astral characters (no lone
    surrogates: every string is valid UTF-8)."""
    return st.text(
        alphabet=st.one_of(
            st.characters(codec="utf-8", exclude_categories=["Cs"]), st.sampled_from(_AWKWARD)
        ),
        max_size=max_size,
    )


def json_scalars(max_size: int = 20) -> st.SearchStrategy[Any]:
    """``null``, booleans, integers up to 10**30 either way, finite floats (tiny and huge),
    and :func:`json_text` strings."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        json_text(max_size),
    )


def json_values(
    max_leaves: int = 25, *, inner_empty: bool = True, max_size: int = 20
) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars, and arrays and objects nested in each other.

    Args:
        max_leaves: about how many scalars a value holds at most.
        inner_empty: whether arrays and objects may be empty (``False`` for Vertex's
            ``partialArgs``, which cannot express an empty container below the top).
        max_size: the longest string.
    """
    least = 0 if inner_empty else 1
    text = json_text(max_size)
    return st.recursive(
        json_scalars(max_size),
        lambda children: st.one_of(
            st.lists(children, min_size=least, max_size=5),
            st.dictionaries(text, children, min_size=least, max_size=5),
        ),
        max_leaves=max_leaves,
    )


def arguments(
    max_leaves: int = 25, *, inner_empty: bool = True, max_size: int = 20
) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object of tool arguments (possibly empty), its values :func:`json_values`."""
    values = json_values(max_leaves, inner_empty=inner_empty, max_size=max_size)
    return st.dictionaries(json_text(max_size), values, max_size=6)


def tool_names() -> st.SearchStrategy[str]:
    """Tool names matching :data:`NAME_PATTERN`."""
    return st.from_regex(NAME_PATTERN, fullmatch=True)


def tool_call_ids() -> st.SearchStrategy[str]:
    """Call ids as providers write them: ``call_`` and up to 24 letters and digits."""
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return st.text(alnum, min_size=1, max_size=24).map(lambda s: "call_" + s)


def tool_calls(
    *,
    min_size: int = 1,
    max_size: int = 3,
    names: Sequence[str] | st.SearchStrategy[str] | None = None,
    args: st.SearchStrategy[dict[str, Any]] | None = None,
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of ``ToolCall``-shaped dicts (``name``, ``args``, ``id``) with distinct ids.

    Args:
        min_size: the fewest calls.
        max_size: the most calls.
        names: the names to draw from (a sequence, or a strategy); default
            :func:`tool_names`.
        args: the arguments strategy; default :func:`arguments` (``max_leaves=10``).
    """
    if names is None:
        name_strategy: st.SearchStrategy[str] = tool_names()
    elif isinstance(names, st.SearchStrategy):
        name_strategy = names
    else:
        name_strategy = st.sampled_from(list(names))
    return st.lists(
        st.fixed_dictionaries(
            {
                "name": name_strategy,
                "args": arguments(10) if args is None else args,
                "id": tool_call_ids(),
            }
        ),
        min_size=min_size,
        max_size=max_size,
        unique_by=lambda call: call["id"],
    )


def splits() -> st.SearchStrategy[str]:
    """One of :data:`~callstream.testing.SPLITS`."""
    return st.sampled_from(SPLITS)


@st.composite
def fragments(draw: st.DrawFn, text: str, max_cuts: int = 30) -> list[str]:
    """``text`` cut at random places into fragments (possibly empty ones); ``"".join``
    gives it back."""
    if not text:
        return [""]
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=max_cuts)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _keeping(fmt: str) -> list[str]:
    """The quirks of ``fmt`` after which reading the stream gives the calls."""
    return [
        q
        for q, info in QUIRKS.items()
        if fmt in info.formats and info.outcome.startswith("the calls")
    ]


@st.composite
def streams(
    draw: st.DrawFn,
    format: str | Sequence[str] | None = None,
    *,
    calls: st.SearchStrategy[list[dict[str, Any]]] | None = None,
    text: bool = True,
) -> tuple[list[dict[str, Any]], WireStream]:
    """``(calls, stream)``: drawn calls written by :func:`~callstream.testing.stream_of` in
    a drawn format (``format``: one name, several, or every one of
    :data:`~callstream.testing.FORMATS`), split, seed, and none or one of the format's
    quirks that keep the calls (its outcome starts ``"the calls"``), with drawn text
    before the calls when ``text``. ``callstream.collect(stream)`` gives back ``calls``.

    Raises:
        ValueError: an unknown format name.
    """
    names = FORMATS if format is None else (format,) if isinstance(format, str) else format
    unknown = [n for n in names if n not in FORMATS]
    if unknown:
        raise OptionValueError(f"unknown format {unknown[0]!r}: one of {', '.join(FORMATS)}")
    fmt = draw(st.sampled_from(list(names)))
    if calls is None:
        calls = tool_calls(args=arguments(10, inner_empty=fmt != "vertex"))
    drawn = draw(calls)
    quirk = draw(st.sampled_from([None, *_keeping(fmt)]))
    before = draw(st.none() | json_text(12).filter(bool)) if text else None
    stream = stream_of(
        drawn,
        format=fmt,
        split=draw(splits()),  # type: ignore[arg-type]
        quirks=() if quirk is None else (quirk,),  # type: ignore[arg-type]
        seed=draw(st.integers(0, 2**32)),
        text=before,
    )
    return drawn, stream
