"""callstream's own ways of consuming a whole provider stream, beside the peers'
(``_peers.py``), and :data:`LIBRARIES`: every row ``bench_pipeline.py`` compares (and
``bench_builds.py`` and ``compare_trees.py`` time in their subprocesses).

:class:`CallstreamDriver` (``stream()``), :class:`CallstreamCollect` (``collect()``, one
call for the whole stream), :class:`CallstreamPipeline` (translator + assembler by hand)
and :class:`CallstreamDriverSDK`; :func:`parser_consumer`. callstream is
imported inside the consumers, so the tree it comes from is the one on ``sys.path`` when
a consumer is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from _measure import Consumer, Finish, Step
from _peers import (
    AnthropicAccumulate,
    LangChainAdd,
    Library,
    OpenAIStreamState,
    PydanticAIParts,
    async_source,
    cached_sdk_objects,
)
from _streams import dict_calls


class CallstreamDriver(Library):
    """``for update in callstream.stream(source)`` over the dicts, reading
    ``update.tool_calls`` after every chunk: one loop per pass (a one-shot consumer)."""

    label = "callstream stream()"
    reads = "update.tool_calls"
    sdk = False

    def prepare(self, fmt: str, payloads: list[dict[str, Any]]) -> Sequence[Any]:
        return cached_sdk_objects(fmt, payloads) if self.sdk else payloads

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from callstream import stream

        def finish() -> Any:
            last = None
            for update in stream(inputs, provider=fmt):  # the format named: no detection
                _ = update.tool_calls
                last = update
            assert last is not None and not last.invalid_tool_calls, last
            return dict_calls(last.tool_calls)

        return lambda: (None, finish)

    async def consume_async(self, fmt: str, inputs: Sequence[Any]) -> Any:
        from callstream import astream

        last = None
        async for upd in astream(async_source(inputs)):
            _ = upd.tool_calls
            last = upd
        assert last is not None and not last.invalid_tool_calls
        return dict_calls(last.tool_calls)


class CallstreamDriverSDK(CallstreamDriver):
    """The driver fed the SDK's objects (as from ``client.chat.completions.create``)."""

    label = "callstream stream(), SDK objects"
    sdk = True
    modules = ("openai", "anthropic")


class CallstreamCollect(Library):
    """``callstream.collect(source)`` over the dicts: one call reads the whole stream.

    No per-chunk step: a pass is the one call (and the normalizing of its result), timed
    whole; its per-chunk figure is the pass total over the chunks (:class:`_measure.Series`).
    """

    label = "callstream collect()"
    reads = "the result only (one call for the stream; per chunk = total / chunks)"
    concurrent = False

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from callstream import collect

        def make() -> tuple[None, Finish]:
            def finish() -> Any:
                result = collect(inputs, provider=fmt)
                assert not result.invalid_tool_calls, result.invalid_tool_calls
                return dict_calls(result.tool_calls)

            return None, finish

        return make


class CallstreamPipeline(Library):
    """Translator + ``ToolCallAssembler`` by hand, reading ``.tool_calls``."""

    label = "callstream pipeline"
    reads = "assembler.tool_calls"

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from callstream._assembly import ToolCallAssembler
        from callstream.providers import get_translator

        def make() -> tuple[Step, Finish]:
            translate = get_translator(fmt).translate
            asm = ToolCallAssembler()
            apply = asm.apply

            def step(payload: Any) -> object:
                for signal in translate(payload):
                    apply(signal)
                return asm.tool_calls

            def finish() -> Any:
                if not asm.finished:
                    asm.finish()
                assert not asm.invalid_tool_calls, asm.invalid_tool_calls
                return dict_calls(asm.tool_calls)

            return step, finish

        return make


LIBRARIES: tuple[Library, ...] = (
    CallstreamDriver(),
    CallstreamCollect(),
    CallstreamPipeline(),
    CallstreamDriverSDK(),
    OpenAIStreamState(),
    AnthropicAccumulate(),
    LangChainAdd(),
    PydanticAIParts(),
)
REFERENCE = CallstreamDriver.label
"""The row the others are compared with in the report."""


def parser_consumer(read_value: bool) -> Consumer | None:
    try:
        from callstream._json import PartialJSONParser
    except ImportError:
        return None

    def consumer() -> tuple[Step, Finish]:
        p = PartialJSONParser()
        feed = p.feed
        if read_value:

            def step(fragment: str) -> object:
                feed(fragment)
                return p.value

            def finish() -> Any:
                value = p.value
                assert p.close() == value
                return value

            return step, finish
        return feed, p.close

    return consumer
