"""The pipeline's tool parser: the calls written in a stream's text, read between the
translator and the assembler.

With ``tool_parser=`` (:mod:`callstream.tool_parsers`), the text a translator reports
(:class:`TextDelta` signals that are not reasoning: openai-chat's ``delta.content``, a
raw-text source's pieces) goes through the tool parser, and its signals (text outside
the calls, reasoning, call fragments, ends and failures) take the text's place, in
order, among the translator's other signals. The provider's own reasoning and its own
calls pass untouched (the parser's calls have keys from
:data:`~callstream.tool_parsers.TEXT_CALL_INDEX` on, so the two never collide). The
parser is closed before the provider's end of the stream is applied (a held-back tail
is text, an open call is cut), at the end of the source, or when the stream is
interrupted.

Cost: the parser's, linear in the text.
"""

from __future__ import annotations

from callstream._assembly.types import Signal, StreamEnd, TextDelta
from callstream._errors import OptionTypeError, OptionValueError
from callstream.tool_parsers import ToolParser, get_tool_parser

__all__ = ("TextCalls", "text_calls")


class TextCalls:
    """One stream's tool parser, fed the text signals of its translator."""

    __slots__ = ("_parser",)

    def __init__(self, parser: ToolParser) -> None:
        self._parser = parser

    def read(self, signals: list[Signal]) -> list[Signal]:
        """The translator's signals for one payload, with its text read by the parser."""
        parser = self._parser
        out: list[Signal] = []
        for signal in signals:
            kind = type(signal)
            if kind is TextDelta and not signal.reasoning:  # type: ignore[union-attr]
                if not parser.closed:
                    before = len(out)
                    out += parser.feed(signal.text)  # type: ignore[union-attr]
                    if parser.text_was_reasoning and before:
                        out[:before] = _as_reasoning(out[:before])
            elif kind is StreamEnd:
                if not parser.closed:
                    out += parser.close()
                out.append(signal)
            else:
                out.append(signal)
        return out

    def close(self, interrupted: bool = False) -> list[Signal]:
        """The end of the source (or an interruption): the parser's last signals."""
        parser = self._parser
        return [] if parser.closed else parser.close(interrupted)

    def text_was_reasoning(self) -> bool:
        """Whether a reasoning closer with no opener said the text so far was reasoning
        (once: the flag is cleared)."""
        parser = self._parser
        if parser.text_was_reasoning:
            parser.text_was_reasoning = False
            return True
        return False


def _as_reasoning(signals: list[Signal]) -> list[Signal]:
    return [
        TextDelta(s.text, reasoning=True) if type(s) is TextDelta and not s.reasoning else s
        for s in signals
    ]


def text_calls(tool_parser: object, tools: object, prefill: object) -> TextCalls | None:
    """The pipeline's tool parser for its options (None without ``tool_parser``).

    Raises:
        OptionValueError: an unknown ``tool_parser`` name, or ``tools`` / ``prefill``
            without ``tool_parser``.
        OptionTypeError: an option of a wrong type.
        ToolDefinitionError: a tool that cannot be described.
    """
    if tool_parser is None:
        if tools is not None or prefill:
            raise OptionValueError(
                "tools= and prefill= are read by a tool parser: pass tool_parser= too"
                " (a family name, or 'auto')"
            )
        return None
    if isinstance(tool_parser, ToolParser):
        if tools is not None or prefill:
            raise OptionValueError(
                "tools= and prefill= are given to a tool parser object when it is made"
            )
        return TextCalls(tool_parser)
    if not isinstance(tool_parser, str):
        raise OptionTypeError(
            f"tool_parser must be a family name or a ToolParser, got {tool_parser!r}"
        )
    if prefill is not None and not isinstance(prefill, str):
        raise OptionTypeError(f"prefill must be a str, got {type(prefill).__name__}")
    if tools is not None and not isinstance(tools, (list, tuple)):
        raise OptionTypeError(f"tools must be a list of tools, got {type(tools).__name__}")
    return TextCalls(get_tool_parser(tool_parser, tools=tools, prefill=prefill or ""))
