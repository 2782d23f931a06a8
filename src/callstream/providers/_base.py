"""The translator protocol and duck-typing accessors shared by every provider format.

A payload reaches a translator as a plain ``dict`` (decoded JSON), an SDK object (a
pydantic model, a dataclass, any object with attributes) or something odd. The helpers
here read a field from any of these the same way, never import an SDK, and never raise:
a missing or wrongly typed field reads as ``None`` (or the default), so a translator can
be written as if every payload were a well-formed dict.

Field names are looked up as written and then in the other naming style (``functionCall``
and ``function_call``), because SDKs expose wire fields in snake case while the wire and
``model_dump(by_alias=True)`` use camel case.

"Never raises" holds for hostile objects too (properties, ``__getattr__``, ``__class__``,
``keys`` or ``model_dump`` that raise, ``str`` / ``int`` subclasses with odd methods): the
helpers decide by an object's real type (``type(obj)``), read subclass values with the
base type's own methods, and treat any exception from the object as "no such field".

Cost: one dict lookup or ``getattr`` per field, plus one more when the first misses; the
name conversions are cached. Plain dicts (decoded JSON, the common case) are read inline,
without the generic ``Mapping`` / attribute path.

The guards against hostile provider data live here once, for all seven translators:

- an index that is present but unusable (:func:`get_index`, :func:`get_block_index`)
  never routes text into another call: :class:`BadIndexCalls` gives each distinct value
  a private key below ``-2**64`` and fails that call with ``unusable <where> <value>:
  ...`` (at the end of the stream where pieces may continue: OpenAI Chat, Responses,
  Cohere; at once where a block starts with it: Anthropic, Bedrock);
- decoded argument objects become JSON data (:func:`to_json_data`) or JSON text
  (:func:`args_text`) iteratively, at most ``DEFAULT_MAX_DEPTH`` deep, a cycle refused;
  a refusal is an invalid call whose reason is :func:`args_error`'s (no provider prefix).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from callstream._assembly.types import CallChunk, CallFailure, ServerToolUse, Signal
from callstream._errors import DataError, JSONLimitError
from callstream._json.dump import dumps_bounded
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream._types import fast_constructor

__all__ = (
    "MAX_BAD_INDEX_KEYS",
    "BadIndex",
    "BadIndexCalls",
    "Translator",
    "alternate_key",
    "args_error",
    "args_text",
    "describe",
    "get",
    "get_block_index",
    "get_index",
    "get_int",
    "get_list",
    "get_str",
    "is_record",
    "is_sequence",
    "path",
    "scalar_value",
    "to_json_data",
    "to_plain",
)

_MISSING: Any = object()


@runtime_checkable
class Translator(Protocol):
    """A stateful, sans-I/O translator from one provider format to assembler signals.

    One instance serves one stream (it may remember which calls it has seen). ``translate``
    takes one decoded payload and returns the signals it carries, in order: call fragments
    (:class:`~callstream.CallChunk`), ``CallEnd``, ``CallFailure``, ``ServerToolUse`` and
    ``StreamEnd``. Unknown event types and odd payloads give ``[]``; a translator never
    raises on provider data.

    A translator reports every end marker it sees (a stop reason and a later stop event
    give a ``StreamEnd`` each); the assembler keeps the first and ignores every signal
    after it (:meth:`~callstream.ToolCallAssembler.apply`), so no translator tracks
    whether the stream already ended.
    """

    name: str

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one payload (cost: O(size of the payload))."""
        ...


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=512)
def alternate_key(key: str) -> str | None:
    """Return ``key`` in the other naming style (camel <-> snake), or None if the same.

    ``"functionCall"`` -> ``"function_call"``; ``"tool_use_id"`` -> ``"toolUseId"``.
    """
    if "_" in key.strip("_"):
        head, *rest = key.split("_")
        other = head + "".join(part[:1].upper() + part[1:] for part in rest)
    else:
        other = _CAMEL_BOUNDARY.sub("_", key).lower()
    return other if other != key else None


_NONE_ATTRIBUTE: Any = object()
"""What :func:`_lookup` gives for an object's attribute that exists and is None."""


def _lookup(obj: Any, key: str) -> Any:
    if type(obj) is dict:  # the common case, without the ABC check below
        return obj.get(key, _MISSING)
    try:  # anything below may meet a hostile object (a raising __class__, property, get)
        if isinstance(obj, Mapping):
            return obj.get(key, _MISSING)
        if obj is None or isinstance(obj, (str, bytes, bytearray, int, float, list, tuple)):
            return _MISSING
        value = getattr(obj, key, _MISSING)
        if value is None:
            return _NONE_ATTRIBUTE
        if value is not _MISSING and callable(value) and inspect.isroutine(value):
            return _MISSING  # a method, not a field
        return value
    except Exception:  # an exotic object whose field cannot be read lacks it
        return _MISSING


def get(obj: Any, key: str, default: Any = None) -> Any:
    """Read field ``key`` of a dict, mapping, pydantic model, dataclass or plain object.

    Tries ``key`` and then its other naming style (see :func:`alternate_key`); an object
    (not a mapping) whose attribute ``key`` exists and is None is not read in the other
    style (one object has one naming style, and a pydantic model's ``__getattr__`` raising
    for the other costs microseconds). A missing field, a method of that name, a field
    whose reading raises, or a ``None`` value give ``default``. Never raises.
    """
    if type(obj) is dict:  # the common case, inline (one lookup when the field is there)
        value = obj.get(key)
        if value is None:
            other = alternate_key(key)
            if other is not None:
                value = obj.get(other)
            if value is None:
                return default
        return value
    value = _lookup(obj, key)
    if value is _NONE_ATTRIBUTE:  # an object with this field: not of the other naming style
        return default
    if value is _MISSING or value is None:
        other = alternate_key(key)
        if other is not None:
            value = _lookup(obj, other)
    if value is _MISSING or value is None or value is _NONE_ATTRIBUTE:
        return default
    return value


def path(obj: Any, *keys: str | int) -> Any:
    """Follow a chain of fields (``str``) and list positions (``int``); None if any is absent.

    ``path(payload, "choices", 0, "delta")`` reads ``payload["choices"][0]["delta"]``.
    Never raises.
    """
    current = obj
    for key in keys:
        if isinstance(key, int):
            if type(current) is not list and type(current) is not tuple:
                current = _sequence_items(current)
                if current is None:
                    return None
            if not -len(current) <= key < len(current):
                return None
            current = current[key]
        else:
            current = get(current, key)
        if current is None:
            return None
    return current


def get_str(obj: Any, key: str) -> str | None:
    """Read a text field; an enum member reads as its value (or name), other types as None.

    A ``str`` subclass reads as a plain ``str`` (its own methods are never called).
    Never raises.
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is str:
            return value
        if value is None and alternate_key(key) is None:
            return None  # missing, and no other spelling to try
    value = get(obj, key)
    if value is None or type(value) is str:
        return value
    return _as_str(value)


def _as_str(value: Any) -> str | None:
    """A non-``str`` field value as text: enum members and ``str`` subclasses, else None."""
    kind = type(value)
    try:
        if issubclass(kind, enum.Enum):
            value = value.value if type(value.value) is str else value.name
            kind = type(value)
        if issubclass(kind, str):
            return str.__str__(value)  # the characters, not a custom __str__
    except Exception:  # a hostile enum or subclass: no text
        return None
    return None


def get_int(obj: Any, key: str) -> int | None:
    """Read an integer field; a decimal string (``"2"``) is accepted, anything else is None.

    Never raises. (Use :func:`get_index` where a present but unusable value matters.)
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is int:
            return value
    value = get(obj, key)
    if value is None or type(value) is int:
        return value
    return _as_int(value)


def _as_int(value: Any) -> int | None:
    kind = type(value)
    try:
        if kind is bool:
            return None
        if issubclass(kind, int):
            return int.__int__(value)  # the number, not a custom __int__
        if issubclass(kind, str):
            text = str.__str__(value).strip()
            if text.lstrip("-").isdigit() and text.isascii():
                return int(text)
    except Exception:  # a hostile subclass, or a number too long to convert
        return None
    return None


class BadIndex:
    """A provider index that is present but unusable (``true``, ``1.5``, ``"abc"``, ``[0]``,
    a negative number): see :func:`get_index`. ``text`` describes the value (written on
    first use, see :func:`describe`); ``token`` tells values apart (a string by its exact
    characters, anything else by ``text``)."""

    __slots__ = ("_text", "_value", "token")

    def __init__(self, value: Any) -> None:
        self._value = value
        if type(value) is str:
            self._text: str | None = None
            self.token: object = ("str", value)
        else:
            self._text = describe(value)
            self.token = ("text", self._text)

    @property
    def text(self) -> str:
        """A short JSON-like text for the value (at most 60 characters)."""
        if self._text is None:
            self._text = describe(self._value)
        return self._text

    def __repr__(self) -> str:
        return f"BadIndex({self.text!r})"


def get_index(obj: Any, key: str) -> int | BadIndex | None:
    """Read a provider's index field: a non-negative int, None when absent, or a
    :class:`BadIndex` when present but unusable.

    A JSON integer ``>= 0`` and a string of ASCII digits (``"2"``) are usable. Anything
    else that is present (a boolean, a fraction, other text, a list, an object, a negative
    number) is unusable: a translator must not read it as "absent", since that would
    route the chunk into the call being streamed. Never raises. Cost: O(1) for a usable
    value; O(size) to describe an unusable one (cut to 60 characters).
    """
    if type(obj) is dict:  # the common case: a plain dict holding an int
        value = obj.get(key)
        if type(value) is int and value >= 0:
            return value
    value = get(obj, key)
    if value is None:
        return None
    if type(value) is not bool:
        number = _as_int(value)
        if number is not None and number >= 0:
            return number
    return BadIndex(str.__str__(value) if issubclass(type(value), str) else value)


def get_block_index(obj: Any, key: str) -> int | BadIndex:
    """Like :func:`get_index`, for formats whose every block has an index (Anthropic,
    Bedrock): an absent or null index is unusable too (``BadIndex("null")``)."""
    index = get_index(obj, key)
    return _NULL_INDEX if index is None else index


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


_NULL_INDEX = BadIndex(None)


#: Most distinct unusable index values given their own key (per translator).
MAX_BAD_INDEX_KEYS = 1024


class BadIndexCalls:
    """Call keys for index values a translator cannot use, and the calls they name.

    Each distinct unusable value (told apart by :attr:`BadIndex.token`) gets a private
    key of its own, counting down from ``-2**64``: far below any index a provider or a
    user chunk plausibly sends, and never a usable (non-negative) one, so the pieces that
    carry it stay together and join no other call. LangChain also keys its own string
    block indexes (``"lc_ws_1"``) here, and asks for :meth:`fresh` keys.

    Two ways to end such a call (both give an invalid call with a reason naming the value,
    ``unusable <where> <value>: ...``):

    - pieces that may continue (OpenAI Chat, Responses, Cohere): :meth:`chunk` sends them
      without their name (kept here); should the stream end before :meth:`fail` /
      :meth:`fail_all` is called, the assembler still rejects the call ("tool call has
      no name"); when called, the failure carries the name and the reason.
    - a block that starts with an unusable index (Anthropic, Bedrock): :meth:`refuse`
      fails it at once, its arguments unread; later pieces with that index are dropped.

    Cost: one dict lookup per unusable index; memory O(distinct unusable values), at
    most ``max_keys`` of them (later distinct values share the last key; None: no cap,
    for LangChain, whose string block indexes are real calls, not junk).
    """

    __slots__ = ("_keys", "_last", "_max_keys", "_names", "_next", "_open")

    def __init__(self, *, max_keys: int | None = MAX_BAD_INDEX_KEYS) -> None:
        """Keep at most ``max_keys`` distinct values (None: no cap)."""
        self._max_keys = max_keys
        self._keys: dict[object, int] = {}
        self._names: dict[int, str] = {}
        self._open: dict[int, str] = {}  # key -> the unusable value's text, until failed
        self._next = _FIRST_KEY
        self._last = _FIRST_KEY

    def key(self, bad: BadIndex) -> int:
        """The key for ``bad`` (the same key every time for the same value)."""
        keys = self._keys
        found = keys.get(bad.token)
        if found is None:
            if self._max_keys is not None and len(keys) >= self._max_keys:
                return self._last
            found = keys[bad.token] = self._last = self.fresh()
        return found

    def fresh(self) -> int:
        """A key never given before (a call no later piece can name)."""
        found = self._next
        self._next -= 1
        return found

    def find(self, bad: BadIndex) -> int | None:
        """The key already given to ``bad``, or None."""
        return self._keys.get(bad.token)

    def clear(self) -> None:
        """Forget every value (a new message begins); keys are never given twice."""
        self._keys.clear()
        self._names.clear()
        self._open.clear()

    def is_open(self, bad: BadIndex) -> bool:
        """Whether a call for this unusable value is open (pieces arrived, not failed)."""
        return self._keys.get(bad.token) in self._open

    def chunk(
        self, bad: BadIndex, where: str, id_: str | None, name: str | None, args: Any
    ) -> CallChunk:
        """The chunk for a piece with unusable index ``bad``: its own key, no name."""
        key = self.key(bad)
        self._open[key] = f"{where} {bad.text}"
        if name and key not in self._names:
            self._names[key] = name
        return tool_chunk(key, id_, None, args)

    def refuse(
        self, bad: BadIndex, where: str, id_: str | None, name: str | None, *, server: bool
    ) -> list[Signal]:
        """A call started with unusable index ``bad``, failed at once: its chunk (with
        ``ServerToolUse`` for a server-side tool), then the failure."""
        key = self.key(bad)
        out: list[Signal] = [tool_chunk(key, id_, name, None)]
        if server:
            out.append(ServerToolUse(index=key))
        out.append(CallFailure(index=key, error=self.reason(bad, where)))
        return out

    @staticmethod
    def reason(bad: BadIndex, where: str) -> str:
        """The reason a call keyed by ``bad`` fails: ``unusable <where> <value>: ...``."""
        return _bad_index_reason(f"{where} {bad.text}")

    def fail(self, bad: BadIndex) -> list[Signal]:
        """The failure of the call for ``bad`` (none when it is not open)."""
        return self._fail(self.key(bad))

    def fail_all(self) -> list[Signal]:
        """The failures of every open call (sent before the stream ends)."""
        out: list[Signal] = []
        for key in list(self._open):
            out.extend(self._fail(key))
        return out

    def _fail(self, key: int) -> list[Signal]:
        what = self._open.pop(key, None)
        if what is None:
            return []
        error = _bad_index_reason(what)
        return [CallFailure(index=key, name=self._names.pop(key, None), error=error)]


_FIRST_KEY = -(2**64)

_BAD_INDEX = (
    "the provider's index is not a non-negative integer, so these pieces belong to no known call"
)


def _bad_index_reason(what: str) -> str:
    return f"unusable {what}: {_BAD_INDEX}"


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


def get_list(obj: Any, key: str) -> list[Any]:
    """Read a list field; a tuple becomes a list, a single mapping or object a one-item list.

    None, a missing field, a string or a number give ``[]``. Never raises.
    """
    if type(obj) is dict:  # a plain dict holding the field: no further call
        value = obj.get(key)
        if type(value) is list:
            return value
    value = get(obj, key)
    kind = type(value)
    if kind is list:
        return value  # type: ignore[no-any-return]
    if value is None:
        return []
    try:
        if issubclass(kind, list):
            return list.copy(value)  # the items, not a custom __iter__
        if issubclass(kind, tuple):
            return list(tuple.__getitem__(value, slice(None)))
        if issubclass(kind, (str, bytes, bytearray, int, float)):
            return []
    except Exception:
        return []
    return [value]


def is_record(obj: Any) -> bool:
    """True for things whose fields :func:`get` can read: mappings and non-scalar objects.

    Decided by the object's real type (``type(obj)``), so it never raises.
    """
    kind = type(obj)
    if kind is dict:
        return True
    if obj is None:
        return False
    try:
        if issubclass(kind, Mapping):
            return True
        return not issubclass(kind, (str, bytes, bytearray, int, float, list, tuple, set))
    except Exception:  # a type whose subclass check fails: not something we can read
        return False


def is_sequence(obj: Any) -> bool:
    """True for a list or tuple (by the real type, so a hostile object cannot make it
    raise)."""
    kind = type(obj)
    if kind is list or kind is tuple:
        return True
    try:
        return issubclass(kind, (list, tuple))
    except Exception:
        return False


# --- to plain JSON data -----------------------------------------------------------------


def _sequence_items(obj: Any) -> list[Any] | None:
    """The items of a list or tuple subclass instance (read with the base type's own
    methods), None for anything else."""
    kind = type(obj)
    try:
        if issubclass(kind, list):
            return list.copy(obj)
        if issubclass(kind, tuple):
            return list(tuple.__getitem__(obj, slice(None)))
    except Exception:
        return None
    return None


class _NotPlain(Exception):
    """Internal: a value that cannot become JSON data (strict mode)."""


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


_EXIT: Any = object()  # stack marker: leave a container (drop it from the ancestors)


def _walk(value: Any, max_depth: int, strict: bool) -> Any:
    """Convert ``value`` to plain JSON data with an explicit stack (see :func:`to_plain`).

    Strict mode raises ``_NotPlain`` / :class:`JSONLimitError`; lenient mode keeps what
    it cannot convert as it is (a cyclic or too deep container, an unknown object).
    """
    root: list[Any] = [None]
    # (parent, slot, item, depth of item, shallow) or (_EXIT, id, item, 0, False)
    stack: list[tuple[Any, Any, Any, int, bool]] = [(root, 0, value, 1, False)]
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
        if kind is dict:
            members: dict[Any, Any] | None = item
        elif kind is list or kind is tuple:
            members = None
        else:
            plain = _scalar(item)
            if plain is not _MISSING:
                parent[slot] = plain
                continue
            items = _sequence_items(item)
            if items is not None:
                item = items
                members = None
            else:
                members, shallow = _fields(item, shallow)
                if members is None:
                    if strict:
                        raise _NotPlain(f"a {type(item).__name__} value is not JSON")
                    parent[slot] = item
                    continue
        marker = id(item)
        if depth > max_depth or marker in ancestors:
            if strict:
                cycle = " (a container holds itself: a cycle)" if marker in ancestors else ""
                raise JSONLimitError(f"nesting deeper than max_depth={max_depth}{cycle}", 0)
            parent[slot] = item
            continue
        ancestors.add(marker)
        stack.append((_EXIT, marker, item, 0, False))  # keeps item alive, so its id too
        if members is not None:
            out: dict[str, Any] = {}
            parent[slot] = out
            for key, child in members.items():
                try:
                    name = _key_text(key)
                except _NotPlain:
                    if strict:
                        raise
                    continue
                out[name] = None
                stack.append((out, name, child, depth + 1, shallow))
        else:
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            for position, child in enumerate(item):
                stack.append((seq, position, child, depth + 1, shallow))
    return root[0]


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


def to_json_data(value: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Like :func:`to_plain`, but the result is pure JSON data or an error is raised.

    The result holds only ``dict`` (``str`` keys), ``list``, ``str``, ``int``, ``float``,
    ``bool`` and ``None`` of exactly those types, nests at most ``max_depth`` deep and has
    no cycles. Cost: O(size); iterative.

    Raises:
        JSONLimitError: nested deeper than ``max_depth``, or cyclic.
        DataError: an object that is not JSON data (an unknown type, a key that is not a
            string or number, an object whose reading raises).
    """
    try:
        return _walk(value, max_depth, strict=True)
    except JSONLimitError:
        raise
    except _NotPlain as exc:
        raise DataError(f"arguments are not JSON data: {exc}") from None
    except Exception as exc:  # a hostile object raised while being read
        raise DataError(
            f"arguments are not JSON data: reading them raised {type(exc).__name__}"
        ) from None


tool_chunk: Callable[[int | None, str | None, str | None, str | dict[str, Any] | None], CallChunk]
tool_chunk = fast_constructor(CallChunk, unchecked=True)
tool_chunk.__doc__ = """``tool_chunk(index, id, name, args)``: the
:class:`~callstream.CallChunk` every translator emits for a fragment of a call, equal to
``CallChunk(index=..., id=..., name=..., args=...)``.

Built without :class:`CallChunk`'s field checks (a generated constructor, see
:func:`~callstream._types.fast_constructor`): translators pass what this package's
accessors return (:func:`get_index`, :func:`get_str`, a plain dict or str for ``args``),
so the fields already have their types. Cost: O(1).
"""
