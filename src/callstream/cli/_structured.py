"""``--structured``: a replay's text read as a structured output, its object growing.

The assistant's text of the recording goes through :func:`callstream.structured`'s steps
(:class:`~callstream.structured_output._sync.StructuredRun`); what is shown per output:

- ``rich``: a live window with the JSON preview so far (on a terminal), then the final
  value (the validated one with ``--schema``) or the error;
- ``jsonl``: per update that carried text, ``{"partial": ..., "closed": [JSON pointers]}``;
  then ``{"value": ...}`` or ``{"error": ..., "reason": ..., "partial": ...}``;
- ``agui`` / ``vercel``: the state events / data parts of :mod:`callstream.ui` as
  server-sent events, in a whole run.

``--schema MODULE:NAME`` names the type to validate with (imported; a pydantic model, or
any type a ``TypeAdapter`` takes); without it the value is plain JSON data. ``MODULE`` is
looked for in the current folder first, as ``python -m`` does (the folder is on
``sys.path`` for that import only).
Exit status 1 when the structured output is not valid (cut, not JSON, not validating).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from callstream._errors import StructuredOutputError
from callstream._json.changes import to_json_pointer
from callstream._json.dump import dumps_bounded
from callstream.cli._escape import escape_json, escape_text
from callstream.cli._replay import Prepared, replay
from callstream.cli._stream_file import InputError
from callstream.structured_output._sync import StructuredRun, StructuredUpdate

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ("load_schema", "run_structured")


def load_schema(spec: str | None) -> Any:
    """The type ``MODULE:NAME`` names (None without one), ``MODULE`` imported with the
    current folder first on ``sys.path`` (as ``python -m`` has it; the console script
    has its own folder there instead), for that import only.

    Raises:
        InputError: not of that form, or nothing importable by that name.
    """
    if spec is None:
        return None
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise InputError(f"--schema takes MODULE:NAME, got {spec!r}")
    here = os.getcwd()
    added = "" not in sys.path and here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        value: Any = importlib.import_module(module_name)
        for part in name.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"--schema {spec}: cannot import it ({exc})") from None
    finally:
        if added:
            sys.path.remove(here)
    return value


def _json(value: Any) -> str:
    from callstream.ui._structured import final_json

    return escape_json(dumps_bounded(final_json(value), max_depth=None, strict=True))


def run_structured(
    prepared: Prepared,
    provider: str,
    stdout: IO[str],
    console: Console | None,
    *,
    output: str,
    interval: float,
    schema: Any,
    extract: Any,
) -> int:
    """Replay ``prepared`` as a structured output shown as ``output`` says; the status."""
    run = StructuredRun(schema, extract, {}, previews=True)
    show, finish = _shower(output, stdout, console)

    def on_update(update: Any) -> None:
        show(run.step(update))

    try:
        stats = replay(prepared, provider=provider, on_update=on_update, interval=interval)
        assert stats.result is not None
        show(run.finish(stats.result))
    except StructuredOutputError as exc:
        finish(exc)
        return 1
    finish(None)
    return 0


_Show = Callable[[StructuredUpdate], None]
_Finish = Callable[[StructuredOutputError | None], None]


def _shower(output: str, stdout: IO[str], console: Console | None) -> tuple[_Show, _Finish]:
    """The functions that show each update and the end, for ``output``."""
    if output == "jsonl":
        return _jsonl(stdout)
    if output in ("agui", "vercel"):
        return _protocol(output, stdout)
    assert console is not None
    return _rich(console)


def _jsonl(stdout: IO[str]) -> tuple[_Show, _Finish]:
    def show(update: StructuredUpdate) -> None:
        if update.done:
            stdout.write('{"value": ' + _json(update.value) + "}\n")
        elif update.delta:
            closed = [to_json_pointer(path) for path in update.closed]
            partial = escape_json(dumps_bounded(update.partial, max_depth=None, strict=True))
            stdout.write(f'{{"partial": {partial}, "closed": {_json(closed)}}}\n')
        stdout.flush()

    def finish(error: StructuredOutputError | None) -> None:
        if error is not None:
            line = {"error": str(error), "reason": error.reason, "partial": error.partial}
            stdout.write(_json(line) + "\n")
            stdout.flush()

    return show, finish


def _protocol(output: str, stdout: IO[str]) -> tuple[_Show, _Finish]:
    from callstream.ui import AGUIStateEncoder, VercelDataEncoder, sse_frame
    from callstream.ui._turn_state import new_id

    def write(events: list[Any]) -> None:
        if events:
            stdout.write("".join(escape_json(sse_frame(event)) for event in events))
            stdout.flush()

    encoder: AGUIStateEncoder | VercelDataEncoder
    if output == "agui":
        encoder = AGUIStateEncoder()
        thread, run_id = new_id("thread"), new_id("run")
        write([{"type": "RUN_STARTED", "threadId": thread, "runId": run_id}])
    else:
        encoder = VercelDataEncoder()
        write([{"type": "start", "messageId": new_id("msg")}])

    def finish(error: StructuredOutputError | None) -> None:
        if output == "agui":
            if error is None:
                write([{"type": "RUN_FINISHED", "threadId": thread, "runId": run_id}])
            else:
                code = f"structured_output:{error.reason}"
                write([{"type": "RUN_ERROR", "message": str(error), "code": code}])
            return
        if error is not None:
            reason = "length" if error.reason == "length" else "error"
            write([{"type": "error", "errorText": str(error)}])
            write([{"type": "finish", "finishReason": reason}])
        else:
            write([{"type": "finish", "finishReason": "stop"}])
        stdout.write("data: [DONE]\n\n")
        stdout.flush()

    return (lambda update: write(encoder.feed(update))), finish


def _rich(console: Console) -> tuple[_Show, _Finish]:
    try:
        from rich.live import Live
        from rich.panel import Panel
        from rich.text import Text
    except ImportError:  # pragma: no cover - the command checks rich first
        raise InputError("the rich output needs rich (the cli extra): pip install rich") from None

    def panel(value: Any, title: str, style: str) -> Any:
        text = dumps_bounded(value, max_depth=None, strict=True, indent=2)
        return Panel(Text(escape_text(text)), title=title, border_style=style)

    live_ok = console.is_terminal and not console.is_dumb_terminal
    live = Live(console=console, auto_refresh=False, transient=True) if live_ok else None
    if live is not None:
        live.start()

    def show(update: StructuredUpdate) -> None:
        if update.done:
            if live is not None:
                live.stop()
            console.print(panel(_plain(update.value), "structured output", "green"))
        elif live is not None and update.delta and update.partial is not None:
            live.update(panel(update.partial, "streaming", "yellow"), refresh=True)

    def finish(error: StructuredOutputError | None) -> None:
        if live is not None:
            live.stop()
        if error is not None:
            if error.partial is not None:
                console.print(panel(error.partial, "partial", "red"))
            console.print(Text(escape_text(f"invalid ({error.reason}): {error}"), style="red"))

    return show, finish


def _plain(value: Any) -> Any:
    from callstream.ui._structured import final_json

    return final_json(value)
