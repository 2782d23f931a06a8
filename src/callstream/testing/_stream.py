"""``stream_of``: tool calls written as a provider stream, cut by a split, bent by quirks.

The quirks are named once here (:data:`QUIRKS`: what each is, the servers it comes from,
the formats it applies to, and what reading it gives); the payloads are written by the
writers of ``callstream.testing._formats``, one module per format.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from callstream._errors import (
    OptionTypeError,
    OptionValueError,
)
from callstream._json.dump import dumps_bounded
from callstream.providers._responses_items import CUSTOM_ARG
from callstream.testing._call_checks import check_calls, check_item
from callstream.testing._formats import WRITERS, Shape, WireCall
from callstream.testing._wire import BYTE_FORMATS, WIRE_FORMATS, Encoding, encode

__all__ = (
    "FORMATS",
    "QUIRKS",
    "SPLITS",
    "Quirk",
    "QuirkInfo",
    "Split",
    "StreamDropped",
    "WireStream",
    "stream_of",
)

FORMATS: tuple[str, ...] = tuple(WRITERS)
"""The formats :func:`stream_of` writes: ``openai-chat``, ``openai-responses``,
``anthropic``, ``gemini`` (whole calls), ``vertex`` (Gemini's streamed ``partialArgs``),
``bedrock``, ``cohere``, ``mistral`` (Chat Completions, every call whole), ``ollama``
(``/api/chat``), ``langchain`` (``AIMessageChunk`` dumps with ``tool_call_chunks``) and
``langchain-events`` (the content-block protocol events of
``stream_events(version="v3")``)."""

Split = Literal["token", "char", "random", "whole"]
"""How argument text is cut: ``token`` in word, space and punctuation runs of up to six
characters (about a token, as providers cut), ``char`` one character per fragment,
``random`` at pseudo-random places drawn from ``seed`` (the same places for the same
seed, every run), ``whole`` in one fragment."""

SPLITS: tuple[str, ...] = get_args(Split)
"""Every :data:`Split`."""

Quirk = Literal[
    "resent-ids",
    "missing-index",
    "shared-index",
    "cumulative-arguments",
    "arguments-object",
    "empty-first-fragment",
    "interleaved",
    "whole-calls",
    "token-limit",
    "provider-error",
    "dropped-connection",
    "stop-after-calls",
]
"""The name of a server quirk (see :data:`QUIRKS`)."""


@dataclass(frozen=True)
class QuirkInfo:
    """One quirk: what it does, where it comes from, the formats it applies to, and what
    :func:`callstream.collect` gives for a stream with it (``outcome``)."""

    summary: str
    servers: str
    formats: tuple[str, ...]
    outcome: str


_CHAT = ("openai-chat",)
_STREAMED = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "bedrock",
    "cohere",
    "langchain",
    "langchain-events",
)

QUIRKS: dict[str, QuirkInfo] = {
    "resent-ids": QuirkInfo(
        "every fragment carries the call's id, type and name again",
        "OpenAI-compatible servers that repeat what they sent (TGI resends its id on every chunk)",
        _CHAT,
        "the calls",
    ),
    "missing-index": QuirkInfo(
        "tool_calls entries without index: calls keyed by id, then the call being streamed",
        "Mistral (whole calls without index), OpenAI-compatible servers that drop it",
        _CHAT,
        "the calls",
    ),
    "shared-index": QuirkInfo(
        "every call on index 0: a new id on the same index starts a new call",
        "OpenAI-compatible servers that reuse index 0 for every call",
        _CHAT,
        "the calls",
    ),
    "cumulative-arguments": QuirkInfo(
        "each argument update carries the whole text so far (a snapshot), not the new part",
        "LangChain's content-block protocol (block-delta snapshots of a tool-call chunk); "
        "OpenAI-compatible servers that resend the arguments so far on every chunk "
        "(reported for DeepSeek and Baidu Qianfan endpoints, and GLM-style local servers)",
        ("openai-chat", "langchain-events"),
        "langchain-events: the calls; openai-chat: Chat arguments are read as deltas, so "
        "the snapshots are appended: a call whose text came in more than one piece is "
        "invalid (its error names where the text stops being JSON), a call in one piece "
        "valid",
    ),
    "arguments-object": QuirkInfo(
        "arguments sent as a JSON object, whole, instead of a string",
        "some llama.cpp builds",
        _CHAT,
        "the calls",
    ),
    "empty-first-fragment": QuirkInfo(
        'the call opens with an empty argument fragment (arguments "" beside id and name)',
        "Moonshot (Kimi K2), Anthropic (an empty first partial_json)",
        ("openai-chat", "anthropic"),
        "the calls",
    ),
    "interleaved": QuirkInfo(
        "parallel calls' fragments alternate, one fragment of each in turn",
        "parallel tool calls on servers that stream them side by side (OpenAI Responses "
        "output items, Bedrock content blocks)",
        ("openai-chat", "openai-responses", "bedrock", "langchain", "langchain-events"),
        "the calls",
    ),
    "whole-calls": QuirkInfo(
        "every call whole (id, name, all its arguments) in one chunk, all in one delta",
        "Groq (Kimi K2 on Groq), Mistral, Ollama (/v1; /api/chat: a turn's calls in one line)",
        ("openai-chat", "ollama"),
        "the calls",
    ),
    "token-limit": QuirkInfo(
        "the last call cut halfway by the output token limit, the finish reason saying so",
        "every provider (max_tokens / max_output_tokens reached mid-call)",
        _STREAMED,
        "every call but the last valid; the last invalid (its text cut short); "
        'finish_reason "length"',
    ),
    "provider-error": QuirkInfo(
        "the provider ends the stream with an error event",
        "Groq (tool_use_failed, with the failed generation: no call is streamed), "
        "Anthropic (overloaded_error in the middle of the last call), OpenAI Responses "
        "(response.failed, error code server_error), Bedrock (a modelStreamErrorException "
        "event), Cohere (message-end with finish_reason ERROR and delta.error), Gemini and "
        'Vertex (a {"error": {"code": 503, "status": "UNAVAILABLE", ...}} chunk), Ollama '
        '(an {"error": "..."} line)',
        (
            "openai-chat",
            "openai-responses",
            "anthropic",
            "gemini",
            "vertex",
            "bedrock",
            "cohere",
            "ollama",
        ),
        'finish_reason "error" and provider_error set; Groq: the failed call invalid; '
        "where arguments stream in fragments (anthropic, openai-responses, bedrock, "
        "cohere): every call but the last valid, the last invalid (cut, with the "
        "provider's message); where calls arrive whole (gemini, vertex, ollama): every "
        "call but the last valid, the last absent",
    ),
    "dropped-connection": QuirkInfo(
        "the connection drops: iterating raises StreamDropped partway into the last call",
        "any server or network (a proxy timeout, a reset connection)",
        FORMATS,
        "collect raises StreamDropped, whose callstream_result is interrupted: every "
        "call but the last valid; the last invalid where its arguments stream in "
        "fragments, absent where calls arrive whole (gemini, vertex, mistral, ollama)",
    ),
    "stop-after-calls": QuirkInfo(
        'finish_reason "stop" instead of "tool_calls" after the calls',
        "OpenAI for a forced named tool; TGI (eos_token, read as stop)",
        _CHAT,
        'the calls, finish_reason "stop"',
    ),
}
"""Every quirk by name: what it is, the servers it comes from, its formats and outcome."""

_EXCLUSIVE = ("token-limit", "provider-error", "dropped-connection")
_CONFLICTS = (
    ("stop-after-calls", "token-limit"),
    ("stop-after-calls", "provider-error"),
    ("stop-after-calls", "dropped-connection"),
    ("missing-index", "interleaved"),
    ("shared-index", "interleaved"),
    ("missing-index", "shared-index"),
    ("whole-calls", "interleaved"),
    ("whole-calls", "empty-first-fragment"),
    ("arguments-object", "interleaved"),
    ("arguments-object", "empty-first-fragment"),
    ("cumulative-arguments", "whole-calls"),
    ("cumulative-arguments", "arguments-object"),
)

_TOKEN = re.compile(r"\w{1,6}|\s+|[^\w\s]{1,2}")


class StreamDropped(ConnectionError):
    """Raised by a :class:`WireStream` written with the ``dropped-connection`` quirk, after
    its last item: what an HTTP client raises when the server goes away mid-stream."""


class WireStream(Iterable[Any]):
    """A written stream: iterate it (as often as you like) to get its items.

    Attributes:
        items: what it yields, in order (payload dicts, ``bytes`` or ``str`` lines).
        format: the format it was written in.
        dropped: whether iterating raises :class:`StreamDropped` after the items.
    """

    def __init__(self, items: Sequence[Any], format: str, *, dropped: bool = False) -> None:
        self.items: tuple[Any, ...] = tuple(items)
        self.format = format
        self.dropped = dropped

    def __iter__(self) -> Iterator[Any]:
        yield from self.items
        if self.dropped:
            raise StreamDropped(f"{self.format} stream dropped after {len(self.items)} items")

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        drop = ", dropped" if self.dropped else ""
        return f"<WireStream {self.format}: {len(self.items)} items{drop}>"


def split_text(text: str, split: str, rng: random.Random) -> tuple[str, ...]:
    """``text`` cut by ``split`` (one empty piece for no text)."""
    if not text:
        return ("",)
    if split == "whole":
        return (text,)
    if split == "char":
        return tuple(text)
    if split == "token":
        return tuple(_TOKEN.findall(text))
    count = rng.randint(0, min(len(text) - 1, 8))
    points = sorted(rng.sample(range(1, len(text)), count)) if len(text) > 1 else []
    bounds = [0, *points, len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds))


def _check(
    calls: Sequence[Mapping[str, Any]], format: str, split: str, quirks: Iterable[str], as_: str
) -> frozenset[str]:
    if format not in WRITERS:
        raise OptionValueError(f"unknown format {format!r}: one of {', '.join(FORMATS)}")
    if split not in SPLITS:
        raise OptionValueError(f"unknown split {split!r}: one of {', '.join(SPLITS)}")
    if as_ not in get_args(Encoding):
        raise OptionValueError(f"unknown as_ {as_!r}: one of {', '.join(get_args(Encoding))}")
    if isinstance(quirks, str):
        raise OptionTypeError(
            f"quirks must be a collection of quirk names, not the string {quirks!r}"
        )
    named = frozenset(quirks)
    for quirk in sorted(named):
        if quirk not in QUIRKS:
            raise OptionValueError(f"unknown quirk {quirk!r}: one of {', '.join(QUIRKS)}")
        if format not in QUIRKS[quirk].formats:
            raise OptionValueError(
                f"quirk {quirk!r} does not apply to {format}: it applies to "
                f"{', '.join(QUIRKS[quirk].formats)}"
            )
    ending = sorted(named.intersection(_EXCLUSIVE))
    if len(ending) > 1:
        raise OptionValueError(
            f"quirks {ending[0]!r} and {ending[1]!r} both end the stream: pick one"
        )
    for a, b in _CONFLICTS:
        if a in named and b in named:
            raise OptionValueError(f"quirks {a!r} and {b!r} cannot be combined")
    if not calls and named.intersection(_EXCLUSIVE):
        raise OptionValueError(f"quirk {ending[0]!r} needs at least one call to cut")
    check_calls(calls, format)
    kinds = [check_item(n, call, format) for n, call in enumerate(calls)]
    cutting = sorted(named.intersection(_EXCLUSIVE))
    if cutting and kinds[-1] not in _CUTTABLE:
        raise OptionValueError(
            f"quirk {cutting[0]!r} cuts the last call, whose text must stream: a "
            f"{' or '.join(_CUTTABLE)} item, not a {kinds[-1]}"
        )
    return named


#: the items whose text a cut can shorten (what callstream gives for them is documented)
_CUTTABLE = ("function_call", "custom_tool_call")
#: formats that send each call whole: a cut drops their last call instead
_WHOLE = ("gemini", "vertex", "mistral", "ollama")


def _wire_call(
    n: int, call: Mapping[str, Any], kind: str, split: str, rng: random.Random
) -> tuple[WireCall, str]:
    """``calls[n]`` as the writers take it, and the text it streams (what a cut shortens)."""
    id_ = call.get("id") or f"call_{n}"
    args = dict(call.get("args", {}))
    if kind == "custom_tool_call":
        text = args[CUSTOM_ARG]
    elif kind == "code_interpreter_call":
        text = args.pop("code")
    elif kind in ("function_call", "mcp_call"):
        text = dumps_bounded(args, max_depth=None, ensure_ascii=False)
    elif kind == "shell_call":
        action = dict(args["action"])
        commands = tuple(split_text(c, split, rng) for c in action.pop("commands"))
        return WireCall(id_, call["name"], ("",), kind, {"action": action}, commands), ""
    else:  # the item's fields, whole
        return WireCall(id_, call["name"], ("",), kind, args), ""
    fields = args if kind == "code_interpreter_call" else {}
    return WireCall(id_, call["name"], split_text(text, split, rng), kind, fields), text


# over 80 lines for its docstring, the reference of every argument (the body is 36 lines)
def stream_of(
    calls: Sequence[Mapping[str, Any]],
    *,
    format: str,
    text: str | None = None,
    reasoning: str | None = None,
    split: Split = "token",
    quirks: Iterable[Quirk] = (),
    finish: bool = True,
    seed: int = 0,
    as_: Encoding = "payloads",
) -> WireStream:
    """``calls`` written as ``format`` streams them.

    Args:
        calls: the tool calls, as LangChain ``ToolCall`` dicts (``name``, ``args`` object,
            ``id``; a missing id becomes ``call_<n>``). In ``openai-responses`` a call
            may name the output item it is written as, ``item_type`` (one of
            :data:`ITEM_TYPES`; default ``function_call``), with the ``name`` and
            ``args`` callstream gives back for that item (the reading guide's Responses
            items table): ``custom_tool_call`` any name, args ``{"__arg1": input}``
            (the input streamed); ``shell_call`` named ``shell``, ``{"action":
            {"commands": [...], ...}}`` (the commands streamed); ``local_shell_call``,
            ``apply_patch_call``, ``computer_call`` their fields, whole; ``mcp_call``
            the MCP tool's name and its arguments (streamed); the hosted
            ``web_search_call``, ``file_search_call``, ``code_interpreter_call`` (its
            ``code`` streamed) and ``image_generation_call`` named ``web_search`` ...,
            their request fields. The hosted ones and ``mcp_call`` come back in
            ``server_tool_calls`` (their ``id`` is the item's id), the others in
            ``tool_calls``; every item's type is its ``item_type`` extra.
        format: one of :data:`FORMATS`.
        text: assistant text streamed before the calls.
        reasoning: reasoning / thinking text streamed before the text.
        split: how each call's argument text is cut (:data:`Split`); calls that a
            format sends whole (``gemini``, ``mistral``, ``ollama``) are not cut, and
            ``vertex`` cuts its string leaves to the same sizes.
        quirks: names from :data:`QUIRKS`, combined where they can be.
        finish: end with the provider's closing payloads (finish reason, stop event);
            ``False`` for a server that just stops sending.
        seed: the seed of the ``random`` split: the same seed cuts at the same places
            in every run (0 by default, so a test never depends on luck); pass several
            seeds, or draw them (hypothesis ``st.integers()``,
            :func:`callstream.testing.strategies.streams`), to try more places.
        as_: what the stream yields (:data:`Encoding`).

    Returns:
        A :class:`WireStream`: pass it to :func:`callstream.collect` or
        :func:`callstream.stream` (or to code under test) as a provider stream.

    Raises:
        ValueError: an unknown format, split, quirk or encoding; a quirk that does not
            apply to ``format`` (the message names the formats it applies to); quirks
            that cannot be combined; arguments the format cannot express (``vertex``:
            an empty list or object below the top, or nesting deeper than 512 levels,
            its ``jsonPath`` limit); a NaN or infinite float in the arguments (no JSON
            text carries one); a call callstream would not read back as it is given:
            an empty name or id (leave the id out, or None, for ``call_<n>``), a name
            or id longer than 4,096 characters, arguments nested deeper than 1,000
            levels (callstream's ``max_depth``); repeated ids; ``bytes`` or
            ``lines`` of a format with no such wire (``lines`` of ``bedrock``, whose
            bytes are AWS eventstream messages; ``langchain`` and ``langchain-events``,
            which are Python objects); an ``item_type`` outside ``openai-responses``,
            unknown, or with a ``name`` or ``args`` callstream would not give back as
            they are (a fixed name, fields the item does not have or lacks, a null
            member, which is left out when read); a quirk that cuts the last call
            (``token-limit``, ``provider-error``, ``dropped-connection``) when that call
            is an item whose text does not stream (only a function or custom tool call
            is cut).
        TypeError: a call that is not a ``ToolCall``-shaped mapping, or arguments that
            are not JSON data.

    Arguments of any depth within the limits are written without recursion, as payloads,
    bytes or lines. A reader of the bytes decodes each payload with its own JSON reader:
    callstream's decodes with ``json.loads``, which refuses nesting near Python's
    recursion limit (``StreamLimitError``, "nested too deep to decode"), so arguments
    nested nearly as deep as that limit (1,000 by default, less the caller's stack) that
    a format sends as an object (``gemini``, ``ollama``, a Responses item's fields,
    ``arguments-object``) are read back from ``payloads``, or with a raised recursion
    limit.

    Cost: O(total argument text) to write; the stream holds every item.
    """
    named = _check(calls, format, split, quirks, as_)
    if as_ != "payloads" and format not in (BYTE_FORMATS if as_ == "bytes" else WIRE_FORMATS):
        raise OptionValueError(
            f"{format} has no {as_} wire here: bedrock's AWS eventstream is binary (bytes "
            "only), langchain chunks and events are Python objects; use as_='payloads'"
        )
    rng = random.Random(seed)
    wire: list[WireCall] = []
    texts: list[str] = []
    for n, call in enumerate(calls):
        one, streamed = _wire_call(n, call, call.get("item_type", "function_call"), split, rng)
        wire.append(one)
        texts.append(streamed)
    reason = "stop" if "stop-after-calls" in named else "tool_calls"
    dropped = "dropped-connection" in named
    error = "provider-error" in named
    whole = format in _WHOLE
    groq = error and format == "openai-chat"  # the failed generation, whole, in the error
    if "token-limit" in named or ((dropped or error) and not whole and not groq):
        last = texts[-1]
        cut = last[: max(1, len(last) // 2)] if len(last) > 1 else last[:0]
        wire[-1] = replace(wire[-1], pieces=split_text(cut, split, rng))
    if "token-limit" in named:
        reason = "length"
    if (dropped or error) and whole:
        wire = wire[:-1]  # the last call never arrived
    elif dropped:
        reason = "length"  # the last call left open, as a cut leaves it
    shape = Shape(text, reasoning, finish and not dropped, named, reason, error=error)
    if groq:
        payloads = WRITERS[format]([], Shape(text, reasoning, False, named, reason))
        payloads.append(WRITERS[format](wire, shape)[-1])  # the error event alone
    else:
        payloads = WRITERS[format](wire, shape)
    items = payloads if as_ == "payloads" else encode(payloads, format, as_)
    return WireStream(items, format, dropped=dropped)
