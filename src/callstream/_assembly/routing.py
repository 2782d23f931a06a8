"""Routing: which call a chunk belongs to (the merge rules, stated once, here).

A chunk (``index``, ``id``, ``name``, ``args``; any of them missing or None) is merged
by these rules; each has a test in ``tests/assembly/test_assembler_rules.py`` and, where it is a
decision, a predicate below named after its number and letter.

1. **Key.** The call a chunk continues (:meth:`Routes.continued`):

   a. a chunk with an ``index`` continues the latest call on that index;
   b. an unknown ``index`` whose ``id`` names a call that came without an index, and
      whose input is not closed, adopts that call (it takes the index);
   c. a chunk without an index continues the call with its ``id``;
   d. a chunk without an index whose ``id`` is unknown continues the call being
      streamed (the one that received the last chunk) when that call has no index and
      either no id yet, or no argument text yet and the id extends its id;
   e. a chunk with neither continues the call being streamed.

   Otherwise (an unknown index or id) the chunk starts a new call. A chunk reaching a
   call only through d or e is *anonymous* (it has no key of its own there). Ids are kept
   exactly as given and key a call only after the index, within one stream: two calls on
   distinct indexes stay two calls whatever their ids (Kimi K2's ``functions.<name>:<n>``
   ids restart each turn and may repeat within one).
2. **Empty fields.** ``""`` and ``None`` for ``id``, ``name`` and ``args`` are ignored:
   they never reset or blank anything. A chunk carrying nothing else never starts a
   call (one with a known index makes that call the one being streamed).
3. **Repeats and snapshots.** An ``id`` or ``name`` equal to the call's current one is
   ignored (servers resend them on every chunk); one that extends it (starts with it)
   replaces it (cumulative snapshots). See :func:`join_piece`.
4. **Pieces.** Before any argument text has arrived, any other ``id`` or ``name`` is a
   piece of it and is appended (ids and names streamed in pieces). See
   :func:`join_piece`.
5. **New call on the same key.** A chunk starts a new call, even on a known index or
   for the call being streamed (:func:`starts_new_call`), when

   a. it brings a different ``id`` or ``name`` (not an exact repeat) and the call has
      already received argument text (servers that reuse index 0);
   b. it brings both an ``id`` and a ``name`` that differ from the call's (neither
      extending it) while the call has both — two back-to-back calls without
      arguments, rather than an id and a name both streamed in pieces;
   c. it names a tool while the call's arguments are already a complete JSON value,
      and either brings non-blank argument text, or is anonymous while the call has no
      id either (whole calls of the same tool one after the other, Ollama style; a
      chunk resending the name with blank text to a call that has an index or an id
      stays a repeat);
   d. it is anonymous and names a tool other than the call's (not a repeat or an
      extension): pieces cannot be told apart without a key, so the name is taken as a
      tool of its own;
   e. the call's input is closed (an end marker or a provider failure) and the chunk
      names a tool (even the same one: a closed call takes no more names), brings
      another id, or non-blank argument text; blank continuations of a closed call and
      a repeat of its id are ignored.
6. **Arguments.** ``args`` text is appended to the call's raw text and fed to its
   parser (:class:`~callstream._assembly.arguments.ArgumentText`). An ``args`` dict is
   the complete arguments (serialized as ``json.dumps`` would); when the call already
   has text, the dict replaces it.
7. **Name first.** Nothing about a call is announced before it has a name:
   ``CallStarted`` comes when argument text begins (by then the name is complete) or
   when the call is reported; argument text that arrived before it is released as one
   ``ArgumentsDelta`` right after.

Every decision looks only at the call's identity, whether its argument text has begun,
whether that text is already a complete value, and whether its input is closed: O(1)
per chunk (plus the length of an id or name compared).
"""

from __future__ import annotations

from callstream._assembly.call import Call

__all__ = ("Routes", "has_content", "join_piece", "starts_new_call")


def has_content(text: str | None) -> bool:
    """Whether argument text carries more than whitespace."""
    return text is not None and not text.isspace()


def join_piece(old: str | None, piece: str) -> str:
    """Rules 3 and 4: the id or name after ``piece`` arrived (the caller has already
    ignored an exact repeat): a first value or an extension replaces, a piece appends."""
    return piece if old is None or piece.startswith(old) else old + piece


class Routes:
    """Where each call can be found: by provider index, by id, and the call being
    streamed (internal). Invariant: ``by_key[k]`` is the latest call that arrived on
    index ``k`` (unless it was unmapped past ``max_calls``); ``by_id[i]`` the call whose
    current id is ``i``."""

    __slots__ = ("by_id", "by_key", "current")

    def __init__(self) -> None:
        self.by_key: dict[int, Call] = {}
        self.by_id: dict[str, Call] = {}
        self.current: Call | None = None  # the call that received the last chunk

    def continued(self, key: int | None, id_: str | None) -> tuple[Call | None, bool]:
        """Rule 1: the call a chunk with this key and id continues (None: a new call),
        and whether the chunk is anonymous there (rules 1d, 1e). Rule 1b adopts the call
        (maps the key to it). Cost: O(1)."""
        if key is not None:
            call = self.by_key.get(key)  # 1a
            if call is None and id_ is not None:
                call = self.by_id.get(id_)
                if call is not None:
                    if not rule_1b_adopts_keyless(call):
                        return None, False
                    call.key = key
                    self.by_key[key] = call
            return call, False
        if id_ is not None:
            call = self.by_id.get(id_)  # 1c
            if call is not None:
                return call, False
            current = self.current
            if current is not None and rule_1d_takes_unknown_id(current, id_):
                return current, True
            return None, False
        return self.current, True  # 1e

    def find(self, key: int | None, id_: str | None, *, current: bool) -> Call | None:
        """The call an end marker, failure or server mark names: by id, else by index,
        else (with ``current``, when neither is given) the call being streamed."""
        call = self.by_id.get(id_) if id_ else None
        if call is None and key is not None:
            call = self.by_key.get(key)
        if call is None and current and not id_ and key is None:
            call = self.current
        return call

    def rename(self, call: Call, old: str | None, new: str) -> None:
        """Map the call's new id ``new`` (and unmap ``old``)."""
        by_id = self.by_id
        if old is not None and by_id.get(old) is call:
            del by_id[old]
        by_id[new] = call


def rule_1b_adopts_keyless(call: Call) -> bool:
    """Rule 1b: a call named by id under an unknown index is adopted when it came
    without an index and its input is not closed."""
    return call.key is None and not call.input_closed


def rule_1d_takes_unknown_id(current: Call, id_: str) -> bool:
    """Rule 1d: the call being streamed takes an unknown id (a chunk without index)."""
    if current.key is not None or current.input_closed:
        return False
    old = current.id
    return old is None or (not current.arguments.seen and id_.startswith(old))


def starts_new_call(
    call: Call, id_: str | None, name: str | None, text: str | None, anonymous: bool
) -> bool:
    """Rule 5: whether the chunk starts a new call instead of continuing ``call``.

    ``id_``, ``name`` and ``text`` are the chunk's non-empty fields (rule 2; an object
    counts as text with content); ``anonymous`` as returned by :meth:`Routes.continued`.
    """
    if call.input_closed:
        return rule_5e_after_close(call, id_, name, text)
    if id_ is None and name is None:
        return False  # text alone never starts a call on a known key
    if (id_ is None or id_ == call.id) and (name is None or name == call.name):
        # exact repeats (servers resend id and name on every chunk): only 5c can apply
        return name is not None and rule_5c_after_complete(call, name, text, anonymous)
    return (
        rule_5a_reused_key(call, id_, name)
        or rule_5b_back_to_back(call, id_, name)
        or rule_5c_after_complete(call, name, text, anonymous)
        or rule_5d_anonymous_name(call, name, anonymous)
    )


def rule_5a_reused_key(call: Call, id_: str | None, name: str | None) -> bool:
    """Rule 5a: a different id or name after argument text (servers reusing index 0)."""
    if not call.arguments.seen:
        return False
    old_id = call.id
    old_name = call.name
    return (id_ is not None and old_id is not None and id_ != old_id) or (
        name is not None and old_name is not None and name != old_name
    )


def rule_5b_back_to_back(call: Call, id_: str | None, name: str | None) -> bool:
    """Rule 5b: both a new id and a new name (neither extending the call's), while the
    call has both: two calls without arguments, one after the other."""
    old_id = call.id
    old_name = call.name
    return (
        id_ is not None
        and name is not None
        and old_id is not None
        and old_name is not None
        and not id_.startswith(old_id)
        and not name.startswith(old_name)
    )


def rule_5c_after_complete(call: Call, name: str | None, text: str | None, anonymous: bool) -> bool:
    """Rule 5c: a name for a call whose arguments are complete, with non-blank text (or
    anonymous while the call has no id): whole calls one after the other."""
    if name is None or call.name is None:
        return False
    if not has_content(text) and not (anonymous and call.id is None):
        return False
    return call.arguments.complete


def rule_5d_anonymous_name(call: Call, name: str | None, anonymous: bool) -> bool:
    """Rule 5d: an anonymous chunk naming another tool (not a repeat or extension)."""
    old = call.name
    return anonymous and name is not None and old is not None and not name.startswith(old)


def rule_5e_after_close(call: Call, id_: str | None, name: str | None, text: str | None) -> bool:
    """Rule 5e: a chunk for a call whose input is closed starts a new call when it names
    a tool, brings another id, or brings non-blank text."""
    return name is not None or (id_ is not None and id_ != call.id) or has_content(text)
