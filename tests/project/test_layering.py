"""The layers of ``docs/design.md``, enforced by walking every import with ``ast``.

A module may import callstream modules of its own layer's package or of lower layers only
(the layers, whole numbers from 0 to 10, and what each holds are drawn in
``docs/design.md``; :func:`layer_of` is the table this test reads), and third-party
packages at module level only where :data:`THIRD_PARTY_AT_MODULE_LEVEL` allows them.
Inside the core packages (``_json``, ``_assembly``, ``providers``) the modules have tiers
too (:data:`INNER_TIERS`): the rules sit below the machine that applies them.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.support.paths import PACKAGE

SRC = PACKAGE
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def layer_of(module: str) -> tuple[int, str]:
    """(layer, package) of a callstream module given as a dotted name."""
    parts = module.split(".")
    head = parts[1] if len(parts) > 1 else ""
    table = {
        "": (10, "callstream"),
        "__main__": (10, "callstream"),  # python -m callstream: the command (layer 9)
        "_errors": (0, "_errors"),
        "_types": (0, "_types"),
        "_build": (0, "_build"),
        "_argtypes": (0, "_argtypes"),
        "_json": (1, "_json"),
        "_assembly": (2, "_assembly"),
        "providers": (3, "providers"),
        "parsers": (4, "parsers"),
        "tool_parsers": (4, "tool_parsers"),  # reads model text into the providers' signals
        "tools": (3, "tools"),
        "_tool_docstrings": (3, "tools"),
        "_tool_schema": (3, "tools"),
        "feed": (3, "feed"),
        "examples": (3, "examples"),
        "partial": (3, "partial"),
        "_pipeline": (5, "_pipeline"),
        "_result": (5, "_pipeline"),
        "_update": (5, "_pipeline"),
        "_text_calls": (5, "_pipeline"),  # the pipeline's tool parser hook
        "_sources": (6, "drivers"),
        "_drive": (6, "drivers"),
        "_sync": (6, "drivers"),
        "_async": (6, "drivers"),
        "runner": (7, "runner"),
        "structured_output": (7, "structured_output"),
        "ui": (8, "ui"),
        "cli": (9, "cli"),
        "testing": (7, "testing"),
    }
    if head not in table:
        raise AssertionError(f"module {module} has no layer in tests/project/test_layering.py")
    return table[head]


THIRD_PARTY_AT_MODULE_LEVEL: dict[int, set[str]] = {
    0: set(),
    1: set(),
    2: {"typing_extensions"},
    3: {"typing_extensions", "pydantic", "pydantic_core"},
    4: {"typing_extensions", "pydantic", "pydantic_core"},
    5: {"typing_extensions", "pydantic", "pydantic_core"},
    6: {"typing_extensions", "pydantic", "pydantic_core"},
    7: {"typing_extensions", "pydantic", "pydantic_core", "anyio"},
    8: {"typing_extensions", "pydantic", "pydantic_core"},
    9: {"typing_extensions", "pydantic", "pydantic_core"},
    10: {"partial_json_parser", "typing_extensions"},
}
ONLY_IN = {
    # mypyc's decorator, read at compile time; at run time optional (try / except
    # ImportError with a no-op stand-in), so only the lowest module may touch it
    "mypy_extensions": {"callstream._types"},
    "anyio": {
        "callstream._sources",  # inside the async parts only: a sync stream never loads it
        "callstream.runner._run",
        "callstream.runner._turn",
        "callstream.testing._record",  # inside the async replay only
        "callstream.testing._transport",  # pacing an async response body
    },
}
# Modules that exist to wrap an optional package; they are themselves imported lazily.
WRAPPERS = {
    "callstream.cli._render": {"rich"},
    "callstream.parsers.langchain": {"langchain_core"},
    "callstream.parsers.langchain_structured": {"langchain_core"},
    "callstream.testing.langchain": {"langchain_core"},
    "callstream.testing.strategies": {"hypothesis"},
    "callstream.testing.pytest_plugin": {"pytest"},
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
                assert layer == 10 or not at_module_level, f"{module} imports the package root"
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
        {"grammar", "changes", "dump", "pieces"},
        {"parser_state"},  # the parser's attributes and frames
        {"values"},  # strings, containers, numbers, literals
        {"scanner"},  # the scan loop
        {"parser"},  # the public PartialJSONParser
        {"__init__"},
    ],
    "callstream._assembly": [
        {"validation", "options", "arguments", "verdict", "call_dicts"},
        {"records"},  # the per-chunk values (compiled), re-exported by types
        {"types"},
        {"call"},
        {"routing", "views"},
        {"assembly_state"},
        {"assembler"},
        {"__init__"},
    ],
    "callstream.providers": [
        {"_fields", "_chunks", "_formats"},
        {"_base"},  # the translator protocol, its dispatch and never-raise helpers
        {
            "_provider_errors",
            "_plain",
            "_sse",
            "_json_stream",
            "_eventstream",
            "_text",
            "_recording",
        },
        {"_arguments", "_bad_index", "_gemini_args", "transport"},
        {"_responses_items", "_langchain_events"},
        {"_custom_input"},
        {
            "anthropic",
            "bedrock",
            "cohere",
            "gemini",
            "langchain",
            "llamacpp_completion",
            "ollama",
            "ollama_generate",
            "openai_chat",
            "openai_completions",
            "openai_responses",
            "text",
        },
        {"__init__"},
        {"_detect"},  # detection by votes, beside the registry (used by the pipeline)
    ],
    "callstream.tool_parsers": [
        {"_markers"},  # finding markers with hold-back
        {"_base"},  # the ToolParser loop and CallReader
        {"_values"},  # raw values typed, arguments written
        {"_json_text", "_raw_text"},  # the readers the families share: JSON, marked raw text
        {"_json_list", "_xml", "_section", "_llama"},  # several JSON calls after one marker;
        # XML-ish sections; a section of calls (DeepSeek)
        {"_xml_parser"},  # the XML-ish families' parser
        {"_auto"},  # "auto": hands the text to the family it recognizes
        {"_registry"},  # the names (families are imported lazily)
        {"*"},  # the families: every module whose name has no leading "_"
        {"__init__"},
    ],
}


def _tier(package: str, name: str) -> int:
    for number, tier in enumerate(INNER_TIERS[package]):
        if name in tier or ("*" in tier and not name.startswith("_")):
            return number
    raise AssertionError(f"{package}.{name} has no tier in tests/project/test_layering.py INNER_TIERS")


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


# --- no import circles, counting every import (lazy and typing-only ones too) ------------


def import_graph() -> dict[str, set[str]]:
    """Every callstream module and the callstream modules it imports anywhere in its file
    (``from package import submodule`` counts as importing the submodule)."""
    found = dict(modules())
    graph: dict[str, set[str]] = {}
    for module, path in found.items():
        targets = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = {
            f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and not node.level
            for alias in node.names
        }
        for name in [name for name, _ in imports(path, module)] + sorted(named):
            if name in found and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of ``graph`` with more than one module (Tarjan's
    algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.add(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(part)
    return found


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [{"a", "b", "c"}]


def test_no_import_circles() -> None:
    found = circles(import_graph())
    assert not found, (
        "modules importing each other (also lazily or for typing only): "
        f"{[sorted(part) for part in found]}"
    )


# --- no private names across modules -------------------------------------------------------


@pytest.mark.parametrize(("module", "path"), modules(), ids=[m for m, _ in modules()])
def test_no_private_name_is_imported_from_another_module(module: str, path: Path) -> None:
    """A name starting with ``_`` stays in its module (a private module is imported by its
    public names)."""
    found = dict(modules())
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("callstream"):
            continue
        source = node.module or ""
        for alias in node.names:
            if f"{source}.{alias.name}" in found:
                continue  # a module
            assert not alias.name.startswith("_") or alias.name.startswith("__"), (
                f"{module} imports the private name {alias.name} from {source}"
            )


@pytest.mark.parametrize(("module", "path"), modules(), ids=[m for m, _ in modules()])
def test_no_callstream_name_is_renamed_on_import(module: str, path: Path) -> None:
    """A callstream name is imported by its own name (``X as X``, a re-export, is the one
    form of ``as``): a reader searching for a name finds every use of it."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").startswith("callstream")
        ):
            names = node.names
        elif isinstance(node, ast.Import):
            names = [a for a in node.names if a.name.startswith("callstream")]
        else:
            continue
        for alias in names:
            assert alias.asname in (None, alias.name), (
                f"{module} imports {alias.name} as {alias.asname}: use its own name"
            )
