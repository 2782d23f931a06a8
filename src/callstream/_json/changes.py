"""Changes: what one fragment of JSON text did to the value being parsed.

A UI applies changes in order to keep a rendered tree in step with the stream in
O(size of the fragment), without reading whole snapshots:

- :class:`ValueStarted` — an object, array or string began at ``path`` (for an object
  member, this is when its key becomes visible);
- :class:`StringExtended` — the string at ``path`` grew by ``text`` (escapes decoded);
- :class:`ScalarSet` — a number, ``true``, ``false`` or ``null`` is complete at ``path``;
- :class:`ValueClosed` — the object, array or string at ``path`` is complete.

Numbers and literals are only ever reported complete, so a change never has to be
taken back (no ``1`` then ``12``); a number is complete when a character after it
arrives, so a top-level number (not valid tool arguments anyway) is only confirmed by
``close()``. Changes ignore the parser's ``allow`` flags, which
only shape previews. With a duplicate object key, the later value starts again at the
same path and replaces the earlier one, as in ``json.loads``.

Paths are shared, not copied. Deep in a document every change would otherwise hold its
own tuple of keys (O(depth) each, O(depth²) for a deep document). A change made deeper
than :data:`EAGER_DEPTH` instead holds a :class:`PathNode` (its parent's path and one
key), and builds the ``path`` tuple the first time ``path`` is read (O(depth), once; the
tuple is then kept). Everything that reads ``path`` — ``==``, ``hash``, ``repr``,
``match``, ``dataclasses.asdict``, pickling — sees the same tuple either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, cast

from callstream._types import JSONPath, fast_constructor

__all__ = (
    "EAGER_DEPTH",
    "Change",
    "PathNode",
    "ScalarSet",
    "StringExtended",
    "ValueClosed",
    "ValueStarted",
    "to_json_pointer",
)


EAGER_DEPTH: Final = 16
"""Changes at most this deep get their ``path`` tuple at once (it is short: O(1)); deeper
ones hold a shared :class:`PathNode` and build the tuple when ``path`` is first read."""


class PathNode:
    """A path shared by reference: the parent's path and one more key.

    ``parent`` is either a tuple (a path built already, at most :data:`EAGER_DEPTH` long)
    or another node, so a chain of nodes costs O(1) per level and a deep document's paths
    cost O(depth) in all, however many changes refer to them.
    """

    __slots__ = ("key", "parent")

    def __init__(self, parent: JSONPath | PathNode, key: str | int) -> None:
        self.parent = parent
        self.key = key

    def to_tuple(self) -> JSONPath:
        """The path as a tuple of keys and indexes from the root. Cost: O(depth)."""
        keys: list[str | int] = []
        node: JSONPath | PathNode = self
        while type(node) is PathNode:
            keys.append(node.key)
            node = node.parent
        keys.reverse()
        return cast(JSONPath, node) + tuple(keys)

    def __repr__(self) -> str:
        return f"PathNode({self.to_tuple()!r})"


class _LazyPath:
    """Base of the change classes: a ``path`` given as a :class:`PathNode` is built on read.

    The dataclass's own ``path`` slot is then left empty; reading it fails over to
    ``__getattr__``, which builds the tuple from ``_node``, stores it in the slot (later
    reads cost what a plain slot costs). The node is kept, so concurrent first reads
    from two threads both succeed and build equal tuples.
    """

    __slots__ = ("_node",)

    if not TYPE_CHECKING:  # keep attribute typos visible to type checkers

        def __getattr__(self, name: str) -> Any:
            if name == "path":
                try:
                    node = _get_node(self)
                except AttributeError:
                    pass
                else:
                    path = node.to_tuple()
                    type(self).__dict__["path"].__set__(self, path)
                    return path
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
            )


_node_slot = _LazyPath.__dict__["_node"]
_get_node = _node_slot.__get__
_set_node = _node_slot.__set__


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueStarted(_LazyPath):
    """An object, array or string began at ``path``."""

    path: JSONPath
    kind: Literal["object", "array", "string"]


@dataclass(frozen=True, slots=True, kw_only=True)
class StringExtended(_LazyPath):
    """The string at ``path`` grew by ``text`` (escapes already decoded)."""

    path: JSONPath
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ScalarSet(_LazyPath):
    """A complete number, boolean or null was set at ``path``."""

    path: JSONPath
    value: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueClosed(_LazyPath):
    """The object, array or string at ``path`` is complete."""

    path: JSONPath


Change: TypeAlias = ValueStarted | StringExtended | ScalarSet | ValueClosed
"""Any of the four change types."""


# --- fast construction (the parser's hot path) ----------------------------------------
#
# A frozen dataclass's __init__ sets each field through object.__setattr__ by name, after
# the keyword-argument call machinery: 2.3 times what these factories cost. They
# are generated from the fields (see fast_constructor) and build equal objects (frozen,
# slotted); a ``path`` given as a PathNode (not a tuple) is routed to ``_node`` and built
# into a tuple on read.

_PATH_ROUTE: Final = {"path": (tuple, _set_node)}

value_started: Callable[
    [JSONPath | PathNode, Literal["object", "array", "string"]], ValueStarted
] = fast_constructor(ValueStarted, routes=_PATH_ROUTE)
"""``ValueStarted(path=path, kind=kind)``, positional, built through the slots."""

string_extended: Callable[[JSONPath | PathNode, str], StringExtended] = fast_constructor(
    StringExtended, routes=_PATH_ROUTE
)
"""``StringExtended(path=path, text=text)``, positional, built through the slots."""

scalar_set: Callable[[JSONPath | PathNode, Any], ScalarSet] = fast_constructor(
    ScalarSet, routes=_PATH_ROUTE
)
"""``ScalarSet(path=path, value=value)``, positional, built through the slots."""

value_closed: Callable[[JSONPath | PathNode], ValueClosed] = fast_constructor(
    ValueClosed, routes=_PATH_ROUTE
)
"""``ValueClosed(path=path)``, positional, built through the slots."""


def to_json_pointer(path: JSONPath) -> str:
    """Render ``path`` as an RFC 6901 JSON Pointer (``("a/b", 0)`` -> ``"/a~1b/0"``).

    Cost: O(total length of the keys).
    """
    return "".join(
        "/" + (str(part) if isinstance(part, int) else part.replace("~", "~0").replace("/", "~1"))
        for part in path
    )
