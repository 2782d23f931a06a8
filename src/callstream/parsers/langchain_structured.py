"""LangChain output parser for structured output: ``model | StructuredOutputParser(Model)``.

Needs ``langchain-core`` (the ``callstream[langchain]`` extra); this module imports it
and is itself imported only when asked for (``callstream.parsers`` does not import it).

For a chat model that writes JSON as text (``model.bind(response_format=...)``, a model
made with ``with_structured_output(method="json_schema" | "json_mode",
include_raw=True)``'s raw message, Ollama's ``format``, any JSON mode): each message
chunk is read once by callstream's LangChain translator (its text, never its reasoning;
the end of the stream and its finish reason from ``response_metadata``), the text goes to
a :class:`~callstream.partial.StructuredParser`, and ``stream`` yields the partial object
after every chunk that carried text, then the validated value. LangChain's own
``JsonOutputParser`` / ``PydanticOutputParser`` re-parse the whole text per chunk
(quadratic) and show numbers still arriving; this parser follows the preview rules of
:mod:`callstream.partial`.

``invoke`` reads the whole message through the same reader, so it returns what the last
streamed value is (``invoke`` ≡ ``stream``). A structured output that is not valid (cut by
the token limit, not JSON, failing validation) raises LangChain's
``OutputParserException`` (``llm_output`` = the text), chained from the
:class:`~callstream.StructuredOutputError` that says why (``reason``, the partial object).
Cost: per message, O(its size), plus the parser's (see ``StructuredParser``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk, BaseMessage, BaseMessageChunk
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import ConfigDict

from callstream._assembly.types import StreamEnd, TextDelta
from callstream._errors import StructuredOutputError
from callstream.partial import StructuredParser
from callstream.providers import get_translator

__all__ = ("StructuredOutputParser",)


class StructuredOutputParser(BaseTransformOutputParser[Any]):
    """A LangChain output parser for JSON a chat model writes as text, streaming-aware.

    Attributes:
        schema_type: a pydantic model, any type a ``TypeAdapter`` takes, a JSON-schema
            dict (plain data, not validated) or None (plain data).
        extract: where the JSON is in the text: ``"json"``, ``"fenced"`` or ``"prose"``
            (see :mod:`callstream.partial`).
        partial: yield partial objects while streaming (False: only the final value).

    ``chain.stream`` yields the partial object (a live view, filled in place by later
    chunks) after each chunk that carried text, then the validated value; ``chain.invoke``
    returns that validated value.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    schema_type: Any = None
    extract: Literal["json", "fenced", "prose"] = "json"
    partial: bool = True

    @property
    def _type(self) -> str:
        return "callstream_structured_output"

    def parse(self, text: str) -> Any:
        """The validated value of a whole text."""
        reader = _Reader(self)
        reader.text(text)
        return reader.close()

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The value of a whole message or text (``invoke``): read as a stream is, so this
        equals the last value ``stream`` yields (with ``partial``: the partial object, no
        error)."""
        if not result:
            raise OutputParserException("StructuredOutputParser got no generation")
        reader = _Reader(self)
        generation = result[0]
        if isinstance(generation, ChatGeneration):
            reader.message(generation.message)
        else:
            reader.text(generation.text)
        if partial:
            return reader.parser.value
        return reader.close()

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[Any]:
        reader = _Reader(self)
        for item in input:
            if reader.feed(item) and self.partial:
                yield reader.parser.value
        yield reader.close()

    async def _atransform(self, input: AsyncIterator[str | BaseMessage]) -> AsyncIterator[Any]:
        reader = _Reader(self)
        async for item in input:
            if reader.feed(item) and self.partial:
                yield reader.parser.value
        yield reader.close()


class _Reader:
    """One stream of messages (or texts) into one :class:`StructuredParser`."""

    __slots__ = ("_finish", "_provider_error", "_translator", "ended", "parser")

    def __init__(self, owner: StructuredOutputParser) -> None:
        self.parser = StructuredParser(owner.schema_type, extract=owner.extract)
        self._translator = get_translator("langchain")
        self._finish: str | None = None
        self._provider_error: str | None = None
        self.ended = False

    def feed(self, item: Any) -> bool:
        """Read one message or text; whether it carried text."""
        if isinstance(item, str):
            return self.text(item)
        return self.message(item)

    def message(self, message: Any) -> bool:
        if isinstance(message, BaseMessage) and not isinstance(message, BaseMessageChunk):
            # A whole message (invoke): its text as LangChain joins it (text blocks and
            # the strings its aggregation leaves in a content list, never reasoning),
            # then its end, read by the translator from its metadata as in a stream.
            got = self.text(message.text)
            self.message(AIMessageChunk(content="", response_metadata=message.response_metadata))
            return got
        got = False
        for signal in self._translator.translate(message):
            if self.ended:
                break  # text after the end is not read
            if type(signal) is TextDelta:
                if not signal.reasoning:
                    got = self.text(signal.text) or got
            elif type(signal) is StreamEnd:
                self.ended = True
                end: Any = signal  # its fields read as object to mypyc (_argtypes)
                self._finish = end.reason
                self._provider_error = end.provider_error
        return got

    def text(self, text: str) -> bool:
        if not text:
            return False
        try:
            self.parser.feed(text)
        except StructuredOutputError as exc:
            raise _langchain_error(exc) from exc
        return True

    def close(self) -> Any:
        try:
            return self.parser.close(self._finish, self._provider_error)
        except StructuredOutputError as exc:
            raise _langchain_error(exc) from exc


def _langchain_error(exc: StructuredOutputError) -> OutputParserException:
    return OutputParserException(str(exc), llm_output=exc.text)
