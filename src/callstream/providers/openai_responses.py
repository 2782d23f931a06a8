"""OpenAI Responses API stream events -> assembler signals.

Covers OpenAI's ``/v1/responses`` and third-party implementations (xAI, DeepSeek, LM
Studio, Open Responses). Which output items are calls, server calls or no call, their
names, ``args`` and extras: :mod:`callstream.providers._responses_items` (the one table).
Wire facts (from real recordings):

- Calls are keyed by ``output_index`` (a reasoning or message item may take index 0, so
  the first call is often at 1 or 2). ``item_id`` can differ between events of one call
  on some servers, so it is only a fallback key.
- ``response.output_item.added`` brings the item: for a ``function_call`` the ``name``
  and ``call_id`` (the call's id; ``item.id`` is the item's id), its ``arguments`` ``""``
  (a non-empty value is used as the first fragment); for other call items their fields.
- Argument text streams per kind: ``response.function_call_arguments.delta`` and
  ``response.mcp_call_arguments.delta`` carry JSON text fragments; three kinds stream a
  string, which is written into JSON text here (each piece escaped by
  :func:`~callstream.providers._plain.json_string_body`), so that their previews and
  verdicts come from the one argument parser: ``response.custom_tool_call_input.delta``
  (the text of ``{"__arg1": "..."}``, never invalid for not being JSON: once complete
  it is ``json.dumps({"__arg1": input})``, as LangChain writes it),
  ``response.code_interpreter_call_code.delta`` (``"code"``) and
  ``response.shell_call_command.added`` / ``.delta`` / ``.done`` (the strings of
  ``action.commands``). Some servers (LM Studio) send no deltas: the
  arguments are only in the ``.done`` events.
- ``response.function_call_arguments.done`` (``mcp_call_arguments.done``,
  ``custom_tool_call_input.done``, ``code_interpreter_call_code.done``) and
  ``response.output_item.done`` carry the complete arguments and are the authority: the
  first of them to arrive ends the call with :class:`CallEnd` (``args=`` the complete
  text or object, which wins over what was streamed). Deltas after it never change the
  call. Other items (shell, patch, computer, hosted tools) end at ``output_item.done``.
- A call the provider runs is marked (:class:`ServerToolUse`) before its first chunk,
  so every event about it says ``server=True``, also the ``CallInvalid`` of a call
  refused at its first chunk.
- The status events of hosted tools (``response.web_search_call.searching``,
  ``response.mcp_call.failed`` ...) and each item's ``status`` update the call's
  ``status`` extra (:class:`CallExtras`), also after the call ended.
- ``response.created`` / ``in_progress`` / ``queued`` list the response's tools: which
  custom tools it declares decides who runs a ``custom_tool_call`` (see
  :class:`~callstream.providers._responses_items.DeclaredTools`).
- ``response.completed`` ends the stream (``"tool_calls"`` if a call the client runs was
  seen, else ``"stop"``); ``response.incomplete`` ends it with ``"length"`` when the
  reason is ``max_output_tokens`` (open calls become invalid, cut off), else with that
  reason; ``response.failed`` and an ``error`` event fail the open calls with the
  provider's message and end the stream with ``"error"`` (over HTTP the ``error`` event
  carries ``message`` and ``code`` itself; in the WebSocket mode they are in its ``error``
  object).

- An unusable ``output_index``: :mod:`~callstream.providers._bad_index` (its call fails
  at its ``.done`` event or at the end of the stream; an item other than a
  ``function_call`` at once).

- Text: ``response.output_text.delta`` carries a ``delta`` of the assistant's text;
  ``response.reasoning_summary_text.delta`` and ``response.reasoning_text.delta`` carry
  reasoning. Each becomes a :class:`~callstream.TextDelta`. The ``.done`` events and
  ``response.content_part.*`` repeat text already streamed and are not read.

Every event type of the stream is in :data:`READ_EVENTS` or :data:`IGNORED_EVENTS`
(refusals, audio, annotations, outputs of hosted tools: no call). Cost: O(size of the
payload).
"""

from __future__ import annotations

import re
from typing import Any, Final

from callstream._assembly.types import (
    CallChunk,
    CallEnd,
    CallExtras,
    CallFailure,
    ServerToolUse,
    Signal,
    StreamEnd,
)
from callstream.providers._arguments import Arguments, read_arguments
from callstream.providers._bad_index import BadIndex, BadIndexCalls, get_index
from callstream.providers._base import Handler, ignore, unreadable
from callstream.providers._fields import get, get_int, get_str, path
from callstream.providers._plain import json_string_body, open_member, open_string_member
from callstream.providers._responses_items import (
    CUSTOM_ARG,
    IGNORED_EVENTS,
    TOOL_ITEMS,
    DeclaredTools,
    ItemCall,
    call_kind,
    read_call,
)
from callstream.providers._text import add_text

__all__ = ("IGNORED_EVENTS", "READ_EVENTS", "STATUS_EVENT", "OpenAIResponsesTranslator", "detect")

_WHERE = "output_index"

_STRINGS: Final = frozenset({"custom_tool_call", "code_interpreter_call"})
"""The kinds whose one string (input, code) is streamed by ``*.delta`` / ``*.done`` events."""

STATUS_EVENT: Final = re.compile(
    r"response\.(\w+_call|mcp_list_tools)\."
    r"(in_progress|searching|interpreting|executing|generating|completed|failed|incomplete)"
)
"""The status events of hosted tools (``response.web_search_call.searching``,
``response.mcp_call.failed``, xAI's ``response.x_search_call.completed`` ...): the second
group is the status."""


def detect(payload: Any) -> bool:
    """True if ``payload`` is a Responses API stream event (``type`` ``response.*``)."""
    kind = get_str(payload, "type")
    return kind is not None and kind.startswith("response.")


class _Item:
    """One call item of the response (internal): its type, whether it ended, and for a
    kind whose string is streamed here, what closes the JSON text written so far
    (``closing``; None: nothing is open) and the fields its complete arguments are made
    of besides that string (``fields``)."""

    __slots__ = (
        "closing",
        "commands",
        "ended",
        "fields",
        "kind",
        "named",
        "string_open",
    )

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.ended = False
        self.named = False  # its item was read (name, id, extras sent)
        self.closing: str | None = None
        self.fields: dict[str, Any] = {}
        self.string_open = False  # shell: a command string is open
        self.commands = 0  # shell: command strings written so far


class OpenAIResponsesTranslator:
    """Translate Responses API events (dicts or SDK event objects).

    State: the call items seen by output index (kind, ended, the text written for a
    streamed string), the ``item_id`` -> ``output_index`` map used when an event lacks
    ``output_index``, and the response's declared tools.
    """

    name = "openai-responses"

    def __init__(self) -> None:
        self._by_id: dict[str, int] = {}
        self._calls: dict[int, _Item] = {}
        self._last: int | None = None
        self._bad = BadIndexCalls()  # calls whose output_index was unusable
        self._tools = DeclaredTools()
        self._client_calls = False  # a call the client runs was seen

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one stream event."""
        kind: str | None = None  # dispatch, never raise: callstream.providers._base
        try:
            kind = get_str(payload, "type")
            return _HANDLERS.get(kind, _OTHER)(self, payload)
        except Exception as exc:
            return unreadable(self.name, kind, exc)

    # --- text ---------------------------------------------------------------------------

    def _text_delta(self, payload: Any) -> list[Signal]:
        """The assistant's text (``output_text``) or reasoning (the other text kinds)."""
        out: list[Signal] = []
        reasoning = get_str(payload, "type") != "response.output_text.delta"
        add_text(out, get(payload, "delta"), reasoning)
        return out

    # --- items --------------------------------------------------------------------------

    def _declared(self, payload: Any) -> list[Signal]:
        """``response.created`` / ``in_progress`` / ``queued``: the response's tools."""
        self._tools.add(path(payload, "response", "tools"))
        return []

    def _read_item(self, payload: Any) -> tuple[int | BadIndex, ItemCall, Any] | None:
        """The call key, the reading and the item of an ``output_item`` event; None when
        the item is no call (tool definitions are read here)."""
        item = get(payload, "item")
        kind = get_str(item, "type")
        if kind in TOOL_ITEMS:
            self._tools.add(get(item, "tools"))
            return None
        spec = None if kind is None else call_kind(kind)
        index = None if spec is None else self._index(payload, item)
        if kind is None or spec is None or index is None:
            return None
        return index, read_call(item, kind, spec, self._tools), item

    def _item_added(self, payload: Any) -> list[Signal]:
        found = self._read_item(payload)
        if found is None:
            return []
        index, read, item = found
        if isinstance(index, BadIndex):
            return self._bad_start(index, read)
        known = self._calls.get(index)
        if known is not None and (known.ended or known.kind != read.kind):
            return []  # an item added twice: the first one stands
        call = self._open(index, read.kind, read.server)
        if read.failure is not None:
            call.ended = True
            return [*self._start(index, read, None), CallFailure(index=index, error=read.failure)]
        # an item whose text began streaming before it was added has its opening already
        opening = self._opening(call, item, read) if known is None else None
        return self._start(index, read, opening)

    def _item_done(self, payload: Any) -> list[Signal]:
        found = self._read_item(payload)
        if found is None:
            return []
        index, read, item = found
        if read.kind == "custom_tool_call" and isinstance(read.args, dict):
            read.extras["input"] = read.args[CUSTOM_ARG]
        if isinstance(index, BadIndex):
            if read.kind == "function_call":
                return self._end(index, read.name, read.id, get(item, "arguments"))
            return [] if self._bad.find(index) is not None else self._bad_start(index, read)
        call = self._calls.get(index)
        out: list[Signal] = []
        if call is None:  # no output_item.added: the item starts and ends here
            call = self._open(index, read.kind, read.server)
            out.extend(self._start(index, read, None))
        elif not call.named and not call.ended and read.kind != "function_call":
            out.extend(self._start(index, read, None))  # its text streamed before its item
        elif read.extras:
            out.append(CallExtras(index=index, extras=read.extras))
        if call.ended:
            pass
        elif read.failure is not None:
            call.ended = True
            out.append(CallFailure(index=index, error=read.failure))
        elif read.kind == "function_call":
            out.extend(self._end(index, read.name, read.id, get(item, "arguments")))
        else:
            out.extend(self._finish(index, call, read.args))
        return out

    def _start(self, index: int, read: ItemCall, args: Arguments) -> list[Signal]:
        """The signals that start call ``index`` with first arguments ``args`` (text or
        a whole object): its server mark, its chunk (name and id), its extras, then the
        arguments, so that its ``CallStarted`` carries both; a call with neither mark nor
        extras gets one chunk. The mark comes first, so the call is a server call from
        its birth: a chunk the assembler refuses at once (an id over its length limit)
        is reported as the provider's invalid call, as the result lists it."""
        call = self._calls.get(index)
        if call is not None:
            call.named = True
        if not read.server and not read.extras:
            if read.id is None and read.name is None and args is None:
                return []
            return [CallChunk(index, read.id, read.name, args)]
        out: list[Signal] = [ServerToolUse(index=index)] if read.server else []
        out.append(CallChunk(index, read.id, read.name, None))
        if read.extras:
            out.append(CallExtras(index=index, extras=read.extras))
        if args is not None:
            out.append(CallChunk(index, None, None, args))
        return out

    def _opening(self, call: _Item, item: Any, read: ItemCall) -> Arguments:
        """The first arguments of an added item: the first JSON text fragment, the item's
        fields whole, or for a streamed string the JSON text up to and into it (what
        closes it, and the other fields, kept on ``call``)."""
        kind = read.kind
        if kind == "custom_tool_call":
            call.closing = '"}'
            return open_string_member({}, CUSTOM_ARG) + json_string_body(
                get_str(item, "input") or ""
            )
        args = read.args
        if kind == "code_interpreter_call" and isinstance(args, dict):
            code = args.pop("code", "")
            call.fields = args
            call.closing = '"}'
            return open_string_member(args, "code") + json_string_body(
                code if type(code) is str else ""
            )
        if kind == "shell_call" and isinstance(args, dict):
            action = args.get("action")
            if type(action) is not dict or action.get("commands"):
                return args  # the commands are given: nothing streams
            fields = {key: value for key, value in action.items() if key != "commands"}
            call.fields = fields
            call.closing = "]}}"
            return '{"action": ' + open_member(fields, "commands", "[")
        return args  # JSON text, or the item's fields whole (they do not stream)

    def _finish(self, index: int, call: _Item, args: Arguments) -> list[Signal]:
        """End call ``index`` with its complete arguments (text or object; None: what
        streamed). The JSON text written for a streamed string is closed first, so the
        streamed text is complete JSON: when it holds what ``args`` says, it stays (for
        a custom tool ``json.dumps({"__arg1": input})``); else ``args`` replaces it."""
        out: list[Signal] = []
        if call.closing:
            out.append(CallChunk(index, None, None, call.closing))
        call.ended = True
        call.closing = None
        out.append(CallEnd(index=index, args=args))
        return out

    # --- streamed argument text ---------------------------------------------------------

    def _arguments_delta(self, payload: Any) -> list[Signal]:
        """``function_call_arguments.delta`` / ``mcp_call_arguments.delta``: JSON text."""
        index = self._index(payload)
        delta = get_str(payload, "delta")
        function = get_str(payload, "type") == "response.function_call_arguments.delta"
        if isinstance(index, BadIndex):
            if not function:
                return self._bad_piece(index)
            return [self._bad.chunk(index, _WHERE, None, None, delta)] if delta else []
        if index is None:
            return []
        call = self._calls.get(index)
        if call is None:  # no output_item.added: named at its end
            call = self._open(index, "function_call" if function else "mcp_call", not function)
            if not function and delta:
                return [ServerToolUse(index=index), CallChunk(index, None, None, delta)]
        if call.ended or call.closing is not None:
            return []  # after its end (or not a JSON-text kind): never changes the call
        return [CallChunk(index, None, None, delta)] if delta else []

    def _arguments_done(self, payload: Any) -> list[Signal]:
        index = self._index(payload)
        if index is None:
            return []
        if isinstance(index, BadIndex) and get_str(payload, "type") != (
            "response.function_call_arguments.done"
        ):
            return self._bad_piece(index)
        return self._end(index, get_str(payload, "name"), None, get(payload, "arguments"))

    def _string_delta(self, payload: Any) -> list[Signal]:
        """A piece of a streamed string: custom tool input or code interpreter code. A
        piece before its item was added starts the call (a custom tool's: the client's;
        without a name until ``output_item.done`` brings one)."""
        index = self._index(payload)
        if isinstance(index, BadIndex):
            return self._bad_piece(index)
        if index is None:
            return []
        out: list[Signal] = []
        call = self._calls.get(index)
        if call is None:
            custom = get_str(payload, "type") == "response.custom_tool_call_input.delta"
            call = self._open(
                index, "custom_tool_call" if custom else "code_interpreter_call", not custom
            )
            call.closing = '"}'
            if not custom:
                out.append(ServerToolUse(index=index))
            out.append(
                CallChunk(
                    index, None, None, open_string_member({}, CUSTOM_ARG if custom else "code")
                )
            )
        delta = get_str(payload, "delta")
        if not call.ended and call.closing is not None and delta and call.kind in _STRINGS:
            out.append(CallChunk(index, None, None, json_string_body(delta)))
        return out

    def _string_done(self, payload: Any) -> list[Signal]:
        """``custom_tool_call_input.done`` / ``code_interpreter_call_code.done``: the
        string is complete; it wins over what streamed and ends the call (a custom tool's
        text is kept whole as its ``input`` extra)."""
        index, call = self._streamed(payload)
        if isinstance(index, BadIndex):
            return self._bad_piece(index)
        if index is None or call is None or call.ended or call.kind not in _STRINGS:
            return []
        custom = call.kind == "custom_tool_call"
        field = "input" if custom else "code"
        given = get_str(payload, field)
        if given is None:  # no usable text: what streamed, its string closed here
            if get(payload, field) is not None:
                call.ended = True
                return [CallFailure(index=index, error=f"the {field} given is not text")]
            return self._finish(index, call, None)
        if custom:
            extras = CallExtras(index=index, extras={"input": given})
            return [extras, *self._finish(index, call, {CUSTOM_ARG: given})]
        return self._finish(index, call, {**call.fields, "code": given})

    def _command_added(self, payload: Any) -> list[Signal]:
        """``shell_call_command.added``: a new command string (with its first text)."""
        index, call = self._streamed(payload)
        if isinstance(index, BadIndex):
            return self._bad_piece(index)
        if index is None or call is None or call.ended or call.closing is None:
            return []
        number = get_int(payload, "command_index")
        if number is not None and number < call.commands:
            return []  # a command already written
        text = ('"' if call.string_open else "") + (", " if call.commands else "") + '"'
        call.commands += 1
        call.string_open = True
        call.closing = '"]}}'
        command = json_string_body(get_str(payload, "command") or "")
        return [CallChunk(index, None, None, text + command)]

    def _command_delta(self, payload: Any) -> list[Signal]:
        """``shell_call_command.delta``: more text of the open command (the command of
        another ``command_index`` than the open one is left to ``output_item.done``)."""
        index, call = self._streamed(payload)
        if isinstance(index, BadIndex):
            return self._bad_piece(index)
        delta = get_str(payload, "delta")
        if index is None or call is None or call.ended or not call.string_open or not delta:
            return []
        number = get_int(payload, "command_index")
        if number is not None and number != call.commands - 1:
            return []
        return [CallChunk(index, None, None, json_string_body(delta))]

    def _command_done(self, payload: Any) -> list[Signal]:
        """``shell_call_command.done``: the open command string closes (the complete
        commands come with ``output_item.done``, which wins)."""
        index, call = self._streamed(payload)
        if isinstance(index, BadIndex):
            return self._bad_piece(index)
        if index is None or call is None or call.ended or not call.string_open:
            return []
        call.string_open = False
        call.closing = "]}}"
        return [CallChunk(index, None, None, '"')]

    def _streamed(self, payload: Any) -> tuple[int | BadIndex | None, _Item | None]:
        """The key and the call of a streamed-string event (None when none is known, or
        when the event is a shell command's and the call no shell call)."""
        index = self._index(payload)
        call = self._calls.get(index) if isinstance(index, int) else None
        if call is not None and "shell_call_command" in (get_str(payload, "type") or ""):
            if call.kind != "shell_call":
                call = None
        return index, call

    # --- status, end of stream ----------------------------------------------------------

    def _status(self, payload: Any) -> list[Signal]:
        """A kind not in the table: a hosted tool's status event (:data:`STATUS_EVENT`)
        gives the call's ``status`` extra; any other is ignored."""
        status = STATUS_EVENT.fullmatch(get_str(payload, "type") or "")
        if status is None:
            return ignore(self, payload)
        index = self._index(payload)
        if not isinstance(index, int) or index not in self._calls:
            return []
        return [CallExtras(index=index, extras={"status": status.group(2)})]

    def _completed(self, payload: Any) -> list[Signal]:
        ended: list[Signal] = self._bad.fail_all()
        reason = "tool_calls" if self._client_calls else "stop"
        ended.append(StreamEnd(reason=reason, provider_reason="completed"))
        return ended

    def _incomplete(self, payload: Any) -> list[Signal]:
        word = get_str(path(payload, "response", "incomplete_details"), "reason")
        reason = "length" if word is None or word == "max_output_tokens" else word
        cut: list[Signal] = self._bad.fail_all()
        cut.append(StreamEnd(reason=reason, provider_reason=word))
        return cut

    def _failed(self, payload: Any) -> list[Signal]:
        """``response.failed`` or an ``error`` event: the open calls fail, the stream ends."""
        is_error = get_str(payload, "type") == "error"
        error = payload if is_error else path(payload, "response", "error")
        if is_error and get_str(error, "message") is None and get(error, "error") is not None:
            error = get(error, "error")  # WebSocket mode: {"type": "error", "error": {...}}
        message = get_str(error, "message") or get_str(error, "code") or "the response failed"
        signals: list[Signal] = [
            CallFailure(error=message, index=index)
            for index, call in self._calls.items()
            if not call.ended
        ]
        for call in self._calls.values():
            call.ended = True
        signals.extend(self._bad.fail_all())
        signals.append(StreamEnd(reason="error", provider_error=message))
        return signals

    # --- call keys and ends ------------------------------------------------------------

    def _open(self, index: int, kind: str, server: bool) -> _Item:
        """The record of call ``index`` (made at its first event)."""
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _Item(kind)
            if not server:
                self._client_calls = True
        return call

    def _index(self, payload: Any, item: Any = None) -> int | BadIndex | None:
        """The call key: ``output_index``, else the index known for the item id.

        A present but unusable ``output_index`` is returned as a :class:`BadIndex`: it is
        never replaced by a guess (the item id, the last call), which could route the
        event's text into another call.
        """
        index = get_index(payload, "output_index")
        if isinstance(index, BadIndex):
            return index
        item_id = get_str(payload, "item_id") or get_str(item, "id")
        if index is None and item_id is not None:
            index = self._by_id.get(item_id)
        if index is None:
            index = self._last
        elif item_id is not None:
            self._by_id.setdefault(item_id, index)
        if index is not None:
            self._last = index
        return index

    def _bad_start(self, index: BadIndex, read: ItemCall) -> list[Signal]:
        """An item other than a ``function_call`` whose ``output_index`` is unusable:
        its call is failed at once (its later pieces are dropped with it)."""
        if read.kind == "function_call":
            args = read.args if isinstance(read.args, str) else None
            out: list[Signal] = [self._bad.chunk(index, _WHERE, read.id, read.name, args)]
            if read.failure is not None:
                out.extend(self._bad.fail(index))
            return out
        return self._bad.refuse(index, _WHERE, read.id, read.name, server=read.server)

    def _bad_piece(self, index: BadIndex) -> list[Signal]:
        """A streamed piece of an item whose ``output_index`` is unusable: a call failed
        at once when none was, else nothing more (see :meth:`_bad_start`)."""
        if self._bad.find(index) is not None:
            return []
        return self._bad.refuse(index, _WHERE, None, None, server=False)

    def _end(
        self, index: int | BadIndex, name: str | None, id_: str | None, arguments: Any
    ) -> list[Signal]:
        """End JSON-text call ``index`` once, with the complete arguments when given."""
        args, failure = read_arguments(arguments)
        if isinstance(index, BadIndex):  # its own call, failed now
            signals: list[Signal] = []
            if not self._bad.is_open(index):
                if not (id_ or name or args or failure):
                    return []  # nothing to keep
                signals.append(self._bad.chunk(index, _WHERE, id_, name, args))
            elif name:
                self._bad.chunk(index, _WHERE, None, name, None)  # remember the name
            return signals + self._bad.fail(index)
        call = self._calls.get(index)
        if call is None:
            call = self._open(index, "function_call", False)
        if call.ended or call.closing is not None:
            return []
        call.ended = True
        signals = []
        if name or id_:
            signals.append(CallChunk(index, id_, name, None))
        if failure is not None:
            signals.append(CallFailure(index=index, error=failure))
        else:
            signals.append(CallEnd(index=index, args=args))
        return signals


#: Event type -> its handler (hosted tools' status events: :data:`STATUS_EVENT`).
_HANDLERS: dict[str | None, Handler] = {
    "response.function_call_arguments.delta": OpenAIResponsesTranslator._arguments_delta,
    "response.mcp_call_arguments.delta": OpenAIResponsesTranslator._arguments_delta,
    "response.custom_tool_call_input.delta": OpenAIResponsesTranslator._string_delta,
    "response.code_interpreter_call_code.delta": OpenAIResponsesTranslator._string_delta,
    "response.shell_call_command.added": OpenAIResponsesTranslator._command_added,
    "response.shell_call_command.delta": OpenAIResponsesTranslator._command_delta,
    "response.shell_call_command.done": OpenAIResponsesTranslator._command_done,
    "response.output_text.delta": OpenAIResponsesTranslator._text_delta,
    "response.reasoning_summary_text.delta": OpenAIResponsesTranslator._text_delta,
    "response.reasoning_text.delta": OpenAIResponsesTranslator._text_delta,
    "response.created": OpenAIResponsesTranslator._declared,
    "response.in_progress": OpenAIResponsesTranslator._declared,
    "response.queued": OpenAIResponsesTranslator._declared,
    "response.output_item.added": OpenAIResponsesTranslator._item_added,
    "response.function_call_arguments.done": OpenAIResponsesTranslator._arguments_done,
    "response.mcp_call_arguments.done": OpenAIResponsesTranslator._arguments_done,
    "response.custom_tool_call_input.done": OpenAIResponsesTranslator._string_done,
    "response.code_interpreter_call_code.done": OpenAIResponsesTranslator._string_done,
    "response.output_item.done": OpenAIResponsesTranslator._item_done,
    "response.completed": OpenAIResponsesTranslator._completed,
    "response.incomplete": OpenAIResponsesTranslator._incomplete,
    "response.failed": OpenAIResponsesTranslator._failed,
    "error": OpenAIResponsesTranslator._failed,
}

_OTHER: Final[Handler] = OpenAIResponsesTranslator._status
"""The handler of the kinds not in the table (hosted tools' status events, else none)."""

READ_EVENTS: Final = frozenset(k for k in _HANDLERS if k is not None)
"""Every event type the translator reads, besides the status events (:data:`STATUS_EVENT`)."""
