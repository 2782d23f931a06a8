"""PartialBuilder: the partial object of a schema, built from the JSON parser's changes.

Theory of operation. The JSON parser reports what each fragment did (a value started, a
string grew, a scalar was set, a value closed; :mod:`callstream._json.changes`). The
builder keeps one frame per open container, in step with the parser's own stack, each
holding the parser's live container (``raw``), the shape the schema gives that place
(:mod:`callstream.partial._shapes`) and what the partial object shows there (``shown``):

- an open model is an instance of its partial class, filled in place: a field is
  ``None`` until its value is there (and valid), so no default or placeholder is ever
  guessed; a list or a mapping is a list or dict that grows in place; a plain-``str``
  value shows its text so far; any other scalar (numbers, literals, enums, dates ...)
  is shown only once complete and valid; a discriminated union shows nothing until its
  tag has arrived, then the member it names;
- a value that closes is validated with the real type at that place (the field's
  annotation with its constraints, or the model itself, with all its validators) in
  JSON mode, and replaces its partial form: so a model's validators run once, when its
  object is complete, never on a part of it. A value that fails is "not valid yet" for
  that subtree: the field goes back to ``None``, the key or the list item goes away;
  nothing is raised (the final, strict validation of the whole document decides);
- a list or a mapping without constraints of its own whose items all validated is
  already its validated value: it is not validated a second time.

Validating a closed container costs O(its size), so nested containers would cost
O(size x depth); the builder validates a container only while the validation work so
far stays within :data:`VALIDATION_WORK_FACTOR` times the text read (plus
:data:`VALIDATION_WORK_SLACK`): past it, a closed container keeps its partial form
until the final validation. Total work stays linear in the text, whatever its shape.

A string still streaming keeps its own pieces here (the parser's string is never shared,
so the parser keeps growing its own in place) and is shown again once it grew by
:data:`STRING_GROWTH` of what is shown: a new string object costs its length, so this
keeps the copying of a long string linear (a short one is shown at every fragment).

Cost per change: O(1), plus O(size) for a closed value validated (within the bound
above), plus the open string shown again (linear in total, see above). The partial
object is a live view: later fragments update it in place; :meth:`PartialBuilder.snapshot`
copies what later fragments can still change (the open containers, the only objects the
builder changes in place: a closed value, validated or left partial, is never touched
again, so copies share it), at O(entries of the open containers).

These rules are the one statement of what a partial object shows: structured output
(:class:`~callstream.partial.StructuredParser`, whose ``raw`` containers are the JSON
parser's own) and tool arguments (:class:`~callstream.parsers.PydanticToolsParser`, whose
``raw`` containers are the call's :class:`~callstream.parsers._tree.ClosedValueTree`,
complete values only) are both built here. One difference follows from that source: inside
a container of type ``Any`` (plain JSON shown as it is), a tool's arguments show a string
once it is complete, as ``ParsedCall.args`` does, where structured output shows it growing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from pydantic import BaseModel

from callstream._json.changes import Change, ScalarSet, StringExtended, ValueClosed, ValueStarted
from callstream._json.pieces import Text
from callstream.partial._shapes import ANY, IGNORED, MAX_VALIDATION_DEPTH, Shape

__all__ = (
    "MAX_VALIDATION_DEPTH",
    "VALIDATION_WORK_FACTOR",
    "VALIDATION_WORK_SLACK",
    "PartialBuilder",
)

VALIDATION_WORK_FACTOR: Final = 8
"""The closed containers validated while a document streams together hold at most this
many times the characters read so far (plus :data:`VALIDATION_WORK_SLACK`)."""

VALIDATION_WORK_SLACK: Final = 1 << 16
"""Characters of validation work always allowed, so a small document validates every
value that closes."""

# Frame modes: what a frame shows.
_SHOW: Final = 0  # a partial container (model instance, list, dict) filled by the builder
_RAW: Final = 1  # the parser's live container itself (plain JSON: no schema, Any)
_HIDDEN: Final = 2  # nothing until it closes (a scalar type, a union without its tag yet)

STRING_GROWTH: Final = 0.05
"""A string still streaming is shown again once it grew by this fraction of the text
shown (short strings at every fragment): each new text is a new string (Python strings
do not grow in place), so this bounds the copying to about 21 times the string."""

_GONE: Any = object()  # "take the value away" (not valid yet)


def _nothing() -> Any:
    return None


class _Frame:
    """One open container: its shape, the parser's container, what is shown."""

    __slots__ = ("clean", "count", "key", "mode", "open_shown", "raw", "shape", "shown", "start")

    def __init__(  # noqa: PLR0917 - one per attribute
        self, shape: Shape, mode: int, raw: Any, shown: Any, key: Any, start: int
    ) -> None:
        self.shape = shape
        self.mode = mode
        self.raw = raw
        self.shown = shown
        self.key = key  # the key in the parent (a JSON key or a list index)
        self.start = start  # characters read before the fragment it began in
        self.count = 0  # for arrays: the index of the next item
        self.clean = True  # every closed child was validated and is shown
        self.open_shown = False  # for arrays: the open last item has a slot in ``shown``


class PartialBuilder:
    """The partial object of one JSON document for one shape (see the module docstring).

    Feed it each fragment's changes with :meth:`apply`, then :meth:`refresh` the open
    string; read :attr:`value` (or take a :meth:`snapshot`). After an apply, ``closed``
    holds the paths of the values it closed and ``changed`` says whether what the value
    shows changed (a value placed, replaced or taken away, a container shown).
    """

    __slots__ = (
        "_frames",
        "_holder",
        "_root",
        "_shown_length",
        "_string",
        "_string_text",
        "_work",
        "changed",
        "closed",
    )

    def __init__(self, shape: Shape) -> None:
        # The root sits in a one-item holder, so it is placed like any other child.
        holder = Shape("list", None)
        holder._item = shape
        self._holder = _Frame(holder, _SHOW, None, [], None, 0)
        self._frames: list[_Frame] = [self._holder]
        self._root: Callable[[], Any] = _nothing  # reads the parser's root value
        self._string: tuple[_Frame, Any] | None = None  # the open string: (frame, key)
        self._string_text = Text()  # its text so far (our own copy, in blocks)
        self._shown_length = 0  # the length of its text the partial object shows
        self._work = 0
        self.closed: list[Any] = []  # paths of the values closed by the last apply
        self.changed = False  # whether the last apply changed what the value shows

    @property
    def value(self) -> Any:
        """The partial object so far (a live view); None before the value began."""
        shown = self._holder.shown
        return shown[0] if shown else None

    def apply(
        self, changes: Sequence[Change], root: Callable[[], Any], read: int, start: int
    ) -> None:
        """Apply one fragment's changes. ``root`` reads the parser's value (called only
        when the top-level value begins or a top-level string ends), ``read`` is the
        characters read after the fragment, ``start`` before it."""
        self._root = root
        closed = self.closed = []
        self.changed = False
        for change in changes:
            if type(change) is StringExtended:
                if self._string is not None:  # the open string (shown at refresh)
                    self._string_text.add(change.text)
                continue
            frames = self._frames
            top = frames[-1]
            if top.mode == _RAW:
                self.changed = True  # the parser's container, shown as it is, changed
            if type(change) is ValueStarted:
                key = self._key(top, change)
                if change.kind == "string":
                    self._string = (top, key)
                    self._string_text, self._shown_length = Text(), 0
                    self._open_string(top, key)
                else:
                    self._open(top, key, change.kind, start)
            elif type(change) is ScalarSet:
                closed.append(change.path)
                self._close_value(top, self._key(top, change), change.value, read)
                top.open_shown = False
            elif type(change) is ValueClosed:
                closed.append(change.path)
                string = self._string
                if string is not None:
                    self._string = None
                    self._string_text = Text()
                    frame, key = string
                    if frame.mode == _RAW:
                        self.changed = True
                    self._close_value(frame, key, self._raw_child(frame, key), read)
                    frame.open_shown = False
                else:
                    frames.pop()
                    parent = frames[-1]
                    self._close_container(top, parent, read)
                    parent.open_shown = False

    def refresh(self) -> bool:
        """Show the open string's text so far (where its shape shows text), once it grew
        by :data:`STRING_GROWTH` of what is shown (see the module docstring); return
        whether the partial object changed."""
        string = self._string
        if string is None:
            return False
        length = self._string_text.length
        grown = length - self._shown_length
        if grown <= 0 or grown < STRING_GROWTH * self._shown_length:
            return False
        frame, key = string
        if frame.mode != _SHOW:
            return False
        shape = frame.shape.item(key)
        if shape is IGNORED or shape.kind not in ("text", "any"):
            return False
        text = self._string_text.value()
        self._shown_length = length
        if frame.shape.kind == "list":
            if not frame.open_shown:
                return False
            frame.shown[-1] = text  # the open item's slot stays open
        else:
            self._place(frame, key, text, replace=True)
        return True

    def snapshot(self) -> tuple[Any, int]:
        """A copy of :attr:`value` that later fragments do not change, and the number of
        entries it copied.

        Only the open containers are copied (each shallowly: a partial model with
        ``model_copy``, its ``model_fields_set`` with it; a list or a dict with ``copy``),
        each linked into its parent's copy; everything else is shared: a closed value is
        never changed again (a validated value is its own object; a closed container the
        builder left partial is not touched after it closed), nor is a string. Cost:
        O(entries of the open containers), at C speed but for the models.
        """
        frames = self._frames
        holder = frames[0].shown
        if not holder:
            return None, 0
        top = holder.copy()
        copied = 1
        parent, parent_shown, parent_copy = frames[0], holder, top
        for frame in frames[1:]:
            shown = frame.raw if frame.shown is None and frame.mode == _RAW else frame.shown
            if frame.mode == _HIDDEN or not isinstance(shown, (list, dict, BaseModel)):
                break  # nothing deeper is shown
            slot = _slot(parent, parent_shown, frame, shown)
            if slot is None:
                break  # not shown where it is (an unknown key, a duplicate that replaced it)
            if isinstance(shown, BaseModel):
                mine: Any = shown.model_copy()
                copied += len(shown.__dict__)
            else:
                mine = shown.copy()
                copied += len(shown)
            if isinstance(parent_copy, BaseModel):
                parent_copy.__dict__[slot] = mine
            else:
                parent_copy[slot] = mine
            parent, parent_shown, parent_copy = frame, shown, mine
        return top[0], copied

    # --- opening ----------------------------------------------------------------------

    @staticmethod
    def _key(top: _Frame, change: ValueStarted | ScalarSet) -> Any:
        if top.shape.kind == "list" or isinstance(top.raw, list):
            # an array item: the next index (counted, so a deep path is never built)
            index = top.count
            if type(change) is ValueStarted or type(change) is ScalarSet:
                top.count += 1
            return index
        return change.path[-1]

    def _raw_child(self, frame: _Frame, key: Any) -> Any:
        if frame is self._holder:
            return self._root()
        try:
            return frame.raw[key]
        except (KeyError, IndexError, TypeError):
            return None

    def _open_string(self, parent: _Frame, key: Any) -> None:
        if parent.mode != _SHOW:
            return
        shape = parent.shape.item(key)
        if shape.kind in ("text", "any"):
            self._place(parent, key, "", replace=False)

    def _open(self, parent: _Frame, key: Any, kind: str, start: int) -> None:
        raw = self._raw_child(parent, key)
        if parent.mode != _SHOW:
            mode = _RAW if parent.mode == _RAW else _HIDDEN
            shape = ANY if mode == _RAW else IGNORED
            self._frames.append(_Frame(shape, mode, raw, None, key, start))
            return
        shape = parent.shape.item(key)
        shape_kind = shape.kind
        shown: Any = None
        mode = _SHOW
        if shape_kind == "any":
            mode, shown = _RAW, raw
        elif shape_kind == "model" and kind == "object":
            assert shape.partial_class is not None
            shown = shape.partial_class.model_construct()
        elif shape_kind == "list" and kind == "array":
            shown = []
        elif shape_kind == "dict" and kind == "object":
            shown = {}
        else:  # a scalar type, a union before its tag, a container of the wrong kind
            mode = _HIDDEN
        frame = _Frame(shape, mode, raw, shown, key, start)
        self._frames.append(frame)
        if shown is not None:
            self._place(parent, key, shown, replace=False)

    # --- closing ----------------------------------------------------------------------

    def _close_value(self, frame: _Frame, key: Any, value: Any, read: int) -> None:
        """A scalar or a string closed at ``key`` of ``frame``."""
        if frame.mode == _HIDDEN and frame.shape.kind == "union":
            if key == frame.shape.discriminator:
                self._choose_member(frame, value, read)
            return
        if frame.mode != _SHOW:
            return
        shape = frame.shape.item(key)
        if shape is IGNORED:
            return
        if shape.kind == "any":
            self._place(frame, key, value, replace=True)
            return
        shown = _validated(shape, value)
        if shown is _GONE:
            frame.clean = False
        self._place(frame, key, shown, replace=True)

    def _close_container(self, child: _Frame, parent: _Frame, read: int) -> None:
        """The container of frame ``child`` closed; its parent is ``parent``."""
        if parent.mode == _HIDDEN and parent.shape.kind == "union":
            return  # a tag is never a container
        if parent.mode != _SHOW or child.mode == _RAW:
            return
        if parent is self._holder:
            return  # the whole document: validated once, strictly, at the end
        shape = child.shape
        if child.mode == _SHOW and shape.plain and child.clean:
            return  # its items are validated: so is it
        size = read - child.start
        if self._work + size > VALIDATION_WORK_FACTOR * read + VALIDATION_WORK_SLACK:
            parent.clean = False  # over the work bound: it stays partial until the end
            return
        self._work += size
        shown = _validated(shape, child.raw)
        if shown is _GONE:
            parent.clean = False
        self._place(parent, child.key, shown, replace=True)

    def _choose_member(self, frame: _Frame, tag: Any, read: int) -> None:
        """A union's tag arrived: show the member it names, with what arrived before."""
        member = frame.shape.member(tag)
        if member is None or member.partial_class is None:
            return
        parent = self._frames[-2] if self._frames[-1] is frame else None
        if parent is None or parent.mode != _SHOW:
            return
        frame.shape = member
        frame.mode = _SHOW
        frame.shown = member.partial_class.model_construct()
        self._place(parent, frame.key, frame.shown, replace=False)
        raw = frame.raw if isinstance(frame.raw, dict) else {}
        for key, value in list(raw.items()):
            shape = member.item(key)
            if shape is IGNORED:
                continue
            shown = value if shape.kind == "any" else _validated(shape, value)
            self._place(frame, key, shown, replace=True)

    # --- placing ----------------------------------------------------------------------

    def _place(self, frame: _Frame, key: Any, value: Any, *, replace: bool) -> None:
        """Show ``value`` at ``key`` of ``frame`` (``_GONE``: take it away)."""
        shown = frame.shown
        kind = frame.shape.kind
        if kind == "list":
            if replace and frame.open_shown and _same_text(shown[-1], value):
                frame.open_shown = False  # a string closed as it was shown
                return
            self.changed = True
            _place_item(frame, value, replace=replace)
            return
        if kind == "model":
            found = frame.shape.field(key) if isinstance(key, str) else None
            if found is not None:
                self._place_field(shown, found[0], value, replace=replace)
            return
        if kind == "dict":
            if frame.shape.keyed and frame.shape.field(key) is None:
                return
            if replace and _same_text(shown.get(key), value):
                return
            self.changed = True
            if value is _GONE:
                shown.pop(key, None)
            else:
                shown.pop(key, None)  # a duplicate key moves to the end, as in the parser
                shown[key] = value

    def _place_field(self, model: BaseModel, name: str, value: Any, *, replace: bool) -> None:
        """Set field ``name`` of a partial model (``_GONE``: back to None, not set)."""
        fields_set = model.__pydantic_fields_set__
        if replace and name in fields_set and _same_text(model.__dict__.get(name), value):
            return
        self.changed = True
        if value is _GONE:
            model.__dict__[name] = None
            fields_set.discard(name)
        else:
            model.__dict__[name] = value
            fields_set.add(name)


def _same_text(old: Any, new: Any) -> bool:
    """Whether a closed string ``new`` is the text ``old`` already shown (nothing to
    change: the partial object stays as it is)."""
    return type(new) is str and type(old) is str and old == new


def _place_item(frame: _Frame, value: Any, *, replace: bool) -> None:
    """Show ``value`` as the last item of the list of ``frame``: in the open item's slot
    with ``replace`` (when it has one), else appended (``_GONE``: take the slot away)."""
    shown = frame.shown
    if replace and frame.open_shown:
        frame.open_shown = False
        if value is _GONE:
            shown.pop()
        else:
            shown[-1] = value
    elif value is not _GONE:
        shown.append(value)
        frame.open_shown = not replace


def _slot(parent: _Frame, shown: Any, child: _Frame, child_shown: Any) -> Any:
    """Where ``child_shown`` (the open container of frame ``child``) is in ``shown`` (its
    parent's): an index, a key or an attribute name; None when it is not shown there."""
    if isinstance(shown, list):
        return -1 if shown and shown[-1] is child_shown else None
    key = child.key
    if isinstance(shown, dict):
        return key if isinstance(key, str) and shown.get(key) is child_shown else None
    if isinstance(shown, BaseModel) and isinstance(key, str):
        found = parent.shape.field(key)
        if found is not None and shown.__dict__.get(found[0]) is child_shown:
            return found[0]
    return None


def _validated(shape: Shape, value: Any) -> Any:
    """``value`` (closed, plain JSON) validated with ``shape``'s real type; ``_GONE`` when
    it is not valid (yet) or too deep to hand to pydantic."""
    try:
        return shape.validate_value(value)
    except Exception:  # a ValidationError, a validator that raised, too deep to write
        return _GONE
