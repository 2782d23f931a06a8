"""Values written as raw text between markers (XML-ish families), typed and written as JSON.

Families such as Qwen3-Coder (``<parameter=city>\\nParis\\n</parameter>``), GLM, MiniMax,
Seed-OSS, DSML, Step3 and Kimi K3 write each argument's value as raw text. This module
gives them one way to turn it into the JSON arguments object:

- :func:`type_value`: the value the raw text stands for, by the tool's JSON schema for
  that parameter (``tools=``), or without one by :data:`NO_SCHEMA_RULE`;
- :class:`ArgsWriter`: the arguments object's JSON text, written as it streams: a key,
  then a string value as a growing JSON string (escaped piece by piece, so previews show
  it grow), or another value whole when it closes.

Every JSON text written goes through :func:`callstream._json.dump.dumps_bounded`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

from callstream._json.dump import dumps_bounded

__all__ = ("NO_SCHEMA_RULE", "ArgsWriter", "json_string_part", "param_schema", "type_value")

NO_SCHEMA_RULE: Final = (
    "without a schema, a raw value that is a whole JSON number, object, array, true,"
    " false or null is that value; any other text is a string"
)
"""The rule for a value whose parameter has no schema (documented in the open-weight
models guide)."""


def param_schema(
    schemas: Mapping[str, Mapping[str, Any]] | None, tool: str | None, param: str
) -> Mapping[str, Any] | None:
    """The JSON schema of parameter ``param`` of ``tool`` (None: no schema known)."""
    if schemas is None or tool is None:
        return None
    parameters = schemas.get(tool)
    if not isinstance(parameters, Mapping):
        return None
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return None
    found = properties.get(param)
    return found if isinstance(found, Mapping) else None


def schema_types(schema: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The JSON types a schema allows, in its order (``type``, a list of types, or the
    branches of ``anyOf`` / ``oneOf``); empty when it names none."""
    if schema is None:
        return ()
    kind = schema.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list):
        return tuple(k for k in kind if isinstance(k, str))
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches:
                if isinstance(branch, Mapping):
                    out.extend(schema_types(branch))
    if not out and "enum" in schema:
        values = schema["enum"]
        if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            return ("string",)
    if not out and "properties" in schema:
        return ("object",)
    return tuple(out)


def _json_value(raw: str) -> tuple[bool, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        return False, None
    if isinstance(value, float) and not math.isfinite(value):
        return False, None
    return True, value


def _is_integer(value: Any) -> bool:
    return type(value) is int


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _is_array(value: Any) -> bool:
    return isinstance(value, list)


_JSON_KINDS: Final = {
    "integer": _is_integer,
    "number": _is_number,
    "object": _is_object,
    "array": _is_array,
}


def _as(kind: str, raw: str) -> tuple[bool, Any]:
    """``raw`` read as a value of JSON type ``kind``: (whether it is one, the value)."""
    text = raw.strip()
    if kind == "string":
        return True, raw
    if kind == "null":
        return (True, None) if text in ("null", "None") else (False, None)
    if kind == "boolean":
        lowered = text.lower()
        return (True, lowered == "true") if lowered in ("true", "false") else (False, None)
    test = _JSON_KINDS.get(kind)
    ok, value = _json_value(text)
    if kind == "integer" and ok and isinstance(value, float) and value.is_integer():
        value = int(value)
    if test is None or not ok or not test(value):
        return False, None
    return True, value


def type_value(raw: str, schema: Mapping[str, Any] | None) -> Any:
    """The value raw text stands for: the first type the schema allows that reads it
    (a string last: any text is one); with no type known, :data:`NO_SCHEMA_RULE`.
    Never raises. Cost: O(len(raw))."""
    kinds = schema_types(schema)
    if kinds:
        for kind in sorted(kinds, key=lambda k: k == "string"):
            ok, value = _as(kind, raw)
            if ok:
                return value
        return raw
    ok, value = _json_value(raw.strip())
    return value if ok and not isinstance(value, str) else raw


def json_string_part(text: str) -> str:
    """``text`` escaped as the inside of a JSON string (no quotes): a piece of a string
    value that streams. Cost: O(len(text))."""
    return dumps_bounded(text, max_depth=None)[1:-1]


class ArgsWriter:
    """The JSON text of an arguments object, written a part at a time.

    Each method returns the text to emit (a fragment of the arguments): :meth:`key`
    (the comma when needed, the key and the colon), :meth:`value` (a whole value),
    :meth:`string_start` / :meth:`string_part` / :meth:`string_end` (a string value as
    it streams), :meth:`close` (the object's end; ``{}`` when no key came).
    """

    __slots__ = ("_count",)

    def __init__(self) -> None:
        self._count = 0

    def key(self, name: str) -> str:
        """The text before a value: ``{"name": `` (or ``, "name": ``)."""
        lead = "{" if self._count == 0 else ", "
        self._count += 1
        return f"{lead}{dumps_bounded(name, max_depth=None)}: "

    def value(self, value: Any) -> str:
        """A whole value's JSON text."""
        return dumps_bounded(value, max_depth=None, ensure_ascii=False)

    def string_start(self) -> str:
        return '"'

    def string_part(self, text: str) -> str:
        return json_string_part(text)

    def string_end(self) -> str:
        return '"'

    def close(self) -> str:
        """The object's end."""
        return "{}" if self._count == 0 else "}"
