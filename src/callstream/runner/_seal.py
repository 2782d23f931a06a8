"""When a call is sealed: the seal rule per provider, as a pure reader of assembly events.

A call is *sealed* when its arguments are final and valid: the assembler's
:class:`~callstream.CallDone`, which it emits at the provider's own end of the call, or
at the end of the stream for formats without one. Per format, that is:

- OpenAI Responses: ``response.function_call_arguments.done`` (a custom tool's
  ``custom_tool_call_input.done``) or the item's ``output_item.done``, whichever comes
  first (shell, patch, computer and MCP approval items end only there);
- Anthropic Messages: the call's ``content_block_stop``;
- Bedrock ConverseStream: the call's ``contentBlockStop``;
- Cohere v2: ``tool-call-end``;
- Gemini / Vertex: a whole ``functionCall`` part at once; streamed arguments
  (``partialArgs``) at their last part (``willContinue`` false);
- Ollama: each call arrives whole;
- OpenAI Chat and the servers that speak it, LangChain chunks: no per-call end, so at
  the finish (``finish_reason``). With ``seal="next-call"``, call *i* is sealed when a
  later call's first chunk arrives (its id and name, before any of its arguments) and
  call *i*'s text has closed as one JSON object (see
  :meth:`~callstream.ToolCallAssembler.closed_arguments`). That is a bet that a server
  never sends more text for a call after starting the next one: if it does, the call
  becomes invalid at the finish and its seal is *broken* (see :class:`Broken`).

A seal is never salvage: the arguments are the assembler's verdict (stated in
:mod:`callstream._assembly.verdict`), never a repaired or cut-off text; the runner
validates them against the tool like any other, ``{}`` for a call without argument text
included (Anthropic and Gemini send a tool without parameters that way).

The end of the stream either *ends* it (the sealed calls stand) or *voids* it: a finish
reason in :data:`VOID_REASONS` (Bedrock ``malformed_tool_use``, a provider error
event...) means the provider withdrew or broke the turn, so tools already started are
cancelled and no other tool runs.

Pure: no anyio, no clock. :class:`Sealer` reads each update's events (and, for
``"next-call"``, the assembler) and returns the runner's :data:`Action` s.
Cost: O(events) per update, plus, under ``"next-call"``, O(open calls) per update while
calls are open (usually one or two).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from callstream._assembly.assembler import ToolCallAssembler
from callstream._assembly.types import (
    AssemblyEvent,
    CallDone,
    CallInvalid,
    CallStarted,
    InvalidToolCall,
    StreamFinished,
    ToolCall,
)
from callstream._update import copy_json

__all__ = (
    "VOID_REASONS",
    "Action",
    "Broken",
    "Ended",
    "Rejected",
    "Seal",
    "Sealed",
    "Sealer",
    "Voided",
    "voiding",
)

Seal: TypeAlias = Literal["end", "next-call"]
"""When a call is sealed: ``"end"`` at the provider's end of the call (or the finish),
``"next-call"`` also when a later call starts and the call's text has closed."""

VOID_REASONS: Final = frozenset(
    {
        "error",  # a provider error event mid-stream (the normalized reason)
        "malformed_tool_use",  # Bedrock
        "malformed_model_output",  # Bedrock
        "guardrail_intervened",  # Bedrock
        "content_filtered",  # Bedrock
        "content_filter",  # OpenAI Chat / Azure
        "refusal",  # Anthropic: the streaming classifiers stopped the turn
        "malformed_function_call",  # Gemini
        "unexpected_tool_call",  # Gemini
        "safety",  # Gemini
        "prohibited_content",  # Gemini
        "blocklist",  # Gemini
        "spii",  # Gemini
    }
)
"""Finish reasons (the normalized one or the provider's word, compared case-insensitively)
that void a turn's tool calls: the provider withdrew the output or says it is broken."""


def voiding(
    reason: str | None, provider_reason: str | None, void_reasons: frozenset[str]
) -> str | None:
    """The finish reason that voids the turn (the provider's word first), else None."""
    for word in (provider_reason, reason):
        if word is not None and word.lower() in void_reasons:
            return word
    return None


@dataclass(frozen=True, slots=True)
class Sealed:
    """Call ``index`` is sealed: ``call`` holds its final arguments (a private copy);
    ``extras``: the call's extras record then (the event's, None: none)."""

    index: int
    call: ToolCall
    early: bool = False  # sealed by "next-call", before the assembler's verdict
    extras: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Rejected:
    """Call ``index`` is invalid and was never sealed: it gets an error result (``call``
    is the event's own copy of the invalid call, ``extras`` its extras record)."""

    index: int
    call: InvalidToolCall
    extras: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Broken:
    """Call ``index`` was sealed early (``"next-call"``) but its final verdict differs:
    more text arrived, so the arguments the tool got were not the call's. ``error`` says
    how; the tool is cancelled if it still runs, and its result is an error."""

    index: int
    error: str


@dataclass(frozen=True, slots=True)
class Ended:
    """The stream ended and its calls stand (``reason``: the finish reason)."""

    reason: str | None


@dataclass(frozen=True, slots=True)
class Voided:
    """The stream ended with ``reason``, which voids its calls."""

    reason: str


Action: TypeAlias = Sealed | Rejected | Broken | Ended | Voided
"""What the runner does next, read from one update's events."""


def _sealed_copy(call: ToolCall, args: dict[str, Any]) -> ToolCall:
    """The call with a private deep copy of ``args`` (the assembler's views stay its own)."""
    return {"name": call["name"], "args": copy_json(args), "id": call["id"], "type": "tool_call"}


class Sealer:
    """Reads assembly events and says which calls are sealed, rejected, broken, and how
    the stream ended (internal). One per stream.

    Invariants: each call number gets at most one :class:`Sealed` and at most one of
    :class:`Rejected` / :class:`Broken` (a Broken only after its Sealed); server-side
    tools get nothing; exactly one :class:`Ended` or :class:`Voided`, last.
    """

    __slots__ = ("_early", "_open", "_seal", "_void_reasons")

    def __init__(self, seal: Seal, void_reasons: frozenset[str]) -> None:
        self._seal = seal
        self._void_reasons = void_reasons
        self._open: list[tuple[int, ToolCall]] = []  # started, not final, not sealed early
        self._early: dict[int, dict[str, Any]] = {}  # sealed early: the arguments given

    def read(self, events: Iterable[AssemblyEvent], assembler: ToolCallAssembler) -> list[Action]:
        """The actions the events of one update call for, in order."""
        actions: list[Action] = []
        for event in events:
            if isinstance(event, CallStarted):
                if event.server:
                    continue
                call: ToolCall = {"name": event.name, "args": {}, "id": event.id}
                self._open.append((event.index, call))
            elif isinstance(event, CallDone):
                if event.server:  # marked as a server tool after it started
                    self._forget(event.index)
                else:
                    self._on_done(event, actions)
            elif isinstance(event, CallInvalid):
                if event.server:
                    self._forget(event.index)
                else:
                    self._on_invalid(event, actions)
            elif isinstance(event, StreamFinished):
                void = voiding(
                    assembler.finish_reason, assembler.provider_finish_reason, self._void_reasons
                )
                actions.append(Ended(event.reason) if void is None else Voided(void))
        if self._seal == "next-call" and self._open and not assembler.finished:
            self._seal_closed(assembler, actions)
        return actions

    def _forget(self, index: int) -> None:
        self._open = [entry for entry in self._open if entry[0] != index]

    def _seal_closed(self, assembler: ToolCallAssembler, actions: list[Action]) -> None:
        """``"next-call"``: seal every open call that a later call follows (its first
        chunk arrived, even before it is announced) and whose text has closed as an
        object."""
        newest = assembler.call_count - 1
        still_open = []
        for index, call in self._open:
            args = assembler.closed_arguments(index) if index < newest else None
            if args is None:
                still_open.append((index, call))
                continue
            sealed = _sealed_copy(call, args)
            self._early[index] = sealed["args"]
            actions.append(Sealed(index, sealed, early=True))
        self._open = still_open

    def _on_done(self, event: CallDone, actions: list[Action]) -> None:
        final = event.tool_call
        given = self._early.pop(event.index, None)
        if given is None:
            self._forget(event.index)
            sealed = _sealed_copy(final, final["args"])
            actions.append(Sealed(event.index, sealed, extras=event.extras))
        elif given != final["args"]:
            actions.append(Broken(event.index, "the call's arguments changed after it was sealed"))

    def _on_invalid(self, event: CallInvalid, actions: list[Action]) -> None:
        given = self._early.pop(event.index, None)
        if given is None:
            self._forget(event.index)
            actions.append(Rejected(event.index, event.invalid_tool_call, event.extras))
        else:
            error = event.invalid_tool_call.get("error") or "invalid"
            actions.append(
                Broken(event.index, f"more text arrived for the call after it was sealed: {error}")
            )
