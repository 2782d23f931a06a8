"""The ``callstream`` command: watch tool calls assemble live, or get them as data.

Commands (``callstream COMMAND --help`` for the options)::

    callstream demo [NAME ...]        replay bundled example streams (--list names them)
    callstream replay FILE            replay a recorded stream (JSON lines or SSE text)
    callstream inspect FILE           print the final tool calls as JSON (exit 1 if any invalid)
    callstream schema                 print the JSON Schema of the --output jsonl event feed
    callstream --version              the version, ``compiled: yes/no`` and the Python

``replay`` and ``demo`` render with rich (the ``cli`` extra): each call
with its name and id, the arguments as a tree growing fragment by fragment, a check mark
on every complete value, invalid calls with their error and raw text, then a summary.
Each call is printed in full once it ends; on a terminal a live window above shows the
calls still streaming (the most recent few, each cut to its last lines, so a redraw costs
the same however large the stream). When the output is not a terminal there is no live
window and no pacing. ``NO_COLOR`` turns colors off. ``--output jsonl`` prints the event
feed instead (one JSON object per event, see ``docs/event-feed.md``), paced only on a
terminal unless ``--speed`` is given; it and ``inspect`` work without rich.

Files are read line by line while they replay, so memory stays bounded by the calls,
not the file (a line costs about twice its size while it is read: its text and the payload
decoded from it). A last line cut off mid-way is dropped, as callstream's own decoder does:
the call it belonged to ends invalid. Text from the stream is printed with terminal
controls (C0, C1), bidi formatting characters and lone surrogates escaped; the JSON
output (``inspect``, ``--output jsonl|agui|vercel``) is written by the one JSON writer
(:mod:`callstream._json.dump`: valid UTF-8 JSON, a lone surrogate as U+FFFD, any depth),
with C1 controls and bidi characters as ``\\uXXXX`` escapes. ``--output agui`` / ``vercel`` print
the stream as the server-sent events a backend sends an AG-UI or a Vercel AI SDK front end
(see :mod:`callstream.ui`).

``--structured`` reads the stream's text as a structured output instead: the object
grows in a live window (or as JSON lines, AG-UI state events, Vercel data parts), then
its final value, validated with ``--schema MODULE:NAME`` (see ``_structured``).

Exit status: 0 on success; 1 from ``inspect`` when some call is invalid, and from
``--structured`` when the output is not valid; 2 for a bad
command line or an input that cannot be replayed (missing file, not JSON, unknown
format), with a one-line message on standard error and no traceback; 130 on Ctrl-C.

Modules: this one runs the commands; ``_command_line`` parses the command line, ``_stream_file``
reads recordings, ``_split`` re-cuts them (``--split``), ``_replay`` feeds them to the
pipeline, ``_view`` rebuilds the calls from events, ``_render`` draws them with rich and
``_escape`` makes stream text safe to print.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from callstream._errors import CallstreamError
from callstream._json.dump import dumps_bounded
from callstream.cli._command_line import PROG, UsageProblem, build_parser
from callstream.cli._escape import escape_json, escape_text
from callstream.cli._replay import (
    BASE_INTERVAL,
    Prepared,
    ReplayStats,
    prepare,
    replay,
    warm_up,
)
from callstream.cli._stream_file import InputError, Recording, Source, load_path, load_text
from callstream.examples import DEMO, EXAMPLES, read_example

if TYPE_CHECKING:
    from rich.console import Console

    from callstream.cli._view import StreamView

__all__ = ("main",)

# --- output helpers -----------------------------------------------------------------------


def _safe_json(value: Any, *, indent: int | None = None) -> str:
    """Strict JSON text (the one writer's output rule) with terminal controls and bidi
    characters escaped."""
    return escape_json(dumps_bounded(value, max_depth=None, strict=True, indent=indent))


def _feed_line(event: Any) -> str:
    """One line of the event feed (:func:`~callstream.feed.dumps_feed`), safe to print."""
    from callstream.feed import dumps_feed

    return escape_json(dumps_feed(event))


def _rich_missing() -> InputError:
    return InputError(
        "the live display needs rich (the cli extra): pip install rich "
        "(or use --output jsonl, which works without it)"
    )


def _console(stdout: IO[str]) -> Console:
    try:
        from rich.console import Console
    except ImportError:
        raise _rich_missing() from None
    return Console(file=stdout, highlight=False)


# --- commands -----------------------------------------------------------------------------


def _interval(speed: float) -> float:
    return 0.0 if speed == 0 else BASE_INTERVAL / speed


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


def _run_jsonl(
    prepared: Prepared, provider: str, speed: float | None, stdout: IO[str]
) -> ReplayStats:
    if speed is None:  # pace for a person watching, never into a file or a pipe
        speed = 1.0 if _is_terminal(stdout) else 0.0

    def on_update(update: Any) -> None:
        if update.events:
            stdout.write("".join(_feed_line(event) + "\n" for event in update.events))
            stdout.flush()

    return replay(prepared, provider=provider, on_update=on_update, interval=_interval(speed))


def _run_protocol(
    prepared: Prepared, provider: str, speed: float | None, stdout: IO[str], protocol: str
) -> ReplayStats:
    """``--output agui`` / ``vercel``: the UI protocol's server-sent events on stdout (what
    a backend would send a front end; see :mod:`callstream.ui`)."""
    from callstream.ui import AGUIEncoder, VercelEncoder, sse_frame

    if speed is None:
        speed = 1.0 if _is_terminal(stdout) else 0.0
    encoder: AGUIEncoder | VercelEncoder = AGUIEncoder() if protocol == "agui" else VercelEncoder()

    def write(events: list[Any]) -> None:
        if events:
            stdout.write("".join(escape_json(sse_frame(event)) for event in events))
            stdout.flush()

    write(encoder.start())
    try:
        stats = replay(
            prepared,
            provider=provider,
            on_update=lambda update: write(encoder.feed(update)),
            interval=_interval(speed),
        )
    except Exception as exc:
        write(encoder.fail(exc))
        raise
    write(encoder.close())
    if protocol == "vercel":
        stdout.write("data: [DONE]\n\n")
        stdout.flush()
    return stats


FRAME = 1 / 25
"""Seconds between two redraws of the live window when nothing paces the replay."""


def _run_rich(
    prepared: Prepared, provider: str, speed: float | None, console: Console
) -> tuple[ReplayStats, StreamView]:
    import time

    try:
        from rich.live import Live

        from callstream._assembly.types import CallDone
        from callstream.cli._render import (
            render_call,
            render_live,
            render_summary,
            symbols_for,
        )
        from callstream.cli._view import StreamView
    except ImportError:
        raise _rich_missing() from None

    view = StreamView()
    symbols = symbols_for(console.encoding)
    warm_up()  # the summary's time per chunk, measured without first-use imports
    live_ok = console.is_terminal and not console.is_dumb_terminal

    def show_finished(events: Sequence[Any]) -> None:
        # A valid call is final at CallDone: print it for good and forget it. An invalid
        # call waits for the end of the stream, which has its whole raw text.
        for event in events:
            view.apply(event)
            if isinstance(event, CallDone):
                call = view.release(event.index)
                if call is not None:
                    console.print(render_call(call, symbols))

    if not live_ok:
        stats = replay(
            prepared, provider=provider, on_update=lambda update: show_finished(update.events)
        )
    else:
        interval = _interval(1.0 if speed is None else speed)
        limit = max(80, console.width * 4)
        lines = max(6, console.height - 4)
        last = 0.0

        def window() -> Any:
            return render_live(view, symbols, string_limit=limit, max_lines=lines)

        with Live(window(), console=console, auto_refresh=False, transient=True) as live:

            def on_update(update: Any) -> None:
                nonlocal last
                if not update.events:
                    return
                show_finished(update.events)
                now = time.monotonic()
                if interval > 0 or now - last >= FRAME:
                    last = now
                    live.update(window(), refresh=True)

            stats = replay(prepared, provider=provider, on_update=on_update, interval=interval)
    _show_rest(view, stats, console, symbols, render_call)
    console.print(render_summary(view, stats, symbols))
    return stats, view


def _show_rest(
    view: StreamView, stats: ReplayStats, console: Console, symbols: Any, render: Any
) -> None:
    """Print the calls not printed yet (the invalid ones, with their whole raw text)."""
    remaining = [call for _, call in sorted(view.calls.items())]
    invalid = [call for call in remaining if call.status == "invalid"]
    final = stats.result.invalid_tool_calls if stats.result is not None else []
    if len(final) == len(invalid):  # both in order of start: the same calls
        for call, verdict in zip(invalid, final, strict=True):
            args = verdict.get("args")
            if isinstance(args, str) and len(args) >= call.raw_chars:
                call.set_raw(args)
    for call in remaining:
        console.print(render(call, symbols))
        view.release(call.index)


def _replay_structured(
    prepared: Prepared, args: argparse.Namespace, stdout: IO[str], console: Console | None
) -> int:
    """``--structured``: the text as a structured output (see ``cli._structured``)."""
    from callstream.cli._structured import load_schema, run_structured

    speed = args.speed
    if speed is None:
        speed = 1.0 if _is_terminal(stdout) else 0.0
    return run_structured(
        prepared,
        args.provider,
        stdout,
        console,
        output=args.output,
        interval=_interval(speed),
        schema=load_schema(args.schema),
        extract=args.extract,
    )


def _replay_one(
    recording: Recording | Source,
    args: argparse.Namespace,
    stdout: IO[str],
    console: Console | None,
) -> int:
    prepared = prepare(recording, provider=args.provider, split=args.split)
    if args.structured:
        return _replay_structured(prepared, args, stdout, console)
    if args.output == "jsonl":
        _run_jsonl(prepared, args.provider, args.speed, stdout)
    elif args.output in ("agui", "vercel"):
        _run_protocol(prepared, args.provider, args.speed, stdout, args.output)
    else:
        assert console is not None
        _run_rich(prepared, args.provider, args.speed, console)
    return 0


def _cmd_replay(args: argparse.Namespace, stdout: IO[str], console: Console | None) -> int:
    recording = load_path(args.file, raw_text=args.provider == "text")
    if args.output == "rich" and console is None:
        console = _console(stdout)
    return _replay_one(recording, args, stdout, console)


def _cmd_demo(args: argparse.Namespace, stdout: IO[str], console: Console | None) -> int:
    if args.list:
        width = max(len(name) for name in EXAMPLES)
        for example in EXAMPLES.values():
            star = "*" if example.name in DEMO else " "
            stdout.write(
                f"{star} {example.name:<{width}}  {example.format:<16}  {example.summary}\n"
            )
        stdout.write("(* = replayed by 'callstream demo' without names)\n")
        return 0
    names = args.names or list(DEMO)
    unknown = [name for name in names if name not in EXAMPLES]
    if unknown:
        raise InputError(
            f"no bundled example named {unknown[0]!r}; choose from: {', '.join(EXAMPLES)}"
        )
    if args.output == "rich" and console is None:
        console = _console(stdout)
    for number, name in enumerate(names):
        example = EXAMPLES[name]
        recording = load_text(read_example(name), example.filename)
        if console is not None and args.output == "rich":
            from rich.text import Text

            if number:
                console.print()
            console.rule(Text(f"{name} ({example.format})", style="bold"), style="dim")
            console.print(Text(example.summary, style="dim"))
        _replay_one(recording, args, stdout, console)
    if console is not None and args.output == "rich":
        console.print()
        console.print(
            "More: callstream demo --list | callstream replay FILE | --output jsonl|agui|vercel",
            style="dim",
            highlight=False,
        )
    return 0


def _cmd_inspect(args: argparse.Namespace, stdout: IO[str], console: Console | None) -> int:
    recording = load_path(args.file, raw_text=args.provider == "text")
    prepared = prepare(recording, provider=args.provider, split=args.split)
    stats = replay(prepared, provider=args.provider, on_update=lambda update: None)
    result = stats.result
    assert result is not None
    document = {
        "tool_calls": result.tool_calls,
        "invalid_tool_calls": result.invalid_tool_calls,
        "finish_reason": result.finish_reason,
    }
    stdout.write(_safe_json(document, indent=2) + "\n")
    return 1 if result.invalid_tool_calls else 0


def _cmd_schema(args: argparse.Namespace, stdout: IO[str], console: Console | None) -> int:
    from callstream.feed import feed_schema

    stdout.write(_safe_json(feed_schema(), indent=2) + "\n")
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace, IO[str], Console | None], int]] = {
    "demo": _cmd_demo,
    "replay": _cmd_replay,
    "inspect": _cmd_inspect,
    "schema": _cmd_schema,
}
"""Each subcommand's function: (parsed arguments, output, rich console or None) -> status."""


# --- entry point --------------------------------------------------------------------------


def run(
    argv: Sequence[str] | None = None,
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    console: Console | None = None,
) -> int:
    """Run the command with explicit streams (for tests); see :func:`main`.

    ``console``, when given, is the rich console used for rendering (for example one
    writing to a ``StringIO``, with or without ``force_terminal``).
    """
    output = stdout if stdout is not None else sys.stdout
    error_output = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageProblem as problem:
        message = " ".join(problem.message.split())
        error_output.write(
            escape_text(f"{problem.prog}: error: {message} (see: {problem.prog} --help)\n")
        )
        return 2
    except SystemExit as stop:  # --help or --version: argparse printed and stopped
        return stop.code if isinstance(stop.code, int) else 2
    if args.command is None:
        parser.print_help(output)
        return 2
    try:
        return _COMMANDS[args.command](args, output, console)
    except (InputError, CallstreamError) as error:
        message = " ".join(str(error).split())
        error_output.write(escape_text(f"{PROG}: error: {message}") + "\n")
        return 2
    except KeyboardInterrupt:
        error_output.write(f"{PROG}: interrupted\n")
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``callstream`` console script; returns the exit status.

    ``argv`` defaults to ``sys.argv[1:]``. Bad input gives a one-line message on
    standard error and status 2, never a traceback.
    """
    try:
        return run(argv)
    except BrokenPipeError:
        # The reader went away (``callstream ... | head``): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 141
