"""The tool parser's loop: the text a model writes, read channel by channel, into signals.

A :class:`ToolParser` reads the raw text of one model output, piece by piece, and gives
the same signals a provider translator gives (:mod:`callstream._assembly.types`):
:class:`TextDelta` for the text outside the calls (``reasoning=True`` for the text of a
reasoning block), and for each call written in the text :class:`CallChunk` s (its name,
then its argument text as it arrives), then :class:`CallEnd` when its closing marker
arrives or :class:`CallFailure` when the call cannot be a valid one (malformed, cut by
the end of the text). So the calls read from text flow through the assembler like any
provider's: previews, invalid calls, limits, the runner and the UI come for free.

**Channels.** The parser is in one *mode* at a time: ``"text"``, ``"reasoning"``,
``"call"`` (a :class:`CallReader` reads the call's text) or a mode of a family's own.
Each mode has the markers that may end or change it (:meth:`ToolParser.markers`) and a
kind of text (:meth:`ToolParser.text_kind`: the user's text, reasoning, or none). The
markers are found with hold-back (:mod:`callstream.tool_parsers._markers`): a piece that
ends with ``<tool_`` holds those characters back until the next piece tells whether
they are a marker; at :meth:`~ToolParser.close` they are released as text. No marker
ever reaches the text, the reasoning, a name or the arguments.

**Extension points** (a family is a subclass; the checklist is in docs/design.md):

- ``name`` (the name in the registry), ``call_open`` (the markers that open a call),
  ``call_close`` (those that end one: one with no call open is dropped),
  ``reasoning_open`` / ``reasoning_close`` (default ``<think>`` / ``</think>``),
  ``dropped`` (the chat template's own tokens, removed wherever they stand outside a
  call: ``<|im_end|>`` ...);
- :meth:`ToolParser.open_call`: the :class:`CallReader` for a call opened by a marker
  (the JSON envelope reader of :mod:`~callstream.tool_parsers._json_text`, or a family's);
- :meth:`ToolParser.markers`, :meth:`ToolParser.text_kind` and
  :meth:`ToolParser.on_marker` for the modes of a family's own (a section of calls, a
  channel header).

Cost: linear in the text (each character is scanned a bounded number of times: only
the held tail, at most the longest marker, is scanned again); memory: the held tail,
plus what the call reader keeps of the open call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Literal

from callstream._assembly.types import CallChunk, CallEnd, CallFailure, Signal, TextDelta
from callstream._errors import OptionTypeError, ParserStateError
from callstream.tool_parsers._markers import MarkerSet

__all__ = (
    "CUT_REASON",
    "INTERRUPTED_REASON",
    "TEXT_CALL_INDEX",
    "CallReader",
    "ToolParser",
    "tool_schemas",
)

TEXT_CALL_INDEX: Final = 1_000_000
"""The index (the assembler's key) of the first call read from text; the n-th is this
plus n. Large, so it never collides with the indexes of a provider's own calls in the
same stream (a server that parsed some calls and leaked others into its content)."""

CUT_REASON: Final = (
    "the text ended inside a call (cut by max_tokens or the end of the stream):"
    " the model did not finish it"
)
INTERRUPTED_REASON: Final = "the stream was interrupted inside a call: the model did not finish it"

#: The raw text of a call kept for its failure (the reason quotes it); past this many
#: characters only the start is kept.
MAX_RAW_KEPT: Final = 4096

TextKind = Literal["text", "reasoning"] | None


def tool_schemas(tools: Sequence[Any] | None) -> dict[str, Mapping[str, Any]] | None:
    """The ``parameters`` schema of each tool, by name, from ``tools=`` (OpenAI tool
    dicts, pydantic models, functions: what :func:`callstream.tools.to_openai_tool`
    takes); None without tools. Cost: one schema build per tool.

    Raises:
        ToolDefinitionError: a tool that cannot be described.
        OptionTypeError: ``tools`` is not a list or tuple.
    """
    if tools is None:
        return None
    if not isinstance(tools, (list, tuple)):
        raise OptionTypeError(f"tools must be a list of tools, got {type(tools).__name__}")
    from callstream.tools import to_openai_tool

    out: dict[str, Mapping[str, Any]] = {}
    for tool in tools:
        function = to_openai_tool(tool)["function"]
        parameters = function.get("parameters")
        out[function["name"]] = parameters if isinstance(parameters, Mapping) else {}
    return out


def excerpt(text: str, size: int = 200) -> str:
    """``text`` for a reason: its repr, shortened in the middle past ``size`` characters."""
    if len(text) > size:
        half = size // 2
        text = f"{text[:half]} ... {text[-half:]}"
    return repr(text)


class CallReader:
    """Reads the text of one call, from just after the marker that opened it.

    A family's reader subclasses it and implements :meth:`feed`; it reports the call
    with :meth:`start` (the name), :meth:`args` (argument text, a fragment at a time),
    :meth:`end` (the call is complete) and :meth:`fail` (it is not a valid call).
    :meth:`close` is the end of the text inside the call: the call fails (never a valid
    call the model did not finish).
    """

    __slots__ = ("_raw", "_raw_size", "done", "index", "name", "parser", "started")

    def __init__(self, parser: ToolParser, index: int) -> None:
        self.parser: Final = parser
        self.index: Final = index
        self.name: str | None = None
        self.started = False
        self.done = False
        self._raw: list[str] = []
        self._raw_size = 0

    def feed(self, text: str, start: int) -> tuple[str, int] | None:
        """Read ``text[start:]`` (the next text of the call): None when the call goes on
        past it (a reader may hold back its tail), else ``(text, position)``: the
        parser reads on from ``position`` in ``text`` (the text given, or that text
        with the tail the reader held before it: a new call's opener that started in
        the held tail is read again by the parser). Positions, not slices, so a piece
        holding many calls is not copied once per call."""
        raise NotImplementedError

    def keep(self, text: str) -> None:
        """Keep raw call text for a failure's reason (the first :data:`MAX_RAW_KEPT`
        characters)."""
        room = MAX_RAW_KEPT - self._raw_size
        if room > 0 and text:
            piece = text[:room]
            self._raw.append(piece)
            self._raw_size += len(piece)

    def raw(self) -> str:
        """The raw call text kept so far."""
        return "".join(self._raw)

    def start(self, name: str) -> None:
        """The call's name is known: announce the call (or fail it: an unknown tool)."""
        self.name = name
        problem = self.parser.check_name(name)
        if problem is not None:
            self.fail(problem)
            return
        self.started = True
        self.parser.emit(CallChunk(index=self.index, name=name))

    def args(self, fragment: str) -> None:
        """A fragment of the call's JSON argument text (after :meth:`start`)."""
        if fragment and self.started and not self.done:
            self.parser.emit(CallChunk(index=self.index, args=fragment))

    def end(self) -> None:
        """The call is complete."""
        if not self.done:
            self.done = True
            self.parser.emit(CallEnd(index=self.index))

    def fail(self, reason: str) -> None:
        """The call is not a valid one: an invalid call with ``reason``; the raw call
        text is quoted in the reason, and is the call's arguments when none streamed."""
        if self.done:
            return
        self.done = True
        raw = self.raw()
        if raw and len(reason) < 400:
            reason = f"{reason}; the call's text: {excerpt(raw)}"
        self.parser.emit(
            CallFailure(
                error=reason,
                index=self.index,
                name=self.name,
                args=None if self.started else raw,
            )
        )

    def close(self, interrupted: bool = False) -> None:
        """The text ended inside the call: it fails (see :data:`CUT_REASON`)."""
        self.fail(INTERRUPTED_REASON if interrupted else CUT_REASON)


class ToolParser:
    """Reads the calls, text and reasoning a model writes as text; one per output.

    ``feed(piece)`` takes the next piece of text and returns the signals it completes;
    ``close()`` ends the text and returns the last ones (the held-back tail as text, an
    open call as failed). Signals are those of a provider translator (module docstring).

    Args:
        tools: the tools offered to the model (OpenAI tool dicts, pydantic models or
            functions): a call to another name is invalid, and families that write raw
            values type them by the tool's schema. None: any name, values by the
            family's rule.
        prefill: the generation prompt as the chat template renders it
            (``<|im_start|>assistant\\n<think>\\n``): read for the state it leaves (inside
            reasoning, reasoning closed) and never reported.

    Attributes:
        schemas: each offered tool's ``parameters`` schema by name (None: no ``tools``).
        mode: the channel the text is in (``"text"``, ``"reasoning"``, ``"call"``, or a
            family's own).
        calls: the calls opened so far.
        reasoning_seen: whether a reasoning marker was read (in the prefill too).
        text_was_reasoning: set when a reasoning closer with no opener said that the
            text returned by earlier :meth:`feed` calls was reasoning (see
            :meth:`on_marker`); the reader of the signals clears it.

    Raises:
        OptionTypeError: ``prefill`` not a str, ``tools`` not a list.
        ToolDefinitionError: a tool that cannot be described.
    """

    name: ClassVar[str] = ""
    call_open: ClassVar[tuple[str, ...]] = ()
    call_close: ClassVar[tuple[str, ...]] = ()
    reasoning_open: ClassVar[tuple[str, ...]] = ("<think>",)
    reasoning_close: ClassVar[tuple[str, ...]] = ("</think>",)
    dropped: ClassVar[tuple[str, ...]] = ()
    trim: ClassVar[bool] = True

    def __init__(self, tools: Sequence[Any] | None = None, prefill: str = "") -> None:
        if not isinstance(prefill, str):
            raise OptionTypeError(f"prefill must be a str, got {type(prefill).__name__}")
        self.schemas = tool_schemas(tools)
        self.mode = "text"
        self.calls = 0  # calls opened so far
        self.reasoning_seen = False  # a reasoning marker was read (in the prefill too)
        self.text_was_reasoning = False  # see on_marker: a closer with no opener
        self._held = ""  # the held-back tail
        # the separator rule (see text()), per kind of text: whether none of it came yet,
        # and its trailing whitespace, held until more of it comes
        self._lead = {"text": True, "reasoning": True}
        self._space: dict[str, list[str]] = {"text": [], "reasoning": []}
        self._reader: CallReader | None = None
        self._out: list[Signal] = []
        self._sets: dict[str, MarkerSet] = {}
        self._silent = False
        self._closed = False
        if prefill:
            self._silent = True
            self.feed(prefill)
            self._held = ""  # the prefill is whole: a marker's start at its end is none
            self._out = []
            self._silent = False

    # --- the extension points ----------------------------------------------------------

    def markers(self, mode: str) -> tuple[str, ...]:
        """The markers that may end or change ``mode`` (searched in its text)."""
        if mode == "text":
            return (
                self.reasoning_open
                + self.reasoning_close
                + self.call_open
                + self.call_close
                + self.dropped
            )
        if mode == "reasoning":
            return self.reasoning_close + self.reasoning_open + self.dropped
        return self.dropped

    def text_kind(self, mode: str) -> TextKind:
        """What the text of ``mode`` is: ``"text"``, ``"reasoning"`` or None (dropped)."""
        if mode == "text":
            return "text"
        if mode == "reasoning":
            return "reasoning"
        return None

    def on_marker(self, marker: str) -> None:
        """A marker of the current mode was read: change the mode (or open a call).

        A reasoning closer with no opener before it (no reasoning marker yet, in the
        prefill or the text, and no call) means the template opened the reasoning: the
        text before it was reasoning. What this :meth:`feed` returns says so; for the
        text returned by earlier calls :attr:`text_was_reasoning` is set (the pipeline
        moves that text to the reasoning in the result).
        """
        mode = self.mode
        if marker in self.dropped or (mode == "reasoning" and marker in self.reasoning_open):
            return  # a template token, or an opener inside reasoning: no text
        if mode == "text" and marker in self.reasoning_open:
            self.mode = "reasoning"
            self.reasoning_seen = True
        elif marker in self.reasoning_close:
            if mode == "text" and not self.reasoning_seen and not self.calls:
                self._was_reasoning()
            self.reasoning_seen = True
            self.mode = "text"
        elif mode == "text" and marker in self.call_open:
            self._reader = self.open_call(marker, TEXT_CALL_INDEX + self.calls)
            self.calls += 1
            self.mode = "call"
        # a call closer with no call open (a model repeating it) is no text either

    @classmethod
    def auto_markers(cls) -> tuple[str, ...]:
        """The markers by which ``tool_parser="auto"`` recognizes this family: its call
        openers and its own reasoning openers (not the shared ``<think>``)."""
        return cls.call_open + tuple(m for m in cls.reasoning_open if m != "<think>")

    @classmethod
    def claims(cls, marker: str, after: str) -> bool | None:
        """Whether a text where ``marker`` (one of :meth:`auto_markers`) is followed by
        ``after`` is this family's: True, False, or None while ``after`` is too short
        to tell. For markers several families share (``<tool_call>``); ``"auto"`` asks
        the families in the registry's order."""
        return True

    def _was_reasoning(self) -> None:
        """The text so far was reasoning: the text this feed reports is reported as
        reasoning, and :attr:`text_was_reasoning` says so of the text reported before."""
        if self._silent:
            return
        self._out = [
            TextDelta(s.text, reasoning=True) if type(s) is TextDelta else s for s in self._out
        ]
        self.text_was_reasoning = True
        # the separator state of the text so far is the reasoning's; the text starts anew
        self._lead = {"text": True, "reasoning": self._lead["text"]}
        self._space = {"text": [], "reasoning": self._space["text"]}

    def open_call(self, marker: str, index: int) -> CallReader:
        """The reader of the call that ``marker`` opens (key ``index``)."""
        raise NotImplementedError(f"{type(self).__name__} does not open calls")

    def check_name(self, name: str) -> str | None:
        """Why ``name`` cannot be called (None: it can): with ``tools=``, a name that
        is not one of them."""
        schemas = self.schemas
        if schemas is None or name in schemas:
            return None
        known = ", ".join(repr(n) for n in schemas) or "none"
        return f"the model called {name!r}, which is not one of the tools offered ({known})"

    # --- the loop ------------------------------------------------------------------------

    def emit(self, signal: Signal) -> None:
        """Report a signal (dropped while the prefill is read)."""
        if not self._silent:
            self._out.append(signal)

    def feed(self, piece: str) -> list[Signal]:
        """Read the next piece of text; return the signals it completes.

        Cost: O(len(piece)) plus the held tail (at most the longest marker).

        Raises:
            ParserStateError: after :meth:`close`.
            OptionTypeError: ``piece`` is not a str.
        """
        if self._closed:
            raise ParserStateError("feed() after close(): this text is over")
        if type(piece) is not str:
            if not isinstance(piece, str):
                raise OptionTypeError(f"a piece of text must be a str, got {type(piece).__name__}")
            piece = str.__str__(piece)
        text = self._held + piece if self._held else piece
        self._held = ""
        pos = 0
        end = len(text)
        while pos < end:
            reader = self._reader
            if reader is not None:
                rest = reader.feed(text, pos)
                if rest is None:
                    break
                text, pos = rest
                end = len(text)
                self._reader = None
                self.mode = "text"
                continue
            found = self._set(self.mode)
            at, marker = found.find(text, pos)
            if at > pos:
                self.text(text[pos:at])
            if marker is None:
                self._held = text[at:]
                break
            pos = at + len(marker)
            self.on_marker(marker)
        out, self._out = self._out, []
        return out

    def close(self, interrupted: bool = False) -> list[Signal]:
        """The text ended: release the held tail (as the text of its mode) and fail an
        open call (cut: :data:`CUT_REASON`; ``interrupted``: the stream was cut by an
        error, :data:`INTERRUPTED_REASON`). Returns the last signals.

        Raises:
            ParserStateError: called twice.
        """
        if self._closed:
            raise ParserStateError("close() was already called")
        self._closed = True
        reader = self._reader
        if reader is not None:
            self._reader = None
            reader.close(interrupted)
        elif self._held:
            self.text(self._held)
        self._held = ""
        self._space = {"text": [], "reasoning": []}  # trailing whitespace: dropped
        out, self._out = self._out, []
        return out

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` ran."""
        return self._closed

    def carry_text_state(self, other: ToolParser) -> None:
        """Go on from the text ``other`` read (``"auto"`` handing over to a family): its
        separator state (the text and reasoning begun, their held trailing whitespace)."""
        self._lead = dict(other._lead)
        self._space = {kind: list(space) for kind, space in other._space.items()}

    def _set(self, mode: str) -> MarkerSet:
        found = self._sets.get(mode)
        if found is None:
            found = self._sets[mode] = MarkerSet(self.markers(mode))
        return found

    def text(self, text: str) -> None:
        """Text of the current mode, between markers: reported as its kind
        (:meth:`text_kind`).

        The separator rule (``trim``, on by default): the whitespace at the start and at
        the end of the whole text, and of the whole reasoning, is not reported: it is
        the chat template's separators around the markers (``<think>\\n``,
        ``\\n</think>\\n\\n``, ``\\n<tool_call>``). Whitespace inside is kept: trailing
        whitespace is held until more text of its kind comes (then reported before it)
        or the output ends (then dropped).
        """
        kind = self.text_kind(self.mode)
        if kind is None or self._silent:
            return
        if self.trim:
            if self._lead[kind]:
                text = text.lstrip()
                if not text:
                    return
                self._lead[kind] = False
            body = text.rstrip()
            space = self._space[kind]
            if not body:
                space.append(text)
                return
            tail = text[len(body) :]
            if space:
                body = "".join(space) + body
                space.clear()
            if tail:
                space.append(tail)
            text = body
        self._out.append(TextDelta(text, reasoning=kind == "reasoning"))
