"""The ways of consuming a whole provider stream that ``bench_pipeline.py`` compares.

Each :class:`Library` turns the decoded payloads of one stream into its inputs (the
payloads, the SDK's objects, LangChain chunks; built before the clock starts) and makes
a fresh consumer per timed pass (see :mod:`_measure`): a step per input that reads the
library's parsed preview of the arguments, and a finish that returns the final calls in
the canonical form of :func:`_streams.normalize_calls`. callstream's rows are
:class:`CallstreamDriver` (``stream()``), :class:`CallstreamCollect` (``collect()``, one call
for the whole stream), :class:`CallstreamPipeline` (translator + assembler by hand) and
:class:`CallstreamDriverSDK`; the peers follow. ``compare_trees.py`` reuses the callstream
rows. callstream is imported inside the consumers, so the tree it comes from is the one
on ``sys.path`` when a consumer is made.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from _measure import Consumer, Finish, Step, have
from _streams import FORMATS, dict_calls, normalize_calls, sdk_objects

_SDK_CACHE: dict[tuple[str, int], list[Any]] = {}
"""SDK objects of the current stream, shared by the libraries that read them (read-only)."""


def cached_sdk_objects(fmt: str, payloads: Sequence[dict[str, Any]]) -> list[Any]:
    """:func:`_streams.sdk_objects` of ``payloads``, built once for every library reading
    them (the cache holds one stream; :func:`forget_sdk_objects` empties it)."""
    key = (fmt, id(payloads))
    if key not in _SDK_CACHE:
        _SDK_CACHE.clear()
        _SDK_CACHE[key] = sdk_objects(fmt, payloads)
    return _SDK_CACHE[key]


def forget_sdk_objects() -> None:
    """Drop the cached SDK objects (between streams, before measuring memory)."""
    _SDK_CACHE.clear()


def langchain_gather() -> tuple[Step, Finish]:
    """A LangChain consumer: ``gathered = gathered + chunk``, reading ``gathered.tool_calls``
    after every ``AIMessageChunk``; the finish asserts no invalid calls."""
    state: dict[str, Any] = {"gathered": None}

    def step(msg: Any) -> object:
        gathered = state["gathered"]
        gathered = msg if gathered is None else gathered + msg
        state["gathered"] = gathered
        return gathered.tool_calls

    def finish() -> Any:
        g = state["gathered"]
        assert not g.invalid_tool_calls, g.invalid_tool_calls
        return dict_calls(g.tool_calls)

    return step, finish


class Library:
    """One way of consuming a stream. Subclasses fill in :meth:`prepare` and :meth:`consumer`."""

    label = ""
    formats: tuple[str, ...] = FORMATS
    reads = ""
    """What the row reads after every chunk."""
    modules: tuple[str, ...] = ()
    concurrent = True
    """Whether the row runs in the concurrency test (an async consumer exists)."""

    def missing(self) -> str | None:
        """Why the library cannot run here (None when it can)."""
        gone = have(*self.modules)
        return f"not installed: {', '.join(gone)}" if gone else None

    def prepare(self, fmt: str, payloads: list[dict[str, Any]]) -> Sequence[Any]:
        """Inputs for :meth:`consumer`, built outside the timing."""
        return payloads

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        """Fresh per-pass state: a step per input and a finish returning normalized calls
        (no step: the finish consumes every input in one call, see :class:`CallstreamCollect`).
        """
        raise NotImplementedError

    async def consume_async(self, fmt: str, inputs: Sequence[Any]) -> Any:
        """Consume the inputs from an async source (for the concurrency test)."""
        step, finish = self.consumer(fmt, inputs)()
        assert step is not None, f"{self.label} has no async consumer"
        async for item in _async_source(inputs):
            step(item)
        return finish()


async def _async_source(items: Sequence[Any]) -> AsyncIterator[Any]:
    """Yield items with a checkpoint between them (another task may run), like a socket."""
    import anyio.lowlevel

    for item in items:
        await anyio.lowlevel.checkpoint()
        yield item


class CallstreamDriver(Library):
    """``callstream.stream(source)`` over the dicts, reading ``update.tool_calls``."""

    label = "callstream stream()"
    reads = "update.tool_calls"
    sdk = False

    def prepare(self, fmt: str, payloads: list[dict[str, Any]]) -> Sequence[Any]:
        return cached_sdk_objects(fmt, payloads) if self.sdk else payloads

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from callstream import stream

        def make() -> tuple[Step, Finish]:
            box: list[Any] = []
            # the format named: "auto" holds payloads back until one is evidence
            updates = stream(_Pump(box), provider=fmt)
            state: dict[str, Any] = {"last": None, "it": iter(updates)}

            def step(payload: Any) -> object:
                box.append(payload)
                upd = next(state["it"])
                state["last"] = upd
                return upd.tool_calls

            def finish() -> Any:
                box.append(_Pump.END)
                for upd in state["it"]:
                    state["last"] = upd
                last = state["last"]
                assert not last.invalid_tool_calls, last.invalid_tool_calls
                return dict_calls(last.tool_calls)

            return step, finish

        return make

    async def consume_async(self, fmt: str, inputs: Sequence[Any]) -> Any:
        from callstream import astream

        last = None
        async for upd in astream(_async_source(inputs)):
            _ = upd.tool_calls
            last = upd
        assert last is not None and not last.invalid_tool_calls
        return dict_calls(last.tool_calls)


class _Pump:
    """A source the benchmark pushes one payload into before pulling one update out.

    The driver iterates it; each ``__next__`` hands over the payload just pushed. Assumes
    the driver yields one update per payload (checked: a missing update fails loudly).
    """

    END = object()

    def __init__(self, box: list[Any]) -> None:
        self.box = box

    def __iter__(self) -> _Pump:
        return self

    def __next__(self) -> Any:
        if not self.box:
            raise AssertionError("driver pulled a payload before yielding an update")
        item = self.box.pop()
        if item is _Pump.END:
            raise StopIteration
        return item


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


class SDKLibrary(Library):
    """A library fed the SDK's own event objects (built from the payloads, untimed)."""

    def prepare(self, fmt: str, payloads: list[dict[str, Any]]) -> Sequence[Any]:
        return cached_sdk_objects(fmt, payloads)


class OpenAIStreamState(SDKLibrary):
    """openai-python ``ChatCompletionStreamState`` with strict tools (parses every chunk)."""

    label = "openai ChatCompletionStreamState"
    formats = ("openai-chat",)
    reads = "tool_call.function.parsed_arguments"
    modules = ("openai",)

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from openai.lib.streaming.chat import ChatCompletionStreamState

        names = sorted(
            {
                tc.function.name
                for ch in inputs
                for choice in ch.choices
                for tc in choice.delta.tool_calls or ()
                if tc.function is not None and tc.function.name
            }
        )
        tools: list[Any] = [
            {
                "type": "function",
                "function": {
                    "name": n,
                    "parameters": {"type": "object", "properties": {}},
                    "strict": True,
                },
            }
            for n in names
        ]

        def make() -> tuple[Step, Finish]:
            state: ChatCompletionStreamState[Any] = ChatCompletionStreamState(input_tools=tools)
            handle = state.handle_chunk

            def step(chunk: Any) -> object:
                handle(chunk)
                msg = state.current_completion_snapshot.choices[0].message
                return [tc.function.parsed_arguments for tc in msg.tool_calls or ()]

            def finish() -> Any:
                final = state.get_final_completion().choices[0].message
                return normalize_calls(
                    (tc.function.name, tc.id, tc.function.parsed_arguments)
                    for tc in final.tool_calls or ()
                )

            return step, finish

        return make


class AnthropicAccumulate(SDKLibrary):
    """anthropic ``accumulate_event`` (what ``MessageStream`` runs on every event)."""

    label = "anthropic accumulate_event"
    formats = ("anthropic",)
    reads = "tool_use_block.input"
    modules = ("anthropic",)

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from anthropic.lib.streaming._messages import accumulate_event

        def make() -> tuple[Step, Finish]:
            state: dict[str, Any] = {"snapshot": None}
            bufs: dict[int, bytes] = {}

            def step(event: Any) -> object:
                snap = accumulate_event(
                    event=event, current_snapshot=state["snapshot"], json_bufs=bufs
                )
                state["snapshot"] = snap
                return [b.input for b in snap.content if b.type == "tool_use"]

            def finish() -> Any:
                snap = state["snapshot"]
                return normalize_calls(
                    (b.name, b.id, b.input) for b in snap.content if b.type == "tool_use"
                )

            return step, finish

        return make


class LangChainAdd(Library):
    """LangChain ``AIMessageChunk`` addition, reading ``gathered.tool_calls``.

    Chunks are built as the integrations build them (tool_call_chunks from the payload;
    without langchain-openai's extra copy of the raw calls in ``additional_kwargs``, which
    would only add cost), before the clock starts.
    """

    label = "LangChain AIMessageChunk +"
    reads = "gathered.tool_calls"
    modules = ("langchain_core",)

    def prepare(self, fmt: str, payloads: list[dict[str, Any]]) -> Sequence[Any]:
        from langchain_core.messages import AIMessageChunk
        from langchain_core.messages.tool import tool_call_chunk

        out = []
        for p in payloads:
            chunks = []
            meta: dict[str, Any] = {}
            if fmt == "openai-chat":
                choices = p.get("choices") or []
                delta = choices[0]["delta"] if choices else {}
                for tc in delta.get("tool_calls") or ():
                    fn = tc.get("function") or {}
                    chunks.append(
                        tool_call_chunk(
                            name=fn.get("name"),
                            args=fn.get("arguments"),
                            id=tc.get("id"),
                            index=tc.get("index"),
                        )
                    )
                if choices and choices[0].get("finish_reason"):
                    meta["finish_reason"] = choices[0]["finish_reason"]
                content = delta.get("content") or ""
            else:
                content = ""
                if p["type"] == "content_block_start" and p["content_block"]["type"] == "tool_use":
                    block = p["content_block"]
                    chunks.append(
                        tool_call_chunk(
                            name=block["name"], args="", id=block["id"], index=p["index"]
                        )
                    )
                elif (
                    p["type"] == "content_block_delta" and p["delta"]["type"] == "input_json_delta"
                ):
                    chunks.append(
                        tool_call_chunk(
                            name=None, args=p["delta"]["partial_json"], id=None, index=p["index"]
                        )
                    )
                elif p["type"] == "message_delta":
                    meta["stop_reason"] = p["delta"]["stop_reason"]
            out.append(
                AIMessageChunk(content=content, tool_call_chunks=chunks, response_metadata=meta)
            )
        return out

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        return langchain_gather


class PydanticAIParts(SDKLibrary):
    """pydantic-ai ``ModelResponsePartsManager`` fed as its model classes feed it.

    Events only: pydantic-ai keeps the argument text and parses it after the stream.
    """

    label = "pydantic-ai parts manager (no parsing)"
    reads = "(nothing: no parsed preview offered)"
    modules = ("pydantic_ai", "openai", "anthropic")

    def consumer(self, fmt: str, inputs: Sequence[Any]) -> Consumer:
        from pydantic_ai._parts_manager import ModelResponsePartsManager
        from pydantic_ai.messages import ToolCallPart
        from pydantic_ai.models import ModelRequestParameters

        def make() -> tuple[Step, Finish]:
            mgr = ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())
            handle = mgr.handle_tool_call_delta

            if fmt == "openai-chat":

                def step(chunk: Any) -> object:
                    event = None
                    for choice in chunk.choices:
                        for dtc in choice.delta.tool_calls or ():
                            fn = dtc.function
                            event = handle(
                                vendor_part_id=dtc.index,
                                tool_name=fn.name if fn is not None else None,
                                args=fn.arguments if fn is not None else None,
                                tool_call_id=dtc.id,
                            )
                    return event

            else:

                def step(chunk: Any) -> object:
                    event = chunk
                    if event.type == "content_block_start":
                        block = event.content_block
                        if block.type == "tool_use":
                            return handle(
                                vendor_part_id=event.index,
                                tool_name=block.name,
                                args=block.input or None,
                                tool_call_id=block.id,
                            )
                    elif event.type == "content_block_delta":
                        if event.delta.type == "input_json_delta":
                            return handle(vendor_part_id=event.index, args=event.delta.partial_json)
                    return None

            def finish() -> Any:
                return normalize_calls(
                    (p.tool_name, p.tool_call_id, p.args_as_dict())
                    for p in mgr.get_parts()
                    if isinstance(p, ToolCallPart)
                )

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


PEER_MODULES = (
    "callstream",
    "callstream._sync",
    "callstream._async",
    "openai",
    "openai.lib.streaming.chat",
    "anthropic",
    "anthropic.lib.streaming._messages",
    "langchain_core.messages",
    "pydantic_ai._parts_manager",
    "pydantic_ai.models",
    "anyio",
)


def stream_loop(fmt: str, payloads: Sequence[Any]) -> Consumer:
    """``stream()`` over the payloads, reading ``update.tool_calls`` after every chunk; one
    call per pass (a one-shot consumer, see :data:`_measure.Consumer`)."""
    from callstream import stream

    def make() -> tuple[None, Finish]:
        def finish() -> Any:
            last = None
            for update in stream(payloads, provider=fmt):
                _ = update.tool_calls
                last = update
            assert last is not None and not last.invalid_tool_calls, last
            return dict_calls(last.tool_calls)

        return None, finish

    return make


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
