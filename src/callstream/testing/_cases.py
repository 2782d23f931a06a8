"""``cases``: formats x quirks x splits as pytest parameters with readable ids.

Only the quirks :data:`~callstream.testing.QUIRKS` says apply to a format are paired with
it. pytest is imported when ``cases`` is called (never when ``callstream.testing`` is).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from callstream._errors import OptionTypeError, OptionValueError
from callstream.testing._stream import FORMATS, QUIRKS, SPLITS

__all__ = ("Case", "cases", "combinations")


class Case(NamedTuple):
    """One combination: a format, the quirks (none or one, as ``stream_of`` takes them),
    a split. ``id`` reads ``<format>-<quirk or plain>-<split>``."""

    format: str
    quirks: tuple[str, ...]
    split: str

    @property
    def id(self) -> str:
        """``openai-chat-missing-index-char``, ``anthropic-plain-token``, ..."""
        return f"{self.format}-{'+'.join(self.quirks) or 'plain'}-{self.split}"


def _names(given: Iterable[str] | None, known: Iterable[str], what: str) -> list[str]:
    known = list(known)
    if given is None:
        return known
    if isinstance(given, str):
        raise OptionTypeError(f"{what}s must be a collection of names, not the string {given!r}")
    names = list(given)
    for name in names:
        if name not in known:
            raise OptionValueError(f"unknown {what} {name!r}: one of {', '.join(known)}")
    return names


def combinations(
    formats: Iterable[str] | None = None,
    quirks: Iterable[str] | None = None,
    splits: Iterable[str] | None = None,
    *,
    plain: bool = True,
    keeping_calls: bool = False,
) -> list[Case]:
    """Every :class:`Case` of ``formats`` x (no quirk and) ``quirks`` x ``splits``, skipping a
    quirk where it does not apply to the format.

    Args:
        formats: format names (default every one of :data:`~callstream.testing.FORMATS`).
        quirks: quirk names (default every one of :data:`~callstream.testing.QUIRKS`).
        splits: split names (default every one of :data:`~callstream.testing.SPLITS`).
        plain: include each format without a quirk.
        keeping_calls: only quirks after which reading the stream gives the calls (their
            ``outcome`` is ``"the calls"``): for tests asserting the calls come back.

    Raises:
        ValueError: an unknown format, quirk or split name.
        TypeError: a single string where a collection of names is expected.

    Cost: O(formats x quirks x splits).
    """
    chosen_formats = _names(formats, FORMATS, "format")
    chosen_quirks = _names(quirks, QUIRKS, "quirk")
    chosen_splits = _names(splits, SPLITS, "split")
    out = []
    for fmt in chosen_formats:
        applying = [
            q
            for q in chosen_quirks
            if fmt in QUIRKS[q].formats
            and (not keeping_calls or QUIRKS[q].outcome.startswith("the calls"))
        ]
        options = ([()] if plain else []) + [(q,) for q in applying]
        out += [Case(fmt, option, split) for option in options for split in chosen_splits]
    return out


def cases(
    formats: Iterable[str] | None = None,
    quirks: Iterable[str] | None = None,
    splits: Iterable[str] | None = None,
    *,
    plain: bool = True,
    keeping_calls: bool = False,
) -> list[Any]:
    """:func:`combinations` as ``pytest.param(format, quirks, split, id=...)`` values, for
    ``@pytest.mark.parametrize(("format", "quirks", "split"), cases(...))``; each test id
    reads like ``openai-chat-missing-index-char``. Arguments, errors and cost as
    :func:`combinations` (``pytest`` must be installed)."""
    import pytest

    found = combinations(formats, quirks, splits, plain=plain, keeping_calls=keeping_calls)
    return [pytest.param(*case, id=case.id) for case in found]
