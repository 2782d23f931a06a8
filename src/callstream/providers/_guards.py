"""Guards against hostile provider data: unusable indexes and decoded argument objects.

Used by the Anthropic, Bedrock and LangChain translators.

- An index that is present but unusable (``"a"``, ``1.5``, ``true``, ``-1``, a list, an
  object) must never route text into another call: each distinct bad value gets its own
  private call key (:class:`PrivateKeys`), far below any index a provider sends, and the
  translator fails that call with a reason.
- Arguments that arrive as a decoded object (Anthropic ``input``, Bedrock decoded
  ``input``, LangChain ``args``) become JSON text through :func:`input_text`: iterative
  (no ``RecursionError`` however deep), bounded in depth (a cycle is refused, never
  walked forever), and any failure is a reason string, never an exception.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from callstream._errors import JSONLimitError
from callstream._json.dump import dumps_bounded

__all__ = (
    "MAX_INPUT_DEPTH",
    "PrivateKeys",
    "index_value",
    "input_text",
    "show",
)

MAX_INPUT_DEPTH: Final = 100_000
"""Deepest nesting of a decoded argument object the translators serialize. Deeper values
(and cyclic ones) fail the call; the assembler's own ``max_depth`` (default 1000) judges
everything shallower."""

_PRIVATE_BASE: Final = -(2**64)
"""Private call keys count down from here: no provider index (never negative on the wire,
and the translators treat negative ones as unusable) can reach them."""


def index_value(raw: Any) -> int | None:
    """Return ``raw`` as a usable provider index (a non-negative int, or a string of
    ASCII digits), else None. Never raises, whatever ``raw`` is. Cost: O(1) (O(length)
    for a string)."""
    kind = type(raw)
    if kind is int:
        return raw if raw >= 0 else None
    if kind is str:
        text = raw.strip()
        return int(text) if text.isascii() and text.isdecimal() and len(text) < 4000 else None
    if kind is bool or raw is None:
        return None
    try:
        if isinstance(raw, int):  # an IntEnum or another int subclass: its plain int value
            value = int.__int__(raw)
            return value if value >= 0 else None
        if isinstance(raw, str):
            return index_value(str.__str__(raw))
    except Exception:  # a hostile object: unusable
        return None
    return None


class PrivateKeys:
    """Call keys for index values that are present but unusable, one per distinct value.

    Scalars (``str``, ``float``, ``bool``, ``int``, ``bytes``) are told apart by type and
    value, so the same bad value names the same call; any other value (or a missing one)
    gets a fresh key each time, since it cannot be compared safely. Keys are ints below
    ``-2**64`` (never a real index). Cost: O(1) per key (one dict lookup); state grows by
    one entry per distinct bad value.
    """

    __slots__ = ("_keys", "_next")

    def __init__(self) -> None:
        self._keys: dict[tuple[str, Any], int] = {}
        self._next = _PRIVATE_BASE

    def key(self, raw: Any) -> int:
        """The private key for the unusable index ``raw`` (a new one for a new value)."""
        token = _token(raw)
        if token is not None:
            known = self._keys.get(token)
            if known is not None:
                return known
        key = self._next
        self._next -= 1
        if token is not None:
            self._keys[token] = key
        return key

    def find(self, raw: Any) -> int | None:
        """The key already given to ``raw``, or None (a value never seen, or not
        comparable)."""
        token = _token(raw)
        return self._keys.get(token) if token is not None else None

    def clear(self) -> None:
        """Forget every value (a new message begins)."""
        self._keys.clear()


def _token(raw: Any) -> tuple[str, Any] | None:
    kind = type(raw)
    if kind in (str, float, bool, int, bytes):
        return kind.__name__, raw
    return None


def show(value: Any) -> str:
    """A short, safe rendering of a provider value for an error message (never raises)."""
    kind = type(value)
    if value is None or kind in (bool, float):
        return repr(value)
    if kind is int:
        return repr(value) if value.bit_length() <= 64 else "a very large integer"
    if kind is str:
        return repr(value[:40] + "...") if len(value) > 40 else repr(value)
    return f"a {kind.__name__}"


def input_text(value: Any) -> tuple[str | None, str | None]:
    """Serialize a decoded arguments object to JSON text: ``(text, None)``, or
    ``(None, reason)`` when it cannot be (too deep or cyclic, not JSON data, or an object
    whose fields cannot be read).

    Pydantic models and dataclasses are read as their fields, mappings as dicts, tuples
    as lists. The output equals ``json.dumps(value, ensure_ascii=False)`` for plain JSON
    data. Iterative throughout; never raises. Cost: O(size of the value).
    """
    try:
        plain = _plain(value)
        if plain is None:
            return None, f"arguments nest deeper than {MAX_INPUT_DEPTH} levels (or hold a cycle)"
        return dumps_bounded(plain, max_depth=MAX_INPUT_DEPTH), None
    except JSONLimitError:
        return None, f"arguments nest deeper than {MAX_INPUT_DEPTH} levels (or hold a cycle)"
    except (TypeError, ValueError) as exc:
        return None, f"arguments are not JSON data: {_reason(exc)}"
    except Exception as exc:  # a hostile object whose fields cannot be read
        return None, f"arguments could not be read: {type(exc).__name__}"


def _reason(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        return type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "..."


def _container(obj: Any) -> Any:
    """One level of conversion: a mapping/model/dataclass to a dict, a tuple to a list."""
    if type(obj) is dict or type(obj) is list:
        return obj
    if isinstance(obj, Mapping):
        return dict(obj.items())
    if isinstance(obj, tuple):
        return list(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and not isinstance(obj, type):
        dumped = dump()
        return dumped if isinstance(dumped, dict) else obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return obj


def _plain(value: Any) -> Any:
    """``value`` as plain dicts, lists and scalars, or None when it nests deeper than
    :data:`MAX_INPUT_DEPTH` (a cyclic value always does). Iterative; may raise on hostile
    objects (the caller turns that into a reason)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(root, 0, value, 0)]
    while stack:
        parent, slot, item, depth = stack.pop()
        if item is None or type(item) in (str, int, float, bool):
            parent[slot] = item
            continue
        item = _container(item)
        if type(item) is dict or isinstance(item, dict):
            if depth >= MAX_INPUT_DEPTH:
                return None
            out: dict[Any, Any] = {}
            parent[slot] = out
            for key, child in item.items():
                out[key] = None
                stack.append((out, key, child, depth + 1))
        elif type(item) is list or isinstance(item, list):
            if depth >= MAX_INPUT_DEPTH:
                return None
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            for position, child in enumerate(item):
                stack.append((seq, position, child, depth + 1))
        else:
            parent[slot] = item  # a scalar subclass or an unknown object: json.dumps decides
    return root[0]
