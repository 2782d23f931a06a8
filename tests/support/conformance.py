"""The canitoolcall conformance fixtures, read by callstream's tool parsers.

Which tool parser reads which fixture (:data:`FAMILIES`: one line per canitoolcall
family), the one list of deviations (:data:`DEVIATIONS`: fixture id -> the policy that
makes callstream's result differ, with its reason), the ways a fixture's text is cut
into pieces (:func:`splits`), and the reading itself (:func:`parse`: pieces -> a
canitoolcall ``ParseResult``). The fixtures come from the installed ``canitoolcall``
package; they are never copied into the project.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from canitoolcall.chunking import ChunkStrategy, split_text
from canitoolcall.fixtures import Fixture
from canitoolcall.pytest_plugin import family_for
from canitoolcall.results import ParsedToolCall, ParseResult

import callstream
from callstream._json.dump import dumps_bounded
from callstream.tool_parsers import TEXT_FORMATS

Chooser = Callable[[Fixture], str]


def by_file(files: Mapping[str, str], default: str) -> Chooser:
    """A family whose files need different parsers: fixture file name -> parser name."""

    def choose(fixture: Fixture) -> str:
        name = fixture.source.name if fixture.source is not None else ""
        return files.get(name, default)

    return choose


def by_tag(tags: Mapping[str, str], default: str) -> Chooser:
    """A family whose fixtures name their variant in a tag (canitoolcall's
    ``x-<variant>`` tags): the first tag found -> parser name."""

    def choose(fixture: Fixture) -> str:
        for tag in fixture.tags:
            if tag in tags:
                return tags[tag]
        return default

    return choose


FAMILIES: dict[str, str | Chooser] = {
    # canitoolcall family slug -> the tool parser that reads it (one line per family)
    "qwen3-hermes": "hermes",
    "gpt-oss": "openai",
    "gemma4": "gemma4",
    "deepseek": by_tag(
        {
            "x-deepseek-v3": "deepseek_v3",
            "x-deepseek-v31": "deepseek_v31",
            "x-deepseek-v32": "deepseek_v32",
            "x-deepseek-v4": "deepseek_v4",
            "x-deepseek-v41": "deepseek_v41",
        },
        "deepseek_v3",
    ),
    "glm": lambda fixture: "glm45" if fixture.reference_model == "zai-org/GLM-4.5" else "glm47",
    "kimi": lambda fixture: (
        "kimi_k3" if fixture.reference_model == "moonshotai/Kimi-K3" else "kimi_k2"
    ),
    "qwen3-xml": "qwen3_coder",
    "mistral": "mistral",
    "llama": by_tag({"x-llama-pythonic": "llama4_pythonic"}, "llama3_json"),
}
"""The families callstream reads; a family's fixtures run once its parser is registered
in ``callstream.tool_parsers.TEXT_FORMATS`` (before that they skip, saying why)."""

_MARKERLESS = (
    "a call written with no marker (Llama's bare JSON object or Python list as the whole"
    " message): tool_parser='auto' recognizes a family by its markers only, since taking a"
    " message that starts with '{' or '[' as a call would steal every family's JSON answers;"
    " name the family (llama3_json, pythonic, llama4_pythonic) to read such calls"
)

DEVIATIONS: dict[str, str] = {
    # fixture id -> why callstream's result differs from the fixture's, as a policy;
    # "auto:<fixture id>" when only tool_parser="auto" reads it differently
    "auto:llama/l3-bug-whole-call-single-delta": _MARKERLESS,
    "auto:llama/l3-empty-arguments": _MARKERLESS,
    "auto:llama/l3-long-arguments": _MARKERLESS,
    "auto:llama/l3-marker-in-arguments": _MARKERLESS,
    "auto:llama/l3-multi-turn-second-call": _MARKERLESS,
    "auto:llama/l3-nested-json": _MARKERLESS,
    "auto:llama/l3-single-call": _MARKERLESS,
    "auto:llama/l3-string-escapes": _MARKERLESS,
    "auto:llama/l3-truncated-inside-parameters": _MARKERLESS,
    "auto:llama/l3-typed-values": _MARKERLESS,
    "auto:llama/l3-unicode-emoji": _MARKERLESS,
    "auto:llama/l3-vllm-arguments-key": _MARKERLESS,
    "auto:llama/l3-vllm-brackets-in-strings": _MARKERLESS,
    "auto:llama/l3-vllm-deeply-nested": _MARKERLESS,
    "auto:llama/l3-vllm-escaped-quotes": _MARKERLESS,
    "auto:llama/l3-vllm-parameters-key": _MARKERLESS,
    "auto:llama/l4-bug-leading-underscore-identifier": _MARKERLESS,
    "auto:llama/l4-meta-pythonic-int-and-string": _MARKERLESS,
    "auto:llama/l4-meta-pythonic-parallel": _MARKERLESS,
    "auto:llama/l4-truncated-missing-close-bracket": _MARKERLESS,
    "auto:llama/l4-vllm-pythonic-escaped-strings": _MARKERLESS,
    "auto:llama/l4-vllm-pythonic-more-types": _MARKERLESS,
    "auto:llama/l4-vllm-pythonic-parallel-no-spaces": _MARKERLESS,
    "auto:llama/l4-vllm-pythonic-parameterless": _MARKERLESS,
}
"""The one place deviations are listed: each is a documented policy with its reason
(the test expects these fixtures to fail, and fails when one starts to pass)."""

CHAR_STRATEGIES = tuple(ChunkStrategy("char", seed=seed) for seed in range(6))
"""canitoolcall's synthetic character strategies ``char:0`` (one character a piece) to
``char:5`` (seeded groups of 1 to 8 characters); without the models' tokenizers the
token strategies are out of reach, and these cut finer."""


def parser_for(fixture: Fixture) -> str | None:
    """The tool parser for ``fixture``: None when its family has none in :data:`FAMILIES`."""
    chosen = FAMILIES.get(fixture.family)
    if chosen is None or isinstance(chosen, str):
        return chosen
    return chosen(fixture)


def skip_reason(fixture: Fixture) -> str | None:
    """Why the fixture does not run (no parser for its family yet), or None."""
    name = parser_for(fixture)
    if name is None:
        return (
            f"no tool parser reads the {fixture.family!r} family yet (tests/support/conformance.py)"
        )
    if name not in TEXT_FORMATS:
        return f"the tool parser {name!r} is not registered yet (callstream.tool_parsers)"
    return None


def markers_of(fixture: Fixture) -> tuple[str, ...]:
    """The family's markers (canitoolcall's family.json)."""
    family = family_for(fixture)
    return tuple(family.markers) if family is not None else ()


def boundaries(text: str, markers: Sequence[str]) -> list[int]:
    """Every place a marker starts or ends in ``text``, and the places one character
    either side of those, inside the text."""
    found: set[int] = set()
    for marker in markers:
        start = text.find(marker)
        while start >= 0:
            for edge in (start, start + len(marker)):
                found.update((edge - 1, edge, edge + 1))
            start = text.find(marker, start + 1)
    return sorted(p for p in found if 0 < p < len(text))


def cut(text: str, points: Sequence[int]) -> list[str]:
    """``text`` cut at ``points`` (sorted positions)."""
    pieces, last = [], 0
    for point in points:
        pieces.append(text[last:point])
        last = point
    pieces.append(text[last:])
    return [p for p in pieces if p]


def splits(text: str, markers: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """The ways the text is cut, each with its id: ``char:0`` ... ``char:5``, all the
    marker boundaries +-1 at once, and each of them alone."""
    for strategy in CHAR_STRATEGIES:
        yield strategy.id, split_text(text, strategy)
    points = boundaries(text, markers)
    if points:
        yield "markers", cut(text, points)
        for point in points:
            yield f"at:{point}", cut(text, [point])


def chat_chunks(pieces: Sequence[str], finish: str = "stop") -> Iterator[dict[str, Any]]:
    """The pieces as the ``delta.content`` of OpenAI chat chunks (a server started
    without a tool parser), with the role first and the finish reason last."""
    yield {"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    for piece in pieces:
        yield {"id": "c", "choices": [{"index": 0, "delta": {"content": piece}}]}
    yield {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}


def text_source(pieces: Sequence[str]) -> list[str]:
    """A plain text source: the model's raw output as ``str`` pieces, read with
    ``provider="text"`` (what a transformers ``TextIteratorStreamer`` gives)."""
    return list(pieces)


def sse_bytes(pieces: Sequence[str]) -> bytes:
    """The chat chunks of ``pieces`` as a server-sent event stream, UTF-8."""
    events = [f"data: {dumps_bounded(c, max_depth=None)}\n\n" for c in chat_chunks(pieces)]
    return ("".join(events) + "data: [DONE]\n\n").encode()


def inside_characters(data: bytes) -> list[bytes]:
    """``data`` cut inside every multi-byte UTF-8 character (after its first byte)."""
    pieces, last = [], 0
    for i, byte in enumerate(data):
        if byte >= 0xC0 and i + 1 < len(data):  # the first byte of a multi-byte character
            pieces.append(data[last : i + 1])
            last = i + 1
    pieces.append(data[last:])
    return [p for p in pieces if p]


def generation_prompt(fixture: Fixture) -> str:
    """The generation prompt the fixture's text follows: its own, else its reference
    model's default (canitoolcall's rule for replaying a fixture)."""
    if fixture.generation_prompt is not None:
        return fixture.generation_prompt
    family = family_for(fixture)
    reference = family.reference_for(fixture.reference_model) if family is not None else None
    found = reference.default_generation_prompt if reference is not None else None
    return found or ""


def options(fixture: Fixture) -> dict[str, Any]:
    """The options callstream reads the fixture with."""
    name = parser_for(fixture)
    assert name is not None
    return {
        "tool_parser": name,
        "tools": list(fixture.tools) or None,
        "prefill": generation_prompt(fixture),
        "reasoning": True,
    }


def as_parse(result: callstream.StreamResult) -> ParseResult:
    """callstream's result as canitoolcall's ParseResult: the valid calls (an invalid
    call is no call for a client), the text as ``content``, the reasoning."""
    calls = tuple(
        ParsedToolCall(call["name"], dumps_bounded(call["args"], max_depth=None))
        for call in result.tool_calls
    )
    return ParseResult(
        content=result.text or None, reasoning_content=result.reasoning or None, tool_calls=calls
    )


def parse(fixture: Fixture, source: Any, provider: str = "openai-chat") -> ParseResult:
    """Read ``source`` (chat chunks, SSE bytes, or a text source: a list of ``str``
    pieces, read as ``provider="text"``) with the fixture's options."""
    if isinstance(source, list) and all(type(piece) is str for piece in source):
        provider = "text"
    return as_parse(callstream.collect(source, provider=provider, **options(fixture)))
