"""Growth checks for tool_messages(): the follow-up messages cost O(total size of results).

Each check builds the results of one turn at size n and 2n (many small results, or one
result with a large output) and times ``tool_messages`` in a format, printing the ratio;
linear cost gives about 2, quadratic 4. The script exits non-zero if a ratio is over 2.3
(harness: ``_growth.py``).

    python benchmarks/bench_growth_messages.py            # full sizes
    python benchmarks/bench_growth_messages.py --quick    # smaller sizes (smoke run)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from _growth import Check, main
from callstream.runner._messages import tool_messages
from callstream.runner._tool_result import ToolResult


def many_results(n: int) -> list[ToolResult]:
    """n results, a third each done with a dict, done with text, and failed."""
    out = []
    for i in range(n):
        kind = i % 3
        out.append(
            ToolResult(
                index=i,
                id=f"call_{i}",
                name="get_weather",
                args={"city": f"Paris {i}"},
                status="error" if kind == 2 else "done",
                output={"temp": i, "city": f"Paris {i}"}
                if kind == 0
                else f"sunny {i}"
                if kind == 1
                else None,
                error="ValueError: no such city" if kind == 2 else None,
            )
        )
    return out


def wide_output(n: int) -> list[ToolResult]:
    """One result whose output is an object of n keys, each a short list."""
    output = {f"key_{i}": [i, f"v{i}"] for i in range(n)}
    return [ToolResult(index=0, id="c", name="f", args={}, status="done", output=output)]


def long_text(n: int) -> list[ToolResult]:
    """One result whose output is a text of n characters."""
    text = "é☀ab" * (n // 4)
    return [ToolResult(index=0, id="c", name="f", args={}, status="done", output=text)]


def check(name: str, build: Callable[[int], Any], n: int, fmt: str) -> Check:
    return Check(f"{name} ({fmt})", "time", build, n, run=lambda r: tool_messages(r, fmt))  # type: ignore[arg-type]


def checks(quick: bool) -> list[Check]:
    """The checks (``quick``: the sizes divided by 4)."""
    k = 4 if quick else 1
    out = [
        check("results", many_results, 20_000 // k, fmt)
        for fmt in ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama")
    ]
    out += [check("output keys", wide_output, 40_000 // k, fmt) for fmt in ("gemini", "bedrock")]
    out += [check("output keys", wide_output, 40_000 // k, "openai")]
    out += [check("output chars, str sent as is", long_text, 4_000_000 // k, "anthropic")]
    return out


if __name__ == "__main__":
    raise SystemExit(main(checks, sys.argv[1:], __doc__))
