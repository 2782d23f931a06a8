"""Making text from a stream safe to print: terminal controls and lone surrogates escaped.

Model output and provider payloads reach the terminal through the command. Three kinds of
characters must never be written raw:

- C0 / C1 controls (``\\x1b``, CSI ``\\x9b``...) and DEL: they restyle, move or corrupt the
  terminal;
- bidirectional overrides, embeddings and isolates (U+202A-U+202E, U+2066-U+2069, and the
  marks U+200E, U+200F, U+061C): they reorder what is shown ("Trojan source");
- lone surrogates (U+D800-U+DFFF): they cannot be encoded as UTF-8, so writing them
  raises ``UnicodeEncodeError`` (or emits invalid bytes).

:func:`escape_text` shows them as visible escapes (``\\x9b``, ``\\u202e``, ``\\udc80``) for
the rich display. JSON output is written by the one JSON writer, whose output rule
(:mod:`callstream._json.dump`) already writes a lone surrogate as U+FFFD; on its text,
:func:`escape_json` rewrites the C1 controls, DEL and bidi characters as ``\\uXXXX``
escapes, which keeps the text valid JSON that decodes to the same value. Cost: one regex
pass, O(length of the text).
"""

from __future__ import annotations

import re

__all__ = ("escape_json", "escape_label", "escape_text")

_UNSAFE = "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
_TEXT_UNSAFE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_UNSAFE}\\ud800-\\udfff]")
_LABEL_UNSAFE = re.compile(f"[\\x00-\\x1f{_UNSAFE}\\ud800-\\udfff]")
_JSON_UNSAFE = re.compile(f"[{_UNSAFE}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_text(text: str) -> str:
    """Show controls, bidi formatting characters and lone surrogates as escapes.

    Newlines and tabs are kept. ``"a\\x1b[2J"`` becomes ``"a\\\\x1b[2J"`` (a backslash, an
    ``x`` and two hex digits, printed as is).
    """
    return _TEXT_UNSAFE.sub(_visible, text)


def escape_label(text: str) -> str:
    """:func:`escape_text` for text shown on one line (a key, a tool name, a call id):
    newlines and tabs are escaped too (``\\x0a``, ``\\x09``), so a label never breaks the
    tree it stands in."""
    return _LABEL_UNSAFE.sub(_visible, text)


def escape_json(text: str) -> str:
    """Escape the C1 controls, DEL and bidi characters of JSON ``text`` (made by the one
    JSON writer, so without surrogates) as ``\\uXXXX``.

    In JSON these characters can only occur inside strings (C0 controls are escaped by
    the writer itself), where ``\\uXXXX`` stands for the same character, so the result
    decodes to the same value.
    """
    return _JSON_UNSAFE.sub(_json_escape, text)
