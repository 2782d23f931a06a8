"""The ways of consuming a whole provider stream that ``bench_pipeline.py`` compares.

Each :class:`Library` turns the decoded payloads of one stream into its inputs (the
payloads, the SDK's objects, LangChain chunks; built before the clock starts) and makes
a fresh consumer per timed pass (see :mod:`_measure`): a step per input that reads the
library's parsed preview of the arguments, and a finish that returns the final calls in
the canonical form of :func:`_streams.normalize_calls`. callstream's own rows are in
``_ours.py``.
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
        async for item in async_source(inputs):
            step(item)
        return finish()


async def async_source(items: Sequence[Any]) -> AsyncIterator[Any]:
    """Yield items with a checkpoint between them (another task may run), like a socket."""
    import anyio.lowlevel

    for item in items:
        await anyio.lowlevel.checkpoint()
        yield item


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

        deltas = (tc for ch in inputs for c in ch.choices for tc in c.delta.tool_calls or ())
        names = sorted({tc.function.name for tc in deltas if tc.function and tc.function.name})
        schema = {"type": "object", "properties": {}}
        tools: list[Any] = [
            {"type": "function", "function": {"name": n, "parameters": schema, "strict": True}}
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
        from langchain_core.messages.tool import tool_call_chunk as chunk

        out = []
        for p in payloads:
            chunks, meta, content = [], {}, ""
            if fmt == "openai-chat":
                choice = (p.get("choices") or [{}])[0]
                delta = choice.get("delta") or {}
                for tc in delta.get("tool_calls") or ():
                    fn = tc.get("function") or {}
                    args = {"name": fn.get("name"), "args": fn.get("arguments")}
                    chunks.append(chunk(**args, id=tc.get("id"), index=tc.get("index")))
                if choice.get("finish_reason"):
                    meta["finish_reason"] = choice["finish_reason"]
                content = delta.get("content") or ""
            elif p["type"] == "content_block_start" and p["content_block"]["type"] == "tool_use":
                block = p["content_block"]
                chunks.append(chunk(name=block["name"], args="", id=block["id"], index=p["index"]))
            elif p["type"] == "content_block_delta" and p["delta"]["type"] == "input_json_delta":
                text = p["delta"]["partial_json"]
                chunks.append(chunk(name=None, args=text, id=None, index=p["index"]))
            elif p["type"] == "message_delta":
                meta["stop_reason"] = p["delta"]["stop_reason"]
            message = {"content": content, "tool_call_chunks": chunks, "response_metadata": meta}
            out.append(AIMessageChunk(**message))
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
