"""Provider indexes that are present but unusable, and the calls they name.

An index that is present but unusable (``true``, ``1.5``, ``"abc"``, ``[0]``, a negative
number) never routes text into another call: :func:`get_index` / :func:`get_block_index`
read it as a :class:`BadIndex`, and :class:`BadIndexCalls` gives each distinct value a
private key below ``-2**64`` and fails that call with ``unusable <where> <value>: ...``
(at the end of the stream where pieces may continue: OpenAI Chat, Responses, Cohere; at
once where a block starts with it: Anthropic, Bedrock).
"""

from __future__ import annotations

from typing import Any, Final

from callstream._assembly.types import CallChunk, CallFailure, ServerToolUse, Signal
from callstream.providers._fields import get, int_value
from callstream.providers._plain import describe

__all__ = (
    "MAX_BAD_INDEX_KEYS",
    "BadIndex",
    "BadIndexCalls",
    "get_block_index",
    "get_index",
)


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
        number = int_value(value)
        if number is not None and number >= 0:
            return number
    return BadIndex(str.__str__(value) if issubclass(type(value), str) else value)


def get_block_index(obj: Any, key: str) -> int | BadIndex:
    """Like :func:`get_index`, for formats whose every block has an index (Anthropic,
    Bedrock): an absent or null index is unusable too (``BadIndex("null")``)."""
    index = get_index(obj, key)
    return _NULL_INDEX if index is None else index


_NULL_INDEX: Final = BadIndex(None)


#: Most distinct unusable index values given their own key (per translator).
MAX_BAD_INDEX_KEYS: Final = 1024


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
        return CallChunk(key, id_, None, args)

    def refuse(
        self, bad: BadIndex, where: str, id_: str | None, name: str | None, *, server: bool
    ) -> list[Signal]:
        """A call started with unusable index ``bad``, failed at once: its chunk (after
        ``ServerToolUse`` for a server-side tool), then the failure."""
        key = self.key(bad)
        out: list[Signal] = [ServerToolUse(index=key, id=id_ or None)] if server else []
        out.append(CallChunk(key, id_, name, None))
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


_FIRST_KEY: Final = -(2**64)

_BAD_INDEX: Final = (
    "the provider's index is not a non-negative integer, so these pieces belong to no known call"
)


def _bad_index_reason(what: str) -> str:
    return f"unusable {what}: {_BAD_INDEX}"
