"""Field names and values of callstream's value classes, dataclasses or records alike.

The signals, events, changes and ``StreamUpdate`` are ``callstream._types.Record`` s
(their fields are ``__match_args__``); other value classes are dataclasses.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def field_names(obj: Any) -> list[str]:
    """The ``__init__`` field names of a dataclass or record (class or instance), in order."""
    if dataclasses.is_dataclass(obj):
        return [f.name for f in dataclasses.fields(obj) if f.init]
    cls = obj if isinstance(obj, type) else type(obj)
    return list(cls.__match_args__)


def as_dict(obj: Any) -> dict[str, Any]:
    """``{field: value}`` of a dataclass or record instance (values as they are)."""
    return {name: getattr(obj, name) for name in field_names(obj)}
