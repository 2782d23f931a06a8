"""The assembler's options: default limits, and the checks made once at construction."""

from __future__ import annotations

from typing import Any, Final

from callstream._errors import OptionTypeError, OptionValueError, UsageError
from callstream._json.parser import PartialJSONParser

__all__ = (
    "DEFAULT_MAX_ARGUMENT_CHARS",
    "DEFAULT_MAX_CALLS",
    "DEFAULT_MAX_CHARS",
    "MAX_NAME_CHARS",
    "check_options",
)

DEFAULT_MAX_CALLS: Final = 1_000
"""Default ``max_calls``: calls stored per stream. Real streams carry at most a few dozen
calls; the limit bounds the bookkeeping (about a megabyte) and the cost of a view change
after a read (one C-speed copy of at most 1,000 entries, a few microseconds)."""

DEFAULT_MAX_ARGUMENT_CHARS: Final = 8 << 20
"""Default ``max_argument_chars``: 8 Mi characters (8,388,608) of argument text per call,
several times what a model's whole output (at most a few hundred thousand tokens) holds."""

DEFAULT_MAX_CHARS: Final = 32 << 20
"""Default ``max_chars``: 32 Mi characters (33,554,432) of argument text in the whole
stream, all calls together (raw text plus parsed previews: a few hundred MB at most)."""

MAX_NAME_CHARS: Final = 4096
"""Longest tool name or call id kept, in characters (providers allow 64 to 128 for a
name and use ids of a few dozen). Pieces that would grow one past it are not joined and
the call becomes invalid, so name and id pieces cost O(1) each however many come."""


def check_options(
    parser_options: dict[str, Any],
    limits: tuple[tuple[str, object], ...],
    empty_args: object,
) -> None:
    """Check the assembler's options once (the parser's by building one parser).

    Args:
        parser_options: the :class:`PartialJSONParser` keywords.
        limits: ``(option name, value)`` of each ``max_*`` count (an int >= 0 or None).
        empty_args: ``"object"`` or ``"invalid"``.

    Raises:
        OptionValueError: an option's value is out of range (also a ``ValueError``).
        OptionTypeError: an option has the wrong type (also a ``TypeError``).
    """
    try:
        PartialJSONParser(**parser_options)
    except UsageError:
        raise
    except TypeError as exc:
        raise OptionTypeError(str(exc)) from None
    except ValueError as exc:
        raise OptionValueError(str(exc)) from None
    for option, limit in limits:
        if limit is None or (type(limit) is int and limit >= 0):
            continue
        message = f"{option} must be a non-negative integer or None, got {limit!r}"
        if isinstance(limit, (int, float)):  # bool, float, negative: a wrong value
            raise OptionValueError(message)
        raise OptionTypeError(message)
    if empty_args not in ("object", "invalid"):
        raise OptionValueError(f"empty_args must be 'object' or 'invalid', got {empty_args!r}")
