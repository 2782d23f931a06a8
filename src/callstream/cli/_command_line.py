"""The command line of ``callstream``: subcommands, their options, one-line errors.

:func:`build_parser` builds the argparse parser; its errors raise :class:`UsageProblem`
(argparse would print the whole usage and exit), which :func:`callstream.cli.run` reports
as one line with exit status 2. Option values are checked here (``--speed``, ``--split``,
``--provider``), so the commands get only values they can use.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from callstream._errors import UsageError
from callstream.cli._replay import BASE_INTERVAL, MIN_SPEED
from callstream.examples import DEMO
from callstream.providers import FORMATS, resolve_format

__all__ = ("PROG", "UsageProblem", "build_parser", "version_text")

PROG = "callstream"


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value != 0 and not MIN_SPEED <= value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"must be 0 (no pauses) or a finite number >= {MIN_SPEED:g} "
            f"(a pause of at most {BASE_INTERVAL / MIN_SPEED:g} s), not {text!r}"
        )
    return value


def _split_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _provider(text: str) -> str:
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return resolve_format(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


class UsageProblem(Exception):
    """A bad command line, reported by :func:`callstream.cli.run` as one line."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (usage is in ``--help``)."""

    def error(self, message: str) -> Any:  # argparse's signature is NoReturn
        raise UsageProblem(self.prog, message)


def version_text() -> str:
    """What ``callstream --version`` prints: the version and which build runs (as
    ``black --version`` says it), then the Python."""
    import platform

    import callstream

    return (
        f"{PROG} {callstream.__version__} (compiled: {'yes' if callstream.COMPILED else 'no'})\n"
        f"Python ({platform.python_implementation()}) {platform.python_version()}\n"
    )


class _Version(argparse.Action):
    """``--version``: print :func:`version_text` and stop, as ``--help`` does."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        sys.stdout.write(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command line: subcommands and their options."""
    parser = _Parser(
        prog=PROG,
        description="Watch streamed LLM tool calls assemble, or get them as data.",
        epilog="Start with: callstream demo",
    )
    parser.add_argument(
        "--version",
        action=_Version,
        help="print the version, whether the compiled build runs, and the Python, then exit",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def replay_options(command: argparse.ArgumentParser, *, output: bool = True) -> None:
        command.add_argument(
            "--provider",
            type=_provider,
            default="auto",
            help=f"wire format: auto (default) or one of {', '.join(FORMATS)}",
        )
        command.add_argument(
            "--split",
            type=_split_size,
            metavar="N",
            help="re-cut argument text into N-character fragments (for text-fragment formats)",
        )
        if output:
            command.add_argument(
                "--speed",
                type=_speed,
                default=None,
                metavar="X",
                help=f"pace: X times {1 / BASE_INTERVAL:.0f} payloads per second, X >= "
                f"{MIN_SPEED:g}; 0 = no pauses "
                "(default: 1 on a terminal; no pauses into a file or pipe)",
            )
            command.add_argument(
                "--output",
                choices=("rich", "jsonl", "agui", "vercel"),
                default="rich",
                help="rich: live display (default); jsonl: the JSON event feed, one event a "
                "line; agui / vercel: the server-sent events of the AG-UI protocol / the "
                "Vercel AI SDK UI message stream",
            )
            command.add_argument(
                "--structured",
                action="store_true",
                help="read the assistant's text as a structured output (JSON): show the "
                "object as it grows, then the final value",
            )
            command.add_argument(
                "--schema",
                metavar="MODULE:NAME",
                default=None,
                help="with --structured: validate with this type (a pydantic model ...)",
            )
            command.add_argument(
                "--extract",
                choices=("json", "fenced", "prose"),
                default="json",
                help="with --structured: the text is the JSON (default), may be in a code "
                "fence, or the JSON is the first {...} or [...] among prose",
            )

    demo = commands.add_parser(
        "demo",
        help="replay bundled example streams",
        description="Replay bundled example streams (by default: "
        + ", ".join(DEMO)
        + "). Example streams are written by us in the real provider wire formats.",
    )
    demo.add_argument("names", nargs="*", metavar="NAME", help="example names (see --list)")
    demo.add_argument("--list", action="store_true", help="list the bundled examples and exit")
    replay_options(demo)

    replay_command = commands.add_parser(
        "replay",
        help="replay a recorded stream file",
        description="Replay a recorded stream: JSON lines of provider payloads (one decoded "
        "SSE data payload or NDJSON line per line) or raw server-sent events text. "
        "FILE may be '-' for standard input.",
    )
    replay_command.add_argument("file", metavar="FILE")
    replay_options(replay_command)

    inspect = commands.add_parser(
        "inspect",
        help="print the final tool calls as JSON",
        description='Print {"tool_calls": [...], "invalid_tool_calls": [...], '
        '"finish_reason": ...} as JSON. Exit status 0 when every call is valid, 1 otherwise.',
    )
    inspect.add_argument("file", metavar="FILE")
    replay_options(inspect, output=False)

    commands.add_parser(
        "schema",
        help="print the JSON Schema of the event feed",
        description="Print the JSON Schema (draft 2020-12) of one line of --output jsonl.",
    )
    return parser
