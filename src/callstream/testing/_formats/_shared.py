"""What every format writer shares: the calls it is given (:class:`WireCall`), what else it
writes (:class:`Shape`), the orders argument pieces stream in, and JSON read back without
recursion.

Each writer (one module per format in :mod:`callstream.testing._formats`) takes the calls as
:class:`WireCall` values (id, name, argument pieces), the optional text and reasoning, and
whether the stream ends with the provider's closing payloads, and returns the decoded payload
dicts the provider streams, in order. Quirks (named in ``callstream.testing._stream``) are
applied by the writers themselves, through the :class:`Shape` they are given, so one writer
knows every variation of its format and no second copy of a format exists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from callstream._json.parser import PartialJSONParser

__all__ = (
    "Shape",
    "WireCall",
    "in_order",
    "interleave",
    "loads_or_text",
    "piece_order",
    "read_json",
)


@dataclass(frozen=True)
class WireCall:
    """One call to write: its id, name, and argument text cut into pieces (joined, the
    pieces are the whole text; one empty piece for no text).

    ``item`` is the OpenAI Responses output item it is written as (one of
    :data:`ITEM_TYPES`; other formats write function calls only). What streams in
    ``pieces`` depends on it: the JSON argument text (``function_call``, ``mcp_call``),
    the input text (``custom_tool_call``), the code (``code_interpreter_call``); a
    ``shell_call`` streams ``commands`` (each command's text in pieces). ``fields`` are
    the item's other fields, written whole: ``action`` without its ``commands`` (shell),
    ``container_id`` (code interpreter), every field of the items that do not stream
    (``local_shell_call``, ``apply_patch_call``, ``computer_call``, ``web_search_call``,
    ``file_search_call``, ``image_generation_call``).
    """

    id: str
    name: str
    pieces: tuple[str, ...]
    item: str = "function_call"
    fields: Mapping[str, Any] = field(default_factory=dict, hash=False)
    commands: tuple[tuple[str, ...], ...] = ()

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass(frozen=True)
class Shape:
    """What a writer writes besides the calls: text, reasoning, the end, and the quirks."""

    text: str | None = None
    reasoning: str | None = None
    finish: bool = True
    quirks: frozenset[str] = field(default_factory=frozenset)
    #: the finish word: "tool_calls" (the usual), "stop" or "length"
    reason: str = "tool_calls"
    #: end with the provider's error payload, the last call left open (its text cut by
    #: the caller) or absent (see the ``provider-error`` quirk)
    error: bool = False

    @property
    def cuts_last(self) -> bool:
        """Whether the last call is left open (cut by the token limit, or by an error)."""
        return self.reason == "length" or self.error


def read_json(text: str) -> Any:
    """``json.loads(text)`` without recursion (callstream's parser, its default depth
    limit; no ``NaN``), for the writers, whatever the depth of the arguments.

    Raises:
        PartialJSONError: the text is not JSON (a ``ValueError``), or nests deeper than
            ``DEFAULT_MAX_DEPTH``.
    """
    parser = PartialJSONParser()
    parser.feed(text)
    return parser.close()


def loads_or_text(text: str) -> Any:
    """The JSON value of ``text``, or ``text`` itself when it is not JSON."""
    try:
        return read_json(text)
    except ValueError:
        return text


def piece_order(counts: Sequence[int], mixed: bool) -> list[tuple[int, int]]:
    """(call, piece) pairs for calls of ``counts`` pieces: call after call, or (``mixed``)
    round robin over the calls, parallel calls' fragments mixed."""
    if not mixed:
        return [(i, j) for i, count in enumerate(counts) for j in range(count)]
    order: list[tuple[int, int]] = []
    for j in range(max(counts, default=0)):
        order += [(i, j) for i, count in enumerate(counts) if j < count]
    return order


def interleave(calls: list[WireCall]) -> list[tuple[int, int]]:
    """(call, piece) pairs, round robin over the calls: parallel calls' fragments mixed."""
    return piece_order([len(c.pieces) for c in calls], True)


def in_order(calls: list[WireCall]) -> list[tuple[int, int]]:
    """(call, piece) pairs, call after call."""
    return piece_order([len(c.pieces) for c in calls], False)
