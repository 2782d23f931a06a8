"""Structured output, sans I/O: JSON the model writes as text, read into a partial object
of a schema while it streams, then validated once (:class:`StructuredParser`).

The streams over providers are in :mod:`callstream.structured_output`; the rules of the partial
object are in :mod:`callstream.partial._builder`, how a schema is read in
:mod:`callstream.partial._shapes`.
"""

from __future__ import annotations

from callstream.partial._builder import (
    MAX_VALIDATION_DEPTH,
    VALIDATION_WORK_FACTOR,
    VALIDATION_WORK_SLACK,
)
from callstream.partial._document import EXTRACT_MODES, Extract, StructuredParser
from callstream.partial._shapes import partial_class

__all__ = (
    "EXTRACT_MODES",
    "MAX_VALIDATION_DEPTH",
    "VALIDATION_WORK_FACTOR",
    "VALIDATION_WORK_SLACK",
    "Extract",
    "StructuredParser",
    "partial_class",
)
