"""The values built once or more per chunk in the assembly layer: :class:`CallChunk` and
:class:`TextDelta` (signals from translators) and :class:`ArgumentsDelta` (an event), with
the builders the hot paths use. Re-exported by :mod:`callstream._assembly.types` (with
the other signals and events); compiled with mypyc in the compiled build.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from callstream._assembly.validation import check_args, check_index, check_str
from callstream._errors import ChunkValidationError
from callstream._json.changes import Change
from callstream._types import Record, assign_field, delete_field, use_slot_builders

if TYPE_CHECKING:
    from callstream._argtypes import ArgsArg, BoolArg, OptIntArg, OptStrArg, StrArg

__all__ = (
    "ArgumentsDelta",
    "CallChunk",
    "TextDelta",
    "new_arguments_delta",
    "new_call_chunk",
    "new_text_delta",
)


@final
class CallChunk(Record):
    """A fragment of one call, as a translator read it from provider data: the provider's
    ``index`` (its key for the call), ``id``, ``name``, and ``args``: a fragment of the
    JSON argument text, or the whole arguments as an object (a ``dict``).

    The signal translators hand the assembler (what a ``ToolCallChunk`` dict is for user
    code, without the dict): it is checked once, where it is made. Built by its
    constructor (keywords), the fields are checked as
    :meth:`ToolCallAssembler.feed` checks a chunk dict (an ``index`` of digits becomes an
    int, ``str`` subclasses plain ``str``); translators, whose accessors already return
    these types, build it through :func:`new_call_chunk`. The assembler merges it as it
    is. Immutable, compared and matched as a frozen dataclass (a :class:`Record`). Cost:
    O(1) (an ``args`` object is serialized by the assembler).

    Raises:
        ChunkValidationError: a field of the wrong type.
    """

    __slots__ = ("index", "id", "name", "args")
    __match_args__: ClassVar = ("index", "id", "name", "args")
    _compared: ClassVar = __match_args__

    def __init__(
        self,
        *,
        index: OptIntArg = None,
        id: OptStrArg = None,
        name: OptStrArg = None,
        args: ArgsArg = None,
    ) -> None:
        if index is not None and type(index) is not int:
            index = check_index(index, "CallChunk: ")
        if id is not None and type(id) is not str:
            id = check_str("id", id, "CallChunk: ")
        if name is not None and type(name) is not str:
            name = check_str("name", name, "CallChunk: ")
        if args is not None and type(args) is not str:
            args = check_args(args, "CallChunk: ")
        self.index: Final[int | None] = index
        self.id: Final[str | None] = id
        self.name: Final[str | None] = name
        self.args: Final[str | dict[str, Any] | None] = args

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


@final
class TextDelta(Record):
    """Text the model wrote: for the user (``reasoning=False``, the assistant's answer) or
    reasoning / thinking text (``reasoning=True``).

    Translators report it in stream order, one per piece of text in a payload (built
    through :func:`new_text_delta`, without a second check). The assembler is about
    calls: :meth:`~callstream.ToolCallAssembler.apply` passes it through untouched
    (``[]``); the pipeline puts it on :attr:`StreamUpdate.text` /
    :attr:`StreamUpdate.reasoning` and the whole text on the result. Built by its
    constructor, the fields are checked (a ``str`` subclass becomes a plain ``str``).
    Immutable, compared and matched as a frozen dataclass (a :class:`Record`). Cost: O(1).

    Raises:
        ChunkValidationError: ``text`` not a str, or ``reasoning`` not a bool.
    """

    __slots__ = ("text", "reasoning")
    __match_args__: ClassVar = ("text", "reasoning")
    _compared: ClassVar = __match_args__

    def __init__(self, *, text: StrArg, reasoning: BoolArg = False) -> None:
        if type(text) is not str:
            checked = check_str("text", text, "TextDelta: ")
            if checked is None:
                raise ChunkValidationError("TextDelta: field 'text' must be a str, got None")
            text = checked
        if type(reasoning) is not bool:
            raise ChunkValidationError(
                f"TextDelta: field 'reasoning' must be a bool, got {reasoning!r}"
            )
        self.text: Final[str] = text
        self.reasoning: Final[bool] = reasoning

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


@final
class ArgumentsDelta(Record):
    """Argument text arrived for call ``index``: the raw ``text`` and the parser's
    ``changes`` (paths are relative to the arguments object). Immutable, compared and
    matched as a frozen dataclass (a :class:`Record`); one per argument fragment."""

    __slots__ = ("index", "text", "changes")
    __match_args__: ClassVar = ("index", "text", "changes")
    _compared: ClassVar = __match_args__

    def __init__(self, *, index: int, text: str, changes: tuple[Change, ...] = ()) -> None:
        self.index: Final = index
        self.text: Final = text
        self.changes: Final = changes

    def __setattr__(self, name: str, value: object) -> None:
        assign_field(self, name, value)

    def __delattr__(self, name: str) -> None:
        delete_field(self, name)


# --- construction on the hot path --------------------------------------------------------
#
# Compiled (mypyc), a record's native __init__ is the fast way: the functions below call
# the class directly. Interpreted, __init__ assigns through __setattr__ (which keeps the
# record frozen), so the names are rebound to factories that set the slots
# (use_slot_builders, at the end). Both build equal records.



def new_call_chunk(
    index: int | None, id: str | None, name: str | None, args: str | dict[str, Any] | None
) -> CallChunk:
    """``CallChunk(index, id, name, args)`` without its field checks, for callers whose
    values have the checked types already (the translators pass what this package's
    accessors return). Cost: O(1)."""
    return CallChunk(index=index, id=id, name=name, args=args)


def new_text_delta(text: str, reasoning: bool) -> TextDelta:
    """``TextDelta(text, reasoning)`` without its field checks (``text`` a plain ``str``,
    ``reasoning`` a bool). Cost: O(1)."""
    return TextDelta(text=text, reasoning=reasoning)


def new_arguments_delta(index: int, text: str, changes: tuple[Change, ...]) -> ArgumentsDelta:
    """``ArgumentsDelta(index, text, changes)`` (one per argument fragment). Cost: O(1)."""
    return ArgumentsDelta(index=index, text=text, changes=changes)


use_slot_builders(
    globals(),
    {
        "new_call_chunk": CallChunk,
        "new_text_delta": TextDelta,
        "new_arguments_delta": ArgumentsDelta,
    },
)
