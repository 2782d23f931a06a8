"""Choosing a stream's format from its payloads (``provider="auto"``), beside the registry.

A payload's shape is only a guess (one stray ``{"type": "message_start"}`` looks like
Anthropic), so :class:`Detection` holds the payloads back and counts votes: the format is
chosen on evidence (a payload with a tool-call or end-of-stream field of a format, see
:func:`~callstream.providers.has_evidence`), or once :data:`MIN_VOTES` payloads are
shaped like the same format; past :data:`MAX_UNRECOGNIZED` held payloads (or
:data:`MAX_UNRECOGNIZED_OBJECTS` SDK objects of no known shape), or when the stream ends,
the format most payloads looked like. The pipeline (:mod:`callstream._pipeline`) then
translates the held payloads in order. The messages of :class:`~callstream.UnknownFormatError`
(no format recognized, or payloads foreign to the format read) are written here too.

Cost per payload held: one detection (a few field reads per format), plus one
translation of it when its shape names a format (the evidence test).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from callstream._errors import UnknownFormatError
from callstream.providers import detect_format, has_evidence
from callstream.providers._formats import FORMATS

__all__ = (
    "MAX_UNRECOGNIZED",
    "MAX_UNRECOGNIZED_OBJECTS",
    "MIN_VOTES",
    "Detection",
    "describe",
    "not_of_format",
)

MAX_UNRECOGNIZED: Final = 64
"""Payloads held back by ``provider="auto"`` before giving up on recognizing the format."""

MAX_UNRECOGNIZED_OBJECTS: Final = 8
"""SDK objects (not dicts) held back, none of a known shape, before giving up: a stream
of objects is recognized from its first payloads or never, so it fails fast."""

MIN_VOTES: Final = 3
"""Payloads shaped like one format that choose it without evidence (text-only streams)."""


def describe(payload: Any) -> str:
    """A payload named in an error message: a dict's first keys, or an object's type."""
    if isinstance(payload, Mapping):
        keys = ", ".join(repr(k) for k in list(payload)[:8])
        return f"a dict with keys {keys}" if keys else "an empty dict"
    return f"a {type(payload).__module__}.{type(payload).__qualname__} object"


class Detection:
    """The payloads held back while the format is open, and the votes they cast."""

    __slots__ = ("held", "votes")

    def __init__(self) -> None:
        self.held: list[Any] = []
        self.votes: dict[str, int] = {}  # format -> held payloads shaped like it

    def add(self, payload: Any) -> str | None:
        """Hold ``payload``; return the format to read the stream as once one is chosen
        (the held payloads are then :meth:`take` n), None while it is open.

        Raises:
            UnknownFormatError: too many payloads held and none looked like any format.
        """
        held = self.held
        held.append(payload)
        name = detect_format(payload)
        if name is not None:
            votes = self.votes[name] = self.votes.get(name, 0) + 1
            if votes >= MIN_VOTES or has_evidence(name, payload):
                return name
        if len(held) > MAX_UNRECOGNIZED or (
            not self.votes
            and not isinstance(payload, Mapping)
            and len(held) >= MAX_UNRECOGNIZED_OBJECTS
        ):
            if not self.votes:
                raise self.unknown()
            return self.likeliest()
        return None

    def likeliest(self) -> str:
        """The format most held payloads looked like (on a tie, the one seen last)."""
        return max(reversed(self.votes.items()), key=lambda item: item[1])[0]

    def take(self) -> list[Any]:
        """The held payloads, in order; the detection is empty after."""
        held, self.held = self.held, []
        self.votes = {}
        return held

    def unknown(self) -> UnknownFormatError:
        """The error for held payloads of which none looked like a format."""
        return UnknownFormatError(
            f"cannot recognize the stream's format from its first {len(self.held)}"
            f" payload(s) (the first is {describe(self.held[0])}); pass provider= one of "
            + ", ".join(repr(name) for name in FORMATS)
        )


def not_of_format(  # noqa: PLR0917 (the rule's state, in the pipeline's order)
    name: str,
    matched: bool,
    misses: int,
    first: Any,
    last: Any,
    looks_like: str | None,
    *,
    ended: bool,
) -> UnknownFormatError:
    """The error of the foreign-payload rule (:mod:`callstream._pipeline`): the stream was
    read as ``name``; ``misses`` foreign payloads came in a row (``first``: the stream's
    first one, ``last``: the last), after some of the format (``matched``) or none;
    ``looks_like``: the format the foreign ones looked like; ``ended``: the stream ended.
    """
    if matched:
        what = (
            f"the stream was read as {name!r}, but its last {misses} payloads"
            f" have no field of that format (the last is {describe(last)})"
        )
        other = detect_format(last)
    else:
        count = f"{misses}" if ended else f"first {misses}"
        what = (
            f"the stream was read as {name!r}, but none of its {count} payloads"
            f" has a field of that format (the first is {describe(first)})"
        )
        other = looks_like
    if other is not None and other != name:
        hint = f"the payloads look like {other!r}; pass provider={other!r} or 'auto'"
    else:
        hint = "the format was misjudged or the stream changed: pass provider= its format"
    return UnknownFormatError(f"{what}; {hint}")
