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

The changes are :class:`~callstream._types.Record` s (immutable, compared and matched as
the frozen dataclasses they were before 0.2): mypyc compiles their constructors.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal, TypeAlias, cast, final

from callstream._types import JSONPath, Record, assign_field, delete_field, use_slot_builders

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
    object.__setattr__(change, "_at", path)  # past the frozen __setattr__, as intended
    return path


@final
class ValueStarted(Record):
    """An object, array or string began at ``path``."""

    __slots__ = ("_at", "kind")
    __match_args__: ClassVar = ("path", "kind")
    _compared: ClassVar = ("path", "kind")

    def __init__(
        self, *, path: JSONPath | PathNode, kind: Literal["object", "array", "string"]
    ) -> None:
        self._at: JSONPath | PathNode = path
        self.kind: Final = kind

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


@final
class StringExtended(Record):
    """The string at ``path`` grew by ``text`` (escapes already decoded)."""

    __slots__ = ("_at", "text")
    __match_args__: ClassVar = ("path", "text")
    _compared: ClassVar = ("path", "text")

    def __init__(self, *, path: JSONPath | PathNode, text: str) -> None:
        self._at: JSONPath | PathNode = path
        self.text: Final = text

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


@final
class ScalarSet(Record):
    """A complete number, boolean or null was set at ``path``."""

    __slots__ = ("_at", "value")
    __match_args__: ClassVar = ("path", "value")
    _compared: ClassVar = ("path", "value")

    def __init__(self, *, path: JSONPath | PathNode, value: Any) -> None:
        self._at: JSONPath | PathNode = path
        self.value: Final = value

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


@final
class ValueClosed(Record):
    """The object, array or string at ``path`` is complete."""

    __slots__ = ("_at",)
    __match_args__: ClassVar = ("path",)
    _compared: ClassVar = ("path",)

    def __init__(self, *, path: JSONPath | PathNode) -> None:
        self._at: JSONPath | PathNode = path

    @property
    def path(self) -> JSONPath:
        """Where, from the root (keys and indexes)."""
        return _path_of(self)

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


Change: TypeAlias = ValueStarted | StringExtended | ScalarSet | ValueClosed
"""Any of the four change types."""


# --- construction on the parser's hot path ----------------------------------------------
#
# Compiled (mypyc), the native constructors are the fast way: these functions call the
# classes. Interpreted, a constructor assigns through the frozen __setattr__, so the names
# are rebound to factories that set the slots (use_slot_builders, at the end). A ``path``
# may be a tuple or a PathNode (built into a tuple on its first read).



def value_started(
    path: JSONPath | PathNode, kind: Literal["object", "array", "string"]
) -> ValueStarted:
    """``ValueStarted(path=path, kind=kind)``. Cost: O(1)."""
    return ValueStarted(path=path, kind=kind)


def string_extended(path: JSONPath | PathNode, text: str) -> StringExtended:
    """``StringExtended(path=path, text=text)``. Cost: O(1)."""
    return StringExtended(path=path, text=text)


def scalar_set(path: JSONPath | PathNode, value: Any) -> ScalarSet:
    """``ScalarSet(path=path, value=value)``. Cost: O(1)."""
    return ScalarSet(path=path, value=value)


def value_closed(path: JSONPath | PathNode) -> ValueClosed:
    """``ValueClosed(path=path)``. Cost: O(1)."""
    return ValueClosed(path=path)


def to_json_pointer(path: JSONPath) -> str:
    """Render ``path`` as an RFC 6901 JSON Pointer (``("a/b", 0)`` -> ``"/a~1b/0"``).

    Cost: O(total length of the keys).
    """
    return "".join(
        "/" + (str(part) if isinstance(part, int) else part.replace("~", "~0").replace("/", "~1"))
        for part in path
    )


use_slot_builders(
    globals(),
    {
        "value_started": ValueStarted,
        "string_extended": StringExtended,
        "scalar_set": ScalarSet,
        "value_closed": ValueClosed,
    },
)
