"""What every UI protocol needs to know about a turn: the ids it shows, what is open.

Pure bookkeeping shared by the AG-UI and Vercel encoders (no I/O, no protocol wire
shapes): a UI id for each call (the provider's id, or ``call_<n>`` unique in the run when
the provider gave none: Gemini, Ollama), whether a text block is open, which calls were
started and which have ended, and the argument text each call streamed (to notice a
provider that replaced a call's arguments at its end, which an append-only protocol
cannot express).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from callstream._errors import PartialJSONError, UsageError
from callstream._json.dump import same_json
from callstream._json.parser import PartialJSONParser
from callstream._json.pieces import Text
from callstream._result import failure_cause
from callstream.runner._results import ToolStarted

__all__ = (
    "TurnIds",
    "check_item",
    "interrupted_error",
    "new_id",
    "streamed_matches",
    "verdict_at_failure",
)


def new_id(prefix: str) -> str:
    """A fresh id such as ``run_1f0c...`` (random, 32 hex digits)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def check_item(item: Any) -> None:
    """Raise :class:`UsageError` unless ``item`` is what a stream or a tool runner yields
    (called for items no encoder branch took: a ``ToolStarted``, or a mistake)."""
    if not isinstance(item, ToolStarted):
        raise UsageError(
            "the items must be what callstream.stream() / astream() or a ToolRunner yield "
            f"(StreamUpdate, tool events), got {type(item).__name__}: pass the source "
            "through callstream.stream() first"
        )


def _decode(text: str) -> Any:
    """``json.loads`` of the text, at any depth: text nested too deep for it (or under a
    deep caller stack) is read by callstream's own iterative parser instead.

    Raises:
        ValueError: the text is not JSON.
    """
    try:
        return json.loads(text)
    except RecursionError:
        pass
    parser = PartialJSONParser(allow_nan=True, max_depth=max(len(text), 1))
    try:
        parser.feed(text)
        return parser.close()
    except PartialJSONError as exc:
        raise ValueError(str(exc)) from None


def verdict_at_failure(text: str) -> dict[str, Any] | None:
    """What the assembler's interrupt gives a call still open when the source failed: its
    arguments when the text it streamed is one complete JSON object, else None (the call
    is invalid). Cost: O(size of the text), once per open call."""
    try:
        value = _decode(text)
    except ValueError:
        return None
    return value if type(value) is dict else None


def interrupted_error(exc: BaseException | str) -> str:
    """The error of a call the failure cut off (the assembler's wording, the pipeline's
    cause: :func:`~callstream._result.failure_cause`)."""
    return f"the stream was interrupted before the call completed ({failure_cause(exc)})"


def streamed_matches(text: str, final: dict[str, Any]) -> bool:
    """Whether the argument text a call streamed decodes to its final arguments.

    Cost: O(size of the text), once per call at its end.
    """
    try:
        return same_json(_decode(text), final)
    except ValueError:
        return False


class TurnIds:
    """The UI ids of one turn's calls, and which calls are open (internal).

    Invariants: a call number gets one UI id for the whole run, distinct from every
    other call's; ``started`` and ``ended`` only grow; a call is in ``ended`` only
    after it is in ``started``.
    """

    __slots__ = ("_ids", "_used", "args", "ended", "names", "started")

    def __init__(self) -> None:
        self._ids: dict[int, str] = {}
        self._used: set[str] = set()
        self.started: set[int] = set()
        self.ended: set[int] = set()
        self.names: dict[int, str] = {}
        self.args: dict[int, Text] = {}  # the text each open call streamed (in blocks)

    def call_id(self, index: int, provider_id: str | None) -> str:
        """The UI id of call ``index``: its provider id on first sight, else ``call_<n>``
        (made unique: a provider id already used by another call gets a suffix)."""
        known = self._ids.get(index)
        if known is not None:
            return known
        base = provider_id or f"call_{index}"
        chosen, n = base, 1
        while chosen in self._used:
            n += 1
            chosen = f"{base}#{n}"
        self._ids[index] = chosen
        self._used.add(chosen)
        return chosen

    def add_text(self, index: int, text: str) -> None:
        """Keep argument text call ``index`` streamed (in blocks). Cost: O(1) amortized."""
        streamed = self.args.get(index)
        if streamed is None:
            streamed = self.args[index] = Text()
        streamed.add(text)

    def end(self, index: int) -> str | None:
        """Mark call ``index`` ended (and started); returns the argument text it streamed,
        or None when it had already ended (nothing more may be sent for it)."""
        if index in self.ended:
            return None
        self.started.add(index)
        self.ended.add(index)
        text = self.args.pop(index, None)
        return text.value() if text is not None else ""

    def open_calls(self) -> list[int]:
        """Calls started and not ended, in order."""
        return sorted(self.started - self.ended)
