"""OpenAI Responses API stream events -> assembler signals.

Covers OpenAI's ``/v1/responses`` and third-party implementations (DeepSeek, LM Studio,
Open Responses). Wire facts (from real recordings):

- Calls are keyed by ``output_index`` (a reasoning or message item may take index 0, so
  the first call is often at 1 or 2). ``item_id`` can differ between events of one call
  on some servers, so it is only a fallback key.
- ``response.output_item.added`` with an ``item`` of type ``function_call`` brings the
  ``name`` and ``call_id`` (the call's id; ``item.id`` is the item's id). Its
  ``arguments`` is ``""`` (a non-empty value is used as the first fragment).
- ``response.function_call_arguments.delta`` carries a ``delta`` fragment. Some servers
  (LM Studio) send no deltas: the arguments are only in the ``.done`` events.
- ``response.function_call_arguments.done`` and ``response.output_item.done`` carry the
  complete arguments and are the authority: the first of them to arrive ends the call
  with :class:`CallEnd` (``args=`` the complete text, which wins over what was streamed).
- ``response.completed`` ends the stream (``"tool_calls"`` if a call was seen, else
  ``"stop"``); ``response.incomplete`` ends it with ``"length"`` when the reason is
  ``max_output_tokens`` (open calls become invalid, cut off), else with that reason;
  ``response.failed`` and an ``error`` event fail the open calls with the provider's
  message and end the stream with ``"error"`` (over HTTP the ``error`` event carries
  ``message`` and ``code`` itself; in the WebSocket mode they are in its ``error``
  object).

- A present but unusable ``output_index`` (``true``, ``1.5``, ``"abc"``, a negative
  number) is never replaced by a guess: the event's pieces go to a call of their own,
  which is failed (an invalid call with the reason) at its ``.done`` event or at the end
  of the stream; other calls are unaffected. Arguments given as an object that is not
  JSON data, cyclic or too deep make their call invalid.

- Text: ``response.output_text.delta`` carries a ``delta`` of the assistant's text;
  ``response.reasoning_summary_text.delta`` and ``response.reasoning_text.delta`` carry
  reasoning. Each becomes a :class:`~callstream.TextDelta`. The ``.done`` events and
  ``response.content_part.*`` repeat text already streamed and are not read.

Other events (refusals, built-in tools) are ignored. Cost: O(size of the payload).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from callstream._assembly.records import new_call_chunk as tool_chunk
from callstream._assembly.types import CallEnd, CallFailure, Signal, StreamEnd
from callstream.providers._arguments import read_arguments
from callstream.providers._bad_index import BadIndex, BadIndexCalls, get_index
from callstream.providers._fields import get, get_str, path
from callstream.providers._text import add_text

__all__ = ("OpenAIResponsesTranslator", "detect")

_CALL_ITEMS = frozenset({"function_call"})
_WHERE = "output_index"


def detect(payload: Any) -> bool:
    """True if ``payload`` is a Responses API stream event (``type`` ``response.*``)."""
    kind = get_str(payload, "type")
    return kind is not None and kind.startswith("response.")


class OpenAIResponsesTranslator:
    """Translate Responses API events (dicts or SDK event objects).

    State: the output indexes of function calls seen, which of them have ended, and the
    ``item_id`` -> ``output_index`` map used when an event lacks ``output_index``.
    """

    name = "openai-responses"

    def __init__(self) -> None:
        self._items: dict[str, int] = {}
        self._calls: dict[int, bool] = {}  # output_index -> ended
        self._last: int | None = None
        self._bad = BadIndexCalls()  # calls whose output_index was unusable

    def translate(self, payload: Any) -> list[Signal]:
        """Return the signals carried by one stream event."""
        handler = _HANDLERS.get(get_str(payload, "type"))
        return [] if handler is None else handler(self, payload)

    # --- events ------------------------------------------------------------------------

    def _text_delta(self, payload: Any) -> list[Signal]:
        out: list[Signal] = []
        add_text(out, get(payload, "delta"), False)
        return out

    def _reasoning_delta(self, payload: Any) -> list[Signal]:
        out: list[Signal] = []
        add_text(out, get(payload, "delta"), True)
        return out

    def _arguments_delta(self, payload: Any) -> list[Signal]:
        index = self._index(payload)
        delta = get_str(payload, "delta")
        if isinstance(index, BadIndex):
            return [self._bad.chunk(index, _WHERE, None, None, delta)] if delta else []
        if index is None or self._calls.get(index):
            return []
        self._calls.setdefault(index, False)
        return [tool_chunk(index, None, None, delta)] if delta else []

    def _item_added(self, payload: Any) -> list[Signal]:
        item, index = self._call_item(payload)
        if index is None:
            return []
        args, failure = read_arguments(get(item, "arguments"))
        id_, name = get_str(item, "call_id"), get_str(item, "name")
        if isinstance(index, BadIndex):
            out: list[Signal] = [self._bad.chunk(index, _WHERE, id_, name, args)]
            if failure is not None:
                out.extend(self._bad.fail(index))
            return out
        self._calls.setdefault(index, False)
        added: list[Signal] = [tool_chunk(index, id_, name, args)]
        if failure is not None:
            self._calls[index] = True
            added.append(CallFailure(index=index, error=failure))
        return added

    def _arguments_done(self, payload: Any) -> list[Signal]:
        index = self._index(payload)
        if index is None:
            return []
        return self._end(index, get_str(payload, "name"), None, get(payload, "arguments"))

    def _item_done(self, payload: Any) -> list[Signal]:
        item, index = self._call_item(payload)
        if index is None:
            return []
        return self._end(
            index, get_str(item, "name"), get_str(item, "call_id"), get(item, "arguments")
        )

    def _completed(self, payload: Any) -> list[Signal]:
        ended: list[Signal] = self._bad.fail_all()
        reason = "tool_calls" if self._calls else "stop"
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
            for index, ended_ in self._calls.items()
            if not ended_
        ]
        for index in self._calls:
            self._calls[index] = True
        signals.extend(self._bad.fail_all())
        signals.append(StreamEnd(reason="error", provider_error=message))
        return signals

    # --- call keys and ends ------------------------------------------------------------

    def _call_item(self, payload: Any) -> tuple[Any, int | BadIndex | None]:
        """The item of an ``output_item`` event and its call key (None when it is no call)."""
        item = get(payload, "item")
        if get_str(item, "type") not in _CALL_ITEMS:
            return item, None
        return item, self._index(payload, item)

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
            index = self._items.get(item_id)
        if index is None:
            index = self._last
        elif item_id is not None:
            self._items.setdefault(item_id, index)
        if index is not None:
            self._last = index
        return index

    def _end(
        self, index: int | BadIndex, name: str | None, id_: str | None, arguments: Any
    ) -> list[Signal]:
        """End call ``index`` once, with the complete arguments when given."""
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
        if self._calls.get(index):
            return []
        self._calls[index] = True
        signals = []
        if name or id_:
            signals.append(tool_chunk(index, id_, name, None))
        if failure is not None:
            signals.append(CallFailure(index=index, error=failure))
        else:
            signals.append(CallEnd(index=index, args=args))
        return signals


#: Event type -> its handler (other events carry nothing for us).
_HANDLERS: dict[str | None, Callable[[OpenAIResponsesTranslator, Any], list[Signal]]] = {
    "response.function_call_arguments.delta": OpenAIResponsesTranslator._arguments_delta,
    "response.output_text.delta": OpenAIResponsesTranslator._text_delta,
    "response.reasoning_summary_text.delta": OpenAIResponsesTranslator._reasoning_delta,
    "response.reasoning_text.delta": OpenAIResponsesTranslator._reasoning_delta,
    "response.output_item.added": OpenAIResponsesTranslator._item_added,
    "response.function_call_arguments.done": OpenAIResponsesTranslator._arguments_done,
    "response.output_item.done": OpenAIResponsesTranslator._item_done,
    "response.completed": OpenAIResponsesTranslator._completed,
    "response.incomplete": OpenAIResponsesTranslator._incomplete,
    "response.failed": OpenAIResponsesTranslator._failed,
    "error": OpenAIResponsesTranslator._failed,
}
