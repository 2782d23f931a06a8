"""Provider ``arguments`` values as the assembler takes them."""

from __future__ import annotations

from typing import Any

from callstream._errors import DataError, JSONLimitError
from callstream._json.dump import dumps_bounded
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream.providers._plain import to_json_data

__all__ = ("args_error", "args_text")


def args_error(exc: DataError) -> str:
    """The invalid-call reason for arguments that :func:`to_json_data` refused."""
    if isinstance(exc, JSONLimitError):
        return f"arguments exceed a limit: {exc.reason}"
    return str(exc)


def args_text(value: Any) -> tuple[str | None, str | None]:
    """A decoded arguments object (Anthropic / Bedrock ``input``, LangChain ``args``) as
    JSON text: ``(text, None)``, or ``(None, reason)`` when it is not JSON data, nests
    deeper than ``DEFAULT_MAX_DEPTH`` or holds a cycle (the reason is :func:`args_error`'s).

    The text equals ``json.dumps(value, ensure_ascii=False)`` for plain JSON data.
    Iterative throughout; never raises. Cost: O(size of the value).
    """
    try:
        plain = to_json_data(value, max_depth=DEFAULT_MAX_DEPTH)
        return dumps_bounded(plain, max_depth=DEFAULT_MAX_DEPTH), None
    except DataError as exc:
        return None, args_error(exc)
