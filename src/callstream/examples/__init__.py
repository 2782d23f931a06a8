"""Example streams bundled with callstream, written by us in the real provider wire formats.

Each example is one recorded-style stream: a ``.jsonl`` file holds one decoded provider
payload per line (what an SSE ``data:`` line or an NDJSON line carries); a ``.sse`` file
holds raw server-sent-events text as it comes off the wire. They feed ``callstream demo``,
the documentation and the tests, and are small enough to read by eye.

===========================  ================  ===============================================
name                         format            what it shows
===========================  ================  ===============================================
``openai_chat_parallel``     openai-chat       two parallel calls; strings, numbers, booleans,
                                               an array and a nested object filling in
``anthropic_long_string``    anthropic         a long string argument with escapes (``\\n``,
                                               ``\\"``, ``\\\\``, ``\\t``), non-ASCII text, and a
                                               surrogate-pair escape cut across fragments
``openai_chat_invalid``      openai-chat       one valid call and one with malformed
                                               arguments (a missing comma): an invalid call
``openai_responses``         openai-responses  a function call with nested arguments;
                                               ``.done`` events carry the final text
``gemini``                   gemini            two whole calls in one chunk (no ids)
``anthropic_max_tokens``     anthropic (SSE)   raw SSE text; a call cut off by ``max_tokens``
===========================  ================  ===============================================
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from callstream._errors import UsageError

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

__all__ = ("DEMO", "EXAMPLES", "Example", "example_path", "read_example")


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """One bundled example stream: its ``name``, ``filename``, ``format`` and a summary."""

    name: str
    filename: str
    format: str
    summary: str


EXAMPLES: dict[str, Example] = {
    e.name: e
    for e in (
        Example(
            name="openai_chat_parallel",
            filename="openai_chat_parallel.jsonl",
            format="openai-chat",
            summary="two parallel calls: get_weather and search_restaurants",
        ),
        Example(
            name="anthropic_long_string",
            filename="anthropic_long_string.jsonl",
            format="anthropic",
            summary="write_file with a long note: escapes, non-ASCII text, an emoji",
        ),
        Example(
            name="openai_chat_invalid",
            filename="openai_chat_invalid.jsonl",
            format="openai-chat",
            summary="a valid call, then one with malformed arguments",
        ),
        Example(
            name="openai_responses",
            filename="openai_responses.jsonl",
            format="openai-responses",
            summary="search_flights with nested arguments (Responses API)",
        ),
        Example(
            name="gemini",
            filename="gemini.jsonl",
            format="gemini",
            summary="two whole calls in one chunk: get_weather and convert_currency",
        ),
        Example(
            name="anthropic_max_tokens",
            filename="anthropic_max_tokens.sse",
            format="anthropic",
            summary="raw SSE text; a call cut off by max_tokens",
        ),
    )
}
"""Every bundled example, by name."""

DEMO: tuple[str, ...] = ("openai_chat_parallel", "anthropic_long_string", "openai_chat_invalid")
"""The examples ``callstream demo`` replays, in order."""


def example_path(name: str) -> Traversable:
    """Return the packaged file of example ``name`` (a key of :data:`EXAMPLES`).

    Raises:
        UsageError: there is no example of that name.
    """
    example = EXAMPLES.get(name)
    if example is None:
        raise UsageError(f"no bundled example named {name!r}; choose from {', '.join(EXAMPLES)}")
    return resources.files(__name__).joinpath(example.filename)


def read_example(name: str) -> str:
    """Return the text of example ``name`` (UTF-8). Cost: one file read."""
    return example_path(name).read_text(encoding="utf-8")
