"""What a stream gives: one update per payload and the final result.

:class:`StreamUpdate` is what :meth:`~callstream._pipeline.Pipeline.feed` returns per
payload (defined in ``_update``, compiled in the compiled build), :class:`StreamResult` the outcome
of a whole stream, :func:`is_interruption` which exceptions count as an interruption of
the stream, and :func:`attach_result` how the result of a stream that ended by an
exception rides on it. Pure data: no I/O, no translation, no assembly. The state
views the drivers' stream objects offer are :class:`callstream._sync.StreamState`.

Interruptions. A stream that ends by an exception is *interrupted* when the exception
says the stream itself was cut short (the network, the transport, the provider as its
SDK raises it mid-stream, callstream's own stream errors), not that code failed (a bug
in your generator): :func:`is_interruption` and its tables are the rule, which
``docs/guides/interrupted-streams.md`` lists for users (a test keeps the two alike). A
failure of code ends the stream the same way, but the result is not ``interrupted`` and
the exception gets no note (:func:`attach_result`). Cancellation and
``KeyboardInterrupt`` (``BaseException`` s) end nothing: they propagate, and the state
stays as it was.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Final

from callstream._assembly.types import (
    InvalidToolCall,
    ServerToolCall,
    ToolCall,
)
from callstream._errors import MalformedStreamError, StreamLimitError, UnknownFormatError
from callstream._update import StreamUpdate
from callstream.providers._base import describe_exception

__all__ = (
    "INTERRUPTIONS",
    "INTERRUPTION_CLASSES",
    "INTERRUPTION_NAMES",
    "StreamResult",
    "StreamUpdate",
    "attach_result",
    "is_interruption",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamResult:
    """The outcome of a whole stream (or of the part read so far).

    Attributes:
        tool_calls: the valid tool calls (LangChain ``ToolCall`` dicts).
        invalid_tool_calls: the invalid ones, each with an ``error``.
        finish_reason: why the stream ended, in one vocabulary for every format:
            ``"length"`` when a token limit cut the output (OpenAI ``length``,
            Anthropic / Bedrock ``max_tokens``, Gemini / Cohere ``MAX_TOKENS``,
            Responses ``incomplete``), ``"error"`` when the provider reported an error
            mid-stream, ``"tool_calls"`` / ``"stop"`` for a completed Responses stream
            (it has no finish reason of its own), ``"stop"`` for servers' ``eos`` /
            ``eos_token``; any other reason is the provider's word unchanged
            (``tool_use``, ``end_turn``, ``STOP``, ``TOOL_CALL`` ...). None if the stream
            gave none (or was interrupted).
        provider: the format name the stream was read as, None if never recognized.
        finished: whether the stream was read to its end (False after an exception,
            an interruption or not).
        server_tool_calls: tools the provider ran itself (server-side tools such as web
            search or code execution), as LangChain ``server_tool_call`` blocks.
        interrupted: the stream was cut short by an interruption (a dropped
            connection, a transport limit: see :func:`is_interruption`): the calls that
            had not completed are in ``invalid_tool_calls``, ``finished`` is False and
            ``finish_reason`` None. An exception of code (a bug in your generator) ends
            the calls the same way but leaves this False.
        provider_finish_reason: the word the provider sent for it (``"max_tokens"``,
            ``"MAX_TOKENS"``, ``"completed"`` for Responses, the ``incomplete_details``
            reason ...), None when it sent none (error events, interrupted streams).
        text: the whole assistant text so far, in stream order (every update's
            ``text`` joined).
        reasoning: the whole reasoning / thinking text so far; always ``""`` unless the
            stream was opened with ``reasoning=True``.
        provider_error: what the provider said when it ended the stream with an error
            (``finish_reason`` ``"error"``): the message of its error event or error
            payload (Groq's "Tool choice is required, but model did not call a tool",
            Anthropic's "Overloaded", a Responses ``response.failed`` ...), also when an
            SDK raised it as an exception that callstream read (see
            :meth:`~callstream._pipeline.Pipeline.recover`). The one place for an error
            about the stream as a whole: a call the provider rejected is an invalid call
            with its own ``error``. None for any other end (an interrupted stream raises
            its exception instead).
        call_extras: facts about calls beyond LangChain's keys, by call id (OpenAI
            Responses items: their kind, ``namespace``, ``caller``, ``status``, a custom
            tool's ``input`` ...): see :attr:`ToolCallAssembler.call_extras`.
    """

    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]
    finish_reason: str | None
    provider: str | None = None
    finished: bool = True
    server_tool_calls: list[ServerToolCall] = field(default_factory=list)
    interrupted: bool = False
    provider_finish_reason: str | None = None
    text: str = ""
    reasoning: str = ""
    provider_error: str | None = None
    call_extras: dict[str, dict[str, Any]] = field(default_factory=dict)


#: Interruptions named by (top-level package, class name), matched along the exception's
#: classes (a subclass counts), so no SDK or HTTP client is imported to recognize them.
INTERRUPTIONS: Final = frozenset(
    {
        ("httpx", "TransportError"),
        ("httpx", "DecodingError"),
        ("httpx2", "TransportError"),
        ("httpx2", "DecodingError"),
        ("httpcore", "NetworkError"),
        ("httpcore", "ProtocolError"),
        ("httpcore", "TimeoutException"),
        ("httpcore2", "NetworkError"),
        ("httpcore2", "ProtocolError"),
        ("httpcore2", "TimeoutException"),
        ("h11", "RemoteProtocolError"),
        ("anyio", "EndOfStream"),
        ("anyio", "BrokenResourceError"),
        ("anyio", "IncompleteRead"),
        ("trio", "BrokenResourceError"),
        ("trio", "TooSlowError"),
        ("aiohttp", "ClientConnectionError"),
        ("aiohttp", "ClientPayloadError"),
        ("urllib3", "ProtocolError"),
        ("urllib3", "TimeoutError"),
        ("http", "IncompleteRead"),
        ("websockets", "ConnectionClosed"),
        ("botocore", "ConnectionError"),
        ("botocore", "HTTPClientError"),
        ("botocore", "EventStreamError"),
        ("asyncio", "TimeoutError"),
        ("openai", "APIError"),
        ("anthropic", "APIError"),
        ("groq", "APIError"),
        ("google", "APIError"),
        ("cohere", "ApiError"),
        ("ollama", "ResponseError"),
    }
)

#: Interruptions named by class name alone, whatever the package: the connection error
#: of the SDKs generated alike (openai, anthropic, groq, together, ...).
INTERRUPTION_NAMES: Final = frozenset({"APIConnectionError"})

#: Interruptions by class (a subclass counts): the network's and callstream's own.
INTERRUPTION_CLASSES: Final = (
    OSError,
    EOFError,
    StreamLimitError,
    MalformedStreamError,
    UnknownFormatError,
)


def is_interruption(exc: BaseException) -> bool:
    """Whether ``exc`` says the stream was cut short (see the module docstring,
    "Interruptions"), not that code failed. Never raises, whatever the exception's
    class does. Cost: O(depth of its class hierarchy)."""
    if isinstance(exc, INTERRUPTION_CLASSES):
        return True
    try:
        for klass in type(exc).__mro__:
            name = klass.__name__
            if name in INTERRUPTION_NAMES:
                return True
            package = str(klass.__module__).partition(".")[0]
            if (package, name) in INTERRUPTIONS:
                return True
    except Exception:  # a class whose names cannot be read: not one of ours
        return False
    return False


def failure_cause(exc: BaseException | str) -> str:
    """What a call the failure cut off says caused it: an interruption (or a ``str``
    cause) as itself, any other exception as "the source raised <it>" (code failed,
    the stream was not cut; see :func:`is_interruption`). Never raises."""
    if isinstance(exc, str):
        return exc
    if is_interruption(exc):
        return describe_exception(exc)
    return f"the source raised {describe_exception(exc)}"


def attach_result(exc: BaseException, result: StreamResult) -> None:
    """Make ``result`` reachable from ``exc`` as ``exc.callstream_result``; when the
    stream was interrupted (``result.interrupted``), a note on ``exc`` says so. An
    exception of code gets the attribute only: its traceback reads as it was raised.

    Never raises: an exception that refuses attributes (or notes) just goes without.
    """
    try:
        exc.callstream_result = result  # type: ignore[attr-defined]
    except Exception:
        return
    add_note = getattr(exc, "add_note", None)  # Python 3.11+
    if result.interrupted and callable(add_note):
        with contextlib.suppress(Exception):
            add_note(
                "callstream: the stream was interrupted; the partial result is on this "
                f"exception as .callstream_result ({len(result.tool_calls)} complete tool "
                f"call(s), {len(result.invalid_tool_calls)} invalid)"
            )
