"""One rule for a provider's ``arguments`` value: text or an object, or why it is unusable.

Providers hand over a call's arguments as JSON text (a fragment or the whole), as an
already decoded object (a dict, an SDK object, a pydantic model), or as something odd.
:func:`read_arguments` is the one reading of all of them, for every translator:

- ``None`` and ``""`` are no arguments: ``None`` (empty text is no text; the assembler
  ignores an empty fragment and reads a call without arguments as ``{}``);
- text (a ``str``, a ``str`` subclass or enum member read as its characters) passes
  through unparsed;
- an object (mapping, SDK object) becomes a plain ``dict``, the whole arguments; its JSON
  text when the translator asks for text, or when it nests deeper than ``json.dumps``
  can write without recursing (:data:`~callstream._json.dump.RECURSION_SAFE_DEPTH`);
- any other JSON value (an array, a number, a boolean) becomes its JSON text, so the
  assembler rejects the call with its precise reason (``arguments must be a JSON object,
  got array``);
- a value that is not JSON data, nests deeper than ``DEFAULT_MAX_DEPTH`` or holds a cycle
  gives no value and the reason the call is invalid (:func:`args_error`'s wording, no
  provider prefix).

What a value means beyond this (Anthropic's ``{}`` start placeholder, a LangChain
``server_tool_call`` without arguments being complete) stays in its translator.
"""

from __future__ import annotations

from typing import Any, Literal, overload

from callstream._errors import DataError, JSONLimitError
from callstream._json.dump import RECURSION_SAFE_DEPTH, dumps_bounded, nesting_depth
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream.providers._plain import to_json_data

__all__ = ("Arguments", "args_error", "read_arguments")

Arguments = str | dict[str, Any] | None
"""Arguments as a translator passes them on: JSON text, a whole object, or none."""


def args_error(exc: DataError) -> str:
    """The invalid-call reason for arguments that :func:`to_json_data` refused."""
    if isinstance(exc, JSONLimitError):
        return f"arguments exceed a limit: {exc.reason}"
    return str(exc)


@overload
def read_arguments(value: Any, *, as_text: Literal[True]) -> tuple[str | None, str | None]: ...


@overload
def read_arguments(value: Any, *, as_text: bool = False) -> tuple[Arguments, str | None]: ...


def read_arguments(value: Any, *, as_text: bool = False) -> tuple[Arguments, str | None]:
    """``(arguments, reason)`` for a provider's arguments ``value`` (see the module rule).

    ``arguments`` is what a :class:`~callstream.CallChunk` or ``CallEnd`` carries: None
    (none given, or ``""``), JSON text, or a whole ``dict`` (JSON text instead when
    ``as_text``, for a translator whose format streams text). ``reason`` is None, or why
    the call is invalid (then ``arguments`` is None). For plain JSON data the text equals
    ``json.dumps(value, ensure_ascii=False)``.

    Never raises; iterative throughout. Cost: O(1) for text; O(size of the value) for
    anything else.
    """
    if value is None or type(value) is str:  # the common case
        return value or None, None
    try:
        plain = to_json_data(value, max_depth=DEFAULT_MAX_DEPTH)
        kind = type(plain)
        if kind is str:
            return plain or None, None
        if kind is dict and not as_text and nesting_depth(plain, RECURSION_SAFE_DEPTH) is not None:
            return plain, None
        text = dumps_bounded(plain, max_depth=DEFAULT_MAX_DEPTH)
    except DataError as exc:
        return None, args_error(exc)
    except (TypeError, ValueError) as exc:  # defensive: JSON data always serializes
        return None, f"arguments are not JSON data: {exc}"
    return text, None
