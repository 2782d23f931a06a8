"""The assembler's options: its limits (stated once, here), and the checks made once at
construction.

Every limit makes a call invalid with a readable ``error``; none raises, and the other
calls carry on. The defaults are far above what a real stream produces and bound the
memory one stream can take; ``None`` for a ``max_*`` count means no limit:

- ``max_calls`` (:data:`DEFAULT_MAX_CALLS`): past it, a chunk that would start a call is
  refused and nothing of it is stored. The first refused call becomes one invalid entry
  (``CallStarted`` if named, then ``CallInvalid``) whose ``error`` counts the refused
  calls (a refused call is counted at the chunk that starts it, one bringing a name or an
  id; the count in the view is kept current, the event carries the first).
- ``max_argument_chars`` (:data:`DEFAULT_MAX_ARGUMENT_CHARS`): argument text per call;
  beyond it the call becomes invalid at once, its raw text kept up to the limit.
- ``max_chars`` (:data:`DEFAULT_MAX_CHARS`): argument text of all calls together; the call
  whose text crosses it becomes invalid (raw text kept up to the limit), and so does every
  call that receives text after it. The same default bounds the JSON text of a structured
  output (:class:`~callstream.partial.StructuredParser`, and so ``structured()``), where
  going past it is a ``StructuredOutputError`` (``reason="json"``).
- ``max_depth`` (the parser's, default 1,000): nesting of arguments, as text or as a
  decoded object; an object nested deeper, or cyclic, makes that call invalid
  ("arguments exceed a limit: ...").
- names and ids longer than :data:`MAX_NAME_CHARS` are not grown further: the call becomes
  invalid ("tool name longer than 4096 characters").

Memory is thus O(max_calls + max_chars) whatever the input; the multiple of the input
each path takes is in ``docs/guides/limits.md``. The text limits are applied
by :class:`~callstream._assembly.arguments.TextBudget`, the others by the assembly state.
"""

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
calls; the limit bounds the bookkeeping and the cost of a view change after a read (one
C-speed copy of at most this many entries)."""

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
