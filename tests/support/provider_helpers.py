"""Shared pieces of the provider translator tests: running a translator over payloads,
assembling its signals, the recorded streams and their expected calls, and a builder for
junk payloads made of the keys and values of one wire format."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from hypothesis import strategies as st

from callstream import ToolCallAssembler
from callstream._assembly.types import CallChunk, Signal, StreamEnd
from tests.support.corpus import RECORDED_STREAMS
from tests.support.strategies import splits

RECORDED = RECORDED_STREAMS


class Translator(Protocol):
    def translate(self, payload: Any) -> list[Signal]: ...


def chunk(
    index: int | None, *, name: str | None = None, id: str | None = None, args: Any = None
) -> CallChunk:
    """A call fragment as the translators emit it."""
    return CallChunk(index=index, id=id, name=name, args=args)


def translate_all(translator: Translator, payloads: Iterable[Any]) -> list[Signal]:
    """The signals ``translator`` gives for ``payloads``, in order."""
    out: list[Signal] = []
    for payload in payloads:
        out.extend(translator.translate(payload))
    return out


def texts(signals: list[Signal]) -> dict[int | None, str]:
    """The argument text streamed per index."""
    out: dict[int | None, str] = {}
    for signal in signals:
        if isinstance(signal, CallChunk) and isinstance(signal.args, str):
            out[signal.index] = out.get(signal.index, "") + signal.args
    return out


def assemble(signals: list[Signal]) -> ToolCallAssembler:
    """An assembler that applied ``signals`` and was finished if they did not finish it."""
    assembler = ToolCallAssembler()
    for signal in signals:
        assembler.apply(signal)
    if not assembler.finished:
        assembler.finish()
    return assembler


# --- recorded streams -------------------------------------------------------------------


def recorded(prefix: str) -> list[str]:
    """The names of the recorded streams starting with ``prefix`` (none when absent)."""
    if not RECORDED.is_dir():
        return []
    return sorted(p.stem for p in RECORDED.glob(f"{prefix}*.jsonl"))


def load(name: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """The payloads of recorded stream ``name`` and its expected tool calls."""
    lines = (RECORDED / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    expected = json.loads((RECORDED / "expected" / f"{name}.json").read_text(encoding="utf-8"))
    return [json.loads(line) for line in lines if line.strip()], expected["tool_calls"]


def check_expected(assembler: ToolCallAssembler, calls: list[dict[str, Any]]) -> None:
    """The valid and invalid calls of ``assembler`` are exactly the expected ones."""
    assert [(c["name"], c["id"], c["args"]) for c in assembler.tool_calls] == [
        (c["name"], c["id"], c["args"]) for c in calls if c["valid"]
    ]
    assert [(c["name"], c["id"], c["args"]) for c in assembler.invalid_tool_calls] == [
        (c["name"], c["id"], c["raw"]) for c in calls if not c["valid"]
    ]


def check_recorded(
    events: list[Any],
    calls: list[dict[str, Any]],
    detect: Callable[[Any], bool],
    run: Callable[[list[Any]], list[Signal]],
) -> None:
    """A recorded stream: its first payload is detected, it ends once, and it assembles to
    exactly the expected calls."""
    assert detect(events[0])
    signals = run(events)
    assert sum(isinstance(s, StreamEnd) for s in signals) == 1
    check_expected(assemble(signals), calls)


def resplit_deltas(
    events: list[Any],
    draw: Any,
    piece: Callable[[Any], tuple[int, str] | None],
    delta: Callable[[int, str], Any],
) -> list[Any]:
    """The same stream with each call's argument text cut at new random points.

    ``piece`` reads an argument delta as (index, text), None for any other event; ``delta``
    builds one. The text of an index is joined and its new pieces stand where its first
    delta stood; its other deltas are dropped, every other event is kept in place."""
    text: dict[int, str] = {}
    for event in events:
        found = piece(event)
        if found is not None:
            text[found[0]] = text.get(found[0], "") + found[1]
    out: list[Any] = []
    for event in events:
        found = piece(event)
        if found is None:
            out.append(event)
        elif found[0] in text:
            index = found[0]
            out.extend(delta(index, part) for part in draw(splits(text.pop(index))))
    return out


# --- odd payloads -----------------------------------------------------------------------


def odd_payloads(
    keys: Sequence[str],
    values: Sequence[str],
    *,
    lowest: int = -2,
    text_size: int = 4,
    max_leaves: int = 20,
) -> st.SearchStrategy[Any]:
    """Junk payloads: nested lists and dicts keyed by ``keys`` of a wire format, with leaves
    of every JSON kind, NaN, integers from ``lowest`` to 3, and the format's own ``values``."""
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(lowest, 3),
        st.floats(allow_nan=True),
        st.sampled_from(list(values)),
        st.text(max_size=text_size),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(list(keys)), inner, max_size=5),
        ),
        max_leaves=max_leaves,
    )


def check_never_raises(translator: Translator, payloads: list[Any]) -> None:
    """``translator`` answers every payload, junk or not, with a list of signals."""
    for payload in payloads:
        assert isinstance(translator.translate(payload), list)
