"""Several JSON calls after one marker: ``[{...}, {...}]`` (Mistral before v11) or
``{...}; {...}`` (Llama 3's JSON calls).

:class:`EnvelopeListReader` reads the ``{"name": ..., "arguments": {...}}`` objects one
after another, each with its own :class:`~callstream.tool_parsers._json_text.EnvelopeReader`
(so each is its own call, with its own key), and the separators between them: an
optional opening ``[``, then objects separated by ``,`` (closed by ``]``) or by ``;``.
The first character that is no part of the list hands the text back to the parser (a
stray end token, the text after the calls). A call cut by the end of the text fails as
every cut call does; the calls that ended before it stay valid.
:class:`ListOrTextReader` is the same after a marker that plain text may hold
(``functools[``, a ```` ```json ```` fence): calls only when a list of objects follows,
else the marker was text.

Cost: linear in the text (the envelopes' own cost, plus one look at each separator).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

from callstream._json.dump import dumps_bounded
from callstream.tool_parsers._base import TEXT_CALL_INDEX, CallReader
from callstream.tool_parsers._json_text import EnvelopeReader

if TYPE_CHECKING:
    from callstream.tool_parsers._base import ToolParser

__all__ = ("EnvelopeListReader", "ListOrTextReader", "json_calls")

_SPACE: Final = " \t\r\n"

# the list's states
_START: Final = 0  # before the first object (or the "[" of a bracketed list)
_ITEM: Final = 1  # an object expected (after "[" or a separator)
_AFTER: Final = 2  # a separator, the closing "]", or the end of the list expected


class EnvelopeListReader(CallReader):
    """Calls written as JSON objects one after another (module docstring).

    Args:
        parser: the tool parser it reports to.
        index: the key of the first call (the next ones take the parser's next keys).
        separator: ``","`` (a ``[`` ... ``]`` list) or ``";"`` (no brackets).
        bracketed: the list's ``[`` was part of the marker (``functools[``): the
            reader starts inside the list.

    ``envelope`` (a class attribute) is the reader of each object (a family whose
    objects name their keys otherwise subclasses with its own).
    """

    envelope: ClassVar[type[EnvelopeReader]] = EnvelopeReader

    __slots__ = ("_bracketed", "_inner", "_separator", "_state", "_used")

    def __init__(
        self, parser: ToolParser, index: int, separator: str, *, bracketed: bool = False
    ) -> None:
        super().__init__(parser, index)
        self._separator: Final = separator
        self._bracketed = bracketed
        self._state = _ITEM if bracketed else _START
        self._inner: CallReader | None = None
        self._used = False  # the list's own key went to its first call

    def _next_index(self) -> int:
        if not self._used:
            self._used = True
            return self.index
        parser = self.parser
        index = TEXT_CALL_INDEX + parser.calls
        parser.calls += 1
        return index

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        pos = start
        while True:
            inner = self._inner
            if inner is not None:
                rest = inner.feed(text, pos)
                if rest is None:
                    return None
                text, pos = rest
                self._inner = None
                self._state = _AFTER
                continue
            end = len(text)
            while pos < end and text[pos] in _SPACE:
                pos += 1
            if pos >= end:
                return None
            char = text[pos]
            state = self._state
            if char == "{" and state in (_START, _ITEM):
                self._inner = self.envelope(self.parser, self._next_index(), ())
                continue
            if state == _START and char == "[" and self._separator == ",":
                self._bracketed = True
                self._state = _ITEM
                pos += 1
                continue
            if state == _AFTER and char == self._separator:
                self._state = _ITEM
                pos += 1
                continue
            if state == _AFTER and self._bracketed and char == "]":
                self.done = True
                return text, pos + 1
            if state == _ITEM and self._bracketed and char == "]" and not self._used:
                self.done = True  # an empty list: no call
                return text, pos + 1
            if not self._used:
                # not a list of calls at all: one invalid call, the rest of the text read
                # again as text (so not quoted in the reason)
                self.fail("the text after the call marker is not a JSON object or list of them")
            self.done = True
            return text, pos

    def close(self, interrupted: bool = False) -> None:
        inner = self._inner
        if inner is not None:
            self._inner = None
            inner.close(interrupted)
        elif not self._used:
            super().close(interrupted)  # a marker with no call after it
        self.done = True


class ListOrTextReader(EnvelopeListReader):
    """A list of calls after a marker that plain text may also hold (``functools[``, a
    ```` ```json ```` fence): read as calls only when the list starts with an object
    (``[{``, white space between); otherwise the marker and what was held after it
    were text, and are reported as text (no call, no invalid call).

    Args:
        parser: the tool parser it reports to.
        index: the key of the first call.
        marker: the marker that opened it (reported as text when no list follows).
        bracketed: the marker held the list's ``[``.
    """

    __slots__ = ("_decided", "_marker", "_seen")

    def __init__(self, parser: ToolParser, index: int, marker: str, *, bracketed: bool) -> None:
        super().__init__(parser, index, ",", bracketed=bracketed)
        self._marker: Final = marker
        self._seen: list[str] = []  # the white space (and "[") read while undecided
        self._decided = False

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        if self._decided:
            return super().feed(text, start)
        end = len(text)
        pos = start
        seen = self._seen
        while pos < end:
            char = text[pos]
            if char in _SPACE or (char == "[" and not self._bracketed):
                self._bracketed = self._bracketed or char == "["
                pos += 1
                continue
            seen.append(text[start:pos])
            if char == "{" and self._bracketed:
                self._decided = True
                self._state = _ITEM
                return super().feed(text, pos)
            self._as_text("".join(seen))
            return text, pos
        seen.append(text[start:pos])
        return None

    def _as_text(self, seen: str) -> None:
        """No list of calls: the marker and what followed it were text."""
        self.done = True
        parser = self.parser
        parser.mode = "text"
        parser.calls -= 1  # (this key was never used)
        parser.text(self._marker + seen)

    def close(self, interrupted: bool = False) -> None:
        if not self._decided and not self._bracketed:
            self._as_text("".join(self._seen))  # the marker alone: text
        else:
            super().close(interrupted)  # a list begun and cut: as every cut call


def json_calls(
    calls: Iterable[Mapping[str, Any]], *, name_key: str = "name", args_key: str = "arguments"
) -> str:
    """The JSON list of ``calls`` (each ``{"name": ..., "args": {...}}``) as the JSON-list
    families write it. Cost: O(size of the calls)."""
    return dumps_bounded(
        [{name_key: c["name"], args_key: c.get("args", {})} for c in calls],
        max_depth=None,
        ensure_ascii=False,
    )
