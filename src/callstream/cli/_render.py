"""Rich renderables for a :class:`~callstream.cli._view.StreamView` (the only rich user).

Each call is a tree: the header line (name, id, status), then one branch per argument.
Strings show a cursor while they grow, every complete value gets a check mark, an
invalid call shows its error and its raw text. All text from the stream is put in
``Text`` objects (never parsed as markup) with control characters, bidi formatting
characters and lone surrogates escaped (:mod:`callstream.cli._escape`), so model output
cannot restyle, reorder or corrupt the terminal, nor crash the output encoding.

Cost: :func:`render_call` and :func:`render_stream` walk what they show (O(number of
values), once per call for the final output). :func:`render_live`, drawn on every
refresh of the live display, is bounded: at most ``max_calls`` calls of the ones still
streaming, each the last lines of its tree in pre-order (found from the end, without
walking the rest), strings as their tail; so a redraw costs O(window), not O(view).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from callstream._build import COMPILED
from callstream.cli._escape import escape_label, escape_text
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

__all__ = (
    "RAW_LIMIT",
    "Symbols",
    "render_call",
    "render_live",
    "render_stream",
    "render_summary",
    "symbols_for",
)

RAW_LIMIT = 10_000
"""Raw text of an invalid call longer than this is shown as its head and tail."""


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


def _shorten(node: StringNode, limit: int | None, symbols: Symbols, *, max_lines: int = 8) -> str:
    """Keep the tail of a long string while it streams (``limit`` chars, ``max_lines``).

    Cost: O(limit) with a limit (the string is not joined), O(length) without.
    """
    if limit is None:
        return node.text
    tail = node.tail(limit)
    lines = tail.split("\n")
    if len(lines) > max_lines:
        tail = "\n".join(lines[-max_lines:])
    return tail if len(tail) == node.length else symbols.ellipsis + tail


def _raw_text(raw: str, symbols: Symbols) -> str:
    """The whole raw text, or its head and tail with a marker when over :data:`RAW_LIMIT`."""
    if len(raw) <= RAW_LIMIT:
        return raw
    head, tail = raw[: RAW_LIMIT * 3 // 5], raw[-(RAW_LIMIT * 2 // 5) :]
    hidden = len(raw) - len(head) - len(tail)
    return f"{head}{symbols.ellipsis}[{hidden:,} characters not shown]{symbols.ellipsis}{tail}"


def _value_label(
    key: str | None, node: Node, symbols: Symbols, limit: int | None, streaming: bool
) -> Text:
    label = Text()
    if key is not None:
        label.append(escape_label(key), style="bold blue")
        label.append(": ")
    if isinstance(node, StringNode):
        label.append('"' + escape_text(_shorten(node, limit, symbols)), style="green")
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
            children = [(str(position), item) for position, item in enumerate(current.items)]
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
    streaming = call.status == "streaming"
    tree = Tree(_header(call, symbols), guide_style="dim")
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
        error.append(escape_text(call.error or "invalid tool call"), style="red")
        tree.add(error)
        raw = call.raw
        if raw:
            tree.add(Text("raw: " + escape_text(_raw_text(raw, symbols)), style="dim"))
    return tree


def _header(call: CallView, symbols: Symbols) -> Text:
    header = Text()
    header.append(symbols.bullet + " ", style="bold")
    header.append(escape_label(call.name), style="bold cyan")
    if call.id:
        header.append("  " + escape_label(call.id), style="dim")
    if call.status == "done":
        header.append(f"  {symbols.done} valid", style="bold green")
    elif call.status == "invalid":
        header.append(f"  {symbols.invalid} invalid", style="bold red")
    else:
        header.append(f"  streaming{symbols.ellipsis}", style="yellow")
    return header


def _children_from_end(node: Node) -> Iterator[tuple[str | None, Node]]:
    """The members or items of ``node``, last first. O(1) to start (dicts are reversible)."""
    if isinstance(node, ObjectNode):
        return reversed(node.members.items())
    if isinstance(node, ArrayNode):
        items = node.items
        return ((str(position), items[position]) for position in range(len(items) - 1, -1, -1))
    return iter(())


_MAX_CONTEXT = 6  # enclosing values shown above a window that starts deep inside a tree


def _window(call: CallView, symbols: Symbols, limit: int | None, lines: int) -> Tree:
    """A call's header and the last ``lines`` values of its tree, in pre-order.

    The values are found from the end (reverse pre-order, an explicit stack), so the
    cost is O(lines + depth of the tree), whatever its size. The values enclosing the
    first one shown are added above it (at most :data:`_MAX_CONTEXT`), and a dim line
    says how many earlier values are not shown.
    """
    tree = Tree(_header(call, symbols), guide_style="dim")
    root = call.tree
    if root is None:
        return tree
    streaming = call.status == "streaming"
    base = tree
    if not isinstance(root, ObjectNode):
        base = tree.add(_value_label("arguments", root, symbols, limit, streaming))
    # frames: (node, key, parent frame id, iterator over its children from the end)
    frames: list[tuple[Node, str | None, int, Iterator[tuple[str | None, Node]]]] = [
        (root, None, -1, _children_from_end(root))
    ]
    shown: list[tuple[int, str | None, Node, int]] = []  # (id, key, node, parent id), reversed
    ids = [0]  # frame ids, parallel to frames
    next_id = 1
    while frames and len(shown) < lines:
        node, key, parent, children = frames[-1]
        child = next(children, None)
        if child is None:
            frames.pop()
            own = ids.pop()
            if frames:
                shown.append((own, key, node, parent))
            continue
        frames.append((child[1], child[0], ids[-1], _children_from_end(child[1])))
        ids.append(next_id)
        next_id += 1
    branches: dict[int, Tree] = {0: base}
    context = list(zip(ids[1:], frames[1:], strict=True))
    skipped = call.values - len(shown) - len(context)
    if len(context) > _MAX_CONTEXT:
        context = context[-_MAX_CONTEXT:]
    if skipped > 0:
        base.add(Text(f"{symbols.ellipsis} {skipped:,} earlier values", style="dim"))
    for own, (node, key, parent, _) in context:
        branch = branches.get(parent, base)
        branches[own] = branch.add(_value_label(key, node, symbols, limit, streaming))
    for own, key, node, parent in reversed(shown):
        branch = branches.get(parent, base)
        branches[own] = branch.add(_value_label(key, node, symbols, limit, streaming))
    return tree


def render_live(
    view: StreamView,
    symbols: Symbols,
    *,
    string_limit: int = 320,
    max_lines: int = 20,
    max_calls: int = 3,
) -> RenderableType:
    """The live window: the calls changed most recently, each cut to its last lines.

    Shows at most ``max_calls`` of the calls still streaming (the rest are counted), the
    lines shared between them (at least 3 each), and a status line. Cost: O(max_lines +
    max_calls + string_limit x lines), independent of the number of calls or values.
    """
    active = view.active
    if not active:
        if view.total:
            return Text(f"{view.total:,} calls so far{symbols.ellipsis}", style="dim")
        return Text(f"waiting for a tool call{symbols.ellipsis}", style="dim")
    calls = [call for _, call in zip(range(max_calls), reversed(active.values()), strict=False)]
    calls.reverse()
    per_call = max(3, max_lines // len(calls))
    parts: list[RenderableType] = []
    hidden = len(active) - len(calls)
    if hidden > 0:
        parts.append(Text(f"{symbols.ellipsis} {hidden:,} more calls streaming", style="dim"))
    parts.extend(_window(call, symbols, string_limit, per_call) for call in calls)
    done = view.total - len(active)
    if done:
        parts.append(Text(f"{done:,} calls ended so far", style="dim"))
    return Group(*parts)


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
    over the chunks fed, not the replay's pacing or the rendering, measured warm (the
    bundled examples were replayed first: :func:`~callstream.cli._replay.warm_up`).
    """
    calls = view.total
    dot = f" {symbols.dot} "
    line = Text()
    line.append(f"{calls} call{'s' if calls != 1 else ''}", style="bold")
    line.append(f"{dot}{view.valid} valid", style="green" if view.valid else "")
    line.append(f"{dot}{view.invalid} invalid", style="bold red" if view.invalid else "")
    reason = view.finish_reason
    line.append(f"{dot}finish reason: {escape_text(reason) if reason else 'none'}")
    line.append("\n")
    line.append(
        f"{stats.chunks:,} chunks{dot}{stats.bytes:,} bytes{dot}"
        f"{stats.seconds * 1e3:.2f} ms in callstream "
        f"({stats.per_chunk_us:.1f} {symbols.micro}s per chunk, "
        f"{'compiled' if COMPILED else 'pure Python'})",
        style="dim",
    )
    return line
