"""Which build runs (compiled or pure), how the package is built and what it says it is.

A source install is pure Python; the compiled build is a wheel built with the mypyc hook
turned on (``CALLSTREAM_COMPILE=1``, ``docs/design.md``, "Build"). ``.ci/run``
runs this suite against the installed compiled wheel, again with ``CALLSTREAM_PURE=1``,
and on a bare clone's editable (pure) install; ``CALLSTREAM_TEST_INSTALL`` says which
install it expects (checked below).
"""

from __future__ import annotations

import email
import importlib.machinery
import importlib.metadata
import importlib.util
import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import callstream
from callstream import _build
from callstream.cli import run
from tests.support.paths import ROOT

SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES) + (".pyd",)

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    tomllib = None  # type: ignore[assignment]


def _pyproject() -> dict[str, Any]:
    if tomllib is None:
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11+)")
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def _compile_list() -> list[str]:
    return [str(path) for path in _hook_table()["include"]]


def _hook_table() -> dict[str, Any]:
    table: dict[str, Any] = _pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]
    return dict(table["hooks"]["custom"])


# --- which build runs ---------------------------------------------------------------------


def test_compiled_says_which_files_were_imported() -> None:
    from callstream._json import grammar

    assert callstream.COMPILED is _build.COMPILED
    assert callstream.COMPILED == str(grammar.__file__).endswith(SUFFIXES)
    assert _build.REASON


def test_the_package_builds_one_way_as_a_whole() -> None:
    """Compiled modules call each other directly: either all of them run or none does."""
    from callstream._assembly import records
    from callstream._json import changes, parser

    kinds = {str(m.__file__).endswith(SUFFIXES) for m in (records, changes, parser, _build)}
    assert kinds == ({True, False} if callstream.COMPILED else {False})
    assert str(parser.__file__).endswith(SUFFIXES) is callstream.COMPILED
    assert str(_build.__file__).endswith(".py")  # never compiled: it decides the build


PURE_CHECK = """
import json, sys, types
import callstream
from callstream._json.parser import PartialJSONParser
callstream.collect([{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
    "id": "c", "function": {"name": "f", "arguments": "{}"}}]}}]}])
files = {name: getattr(m, "__file__", None) for name, m in sys.modules.items()
         if name == "callstream" or name.startswith("callstream.")}
print(json.dumps({"compiled": callstream.COMPILED, "reason": callstream._build.REASON,
                  "files": files,
                  "python_code": isinstance(PartialJSONParser.feed, types.FunctionType)}))
"""


def _probe(**env: str) -> dict[str, Any]:
    import json

    environment = {k: v for k, v in os.environ.items() if k != "CALLSTREAM_PURE"}
    environment.update(env)
    out = subprocess.run(
        [sys.executable, "-c", PURE_CHECK],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_callstream_pure_runs_the_python_sources_in_a_fresh_process() -> None:
    """``CALLSTREAM_PURE=1``: every callstream module comes from its ``.py`` file and the
    parser's ``feed`` is a Python function, whichever build is installed."""
    pure = _probe(CALLSTREAM_PURE="1")
    assert pure["compiled"] is False
    assert pure["python_code"] is True
    loaded = [f for f in pure["files"].values() if f is not None]
    assert len(loaded) > 20
    assert all(f.endswith(".py") for f in loaded), [f for f in loaded if not f.endswith(".py")]


@pytest.mark.skipif(not callstream.COMPILED, reason="needs the compiled build installed")
def test_a_compiled_install_runs_compiled_unless_told_otherwise() -> None:
    compiled = _probe()
    assert compiled["compiled"] is True
    assert compiled["reason"] == "compiled with mypyc"
    assert compiled["python_code"] is False
    assert compiled["files"]["callstream._json.parser"].endswith(SUFFIXES)
    assert _probe(CALLSTREAM_PURE="1")["reason"] == "CALLSTREAM_PURE=1"


def test_the_source_first_finder_imports_the_py_file() -> None:
    folder = Path(_build.__file__).parent / "_json"
    spec = _build._SourceFirst.find_spec("callstream._json.grammar", [str(folder)])
    assert spec is not None and spec.origin == str(folder / "grammar.py")
    assert _build._SourceFirst.find_spec("json", None) is None


def test_the_suite_runs_against_the_install_ci_asked_for() -> None:
    """``.ci/run`` tests the installed wheel (never ``src/``), then a bare clone's
    editable install (its own ``src/``)."""
    expected = os.environ.get("CALLSTREAM_TEST_INSTALL")
    if expected is None:
        pytest.skip("CALLSTREAM_TEST_INSTALL is not set (only .ci/run sets it)")
    imported = Path(callstream.__file__).resolve()
    from_source = imported.is_relative_to(ROOT / "src")
    assert (expected, from_source) in (("wheel", False), ("source", True)), imported
    if expected == "wheel":
        assert "site-packages" in imported.parts
        assert not any(Path(p or ".").resolve() == ROOT / "src" for p in sys.path)


def test_the_source_tree_holds_no_compiled_file() -> None:
    """A development tree never holds compiled files: an edited ``.py`` always runs."""
    compiled = [p for p in (ROOT / "src").rglob("*") if p.name.endswith(SUFFIXES)]
    assert compiled == []


def test_the_parser_and_the_assembler_take_subclasses_in_both_builds() -> None:
    """README: ``PartialJSONParser`` and ``ToolCallAssembler`` allow interpreted subclasses
    (mypyc's allow_interpreted_subclasses); the records are final and, compiled, refuse."""
    from callstream import PartialJSONParser, StreamUpdate, ToolCallAssembler

    class Counting(PartialJSONParser):
        fed = 0

        def feed(self, text: str) -> list[Any]:
            Counting.fed += 1
            return super().feed(text)

    parser = Counting()
    parser.feed('{"a"')
    parser.feed(": 1}")
    assert Counting.fed == 2
    assert parser.close() == {"a": 1}

    class Named(ToolCallAssembler):
        def describe(self) -> str:
            return f"{len(self.tool_calls)} call(s)"

    assembler = Named()
    assembler.feed({"index": 0, "id": "c", "name": "f", "args": "{}"})
    assembler.finish("stop")
    assert assembler.describe() == "1 call(s)"
    if callstream.COMPILED:
        with pytest.raises(TypeError, match="interpreted classes cannot inherit"):
            type("U", (StreamUpdate,), {})(
                events=(), tool_calls=[], invalid_tool_calls=[], finish_reason=None
            )


# --- version ------------------------------------------------------------------------------


def test_the_version_is_the_installed_metadata() -> None:
    assert callstream.__version__ == importlib.metadata.version("callstream")
    assert re.fullmatch(r"\d+\.\d+\.\d+", callstream.__version__)


def test_the_installed_version_is_this_checkout() -> None:
    """Under ``.ci/run`` the package under test was built from this checkout."""
    if os.environ.get("CALLSTREAM_TEST_INSTALL") is None:
        pytest.skip("another install may be on the path outside .ci/run")
    assert callstream.__version__ == _pyproject()["project"]["version"]


def test_the_changelog_has_a_dated_entry_for_this_version() -> None:
    version = _pyproject()["project"]["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M)
    entries = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, re.M)
    assert entries[0] == version  # newest first
    assert "## Changes" not in changelog


def test_callstream_version_says_the_version_and_the_build(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = io.StringIO()
    assert run(["--version"], stderr=err) == 0
    first, python = capsys.readouterr().out.splitlines()
    compiled = "yes" if callstream.COMPILED else "no"
    assert first == f"callstream {callstream.__version__} (compiled: {compiled})"
    assert python.startswith("Python (") and err.getvalue() == ""


# --- building -----------------------------------------------------------------------------


def test_the_compile_list_names_modules_that_exist_and_may_be_compiled() -> None:
    files = _compile_list()
    assert "/src/callstream/_json/parser.py" in files and "/src/callstream/_update.py" in files
    for path in files:
        assert path.startswith("/src/callstream/") and path.endswith(".py"), path
        assert (ROOT / path.lstrip("/")).is_file(), path
    # pydantic reads these TypedDicts: compiled, they would be typing's, not
    # typing_extensions' (refused by pydantic on Python < 3.12)
    assert "/src/callstream/_assembly/types.py" not in files
    # it decides which build runs, so it is never compiled
    assert "/src/callstream/_build.py" not in files
    hook = _hook_table()
    assert hook["path"] == "hatch_build.py"
    assert "--always-true=COMPILING" in hook["mypy-args"]


def _hook(target: str = "wheel") -> Any:
    """hatch_build.py's hook over this checkout (hatchling is in the test extra)."""
    pytest.importorskip("hatchling")
    spec = importlib.util.spec_from_file_location("callstream_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from hatchling.metadata.core import ProjectMetadata

    metadata = ProjectMetadata(str(ROOT), None)
    hook = module.CompileSwitch(str(ROOT), _hook_table(), None, metadata, str(ROOT), target)
    return hook


def test_the_compile_switch_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``CALLSTREAM_COMPILE=1`` the build asks for nothing beyond hatchling and
    compiles nothing; with it, a wheel build asks for hatch-mypyc, mypy and the runtime
    dependencies; an editable build stays pure (it compiles nothing, says so)."""
    monkeypatch.delenv("CALLSTREAM_COMPILE", raising=False)
    hook = _hook()
    assert hook.dependencies() == []
    build_data: dict[str, Any] = {"artifacts": [], "force_include": {}}
    hook.initialize("standard", build_data)
    assert build_data == {"artifacts": [], "force_include": {}}
    monkeypatch.setenv("CALLSTREAM_COMPILE", "1")
    names = [re.split(r"[<>=!~ ;]", d)[0] for d in hook.dependencies()]
    runtime = [re.split(r"[<>=!~ ;]", d)[0] for d in _pyproject()["project"]["dependencies"]]
    assert names[:2] == ["hatch-mypyc", "mypy"] and sorted(names[2:]) == sorted(runtime)
    assert _hook("sdist").dependencies() == []
    hook.initialize("editable", build_data)
    assert build_data == {"artifacts": [], "force_include": {}}


def test_building_from_source_needs_only_hatchling() -> None:
    """``pip install .`` / ``-e .`` / the sdist compile nothing: the build system asks for
    hatchling alone; mypy and hatch-mypyc are the mypyc hook's own dependencies."""
    system = _pyproject()["build-system"]
    assert [re.split(r"[<>=!~ ;]", r)[0] for r in system["requires"]] == ["hatchling"]


def test_the_pure_wheel_holds_the_package_and_nothing_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wheel ``python -m build`` makes without the switch: ``py3-none-any``, the
    package with ``py.typed``, no compiled file, no tests or benchmarks; its metadata
    carries the version, the licence file, the classifiers and the project URLs."""
    pytest.importorskip("hatchling")
    from hatchling.builders.wheel import WheelBuilder

    for name in list(os.environ):
        if name.startswith("HATCH_BUILD_HOOK"):
            monkeypatch.delenv(name)
    built = list(WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"]))
    assert len(built) == 1 and built[0].endswith("-py3-none-any.whl"), built
    names = zipfile.ZipFile(built[0]).namelist()
    assert "callstream/py.typed" in names and "callstream/_json/parser.py" in names
    assert not [n for n in names if n.endswith(SUFFIXES)]
    tops = {n.split("/")[0] for n in names}
    version = _pyproject()["project"]["version"]
    assert tops == {"callstream", f"callstream-{version}.dist-info"}, tops
    dist_info = f"callstream-{version}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = email.message_from_bytes(zipfile.ZipFile(built[0]).read(f"{dist_info}/METADATA"))
    assert metadata["Version"] == version
    assert metadata["License-Expression"] == "MIT"
    classifiers = metadata.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert {f"Programming Language :: Python :: 3.{v}" for v in range(10, 15)} <= set(
        classifiers
    )
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert {"Source", "Changelog", "Issues"} <= set(urls)


def test_the_licence_is_mit_for_the_callstream_authors() -> None:
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert "the callstream authors" in licence
    assert _pyproject()["project"]["license-files"] == ["LICENSE"]


def test_the_docs_extra_installs_what_the_signature_formatting_needs() -> None:
    """``separate_signature`` (mkdocs.yml) formats each signature with ruff or black when
    one is installed; the ``docs`` extra must bring one (the test extra too)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "separate_signature: true" in config
    extras = _pyproject()["project"]["optional-dependencies"]
    for extra in ("docs", "test"):
        names = {re.split(r"[<>=!~\[; ]", requirement)[0] for requirement in extras[extra]}
        assert names & {"ruff", "black"}, f"the {extra} extra has no signature formatter"
