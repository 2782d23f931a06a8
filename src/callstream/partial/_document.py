"""StructuredParser: one structured output (JSON written as text), fed in fragments.

Sans-I/O: :meth:`StructuredParser.feed` takes the next piece of the model's text and
returns the paths of the values it completed; :attr:`~StructuredParser.partial` is the
JSON preview (the parser's honest preview), :attr:`~StructuredParser.value` the partial
object of the schema (:mod:`callstream.partial._builder`), and
:meth:`~StructuredParser.close` the verdict: the value validated once, strictly, from
the exact text of the JSON value, or a :class:`~callstream.StructuredOutputError` that
keeps the text and the partial object. The drivers (:mod:`callstream.structured_output`) feed it
the text deltas of a provider stream.

Where the JSON is (``extract``):

- ``"json"`` (the default): the text is the JSON value, with whitespace around it, as
  the providers' structured-output modes write it. Anything else is an error.
- ``"fenced"``: the value may also sit in a Markdown code fence (a first line of three
  backticks and an optional language tag, and a closing fence after the value). Text
  after the value other than whitespace and the closing fence is an error.
- ``"prose"``: the value is the first ``{`` or ``[`` and what follows up to its end;
  text before it (prose, a fence) and after it is ignored (and kept in ``text``).

In both extract modes the value ends at its last character, whatever follows it in the
same fragment: the JSON parser is fed up to there and no further
(``StructuredParser._feed_value``), so the changes, ``closed`` and the partial object
of that fragment are those of the JSON alone, for any split of the text.

``NaN``, ``Infinity`` and ``-Infinity`` are read as numbers (``float('nan')`` ...), as
the final check reads them: pydantic's JSON reader (``Model.model_validate_json``) and
``json.loads`` both accept them, so refusing them here would fail a text the promised
check accepts. Whether a value may be one is the schema's to say (a ``float`` field
takes them unless the model sets ``allow_inf_nan=False``, or the type is
``FiniteFloat``); without a model they are kept, and the UI events write them as
``null`` (the output rule of :mod:`callstream._json.dump`).
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from pydantic import PydanticUserError, TypeAdapter, ValidationError

from callstream._assembly.options import DEFAULT_MAX_CHARS
from callstream._errors import (
    IncompleteJSONError,
    OptionTypeError,
    OptionValueError,
    PartialJSONError,
    StructuredOutputError,
    UsageError,
)
from callstream._json.changes import Change, ScalarSet, ValueClosed
from callstream._json.grammar import DEFAULT_MAX_DEPTH, ws_match
from callstream._json.parser import PartialJSONParser
from callstream._json.pieces import Text
from callstream._types import MISSING, JSONPath
from callstream.partial._builder import PartialBuilder
from callstream.partial._shapes import ANY, Shape, adapter_shape, shape_of

__all__ = ("EXTRACT_MODES", "Extract", "StructuredParser")

Extract = Literal["json", "fenced", "prose"]
EXTRACT_MODES: Final = ("json", "fenced", "prose")

_FENCE: Final = re.compile(r"[ \t]*```[\w+.-]*[ \t]*\r?\n")
_CLOSERS: Final = {"{": "}", "[": "]", '"': '"'}
"""Extract modes: the character after which a value of each kind may end (a number or a
literal: none, they are fed a character at a time)."""
_ATOM: Final = frozenset("0123456789+-.eE" "truefalsenullNaNInfinity")
"""Characters that may continue a number or a literal (``-Infinity`` included)."""

# Where the parser is in the text.
_LEADING: Final = 0  # before the value (extract modes)
_IN_VALUE: Final = 1
_AFTER: Final = 2  # the value ended; the rest is trailing text


class StructuredParser:
    """One structured output, fed in fragments, with its partial object and its verdict.

    Args:
        schema: a pydantic model, any type a ``TypeAdapter`` takes (``list[Item]``, a
            ``TypedDict``, a dataclass ...), a ``TypeAdapter``, a JSON-schema dict (the
            value is plain JSON data, not validated) or None (plain JSON data).
        extract: where the JSON is in the text: ``"json"``, ``"fenced"`` or ``"prose"``
            (see the module docstring).
        max_chars: most characters of JSON text accepted: by default
            :data:`~callstream._assembly.options.DEFAULT_MAX_CHARS` (32 Mi), the limit
            on a stream's argument text; None: no limit.
        max_depth: deepest nesting accepted.
        previews: build the partial object (False: :attr:`value` is the JSON preview
            until :meth:`close`, and nothing is validated before it).

    The partial object (:attr:`value`) follows the preview rules of tool arguments:
    strings grow (where the type is a plain ``str``), numbers, booleans, ``Literal`` and
    enum values appear only once complete and valid, a key appears with its value, a
    model's field is ``None`` until its value arrived, and a closed value is validated
    with its real type, the model's validators included, when it closes (never on a
    part of it); one that fails is "not valid yet" (absent), not an error. It is a live
    view: later fragments update it in place. The final value is validated once, from
    the exact text of the JSON value: exactly ``Model.model_validate_json(text)`` (which
    reads ``NaN``, ``Infinity`` and ``-Infinity``; so does this parser, see the module
    docstring).

    Cost: :meth:`feed` is O(len(text)) plus O(1) per value, and O(size) per closed
    container validated, bounded in total by
    :data:`~callstream.partial._builder.VALIDATION_WORK_FACTOR` times the text;
    :meth:`close` is one validation of the whole text.

    Raises:
        UsageError: a schema pydantic cannot validate with (a string, an object that is
            not a type); (``OptionValueError``) an unknown ``extract``.
    """

    __slots__ = (
        "_after",
        "_builder",
        "_closed",
        "_closer",
        "_json",
        "_lead",
        "_parser",
        "_schema",
        "_shape",
        "_start",
        "_state",
        "_text",
        "_verdict",
        "adapter",
        "changes",
        "extract",
    )

    def __init__(
        self,
        schema: Any = None,
        *,
        extract: Extract = "json",
        max_chars: int | None = DEFAULT_MAX_CHARS,
        max_depth: int = DEFAULT_MAX_DEPTH,
        previews: bool = True,
    ) -> None:
        if extract not in EXTRACT_MODES:
            raise OptionValueError(
                f"extract must be one of {', '.join(map(repr, EXTRACT_MODES))}, got {extract!r}"
            )
        self.extract = extract
        self._schema = schema
        self.adapter: TypeAdapter[Any] | None
        shape: Shape
        if schema is None or isinstance(schema, dict):
            self.adapter, shape = None, ANY
        elif isinstance(schema, TypeAdapter):
            self.adapter, shape = schema, adapter_shape(schema)
        else:
            if isinstance(schema, (str, bytes)):
                raise UsageError(
                    f"schema must be a type, a TypeAdapter, a JSON-schema dict or None, "
                    f"got {schema!r:.60}"
                )
            try:
                self.adapter, shape = TypeAdapter(schema), shape_of(schema)
            except PydanticUserError as exc:  # not a type pydantic can validate
                raise UsageError(f"cannot validate with {schema!r:.60}: {exc}") from exc
        self._shape = shape
        self._builder = PartialBuilder(shape) if previews and shape is not ANY else None
        # allow_nan: NaN and the infinities, as model_validate_json reads them (module doc)
        self._parser = PartialJSONParser(allow_nan=True, max_chars=max_chars, max_depth=max_depth)
        self._text = Text()  # every character given (in blocks: _json/pieces.py)
        self._lead = ""  # text held before the value (extract modes)
        self._state = _IN_VALUE if extract == "json" else _LEADING
        self._start = 0  # where the JSON text begins in the whole text
        self._json = Text()  # the JSON text
        self._after = Text()  # the text after the value
        self._closed = False
        self._closer: str | None = None  # extract modes: see _feed_value
        self._verdict: Any = MISSING
        self.changes: list[Change] = []
        """The JSON parser's changes of the last :meth:`feed` (what a UI patches its copy
        of the JSON preview with; empty when it read no JSON). Not copied: read it before
        the next feed."""

    # --- reading ----------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The whole text so far (O(its length) when it grew since the last read)."""
        return self._text.value()

    @property
    def json_text(self) -> str:
        """The text of the JSON value so far (without what ``extract`` skipped)."""
        return self._json.value()

    @property
    def chars(self) -> int:
        """Characters given so far. O(1)."""
        return self._text.length

    @property
    def started(self) -> bool:
        """Whether the JSON value has begun."""
        return self._parser.started

    @property
    def complete(self) -> bool:
        """Whether the JSON value is complete (only trailing text may follow)."""
        return self._state == _AFTER or self._parser.complete

    @property
    def partial(self) -> Any:
        """The JSON preview so far, plain data (a live view); None before it began.

        Strings grow, numbers and literals appear once complete, a key with its value.
        Cost: O(depth + length of the open string)."""
        value = self._parser.value
        return None if value is MISSING else value

    @property
    def value(self) -> Any:
        """The partial object so far (a live view), the final value once :meth:`close`
        returned it; None before the value began. Without a model (no schema or a
        JSON-schema dict), the same as :attr:`partial`."""
        if self._verdict is not MISSING:
            return self._verdict
        if self._builder is None:
            return self.partial
        self._parser.value  # noqa: B018 - brings plain-JSON parts (``Any``) up to date
        return self._builder.value

    # --- feeding ----------------------------------------------------------------------

    def feed(self, text: str) -> list[JSONPath]:
        """Read the next fragment of the text; return the paths of the values it
        completed (in order; ``()`` is the whole value).

        Cost: O(len(text)), plus the validation of the values it completed.

        Raises:
            StructuredOutputError: (``reason="json"``) the text can no longer be the
                JSON value (or is over a limit); ``text`` and the partial object are on
                the error.
            UsageError: (``ParserStateError``) after :meth:`close` or an error;
                (``OptionTypeError``) ``text`` is not a ``str``.
        """
        self.changes = []
        if type(text) is not str:
            if not isinstance(text, str):
                raise OptionTypeError(f"feed() takes str, got {type(text).__name__}")
            text = str(text)  # a str subclass: its characters
        if not text:
            return []
        self._text.add(text)
        state = self._state
        if state == _AFTER:
            self._after.add(text)
            return []
        if state == _LEADING:
            found = self._find_start(text)
            if found is None:
                return []
            text = found
        return self._feed_json(text)

    def _find_start(self, text: str) -> str | None:
        """In an extract mode, before the value: the part of the text that is JSON, or
        None while the value has not begun."""
        if self.extract == "prose":
            at = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
            if at < 0:
                return None
            self._start = self._text.length - len(text) + at
            self._state = _IN_VALUE
            return text[at:]
        held = self._lead + text
        stripped = held.lstrip()
        if not stripped:
            self._lead = held
            return None
        if stripped.startswith("`"):
            line_end = stripped.find("\n")
            if line_end < 0 and len(stripped) < 64:
                self._lead = held
                return None
            fence = _FENCE.match(stripped)
            if fence is not None:
                stripped = stripped[fence.end() :]
        self._lead = ""
        self._start = self._text.length - len(stripped)
        self._state = _IN_VALUE
        return stripped

    def _feed_json(self, text: str) -> list[JSONPath]:
        parser = self._parser
        before = parser.chars
        try:
            if self.extract == "json":
                changes, used = parser.feed(text), len(text)
            else:
                changes, used = self._feed_value(text)
        except PartialJSONError as exc:
            raise self._error(exc, "json", f"the output is not valid JSON: {exc}") from exc
        if used < len(text):  # the value ended: the rest is trailing text
            self._after.add(text[used:])
            self._state = _AFTER
            text = text[:used]
        self._json.add(text)
        self.changes = changes
        builder = self._builder
        if builder is None:
            return [change.path for change in changes if _closes(change)]
        builder.apply(changes, self._parser_value, parser.chars, before)
        builder.refresh()
        return builder.closed

    def _parser_value(self) -> Any:
        return self._parser.value

    def _feed_value(self, text: str) -> tuple[list[Change], int]:
        """Extract modes: feed ``text`` to the JSON parser up to the end of the value,
        never past it; return the changes and how many characters were the value's.

        The parser refuses a fragment that goes on after its value, and the changes of
        the fragment's part before the end would be lost with it (the value's last
        values would never reach the partial object nor ``closed``). So the text is fed
        in pieces that end where the value may end, and the rest is left once it has:
        after each character that may close it (``}`` for an object, ``]`` for an
        array, ``"`` for a string: one more parser call each), a number or a literal a
        character at a time (short: a number is bounded by the digits limit). A number
        followed by text other than whitespace ends there: the parser closes it, and the
        change it makes is the one whitespace there would have made. The pieces are the
        same whatever the split of the text, so the changes and ``closed`` are too.

        Raises:
            PartialJSONError: the parser's (not JSON, a limit; an unfinished number or
                literal that text follows).
        """
        parser = self._parser
        changes: list[Change] = []
        i, n = 0, len(text)
        while i < n and not parser.complete:
            closer = self._closer
            if closer is None:  # not begun: whitespace, then the value's first character
                start = ws_match(text, i).end()
                if start < n:
                    self._closer = _CLOSERS.get(text[start], "")
                end = min(start + 1, n)
            elif closer:
                end = text.find(closer, i) + 1 or n
            elif text[i] in _ATOM or text[i] in " \t\n\r":
                end = i + 1
            else:  # text right after a number (or an unfinished literal): the value ends
                changes.append(ScalarSet((), parser.close()))
                break
            changes.extend(parser.feed(text[i:end]))
            i = end
        return changes, i

    # --- the verdict ------------------------------------------------------------------

    def close(self, finish_reason: str | None = None, provider_error: str | None = None) -> Any:
        """The final value: the JSON value validated once, strictly, from its exact text
        (``Model.model_validate_json``); plain JSON data without a model. Idempotent.

        ``finish_reason`` and ``provider_error`` are the stream's (see
        :class:`~callstream.StreamResult`): with an incomplete value they say why it is
        incomplete.

        Cost: one validation of the JSON text (O(its size)).

        Raises:
            StructuredOutputError: the value is incomplete (``reason`` ``"length"`` when
                the token limit cut it, ``"provider_error"`` when the provider ended the
                stream with an error, else ``"incomplete"``), not JSON (``"json"``) or
                not valid (``"validation"``, with pydantic's message and ``errors``).
        """
        if self._verdict is not MISSING:
            return self._verdict
        if self._closed:
            raise self._error(None, "json", "the output failed earlier")  # unreachable in use
        self._closed = True
        data = self._strict_json(finish_reason, provider_error)
        if self.extract == "fenced" and self._after.value().strip() not in ("", "```"):
            raise self._error(
                None,
                "json",
                "unexpected text after the JSON value (extract='fenced')",
                finish_reason,
            )
        adapter = self.adapter
        if adapter is None:
            self._verdict = data
            return data
        try:
            verdict = adapter.validate_json(self._json.value())
        except ValidationError as exc:
            raise self._error(
                exc,
                "validation",
                f"the output does not validate: {exc}",
                finish_reason,
                errors=exc.errors(include_url=False),
            ) from exc
        except Exception as exc:  # a validator that raised something else
            raise self._error(
                exc,
                "validation",
                f"the output does not validate: {type(exc).__name__}: {exc}",
                finish_reason,
            ) from exc
        self._verdict = verdict
        return verdict

    def _strict_json(self, finish_reason: str | None, provider_error: str | None) -> Any:
        """The JSON value, read strictly (as ``json.loads``), or the error that says why
        there is none."""
        parser = self._parser
        if self._state == _AFTER:
            return parser.value  # complete: the value ended before the text did
        try:
            return parser.close()
        except IncompleteJSONError as exc:
            if provider_error is not None:
                reason = "provider_error"
                message = f"the provider ended the stream: {provider_error}"
            elif finish_reason == "length":
                reason = "length"
                message = f"the output was cut by the token limit ({exc.reason})"
            elif not parser.started:
                reason, message = "incomplete", "the output has no JSON value"
            else:
                reason, message = "incomplete", f"the output ended early: {exc}"
            raise self._error(exc, reason, message, finish_reason) from exc
        except PartialJSONError as exc:
            message = f"the output is not valid JSON: {exc}"
            raise self._error(exc, "json", message, finish_reason) from exc

    def _error(
        self,
        cause: BaseException | None,
        reason: str,
        message: str,
        finish_reason: str | None = None,
        *,
        errors: Any = None,
    ) -> StructuredOutputError:
        del cause  # chained by the caller (raise ... from)
        return StructuredOutputError(
            message,
            reason=reason,
            text=self.text,
            partial=self.partial,
            value=self._builder.value if self._builder is not None else self.partial,
            finish_reason=finish_reason,
            errors=errors,
        )


def _closes(change: Change) -> bool:
    return type(change) is ScalarSet or type(change) is ValueClosed
