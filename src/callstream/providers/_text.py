"""Reading the model's text out of provider data: the helpers every translator shares.

A translator reports the assistant's text and its reasoning as
:class:`~callstream.TextDelta` signals (:func:`add_text`).
Text fields are provider data like any other: a field that is not text (a number, an
object, a list where a string belongs) is ignored, never turned into text and never
raised on; an empty string is no text. ``str`` subclasses and enum members read as their
characters, as :func:`~callstream.providers._fields.get_str` reads them.

Cost: O(1) per field (plus the length of the text for a ``str`` subclass, copied once).
"""

from __future__ import annotations

from typing import Any

from callstream._assembly.types import Signal, TextDelta
from callstream.providers._fields import get_str

__all__ = ("add_text", "text_value")


def text_value(value: Any) -> str | None:
    """``value`` as text: a ``str`` as it is, a ``str`` subclass or an enum member as its
    characters, anything else None. Never raises."""
    if type(value) is str:
        return value
    if value is None:
        return None
    return get_str({"value": value}, "value")  # the accessor's own rules for odd values


def add_text(signals: list[Signal], value: Any, reasoning: bool) -> None:
    """Append a :class:`~callstream.TextDelta` for ``value`` to ``signals`` when it is
    non-empty text (see :func:`text_value`); otherwise nothing."""
    text = value if type(value) is str else text_value(value)
    if text:
        signals.append(TextDelta(text, reasoning))
