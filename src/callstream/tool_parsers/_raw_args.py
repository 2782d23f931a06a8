"""The arguments of a call written as keys and raw values (XML-ish families), as they stream.

GLM (``<arg_key>city</arg_key><arg_value>Paris</arg_value>``) and Kimi K3
(``<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>``)
write each argument as a key and its value's raw text. :class:`RawArgs` turns them into
the call's JSON argument text with :mod:`callstream.tool_parsers._values`: a value whose
type is a string (by the tool's schema, else by the type the model declared) streams as
a growing JSON string; any other value is typed (:func:`~._values.type_value`) and
written whole when it ends.

Cost: linear in the values' text; memory: the raw text of the value under way when it
is not a string (a string streams and is not kept), at most the assembler's default
``max_argument_chars`` (past it the call is invalid).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from callstream._assembly.options import DEFAULT_MAX_ARGUMENT_CHARS
from callstream.tool_parsers._values import ArgsWriter, param_schema, schema_types, type_value

if TYPE_CHECKING:
    from callstream.tool_parsers._base import CallReader

__all__ = ("RawArgs",)


class RawArgs:
    """The JSON arguments of one call, fed key by key and value piece by piece.

    Args:
        reader: the call's reader (the argument text goes out through its ``args``).
    """

    __slots__ = ("_key", "_parts", "_size", "_reader", "_schema", "_streams", "_writer", "open")

    def __init__(self, reader: CallReader) -> None:
        self._reader = reader
        self._writer = ArgsWriter()
        self._parts: list[str] = []
        self._key = ""
        self._size = 0  # of the value kept: bounded by the assembler's max_argument_chars
        self._schema: Mapping[str, Any] | None = None
        self._streams = False
        self.open = False  # a value is under way

    def begin(self, key: str, declared: str | None = None) -> None:
        """A value for ``key`` starts; ``declared``: the JSON type the model wrote for it
        (used when the tool's schema gives none)."""
        reader = self._reader
        schema = param_schema(reader.parser.schemas, reader.name, key)
        if not schema_types(schema) and declared:
            schema = {"type": declared}
        self._schema = schema
        self._streams = schema_types(schema) == ("string",)
        self._parts = []
        self._size = 0
        self.open = True
        if self._streams:
            reader.args(self._writer.key(key) + self._writer.string_start())
        else:
            self._key = key  # written with the value

    def part(self, text: str) -> None:
        """Raw text of the value under way."""
        if not text or not self.open:
            return
        if self._streams:
            self._reader.args(self._writer.string_part(text))
        else:
            self._parts.append(text)
            self._size += len(text)
            if self._size > DEFAULT_MAX_ARGUMENT_CHARS:
                self.open = False
                self._parts = []
                self._reader.fail(
                    f"a value of the call exceeds {DEFAULT_MAX_ARGUMENT_CHARS} characters"
                )

    def finish(self) -> None:
        """The value under way ended."""
        if not self.open:
            return
        self.open = False
        writer = self._writer
        if self._streams:
            self._reader.args(writer.string_end())
            return
        value = type_value("".join(self._parts), self._schema)
        self._parts = []
        self._reader.args(writer.key(self._key) + writer.value(value))

    def close(self) -> None:
        """The arguments are complete (a value under way ends first)."""
        self.finish()
        self._reader.args(self._writer.close())
