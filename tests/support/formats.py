"""The format lists tests enumerate: one place that says which formats carry tool calls.

``CALL_FORMATS`` is every format of :data:`callstream.providers.FORMATS` that carries
tool calls of its own, which ``callstream.testing`` writes. The raw-text formats
(:data:`callstream.providers.RAW_TEXT_FORMATS`: ``text``, ``openai-completions``,
``ollama-generate``, ``llamacpp-completion``) are left out on purpose: raw-text formats
carry calls only through a tool parser; writers come with issue 34 item 7. Their own
tests are tests/providers/test_text_sources.py.
"""

from __future__ import annotations

from callstream.providers import FORMATS, RAW_TEXT_FORMATS

RAW_TEXT_REASON = (
    "raw-text formats carry calls only through a tool parser; writers come with issue 34 item 7"
)

CALL_FORMATS: tuple[str, ...] = tuple(name for name in FORMATS if name not in RAW_TEXT_FORMATS)
"""The formats with tool calls of their own (written by ``callstream.testing``)."""

__all__ = ("CALL_FORMATS", "RAW_TEXT_REASON")
