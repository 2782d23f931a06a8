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
``match``, pickling — sees the same tuple either way.

The changes are :class:`~callstream._types.Record` s: built by their constructors
(``StringExtended(path, text)``), compared, matched and pickled by their fields.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal, TypeAlias, cast, final

from callstream._types import JSONPath, Record

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


def _path_of(change: ValueStarted | StringExtended | ScalarSet | ValueClosed) -> JSONPath:
    """The ``path`` of a change: its tuple, built from its :class:`PathNode` on the first
    read and kept (O(depth) once; later reads O(1)). Two threads reading it first both
    build equal tuples."""
    at = change._at
    if type(at) is tuple:
        return at
    path = cast(PathNode, at).to_tuple()
    change._at = path
    return path


@final
class ValueStarted(Record):
    """An object, array or string began at ``path``."""

    __match_args__: ClassVar = ("path", "kind")
    __slots__ = ("_at", *__match_args__[1:])  # ``path`` is read through a property

    def __init__(
        self, path: JSONPath | PathNode, kind: Literal["object", "array", "string"]
    ) -> None:
        self._at: JSONPath | PathNode = path
        self.kind: Final = kind

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)


@final
class StringExtended(Record):
    """The string at ``path`` grew by ``text`` (escapes already decoded)."""

    __match_args__: ClassVar = ("path", "text")
    __slots__ = ("_at", *__match_args__[1:])

    def __init__(self, path: JSONPath | PathNode, text: str) -> None:
        self._at: JSONPath | PathNode = path
        self.text: Final = text

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)


@final
class ScalarSet(Record):
    """A complete number, boolean or null was set at ``path``."""

    __match_args__: ClassVar = ("path", "value")
    __slots__ = ("_at", *__match_args__[1:])

    def __init__(self, path: JSONPath | PathNode, value: Any) -> None:
        self._at: JSONPath | PathNode = path
        self.value: Final = value

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)


@final
class ValueClosed(Record):
    """The object, array or string at ``path`` is complete."""

    __match_args__: ClassVar = ("path",)
    __slots__ = ("_at",)

    def __init__(self, path: JSONPath | PathNode) -> None:
        self._at: JSONPath | PathNode = path

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)


Change: TypeAlias = ValueStarted | StringExtended | ScalarSet | ValueClosed
"""Any of the four change types."""


def to_json_pointer(path: JSONPath) -> str:
    """Render ``path`` as an RFC 6901 JSON Pointer (``("a/b", 0)`` -> ``"/a~1b/0"``).

    Cost: O(total length of the keys).
    """
    return "".join(
        "/" + (str(part) if isinstance(part, int) else part.replace("~", "~0").replace("/", "~1"))
        for part in path
    )
