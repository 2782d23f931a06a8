"""Provider values as plain JSON data: iterative, depth-bounded, never raising.

:func:`to_plain` (lenient: keeps what it cannot convert) and :func:`to_json_data`
(strict: pure JSON data or an error) turn SDK objects (pydantic models, dataclasses,
``str`` / ``int`` / ``float`` subclasses, enum members) into dicts, lists and scalars
with an explicit stack, at most ``max_depth`` deep, a cycle refused; :func:`describe`
writes a short text of a value for an error message; :func:`scalar_value` reads one
scalar; :func:`json_string_body` writes a piece of text as the inside of a JSON string,
for translators that build argument text from streamed strings (Gemini's
``partialArgs`` leaves, the OpenAI Responses custom-tool input, code and shell commands),
so that the one parser gives their previews and verdicts. Cost: O(size of the value);
no recursion, so a deep value cannot raise ``RecursionError``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from callstream._errors import DataError, JSONLimitError
from callstream._json.dump import dumps_bounded
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream.providers._fields import sequence_items

__all__ = (
    "describe",
    "json_string_body",
    "open_member",
    "open_string_member",
    "scalar_value",
    "to_json_data",
    "to_plain",
)

_MISSING: Final[Any] = object()

Leaf = Callable[[Any], Any]
"""What :func:`to_json_data` does with an object that is no JSON data: returns the JSON
data it stands for (not walked further), or raises."""


def describe(value: Any) -> str:
    """A short JSON-like text for a provider value in an error message (at most 60
    characters), without calling its methods. Never raises."""
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    try:
        if issubclass(kind, str):
            text = json.dumps(str.__str__(value)[:60])
        elif issubclass(kind, int):
            text = int.__repr__(value)
        elif issubclass(kind, float):
            text = float.__repr__(value)
        elif issubclass(kind, (list, tuple, dict)):
            text = dumps_bounded(to_plain(value, max_depth=4), max_depth=4)
        else:
            text = f"a {kind.__name__} object"
    except Exception:  # not describable as JSON (hostile, too deep, too long)
        text = f"a {kind.__name__} value"
    return text if len(text) <= 60 else text[:57] + "..."


class _NotPlain(Exception):
    """Internal: a value that cannot become JSON data (strict mode)."""


def json_string_body(text: str) -> str:
    """``text`` as the inside of a JSON string literal, without the quotes: exactly
    ``json.dumps(text)[1:-1]`` (ASCII only: other characters as ``\\uXXXX`` escapes), so
    a piece always is valid UTF-8, and the two halves of a surrogate pair cut between two
    pieces are two escapes that the parser reads back as the one character. The pieces
    of one string joined are ``json.dumps`` of the whole string. Cost: O(len(text)).
    """
    return json.dumps(text)[1:-1]


def open_member(fields: dict[str, Any], key: str, opening: str) -> str:
    """The JSON text of object ``fields`` left open, followed by member ``key`` whose
    value starts with ``opening`` (``"``, ``[``): ``{"a": 1, "key": [``, the opening
    of a streamed member. Cost: O(size of ``fields``)."""
    head = json.dumps(fields)[:-1]
    return head + (", " if fields else "") + json.dumps(key) + ": " + opening


def open_string_member(fields: dict[str, Any], key: str) -> str:
    """The JSON text of ``fields`` and member ``key`` with its string value opened."""
    return open_member(fields, key, '"')


def _fields(obj: Any, shallow: bool) -> tuple[dict[Any, Any] | None, bool]:
    """One level of an object: its fields as a dict (or None), and whether its children
    must be read field by field (a ``model_dump`` that failed, e.g. too deep).

    Pydantic models are dumped (``model_dump()``); when that fails or gives no dict, their
    ``model_fields`` (and extra fields) are read one level at a time instead. Dataclasses
    give their fields. Any exception from the object means "no fields".
    """
    kind = type(obj)
    try:
        if issubclass(kind, Mapping):
            return dict(obj), shallow
        if not shallow:
            dump = getattr(obj, "model_dump", None)
            if callable(dump) and not issubclass(kind, type):
                try:
                    dumped = dump()
                except Exception:  # too deep for pydantic's serializer, or hostile
                    dumped = None
                if type(dumped) is dict:
                    return dumped, False
                shallow = True
        model_fields = getattr(kind, "model_fields", None)
        if type(model_fields) is dict and not issubclass(kind, type):
            out = {name: getattr(obj, name) for name in model_fields if type(name) is str}
            extra = getattr(obj, "__pydantic_extra__", None)
            if type(extra) is dict:
                out.update(extra)
            return out, True
        if dataclasses.is_dataclass(kind) and not issubclass(kind, type):
            return {f.name: getattr(obj, f.name) for f in dataclasses.fields(kind)}, shallow
    except Exception:  # a hostile object: a raising property, keys(), __iter__, ...
        return None, shallow
    return None, shallow


def _scalar(item: Any) -> Any:
    """An exact ``str``/``int``/``float`` for a subclass instance (enum members included),
    ``_MISSING`` for anything else. Never calls the subclass's own methods."""
    kind = type(item)
    try:
        if issubclass(kind, str):
            return str.__str__(item)
        if issubclass(kind, int):
            return int.__int__(item)
        if issubclass(kind, float):
            return float.__float__(item)
    except Exception:
        return _MISSING
    return _MISSING


def scalar_value(value: Any) -> Any:
    """``value`` as an exact ``str``, ``int``, ``float`` or ``bool`` (a subclass instance
    or enum member read with the base type's own methods), None for anything else.
    Never raises."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool:
        return value
    plain = _scalar(value)
    return None if plain is _MISSING else plain


def _key_text(key: Any) -> str:
    """A mapping key as ``json.dumps`` writes it; raises _NotPlain for other types."""
    kind = type(key)
    if kind is str:
        return key  # type: ignore[no-any-return]
    if key is None:
        return "null"
    if kind is bool:
        return "true" if key else "false"
    plain = _scalar(key)
    if type(plain) is str:
        return plain
    if type(plain) is int:
        return int.__repr__(plain)
    if type(plain) is float:
        return float.__repr__(plain)
    raise _NotPlain(f"a mapping key of type {kind.__name__} is not JSON")


_EXIT: Final[Any] = object()  # stack marker: leave a container (drop it from the ancestors)


#: One step of the walk: (parent, slot, item, depth of item, shallow), or
#: (_EXIT, id, item, 0, False) to leave a container.
_Step = tuple[Any, Any, Any, int, bool]


def _walk(value: Any, max_depth: int, strict: bool, leaf: Leaf | None = None) -> Any:
    """Convert ``value`` to plain JSON data with an explicit stack (see :func:`to_plain`).

    Strict mode raises ``_NotPlain`` / :class:`JSONLimitError` (an unknown object is
    given to ``leaf`` instead, when there is one); lenient mode keeps what it cannot
    convert as it is (a cyclic or too deep container, an unknown object).
    Steps: scalars are written inline; any other value is opened (:func:`_open`), and a
    container within the depth limit and not inside itself has its children pushed
    (:func:`_push_children`).
    """
    root: list[Any] = [None]
    stack: list[_Step] = [(root, 0, value, 1, False)]
    ancestors: set[int] = set()
    while stack:
        parent, slot, item, depth, shallow = stack.pop()
        if parent is _EXIT:
            ancestors.discard(slot)
            continue
        kind = type(item)
        if item is None or kind is str or kind is int or kind is float or kind is bool:
            parent[slot] = item
            continue
        item, members, shallow, nested = _open(item, kind, shallow, strict, leaf)
        marker = id(item)
        if not nested or depth > max_depth or marker in ancestors:
            if nested and strict:
                cycle = " (a container holds itself: a cycle)" if marker in ancestors else ""
                raise JSONLimitError(f"nesting deeper than max_depth={max_depth}{cycle}", 0)
            parent[slot] = item  # a scalar, or (lenient) what cannot be converted
            continue
        ancestors.add(marker)
        stack.append((_EXIT, marker, item, 0, False))  # keeps item alive, so its id too
        parent[slot] = _push_children(
            stack, item, members, depth + 1, shallow=shallow, strict=strict
        )
    return root[0]


def _open(
    item: Any, kind: type, shallow: bool, strict: bool, leaf: Leaf | None
) -> tuple[Any, dict[Any, Any] | None, bool, bool]:
    """One non-scalar value of the walk: ``(value, members, shallow, nested)``.

    ``nested``: ``value`` is a container to walk, a dict's ``members`` (fields) or a
    sequence (``members`` None); otherwise ``value`` is what to write (a plain scalar for
    a subclass instance, ``leaf(item)`` for an unknown object in strict mode, or the
    item itself in lenient mode).

    Raises:
        _NotPlain: (strict mode) a value that is no JSON data.
    """
    if kind is dict:
        return item, item, shallow, True
    if kind is list or kind is tuple:
        return item, None, shallow, True
    plain = _scalar(item)
    if plain is not _MISSING:
        return plain, None, shallow, False
    items = sequence_items(item)
    if items is not None:
        return items, None, shallow, True
    members, shallow = _fields(item, shallow)
    if members is None and strict:
        if leaf is not None:
            return leaf(item), None, shallow, False
        raise _NotPlain(f"a {type(item).__name__} value is not JSON")
    return item, members, shallow, members is not None


def _push_children(
    stack: list[_Step],
    item: Any,
    members: dict[Any, Any] | None,
    depth: int,
    *,
    shallow: bool,
    strict: bool,
) -> dict[str, Any] | list[Any]:
    """The empty plain container for ``item``; its children are pushed to fill it in.

    Raises:
        _NotPlain: (strict mode) a mapping key that is not a string or number.
    """
    if members is None:
        seq: list[Any] = [None] * len(item)
        for position, child in enumerate(item):
            stack.append((seq, position, child, depth, shallow))
        return seq
    out: dict[str, Any] = {}
    for key, child in members.items():
        try:
            name = _key_text(key)
        except _NotPlain:
            if strict:
                raise
            continue
        out[name] = None
        stack.append((out, name, child, depth, shallow))
    return out


def to_plain(value: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Convert a value to plain JSON-like data (dicts, lists, scalars) without recursion.

    Pydantic models are dumped (read field by field when ``model_dump`` fails, e.g. on a
    model too deep for pydantic's serializer), dataclasses become dicts, tuples become
    lists, mapping keys become strings as ``json.dumps`` writes them, ``str`` / ``int`` /
    ``float`` subclasses (enum members) become the plain value. What cannot be converted
    is kept as it is: other objects, a container nested deeper than ``max_depth``, a
    container inside itself (a cycle), an object whose reading raises. Never raises.

    Cost: O(size) (a shared sub-object is converted once per occurrence, as
    ``json.dumps`` writes it); iterative, so a deep value cannot raise ``RecursionError``.
    """
    try:
        return _walk(value, max_depth, strict=False)
    except Exception:  # defensive: lenient mode keeps what it cannot read
        return value


def to_json_data(
    value: Any,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    leaf: Leaf | None = None,
    what: str = "arguments are",
) -> Any:
    """Like :func:`to_plain`, but the result is pure JSON data or an error is raised.

    The result holds only ``dict`` (``str`` keys), ``list``, ``str``, ``int``, ``float``,
    ``bool`` and ``None`` of exactly those types, nests at most ``max_depth`` deep and has
    no cycles. An object that is none of these, no model, dataclass or sequence is an
    error, or, given ``leaf``, replaced by ``leaf(obj)`` (whose result must be JSON
    data). ``what`` begins the error message (``"arguments are"``: "arguments are not
    JSON data: ..."). Cost: O(size); iterative.

    Raises:
        JSONLimitError: nested deeper than ``max_depth``, or cyclic.
        DataError: an object that is not JSON data (an unknown type, a key that is not a
            string or number, an object whose reading raises, or what ``leaf`` raised).
    """
    try:
        return _walk(value, max_depth, True, leaf)
    except JSONLimitError:
        raise
    except _NotPlain as refused:
        raise DataError(f"{what} not JSON data: {refused}") from None
    except DataError as reason:  # from leaf: its own reason (own name: docs/design.md)
        raise DataError(f"{what} not JSON data: {reason}") from None
    except Exception as exc:  # a hostile object raised while being read
        raise DataError(
            f"{what} not JSON data: reading a value raised {type(exc).__name__}"
        ) from None
