"""Gemini ``partialArgs`` leaves out of order: arrays are rebuilt sparse, so a leaf far
past an array's end costs no memory (it used to allocate up to ``MAX_INDEX_GAP`` holes
per leaf: ~70 KB of input took 1.6 GB). The cost figures (n vs 2n) are in
``tests/growth/test_growth_providers.py``; here: the same result whatever the grouping of
the leaves into payloads, and a memory bound far below the old hole cost."""

from __future__ import annotations

import tracemalloc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from callstream._assembly.types import CallEnd, CallFailure
from callstream.providers.gemini import MAX_INDEX_GAP, GeminiTranslator
from tests.providers.gemini.test_providers_gemini import (
    TERMINATOR,
    final_args,
    leaves,
    n,
    opener,
    response,
    s,
)
from tests.support.provider_helpers import translate_all


def stream(leaf_list: list[dict[str, Any]], groups: list[int]) -> list[Any]:
    """An opener, the leaves cut into payloads of the given sizes, then a terminator."""
    payloads = [response(opener("f"))]
    start = 0
    for size in groups:
        if start >= len(leaf_list):
            break
        payloads.append(response(leaves(*leaf_list[start : start + size])))
        start += size
    if start < len(leaf_list):
        payloads.append(response(leaves(*leaf_list[start:])))
    payloads.append(response(TERMINATOR))
    return payloads


def out_of_order(count: int, gap: int) -> list[dict[str, Any]]:
    """Leaves writing positions 0, gap, 2*gap ... in reverse, then every other position."""
    far = [n(f"$.a[{i * gap}]", i) for i in reversed(range(count))]
    rest = [
        s(f"$.a[{position}]", "x") for position in range(count * gap - gap + 1) if position % gap
    ]
    return far + rest


def expected(count: int, gap: int) -> list[Any]:
    return [
        position // gap if position % gap == 0 else "x" for position in range(count * gap - gap + 1)
    ]


def test_far_out_of_order_positions_filled_later_rebuild_the_array() -> None:
    leaf_list = out_of_order(5, 40)
    for groups in ([len(leaf_list)], [1] * len(leaf_list), [3, 7, 1, 50]):
        signals = translate_all(GeminiTranslator(), stream(leaf_list, groups))
        assert signals[-1] == CallEnd(index=0, args={"a": expected(5, 40)})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), max_size=40), st.integers(1, 6), st.integers(2, 30))
def test_any_grouping_of_the_leaves_gives_the_same_value(
    groups: list[int], count: int, gap: int
) -> None:
    signals = translate_all(GeminiTranslator(), stream(out_of_order(count, gap), groups))
    assert final_args(signals) == {0: {"a": expected(count, gap)}}


def test_positions_never_filled_fail_at_the_lowest_hole() -> None:
    leaf_list = [n("$.a[5]", 1), n("$.a[0]", 0), n("$.a[1]", 0)]
    signals = translate_all(GeminiTranslator(), stream(leaf_list, [1, 1, 1]))
    assert signals[-1] == CallFailure(
        error="streamed arguments: array position 2 has no value", index=0
    )


def test_leaves_jumping_far_past_the_end_take_memory_in_proportion_to_the_input() -> None:
    # 300 leaves, each MAX_INDEX_GAP past the end of the array: before the fix this
    # allocated 3 million holes (24 MB of list slots); now one dict entry per leaf.
    leaf_list = [n(f"$.a[{(i + 1) * MAX_INDEX_GAP}]", i) for i in range(300)]
    payloads = stream(leaf_list, [10] * 30)
    translator = GeminiTranslator()
    tracemalloc.start()
    try:
        signals = translate_all(translator, payloads)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert signals[-1] == CallFailure(
        error="streamed arguments: array position 0 has no value", index=0
    )
    assert peak < 2_000_000, peak
