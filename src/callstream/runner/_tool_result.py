"""What one tool call gives: :class:`ToolResult`, and the rule making a tool's output JSON
data (:func:`output_data`). A leaf of the runner: the run's events and outcome
(:mod:`callstream.runner._results`) and the follow-up messages
(:mod:`callstream.runner._messages`) both read it.

A tool's output reaches the model and the UIs as JSON data, made once, when its result is
built (:func:`output_data`, the rule is there); an output that cannot be made JSON data
(cyclic, nested deeper than :data:`OUTPUT_MAX_DEPTH`, an object whose ``str()`` raises,
bytes that are not UTF-8) makes the result an error result saying why, so every
consumer (``content``, ``tool_messages()``, the UI encoders) sees the same outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

from callstream._errors import DataError, JSONLimitError
from callstream._json.dump import dumps_bounded, strict_data, strict_text
from callstream._json.parser import DEFAULT_MAX_DEPTH
from callstream.providers._plain import to_json_data
from callstream.runner._item_outputs import output_problem

__all__ = ("OUTPUT_MAX_DEPTH", "Status", "ToolResult", "output_data", "render_output")

OUTPUT_MAX_DEPTH: Final = DEFAULT_MAX_DEPTH
"""The deepest nesting of a tool output that is sent (1,000 levels, as for arguments)."""

Status: TypeAlias = Literal["done", "error", "cancelled"]
"""``done``: the tool ran and returned; ``error``: the call was invalid, named no known
tool, failed validation, raised or timed out (``error`` says which); ``cancelled``: the
tool was stopped (or never started) because the stream was voided, failed or the run
was cancelled."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """The outcome of one tool call.

    Attributes:
        index: the call's number in the stream (0, 1, ... in the model's call order).
        id: the call's id (None when the provider gave none).
        name: the tool name the model asked for (None for a call without one).
        args: the call's final, valid arguments object as the model sent them (a
            custom tool call's ``{"__arg1": text}``, whose text the tool got under its
            own parameter name), None when it never had valid arguments.
        status: ``"done"``, ``"error"`` or ``"cancelled"`` (see :data:`Status`).
        output: what the tool returned (None unless done).
        error: why it is not done: a readable text for the model (None when done).
        sealed_at: seconds from the start of the stream to the call's seal (its
            arguments were final and valid), None when it was never sealed.
        started_at: seconds from the start of the stream to the tool's start (None when
            it never started).
        finished_at: seconds from the start of the stream to the outcome.
        eager: the tool started before the stream ended.
        extras: a copy of the call's extras record (:class:`~callstream.CallExtras`,
            ``StreamResult.call_extras``) when it has one, else None: for an OpenAI
            Responses call the item it came from (:attr:`item_type`), ``namespace`` ...

    A done result is checked when it is built: its output is made JSON data once
    (:func:`output_data`, kept for :attr:`output_json` and :attr:`content`), and a call
    whose reply has a fixed shape (a Responses ``computer_call``: a screenshot; an
    ``mcp_approval_request``: the decision; a client ``tool_search_call``: the tools
    found; see :mod:`callstream.runner._item_outputs`) must have an output of that shape.
    An output that cannot be sent makes it an error result instead: ``status="error"``,
    ``output=None`` and ``error`` saying why ("Error: f returned an output that cannot
    be sent to the model: ..."). Cost: O(size of the output), once.
    """

    index: int
    id: str | None
    name: str | None
    args: dict[str, Any] | None
    status: Status
    output: Any = None
    error: str | None = None
    sealed_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    eager: bool = False
    extras: dict[str, Any] | None = None
    _data: Any = field(default=None, init=False, repr=False, compare=False)
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.status != "done":
            return
        try:
            data = output_data(self.output)
        except DataError as exc:
            reason = exc.reason if isinstance(exc, JSONLimitError) else str(exc)
        else:
            problem = output_problem(self.item_type, data)
            if problem is None:
                object.__setattr__(self, "_data", data)
                return
            reason = problem
        what = self.name or "the tool"
        error = f"Error: {what} returned an output that cannot be sent to the model: {reason}"
        object.__setattr__(self, "status", "error")
        object.__setattr__(self, "output", None)
        object.__setattr__(self, "error", error)

    @property
    def item_type(self) -> str | None:
        """The kind of OpenAI Responses item the call came from (``custom_tool_call``,
        ``shell_call``, ``computer_call`` ...), read from :attr:`extras`; None for a
        plain function call and for every other provider's calls."""
        extras = self.extras
        kind = extras.get("item_type") if extras is not None else None
        return kind if type(kind) is str else None

    @property
    def is_error(self) -> bool:
        """Whether the tool did not run to completion (an error or a cancellation)."""
        return self.status != "done"

    @property
    def output_json(self) -> Any:
        """The output as JSON data (:func:`output_data`; None unless done): what the UI
        encoders and :func:`~callstream.runner.tool_messages` send. A fresh copy each
        time (shares nothing with the result). Cost: O(size of the output)."""
        return strict_data(self._data) if self.status == "done" else None

    @property
    def content(self) -> str:
        """The text to give the model: the output (a ``str`` as it is, anything else as
        JSON, see :func:`render_output`) or the error, following the output rule of
        :mod:`callstream._json.dump` (no lone surrogates). Cost: O(size of the output)
        the first time, O(1) after."""
        if self.status != "done":
            return strict_text(self.error or self.status)
        text = self._text
        if text is None:
            text = _text_of(self._data)
            object.__setattr__(self, "_text", text)
        return text


def _leaf(value: Any) -> Any:
    """A value in a tool's output that is no JSON data, no model, dataclass or sequence:
    bytes as UTF-8 text, what pydantic makes of it (datetimes, UUIDs, decimals, sets,
    enums, paths...), else its ``str()``."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise DataError(f"{type(value).__name__} that are not UTF-8 text") from None
    from pydantic_core import to_jsonable_python

    try:
        return to_jsonable_python(value, inf_nan_mode="null")
    except Exception:  # not a type pydantic knows (or a hostile one): its text
        return str.__str__(str(value))


def output_data(output: Any) -> Any:
    """A tool's output as JSON data: what the model and the UIs are sent (the rule).

    ``str`` and None stay as they are; dicts, lists, tuples, pydantic models (their
    ``model_dump()``), dataclasses, enum members and ``str`` / ``int`` / ``float``
    subclasses become plain JSON data (mapping keys as ``json.dumps`` writes them),
    walked iteratively; bytes become their UTF-8 text; any other value becomes what
    pydantic makes of it (datetimes and UUIDs as strings, sets as lists...), else its
    ``str()``. Then the output rule of :mod:`callstream._json.dump` applies: lone
    surrogates become U+FFFD, ``NaN`` and infinities None. A fresh value, sharing no
    container with the output.

    Raises:
        JSONLimitError: the output nests deeper than :data:`OUTPUT_MAX_DEPTH`, or holds
            itself (a cycle).
        DataError: a part of it cannot become JSON data: bytes that are not UTF-8, a
            mapping key that is not a string or number, an object whose reading or
            ``str()`` raises.

    Cost: O(size of the output); no recursion.
    """
    if output is None:
        return None
    if type(output) is str:
        return strict_text(output)
    plain = to_json_data(output, max_depth=OUTPUT_MAX_DEPTH, leaf=_leaf, what="it is")
    return strict_data(plain)


def _text_of(data: Any) -> str:
    if data is None:
        return ""
    if type(data) is str:
        return data
    return dumps_bounded(data, max_depth=None, strict=True, separators=(",", ":"))


def render_output(output: Any) -> str:
    """A tool's output as text for the model: a ``str`` unchanged (but for lone
    surrogates, as U+FFFD), ``None`` as ``""``, anything else as compact strict JSON of
    :func:`output_data` (non-ASCII kept, NaN and infinities as ``null``).

    Raises:
        DataError: the output cannot be made JSON data (see :func:`output_data`).

    Cost: O(size of the output).
    """
    return _text_of(output_data(output))
