"""Shapes: how the JSON value at one place of a schema is previewed and validated.

A :class:`Shape` is read once from a type (a pydantic model, ``list[T]``, ``dict[str, T]``,
``Optional``, a discriminated union, a ``TypedDict``, a scalar type) and tells the partial
builder (:mod:`callstream.partial._builder`) three things about the value at that place:

- what an *open* value looks like while it streams (``kind``): a model is shown as an
  instance of its partial class (a subclass of the model whose fields are all ``None``
  until their value arrives), a list as a list, a mapping or a ``TypedDict`` as a dict,
  a plain ``str`` as its text so far; every other kind (a ``Literal``, an enum, a number,
  a ``datetime``, a union without a discriminator, a set, a dataclass ...) is shown only
  once it is complete and valid;
- the shape of each child (a model's fields by their JSON key, a list's items, a
  mapping's values, the member a discriminator value selects);
- how a *closed* value is validated: with a ``TypeAdapter`` of the real type (the
  field's annotation with its constraints), in JSON mode, as the final validation does.

Shapes are made lazily and cached per type, so recursive models cost one shape each and
a shape is never built for a branch the document does not reach. Cost: reading a type is
O(its fields) once; asking a shape for a child is O(1).
"""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from typing import Any, Final, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from typing_extensions import NotRequired, Required, is_typeddict

from callstream._json.dump import dumps_bounded

__all__ = ("ANY", "Shape", "adapter_shape", "shape_of")

MAX_VALIDATION_DEPTH: Final = 200
"""A closed value nested deeper than this is not handed to pydantic (whose JSON reader
refuses such nesting) while streaming; the final validation says what is wrong."""

_SCALARS: Final = (str, int, float, bool)
_EXACT: Final = {str: (str,), int: (int,), bool: (bool,)}

ANY_KIND: Final = "any"  # plain JSON: shown as the parser shows it, never validated
MODEL: Final = "model"  # a pydantic model: shown as its partial class
LIST: Final = "list"  # an array of one item shape
DICT: Final = "dict"  # an object of one value shape (a mapping), or keyed shapes (TypedDict)
TEXT: Final = "text"  # a plain str: its text so far is shown
SCALAR: Final = "scalar"  # anything else: shown only once closed and valid
UNION: Final = "union"  # a discriminated union of models: a member once the tag is known


class Shape:
    """How the value at one place of a schema is previewed and validated (see the module).

    Attributes:
        kind: one of ``any``, ``model``, ``list``, ``dict``, ``text``, ``scalar``, ``union``.
        annotation: the type (with its constraints, as ``Annotated``) a closed value is
            validated against; None for ``any``.
        partial_class: for ``model``: the model's partial class.
        discriminator: for ``union``: the JSON key of the tag.
    """

    __slots__ = (
        "_adapter",
        "_config",
        "_fields",
        "_item",
        "_members",
        "_source",
        "annotation",
        "discriminator",
        "exact",
        "kind",
        "partial_class",
        "plain",
    )

    def __init__(self, kind: str, annotation: Any, config: ConfigDict | None = None) -> None:
        self.kind = kind
        self.annotation = annotation
        self._config = config
        self._adapter: TypeAdapter[Any] | None = None
        self._fields: dict[str, tuple[str, Shape]] | None = None  # JSON key -> (name, shape)
        self._item: Shape | None = None
        self._members: dict[Any, Shape] | None = None
        self._source: Any = None  # what the children are read from, on first use
        self.partial_class: type[BaseModel] | None = None
        self.discriminator: str | None = None
        self.plain = False
        self.exact: tuple[type, ...] = ()
        """JSON values of these exact types are their own validated value (a bare
        ``str``, ``int`` or ``bool`` annotation, and ``None`` under ``Optional``)."""
        """For ``list`` and ``dict``: no constraint of its own, so a closed one whose
        children all validated is valid as it is (no second pass over it)."""

    # --- validation of a closed value ---------------------------------------------------

    @property
    def adapter(self) -> TypeAdapter[Any]:
        """The ``TypeAdapter`` of the real type (made on first use, then kept)."""
        adapter = self._adapter
        if adapter is None:
            annotation = self.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                adapter = TypeAdapter(annotation)
            else:
                adapter = TypeAdapter(annotation, config=self._config)
            self._adapter = adapter
        return adapter

    def validate_value(self, value: Any) -> Any:
        """Validate a closed JSON value (plain data) with the real type, in JSON mode;
        a value of an :attr:`exact` type is returned as it is (what pydantic returns).

        Raises:
            pydantic.ValidationError: the value does not fit (or a validator raised).
            ValueError, TypeError, JSONLimitError: it cannot be written as JSON for
                pydantic (too deep).
        """
        if type(value) in self.exact:
            return value
        if value is None or type(value) in _SCALARS:
            return self.validate(json.dumps(value, ensure_ascii=False))
        return self.validate(dumps_bounded(value, max_depth=MAX_VALIDATION_DEPTH))

    def validate(self, text: str) -> Any:
        """Validate the JSON ``text`` of a closed value with the real type (JSON mode).

        Raises:
            pydantic.ValidationError: the value does not fit (or a validator raised).
        """
        return self.adapter.validate_json(text)

    # --- children -----------------------------------------------------------------------

    def field(self, key: str) -> tuple[str, Shape] | None:
        """For ``model`` (and a keyed ``dict``): the attribute name and shape of JSON key
        ``key``, None for a key the type does not have."""
        fields = self._fields
        if fields is None:
            fields = self._fields = _fields_of(self._source, self._config)
        return fields.get(key)

    @property
    def keyed(self) -> bool:
        """Whether this ``dict`` has a shape per key (a ``TypedDict``)."""
        return self._source is not None and self.kind == DICT

    def item(self, key: str | int) -> Shape:
        """The shape of a child (a list's item, a mapping's value, a model's field)."""
        if self.kind == MODEL or self.keyed:
            found = self.field(key) if isinstance(key, str) else None
            return found[1] if found is not None else IGNORED
        item = self._item
        return item if item is not None else ANY

    def member(self, tag: Any) -> Shape | None:
        """For ``union``: the member the tag value selects, None if none does."""
        members = self._members
        if members is None:
            members = self._members = _members_of(self._source, self.discriminator)
        if isinstance(tag, (str, int, bool)) or tag is None:
            return members.get(tag)
        return None


ANY: Final = Shape(ANY_KIND, None)
"""Plain JSON (no schema, ``Any``, a JSON-schema dict)."""

IGNORED: Final = Shape(ANY_KIND, None)
"""A key the model does not have: not shown in the partial object (the final validation
decides whether it is allowed)."""

MAX_CACHED_SHAPES: Final = 4096
"""Shapes kept for reuse (past it the cache starts again: a program that makes model
classes at run time does not grow it without bound)."""

_CACHE: dict[Any, Shape] = {}
_PARTIAL_CLASSES: dict[type[BaseModel], type[BaseModel]] = {}


def shape_of(annotation: Any, config: ConfigDict | None = None) -> Shape:
    """The shape of a type (cached per type and config). ``None`` and ``Any`` give
    :data:`ANY`. Cost: O(1) after the first call for a type; the first is O(its own
    parts), children are read when first asked for."""
    if annotation is None or annotation is Any or annotation is object:
        return ANY
    try:
        key = (annotation, _config_key(config))
        hash(key)
    except TypeError:  # an unhashable annotation (rare metadata): not cached
        return _read(annotation, config)
    shape = _CACHE.get(key)
    if shape is None:
        if len(_CACHE) >= MAX_CACHED_SHAPES:
            _CACHE.clear()  # types made at run time, one per request: never unbounded
        shape = _CACHE[key] = _read(annotation, config)
    return shape


def adapter_shape(adapter: TypeAdapter[Any]) -> Shape:
    """The shape of the type a ``TypeAdapter`` validates (what structured output and the
    pydantic tools parser preview with). Cost: as :func:`shape_of`."""
    return shape_of(getattr(adapter, "_type", None))


def _config_key(config: ConfigDict | None) -> Any:
    return None if not config else tuple(sorted(config.items(), key=lambda item: item[0]))


def _read(  # noqa: PLR0911, PLR0912 - one branch per kind of type
    annotation: Any, config: ConfigDict | None
) -> Shape:
    """Read one type into a shape (see the module docstring)."""
    bare, metadata = _unwrap(annotation)
    discriminator = next(
        (
            meta.discriminator
            for meta in metadata
            if isinstance(meta, FieldInfo) and isinstance(meta.discriminator, str)
        ),
        None,
    )
    origin = get_origin(bare)
    if origin is Union or origin is types.UnionType:
        options = [arg for arg in get_args(bare) if arg is not type(None)]
        if len(options) == 1:  # Optional[T]: previewed as T, validated as it is written
            return _with_annotation(shape_of(options[0], config), annotation, config)
        if discriminator is not None:
            shape = Shape(UNION, annotation, config)
            shape.discriminator = discriminator
            shape._source = [opt for opt in options if _is_model(_unwrap(opt)[0])]
            return shape
        return Shape(SCALAR, annotation, config)
    if _is_model(bare):
        shape = Shape(MODEL, annotation if metadata else bare, config)
        shape._source = bare
        shape.partial_class = partial_class(bare)
        return shape
    if bare is str:
        shape = Shape(TEXT, annotation, config)
        shape.exact = () if metadata else (str,)
        return shape
    if (bare is int or bare is bool) and not metadata and not (config and config.get("strict")):
        shape = Shape(SCALAR, annotation, config)
        shape.exact = _EXACT[bare]
        return shape
    if is_typeddict(bare):
        shape = Shape(DICT, annotation, config)
        shape._source = bare
        return shape
    if origin in (list, Sequence, MutableSequence) or (
        origin is tuple and len(get_args(bare)) == 2 and get_args(bare)[1] is Ellipsis
    ):
        args = get_args(bare)
        shape = Shape(LIST, annotation, config)
        shape._item = shape_of(args[0], config) if args else ANY
        shape.plain = not metadata and origin is list
        return shape
    if bare is list:
        return _with_item(Shape(LIST, annotation, config), ANY, plain=not metadata)
    if origin in (dict, Mapping, MutableMapping):
        args = get_args(bare)
        if args and args[0] is not str:  # keys that are not text: shown once closed
            return Shape(SCALAR, annotation, config)
        value = shape_of(args[1], config) if args else ANY
        plain = not metadata and origin is dict
        return _with_item(Shape(DICT, annotation, config), value, plain=plain)
    if bare is dict:
        return _with_item(Shape(DICT, annotation, config), ANY, plain=not metadata)
    if bare is Any or bare is object:
        return ANY
    return Shape(SCALAR, annotation, config)


def _with_item(shape: Shape, item: Shape, *, plain: bool) -> Shape:
    shape._item = item
    shape.plain = plain
    return shape


def _with_annotation(inner: Shape, annotation: Any, config: ConfigDict | None) -> Shape:
    """``inner`` previewed as it is, validated against ``annotation`` (``Optional[...]``
    with its constraints)."""
    if inner.kind == ANY_KIND:
        return inner
    shape = Shape(inner.kind, annotation, config)
    shape._source = inner._source
    shape._item = inner._item
    shape._fields = inner._fields
    shape._members = inner._members
    shape.partial_class = inner.partial_class
    shape.discriminator = inner.discriminator
    shape.plain = inner.plain and not _unwrap(annotation)[1]
    shape.exact = (*inner.exact, type(None)) if inner.exact and not _unwrap(annotation)[1] else ()
    return shape


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """``Annotated[T, *metadata]`` -> (T, metadata); anything else -> (it, [])."""
    metadata: list[Any] = []
    while get_origin(annotation) is typing.Annotated:
        args = get_args(annotation)
        metadata.extend(args[1:])
        annotation = args[0]
    return annotation, metadata


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _field_annotation(field: FieldInfo) -> Any:
    """A model field's annotation with its constraints and discriminator."""
    annotation = field.annotation
    extras: list[Any] = list(field.metadata)
    if field.discriminator is not None:
        extras.append(FieldInfo(discriminator=field.discriminator))
    if extras:
        annotated: Any = typing.Annotated
        args = (annotation, *extras)
        return annotated[args]
    return annotation


def _fields_of(source: Any, config: ConfigDict | None) -> dict[str, tuple[str, Shape]]:
    """JSON key -> (attribute name, shape) of a model or a ``TypedDict``."""
    found: dict[str, tuple[str, Shape]] = {}
    if _is_model(source):
        model_config = source.model_config
        strict = model_config.get("strict")
        field_config = ConfigDict(strict=strict) if strict is not None else None
        by_name = bool(model_config.get("populate_by_name") or model_config.get("validate_by_name"))
        for name, field in source.model_fields.items():
            shape = shape_of(_field_annotation(field), field_config)
            alias = field.validation_alias if isinstance(field.validation_alias, str) else None
            key = alias or field.alias or name
            found[key] = (name, shape)
            if by_name and key != name:
                found.setdefault(name, (name, shape))
        return found
    if source is not None:  # a TypedDict
        for name, hint in typing.get_type_hints(source, include_extras=True).items():
            bare, _ = _unwrap(hint)
            wrapped = get_origin(bare) in (Required, NotRequired)
            found[name] = (name, shape_of(get_args(bare)[0] if wrapped else hint, config))
    return found


def _members_of(options: list[Any], discriminator: str | None) -> dict[Any, Shape]:
    """Tag value -> member shape of a discriminated union of models."""
    members: dict[Any, Shape] = {}
    for option in options:
        model, _ = _unwrap(option)
        member = shape_of(option)
        found = member.field(discriminator or "")
        if found is None:
            continue
        name = found[0]
        tag_type, _ = _unwrap(model.model_fields[name].annotation)
        if get_origin(tag_type) is Literal:
            for tag in get_args(tag_type):
                members[tag.value if isinstance(tag, enum.Enum) else tag] = member
    return members


def partial_class(model: type[BaseModel]) -> type[BaseModel]:
    """The partial class of ``model``: a subclass whose every field is ``None`` until set.

    Its instances are made with ``model_construct`` and filled in place, so no validator
    of the model ever runs on them (the model's validators run on the real model, once
    its object is complete). Cached per model. Cost: one ``create_model`` (O(its
    fields)) the first time, then O(1).
    """
    made = _PARTIAL_CLASSES.get(model)
    if made is None:
        fields: dict[str, Any] = dict.fromkeys(model.model_fields, (Any, None))
        made = create_model(
            f"Partial{model.__name__}",
            __base__=model,
            __module__=model.__module__,
            **fields,
        )
        if len(_PARTIAL_CLASSES) >= MAX_CACHED_SHAPES:
            _PARTIAL_CLASSES.clear()
        _PARTIAL_CLASSES[model] = made
    return made
