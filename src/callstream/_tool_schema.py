"""JSON schemas of tool arguments: pydantic's output tidied, and the strict-mode shape.

Used by :mod:`callstream.tools`: :class:`NoFieldTitles` leaves out the titles pydantic
derives from field names, :func:`resolve_root_ref` inlines a recursive model's root,
:func:`arguments_schema` keeps what belongs to the arguments object, and
:func:`strict_schema` rewrites a schema for OpenAI's and Anthropic's strict modes.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic.json_schema import GenerateJsonSchema

__all__ = ("NoFieldTitles", "arguments_schema", "resolve_root_ref", "strict_schema")


class NoFieldTitles(GenerateJsonSchema):
    """JSON-schema generator that leaves out titles pydantic derives from field names."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        """Never: a title set explicitly is still written (pydantic adds it on its own)."""
        return False


def resolve_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """A recursive model's schema is ``{"$ref": ..., "$defs": ...}``: inline the root."""
    ref, defs = schema.get("$ref"), schema.get("$defs")
    if isinstance(ref, str) and isinstance(defs, dict):
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            return {**target, "$defs": defs}
    return schema


def arguments_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments schema: the root's title and description belong to the tool."""
    parameters = {k: v for k, v in schema.items() if k not in ("title", "description")}
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    return parameters


_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions")
_SCHEMA_KEYWORDS = (
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "contains",
)


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in the shape OpenAI's and Anthropic's strict modes expect.

    Every object with properties is closed (``additionalProperties: false``) and lists
    every property as required (optional values stay nullable through their own type);
    ``"default": null`` is dropped (strict mode always sends a value); a ``$ref`` with
    sibling keywords (pydantic writes ``{"$ref": ..., "default": ...}``), which strict mode
    rejects, is replaced by the referenced definition merged with the siblings (a
    definition referring to itself keeps its plain ``$ref``). Only schema positions are
    visited (``properties``, ``$defs``, ``items``, ``anyOf``, ...), never data such as
    ``default`` or ``enum``. Cost: O(size of the schema after inlining), iterative.
    """
    result = copy.deepcopy(schema)
    defs = result.get("$defs")
    definitions: dict[str, Any] = defs if isinstance(defs, dict) else {}
    # (schema node, names of the definitions inlined on the way to it)
    stack: list[tuple[Any, frozenset[str]]] = [(result, frozenset())]
    while stack:
        node, inlined = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and len(node) > 1:
            inlined = _inline_ref(node, ref, definitions, inlined)
        if "default" in node and node["default"] is None:
            del node["default"]
        properties = node.get("properties")
        if isinstance(properties, dict):
            node["required"] = list(properties)
            if node.get("additionalProperties", True) is True:
                node["additionalProperties"] = False
        stack.extend((child, inlined) for child in _subschemas(node))
    return result


def _inline_ref(
    node: dict[str, Any], ref: str, definitions: dict[str, Any], inlined: frozenset[str]
) -> frozenset[str]:
    """Replace ``node`` (a ``$ref`` with siblings) by the definition merged with them.

    A definition already inlined on the way here (a recursive one), or one that is not
    there, leaves a plain ``$ref``. Returns the inlined names for the node's children.
    """
    target_name = ref.removeprefix("#/$defs/")
    target = definitions.get(target_name)
    if target_name in inlined or not isinstance(target, dict):
        for key in [k for k in node if k != "$ref"]:
            del node[key]
        return inlined
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    node.clear()
    node.update(copy.deepcopy(target))
    node.update(siblings)
    return inlined | {target_name}


def _subschemas(node: dict[str, Any]) -> list[Any]:
    """The values at schema positions of ``node`` (any type; the caller skips non-dicts)."""
    children: list[Any] = []
    for key in _SCHEMA_MAP_KEYWORDS:
        members = node.get(key)
        if isinstance(members, dict):
            children.extend(members.values())
    for key in _SCHEMA_KEYWORDS:
        child = node.get(key)
        if isinstance(child, list):
            children.extend(child)
        else:
            children.append(child)
    return children
