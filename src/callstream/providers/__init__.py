"""Provider formats: pure translators from provider payloads to assembler signals."""

from __future__ import annotations
