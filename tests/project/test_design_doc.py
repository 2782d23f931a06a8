"""``docs/design.md`` stays true to the tree: its module map names every module under
``src/callstream`` and only those, each in the layer ``tests/project/test_layering.py`` gives it,
and the project points at no design document outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

from tests.project.test_layering import layer_of, modules
from tests.support.paths import ROOT

DESIGN = ROOT / "docs" / "design.md"
ROW = re.compile(r"^\| `(callstream(?:\.\w+)*)` \| (\d+) \| (.+) \|$")


def module_map() -> dict[str, tuple[int, int]]:
    """``{module: (layer, line number)}`` of the rows of the module map."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("\n## Module map\n", 1)[1].split("\n## ", 1)[0]
    first = text[: text.index("\n## Module map\n")].count("\n") + 3  # the line after the heading
    rows: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(section.splitlines(), first):
        match = ROW.match(line)
        if match:
            name = match.group(1)
            assert name not in rows, f"docs/design.md:{number}: {name} has two rows"
            rows[name] = (int(match.group(2)), number)
    return rows


def test_the_map_has_rows() -> None:
    assert len(module_map()) > 50


def test_every_row_names_a_module_that_exists() -> None:
    existing = {name for name, _ in modules()}
    gone = [
        f"docs/design.md:{line}: {name}"
        for name, (_, line) in module_map().items()
        if name not in existing
    ]
    assert not gone, f"rows naming modules that do not exist (renamed or removed?): {gone}"


def test_every_module_has_a_row() -> None:
    rows = module_map()
    missing = [f"{name} ({path.relative_to(ROOT)})" for name, path in modules() if name not in rows]
    assert not missing, f"modules missing from the module map of docs/design.md: {missing}"


def test_every_row_gives_the_layer_the_layering_test_gives() -> None:
    wrong = [
        f"docs/design.md:{line}: {name} is in layer {layer_of(name)[0]}, not {layer}"
        for name, (layer, line) in module_map().items()
        if name in dict(modules()) and layer_of(name)[0] != layer
    ]
    assert not wrong, wrong


def test_the_layer_table_lists_the_layers_of_the_map() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    table = {int(m.group(1)) for m in re.finditer(r"^\| (\d+) \|", section, re.MULTILINE)}
    assert table == {layer for layer, _ in module_map().values()}


def test_nothing_points_at_a_design_document_outside_the_repository() -> None:
    places = [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / "hatch_build.py"]
    for folder in ("src", "tests", "benchmarks", "docs"):
        places += sorted((ROOT / folder).rglob("*.py")) + sorted((ROOT / folder).rglob("*.md"))
    found = []
    for path in places:
        if path == Path(__file__).resolve() or "node_modules" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "DESIGN.md" in line or "shared/DESIGN" in line:
                found.append(f"{path.relative_to(ROOT)}:{number}")
    assert not found, f"pointers at a design document the repository does not hold: {found}"
