"""Parameter types of the public methods that check their own arguments.

``ToolCallAssembler``, ``PartialJSONParser``, ``Pipeline`` and the signal records
(:mod:`callstream._assembly.records`) check what they are given and raise a precise
:class:`~callstream.UsageError` subclass (``OptionTypeError``, ``ChunkValidationError``)
naming the option or field. Compiled with mypyc, a parameter annotated ``int`` would be checked by
mypyc first, with a bare ``TypeError``. So these annotations mean two things:

- for a type checker reading callstream (the user's mypy or pyright, and ours in CI), the
  precise types below (``int``, ``str | None``, ...): a wrong call is flagged;
- for the mypyc build only, ``object``: the compiled wrapper accepts anything and our own
  check runs. The build passes mypy ``--always-true=COMPILING`` (the ``mypy-args`` of
  the build hook in ``pyproject.toml``).

The names exist only for type checkers (``TYPE_CHECKING``); at run time this module
defines nothing but :data:`COMPILING` (the annotations are never evaluated: every user
module has ``from __future__ import annotations``). A function with such a parameter
passes it straight to its check, whose parameter is ``object``, so its body type-checks
under both readings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

COMPILING = False
"""False at run time and for type checkers; treated as true by the mypyc build only."""

if TYPE_CHECKING and not COMPILING:
    IntArg = int
    BoolArg = bool
    StrArg = str
    OptIntArg = int | None
    OptStrArg = str | None
    IndexArg = int | str | None
    ArgsArg = str | Mapping[str, Any] | None
    EmptyArgsArg = Literal["object", "invalid"]
elif TYPE_CHECKING:  # the mypyc build
    IntArg = object  # type: ignore[assignment,misc]
    BoolArg = object  # type: ignore[assignment,misc]
    StrArg = object  # type: ignore[assignment,misc]
    OptIntArg = object  # type: ignore[assignment,misc]
    OptStrArg = object  # type: ignore[assignment,misc]
    IndexArg = object  # type: ignore[assignment,misc]
    ArgsArg = object  # type: ignore[assignment,misc]
    EmptyArgsArg = object  # type: ignore[misc]

__all__ = (
    "COMPILING",
    "ArgsArg",
    "BoolArg",
    "EmptyArgsArg",
    "IndexArg",
    "IntArg",
    "OptIntArg",
    "OptStrArg",
    "StrArg",
)
