"""The dependency direction of DESIGN.md, enforced by walking every import with ``ast``.

Layers (a module may import callstream modules of its own layer's package or of lower
layers only) and the third-party packages each layer may import at module level:

    L5  callstream/__init__.py          re-exports; partial_json_parser (for Allow)
    L4  _pipeline < _sync, _async       drivers over the shared pipeline, then the tool
        < runner < cli                  runner on top of them, then the shell; anyio only
                                        in _async and the runner's task modules
        (_pipeline includes _result, split out of _pipeline.py)
    L3  providers, tools, feed < parsers pydantic; SDKs / LangChain / rich only lazily
        (tools includes _tool_docstrings and _tool_schema, split out of tools.py)
    L2  _assembly                       standard library (+ typing_extensions)
    L1  _json                           standard library only
    L0  _errors, _types                 standard library only (_types: mypy_extensions'
                                        mypyc_attr if installed, for the compiled build)

Inside the core packages (``_json``, ``_assembly``, ``providers``) the modules have tiers
too (``INNER_TIERS`` below): the rules sit below the machine that applies them.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "callstream"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def layer_of(module: str) -> tuple[float, str]:
    """(layer, package) of a callstream module given as a dotted name."""
    parts = module.split(".")
    head = parts[1] if len(parts) > 1 else ""
    table = {
        "": (5, "callstream"),
        "_errors": (0, "_errors"),
        "_types": (0, "_types"),
        "_build": (0, "_build"),
        "_argtypes": (0, "_argtypes"),
        "_json": (1, "_json"),
        "_assembly": (2, "_assembly"),
        "providers": (3, "providers"),
        "parsers": (3.5, "parsers"),
        "tools": (3, "tools"),
        "_tool_docstrings": (3, "tools"),
        "_tool_schema": (3, "tools"),
        "feed": (3, "feed"),
        "examples": (3, "examples"),
        "_pipeline": (4, "_pipeline"),
        "_result": (4, "_pipeline"),
        "_update": (4, "_pipeline"),
        "_sync": (4.5, "_sync"),
        "_drive": (4.5, "_sync"),
        "_async": (4.5, "_async"),
        "runner": (4.6, "runner"),
        "ui": (4.7, "ui"),
        "cli": (4.8, "cli"),
    }
    if head not in table:
        raise AssertionError(f"module {module} has no layer in tests/test_layering.py")
    return table[head]


THIRD_PARTY_AT_MODULE_LEVEL: dict[float, set[str]] = {
    0: set(),
    1: set(),
    2: {"typing_extensions"},
    3: {"typing_extensions", "pydantic", "pydantic_core"},
    3.5: {"typing_extensions", "pydantic", "pydantic_core"},
    4: {"typing_extensions", "pydantic", "pydantic_core"},
    4.5: {"typing_extensions", "pydantic", "pydantic_core"},
    4.6: {"typing_extensions", "pydantic", "pydantic_core", "anyio"},
    4.7: {"typing_extensions", "pydantic", "pydantic_core"},
    4.8: {"typing_extensions", "pydantic", "pydantic_core"},
    5: {"partial_json_parser", "typing_extensions"},
}
ONLY_IN = {
    # mypyc's decorator, read at compile time; at run time optional (try / except
    # ImportError with a no-op stand-in), so only the lowest module may touch it
    "mypy_extensions": {"callstream._types"},
    "anyio": {
        "callstream._async",
        "callstream.runner._run",
        "callstream.runner._turn",
        "callstream.runner._sync",
    },
}
# Modules that exist to wrap an optional package; they are themselves imported lazily.
WRAPPERS = {
    "callstream.cli._render": {"rich"},
    "callstream.parsers.langchain": {"langchain_core"},
}


def modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC.parent).with_suffix("")
        parts = list(relative.parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.append((".".join(parts), path))
    return found


def imports(path: Path, module: str) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = set()
    for node in tree.body:
        if isinstance(node, ast.If):
            if "TYPE_CHECKING" in ast.unparse(node.test):
                continue  # typing-only imports never run
            top_level.update(id(n) for n in ast.walk(node))  # `if sys.version_info ...`
        top_level.add(id(node))
    is_package = path.name == "__init__.py"
    result = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            result.extend((alias.name, id(node) in top_level) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            result.append((name, id(node) in top_level))
    return result


@pytest.mark.parametrize(("module", "path"), modules(), ids=[m for m, _ in modules()])
def test_imports_point_down(module: str, path: Path) -> None:
    layer, package = layer_of(module)
    for name, at_module_level in imports(path, module):
        root = name.split(".")[0]
        if root == "callstream":
            for wrapper in WRAPPERS:
                assert name != wrapper or not at_module_level or module == wrapper, (
                    f"{module} imports {wrapper} at module level; it must be imported lazily"
                )
            if name == "callstream":
                assert layer == 5 or not at_module_level, f"{module} imports the package root"
                continue
            other_layer, other_package = layer_of(name)
            assert other_layer < layer or other_package == package, (
                f"{module} (L{layer}) imports {name} (L{other_layer}): upward import"
            )
        elif root in STDLIB:
            continue
        else:
            if root in ONLY_IN:
                assert module in ONLY_IN[root], f"{module} imports {root}; only {ONLY_IN[root]} may"
                continue
            if root in WRAPPERS.get(module, set()):
                continue
            if at_module_level and not name.startswith("typing"):
                assert root in THIRD_PARTY_AT_MODULE_LEVEL[layer], (
                    f"{module} (L{layer}) imports {root} at module level; "
                    "optional packages must be imported lazily"
                )
            if layer <= 2:
                assert root == "typing_extensions", f"{module} (L{layer}) imports {root}"


def test_every_module_has_a_layer() -> None:
    for module, _ in modules():
        layer_of(module)


# --- inside the core packages: rules below the machine that applies them ----------------

#: Tiers inside a package: a module may import modules of its own package only from a
#: lower tier (translators never import each other; the rules of the assembly never
#: import the state machine or the public class).
INNER_TIERS: dict[str, list[set[str]]] = {
    "callstream._json": [
        {"grammar", "changes", "dump"},
        {"state"},  # the parser's attributes and frames
        {"values"},  # strings, containers, numbers, literals
        {"scanner"},  # the scan loop
        {"parser"},  # the public PartialJSONParser
        {"__init__"},
    ],
    "callstream._assembly": [
        {"validation", "options", "arguments", "verdict"},
        {"records"},  # the per-chunk values (compiled), re-exported by types
        {"types"},
        {"call"},
        {"routing", "views"},
        {"state"},
        {"assembler"},
        {"__init__"},
    ],
    "callstream.providers": [
        {"_fields", "_chunks", "_base", "_provider_errors"},
        {"_plain", "_sse", "_json_stream", "_text"},
        {"_arguments", "_bad_index", "_gemini_args", "transport"},
        {"_responses_items"},
        {"_custom_input"},
        {
            "anthropic",
            "bedrock",
            "cohere",
            "gemini",
            "langchain",
            "ollama",
            "openai_chat",
            "openai_responses",
        },
        {"__init__"},
    ],
}


def _tier(package: str, name: str) -> int:
    for number, tier in enumerate(INNER_TIERS[package]):
        if name in tier:
            return number
    raise AssertionError(f"{package}.{name} has no tier in tests/test_layering.py INNER_TIERS")


@pytest.mark.parametrize("package", sorted(INNER_TIERS))
def test_inside_a_core_package_imports_point_down(package: str) -> None:
    folder = SRC.parent / package.replace(".", "/")
    for path in sorted(folder.glob("*.py")):
        own = _tier(package, path.stem)
        module = package if path.stem == "__init__" else f"{package}.{path.stem}"
        for name, at_module_level in imports(path, module):
            if not at_module_level or not name.startswith(package + "."):
                continue  # lazy imports (the registry's translators) are not structure
            other = name[len(package) + 1 :].split(".")[0]
            assert _tier(package, other) < own, (
                f"{module} imports {name}: inside {package} imports must point down"
            )
