"""The verdict at the end of one call: its arguments object, or why it is invalid.

Pure functions over a call's name and its argument parser: no assembler, no events. The
assembler asks for a verdict when a call ends (an end marker, :meth:`finish` or
:meth:`interrupt`), never because its text happens to parse:

- no name -> "tool call has no name";
- no argument text -> ``{}`` (or invalid with ``empty_args="invalid"``; always invalid
  under a token-limit finish reason: "cut off before its arguments began");
- a JSON object -> valid (even under a token-limit finish reason);
- other JSON -> "arguments must be a JSON object, got array" (see :func:`json_kind`);
- incomplete -> "arguments were cut off ..." (naming the finish reason when it was a
  token limit, else whether the call or the stream ended);
- malformed or over a limit -> :func:`rejected` (reason and position).

Malformed text and a limit passed are known before the end: the call turns invalid at the
fragment that made it so, with the same reason, and the other calls carry on. A provider
failure (``fail_call``) makes its call invalid with the provider's reason.
"""

from __future__ import annotations

from typing import Any, Final

from callstream._errors import IncompleteJSONError, JSONLimitError, PartialJSONError
from callstream._json.parser import PartialJSONParser

__all__ = ("TRUNCATION_REASONS", "json_kind", "rejected", "truncation", "verdict")

TRUNCATION_REASONS: Final = frozenset({"length", "max_tokens", "max_output_tokens"})
"""Finish reasons (compared case-insensitively) meaning the output hit a token limit."""


def truncation(reason: str | None) -> str | None:
    """``reason`` when it names a token limit (:data:`TRUNCATION_REASONS`), else None."""
    return reason if reason is not None and reason.lower() in TRUNCATION_REASONS else None


def rejected(exc: PartialJSONError) -> str:
    """The error text of a call whose arguments the parser rejected (malformed, or over a
    parser limit such as ``max_depth``)."""
    if isinstance(exc, JSONLimitError):
        return f"arguments exceed a limit: {exc.reason} at position {exc.position}"
    return f"malformed arguments: {exc.reason} at position {exc.position}"


def json_kind(value: object) -> str:
    """JSON kind name of a decoded value: object, array, string, number, boolean or null."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def verdict(
    *,
    named: bool,
    parser: PartialJSONParser | None,
    limit_reason: str | None = None,
    at_finish: bool = False,
    empty_args: str = "object",
) -> dict[str, Any] | str:
    """The verdict on a call that has ended: its arguments object, or why it is invalid.

    Args:
        named: whether the call has a name.
        parser: the parser that was fed the call's argument text (None: no text came).
        limit_reason: the finish reason when it was a token limit (see
            :func:`truncation`), else None.
        at_finish: the call ends with the stream (:meth:`finish`), not at its own end
            marker (only the wording of "cut off" differs).
        empty_args: ``"object"`` (no text means ``{}``) or ``"invalid"``.

    Returns:
        The arguments (a dict) when the call is valid, else the error text (a str).

    Cost: O(1): the parser already holds the value (its ``close`` only checks).
    """
    if not named:
        return "tool call has no name"
    if parser is None or not parser.started:
        return _without_text(limit_reason, empty_args)
    try:
        value = parser.close()
    except IncompleteJSONError as exc:
        return _cut_off(exc, limit_reason, at_finish)
    except PartialJSONError as exc:
        return rejected(exc)
    if type(value) is dict:
        return value
    return f"arguments must be a JSON object, got {json_kind(value)}"


def _without_text(limit_reason: str | None, empty_args: str) -> dict[str, Any] | str:
    """The verdict on a named call that received no argument text."""
    if limit_reason is not None:
        return f"tool call was cut off before its arguments began (finish reason {limit_reason!r})"
    if empty_args == "invalid":
        return "tool call has empty arguments"
    return {}


def _cut_off(exc: IncompleteJSONError, limit_reason: str | None, at_finish: bool) -> str:
    """Why a call whose argument text stopped before its value ended is invalid."""
    where = f"{exc.reason} at position {exc.position}"
    if limit_reason is not None:
        return (
            f"arguments were cut off by the token limit (finish reason {limit_reason!r}): {where}"
        )
    ended = "stream" if at_finish else "call"
    return f"arguments were cut off: the {ended} ended before they were complete ({where})"
