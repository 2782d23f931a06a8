"""Which calls of the recorded streams are server-side tools (run by the provider).

The expected files of the recorded streams (``../shared/recorded-streams/expected``) list
every call a stream makes in ``tool_calls``, whoever runs it. callstream reports the calls
the provider runs itself in ``server_tool_calls`` instead; this table says, by stream and
call id, which ones those are (read from each recording: Anthropic ``server_tool_use``
blocks, Bedrock ``toolUse.type == "server_tool_use"``). Every stream not named here has
no server-side call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from callstream import ToolCallAssembler
from callstream._assembly.types import Signal, StreamEnd
from tests.support.provider_helpers import assemble, check_expected

SERVER_CALL_IDS: dict[str, frozenset[str]] = {
    "anthropic_server_tool_use_bash_code_execution": frozenset(
        {"srvtoolu_01MwXaweAHve88x6s3Fc8x6Q"}
    ),
    "anthropic_programmatic_tool_call_input_in_start": frozenset(
        {"srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK"}
    ),
    "bedrock_converse_nova_server_tool_then_tool": frozenset({"tooluse_VQNZJRUFMoqZzszVsRd4og"}),
}


def split_expected(
    stream: str, calls: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The expected calls of recorded ``stream`` as (client calls, server-side calls)."""
    server = SERVER_CALL_IDS.get(stream, frozenset())
    return (
        [c for c in calls if c["id"] not in server],
        [c for c in calls if c["id"] in server],
    )


def server_view(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Expected server-side calls in the ``server_tool_calls`` shape (LangChain's
    ``server_tool_call`` block)."""
    assert all(c["valid"] for c in calls)
    return [
        {"type": "server_tool_call", "name": c["name"], "args": c["args"], "id": c["id"]}
        for c in calls
    ]


def check_split(stream: str, assembler: ToolCallAssembler, calls: list[dict[str, Any]]) -> None:
    """``assembler`` holds exactly the expected client calls (valid and invalid) and, in
    ``server_tool_calls``, exactly the expected server-side ones."""
    client, server = split_expected(stream, calls)
    check_expected(assembler, client)
    assert assembler.server_tool_calls == server_view(server)


def check_recorded_split(
    stream: str,
    events: list[Any],
    calls: list[dict[str, Any]],
    detect: Callable[[Any], bool],
    run: Callable[[list[Any]], list[Signal]],
) -> None:
    """A recorded stream: its first payload is detected, it ends (a translator reports
    every end marker; the assembler keeps the first), and it assembles to exactly the
    expected client calls and server-side calls."""
    assert detect(events[0])
    signals = run(events)
    assert any(isinstance(s, StreamEnd) for s in signals)
    check_split(stream, assemble(signals), calls)
