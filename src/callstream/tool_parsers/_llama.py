"""The Llama 3 and Llama 4 chat templates' end and header tokens, which the families that
read Llama's calls (:mod:`~callstream.tool_parsers.llama`,
:mod:`~callstream.tool_parsers.pythonic`) drop wherever a server leaves them: stated once
here, since no family module imports another.
"""

from __future__ import annotations

from typing import Final

__all__ = ("LLAMA3_TOKENS", "LLAMA4_TOKENS")

LLAMA3_TOKENS: Final = (
    "<|eom_id|>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|begin_of_text|>",
    "<|end_of_text|>",
)
LLAMA4_TOKENS: Final = (
    "<|eom|>",
    "<|eot|>",
    "<|header_start|>",
    "<|header_end|>",
    "<|begin_of_text|>",
    "<|end_of_text|>",
)
