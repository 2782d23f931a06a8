"""Rich renderables for a :class:`~callstream.cli._view.StreamView` (the only rich user).

Each call is a tree: the header line (name, id, status), then one branch per argument.
Strings show a cursor while they grow, every complete value gets a check mark, an
invalid call shows its error and the tail of its raw text. All text from the stream is
put in ``Text`` objects (never parsed as markup) with control characters escaped, so
model output cannot restyle or corrupt the terminal.

Cost: rendering walks the whole view (O(number of values)); the live display throttles
how often that happens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from callstream.cli._replay import ReplayStats
from callstream.cli._view import (
    ArrayNode,
    CallView,
    Node,
    ObjectNode,
    ScalarNode,
    StreamView,
    StringNode,
    scalar_text,
)

__all__ = ("Symbols", "render_call", "render_stream", "render_summary", "symbols_for")

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _escape_controls(text: str) -> str:
    """Show control characters as escapes (``\\x1b``); keep newlines and tabs."""
    return _CONTROL.sub(_control_escape, text)


def _control_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"


@dataclass(frozen=True, slots=True)
class Symbols:
    """The marks used in the output, in Unicode or ASCII."""

    done: str
    invalid: str
    cursor: str
    ellipsis: str
    bullet: str
    micro: str
    dot: str


_UNICODE = Symbols(done="✓", invalid="✗", cursor="▌", ellipsis="…", bullet="●", micro="µ", dot="·")
_ASCII = Symbols(done="ok", invalid="X", cursor="_", ellipsis="...", bullet="*", micro="u", dot="-")


def symbols_for(encoding: str) -> Symbols:
    """Unicode marks when the output encoding is a UTF one, else ASCII marks."""
    return _UNICODE if encoding.lower().replace("-", "").startswith("utf") else _ASCII


def _shorten(text: str, limit: int | None, symbols: Symbols, *, max_lines: int = 8) -> str:
    """Keep the tail of a long string while it streams (``limit`` chars, ``max_lines``)."""
    if limit is None:
        return text
    tail = text[-limit:]
    lines = tail.split("\n")
    if len(lines) > max_lines:
        tail = "\n".join(lines[-max_lines:])
    return tail if len(tail) == len(text) else symbols.ellipsis + tail


def _value_label(
    key: str | None, node: Node, symbols: Symbols, limit: int | None, streaming: bool
) -> Text:
    label = Text()
    if key is not None:
        label.append(_escape_controls(key), style="bold blue")
        label.append(": ")
    if isinstance(node, StringNode):
        label.append('"' + _escape_controls(_shorten(node.text, limit, symbols)), style="green")
        if node.closed:
            label.append('"', style="green")
    elif isinstance(node, ScalarNode):
        is_number = isinstance(node.value, int | float) and not isinstance(node.value, bool)
        label.append(scalar_text(node.value), style="cyan" if is_number else "magenta")
    elif isinstance(node, ObjectNode):
        label.append("{}" if node.closed and not node.members else "{", style="dim")
    else:
        label.append("[]" if node.closed and not node.items else "[", style="dim")
    if node.closed:
        label.append(" " + symbols.done, style="green")
    elif streaming and isinstance(node, StringNode):
        label.append(symbols.cursor, style="bold yellow")
    return label


def _add_children(
    tree: Tree, node: Node, symbols: Symbols, limit: int | None, streaming: bool
) -> None:
    """Add the members or items of ``node`` under ``tree`` (iteratively, any depth)."""
    stack: list[tuple[Tree, Node]] = [(tree, node)]
    while stack:
        branch, current = stack.pop()
        children: list[tuple[str | None, Node]]
        if isinstance(current, ObjectNode):
            children = list(current.members.items())
        elif isinstance(current, ArrayNode):
            children = [(str(i), item) for i, item in enumerate(current.items)]
        else:
            continue
        for key, child in children:
            sub = branch.add(_value_label(key, child, symbols, limit, streaming))
            if isinstance(child, ObjectNode | ArrayNode):
                stack.append((sub, child))


def render_call(
    call: CallView, symbols: Symbols, *, string_limit: int | None = None
) -> RenderableType:
    """Render one call as a tree: header, argument branches, error for an invalid call.

    ``string_limit`` shows only the tail of long strings (for the live display).
    """
    header = Text()
    header.append(symbols.bullet + " ", style="bold")
    header.append(_escape_controls(call.name), style="bold cyan")
    if call.id:
        header.append("  " + _escape_controls(call.id), style="dim")
    streaming = call.status == "streaming"
    if call.status == "done":
        header.append(f"  {symbols.done} valid", style="bold green")
    elif call.status == "invalid":
        header.append(f"  {symbols.invalid} invalid", style="bold red")
    else:
        header.append(f"  streaming{symbols.ellipsis}", style="yellow")
    tree = Tree(header, guide_style="dim")
    root = call.tree
    if isinstance(root, ObjectNode):
        _add_children(tree, root, symbols, string_limit, streaming)
        if root.closed and not root.members:
            tree.add(Text("(no arguments)", style="dim"))
    elif root is not None:
        sub = tree.add(_value_label("arguments", root, symbols, string_limit, streaming))
        _add_children(sub, root, symbols, string_limit, streaming)
    if call.status == "invalid":
        error = Text("error: ", style="bold red")
        error.append(_escape_controls(call.error or "invalid tool call"), style="red")
        tree.add(error)
        raw = call.raw
        if raw:
            shown = raw if len(raw) <= 160 else symbols.ellipsis + raw[-160:]
            tree.add(Text("raw: " + _escape_controls(shown), style="dim"))
    return tree


def render_stream(
    view: StreamView, symbols: Symbols, *, string_limit: int | None = None
) -> RenderableType:
    """Render every call of ``view`` in order of start (a placeholder before the first)."""
    if not view.calls:
        if view.finished:
            return Text("(no tool calls in this stream)", style="dim")
        return Text(f"waiting for a tool call{symbols.ellipsis}", style="dim")
    return Group(
        *(
            render_call(call, symbols, string_limit=string_limit)
            for _, call in sorted(view.calls.items())
        )
    )


def render_summary(view: StreamView, stats: ReplayStats, symbols: Symbols) -> RenderableType:
    """The closing summary: calls and verdicts, finish reason, chunks, bytes, time.

    The time is what callstream itself spent (transport, translator, assembler), summed
    over the chunks fed, not the replay's pacing or the rendering.
    """
    calls = len(view.calls)
    dot = f" {symbols.dot} "
    line = Text()
    line.append(f"{calls} call{'s' if calls != 1 else ''}", style="bold")
    line.append(f"{dot}{view.valid} valid", style="green" if view.valid else "")
    line.append(f"{dot}{view.invalid} invalid", style="bold red" if view.invalid else "")
    reason = view.finish_reason
    line.append(f"{dot}finish reason: {_escape_controls(reason) if reason else 'none'}")
    line.append("\n")
    line.append(
        f"{stats.chunks:,} chunks{dot}{stats.bytes:,} bytes{dot}"
        f"{stats.seconds * 1e3:.2f} ms in callstream "
        f"({stats.per_chunk_us:.1f} {symbols.micro}s per chunk)",
        style="dim",
    )
    return line
