"""Build hook: compile callstream's hot modules with mypyc, or install pure Python.

The modules listed under ``[tool.callstream.compile] modules`` in ``pyproject.toml`` are
compiled from the same source as the pure-Python package when mypyc and a C compiler are
available. Otherwise -- no compiler, a mypyc error, or ``CALLSTREAM_PURE=1`` in the
environment -- the install goes on as pure Python and says so in one line. Nothing here
ever fails an install.

The compiled files are written beside their sources (``build_ext --inplace``), so an
editable install (``pip install -e .``) uses them too; ``_compiled.json`` records each
compiled source's size, modification time and SHA-256, and ``callstream._build`` checks it
at import: a source edited after the build makes the whole package run as pure Python
(with a warning naming the file) until it is rebuilt.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10: tomli is a build requirement
    import tomli as tomllib

_SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="callstream_compiled",
    # the build environment has no runtime dependencies (pydantic, anyio): mypy reads
    # them as Any, which the compiled modules never depend on. The project's strict
    # settings are for `mypy` in CI; this build reads only the small config beside it.
    # mypyc's generated C goes to the temporary directory (target_dir), not the sources
    ext_modules=mypycify(
        ["--config-file", sys.argv.pop(1), *sys.argv.pop(1).split(",")],
        opt_level="3",
        target_dir=sys.argv.pop(1),
    ),
)
"""


def _mypy_config(modules: list[str]) -> str:
    """The mypy settings of the compile: missing imports (the runtime dependencies are not
    in the build environment) read as Any; type errors counted only in the compiled
    modules -- the others are checked by ``mypy`` in CI against the real dependencies;
    and ``COMPILING`` true, so that the options our own code checks read as ``object``
    (``src/callstream/_argtypes.py``)."""
    lines = ["[mypy]", "ignore_missing_imports = True", "always_true = COMPILING", ""]
    lines.append("[mypy-callstream.*]")
    lines.append("ignore_errors = True")
    for module in modules:
        lines += ["", f"[mypy-{module}]", "ignore_errors = False"]
    return "\n".join(lines) + "\n"


def _say(message: str) -> None:
    """One line on the installer's output (pip shows build output with -v; stderr always)."""
    print(f"callstream: {message}", file=sys.stderr, flush=True)


class CompileHook(BuildHookInterface):  # type: ignore[misc]
    """Compile the listed modules with mypyc into the wheel (see the module docstring)."""

    PLUGIN_NAME = "custom"

    def _modules(self) -> list[str]:
        with open(os.path.join(self.root, "pyproject.toml"), "rb") as handle:
            config = tomllib.load(handle)
        modules = config.get("tool", {}).get("callstream", {}).get("compile", {}).get("modules")
        return [str(m) for m in modules or []]

    def clean(self, versions: list[str]) -> None:
        source = os.path.join(self.root, "src")
        for path in glob.glob(os.path.join(source, "**", "*.so"), recursive=True):
            os.remove(path)
        record = os.path.join(source, "callstream", "_compiled.json")
        if os.path.exists(record):
            os.remove(record)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        self.clean([version])
        modules = self._modules()
        if not modules:
            return
        if os.environ.get("CALLSTREAM_PURE") == "1":
            _say("CALLSTREAM_PURE=1: installing pure Python (not compiled)")
            return
        problem = self._cannot_compile()
        if problem is not None:
            _say(f"{problem}: installing pure Python (not compiled)")
            return
        source = os.path.join(self.root, "src")
        files = [m.replace(".", "/") + ".py" for m in modules]
        with tempfile.TemporaryDirectory() as temp:
            setup = os.path.join(temp, "setup.py")
            with open(setup, "w", encoding="utf-8") as handle:
                handle.write(_SETUP)
            config = os.path.join(temp, "mypy.ini")
            with open(config, "w", encoding="utf-8") as handle:
                handle.write(_mypy_config(modules))
            process = subprocess.run(
                [
                    sys.executable,
                    setup,
                    config,
                    ",".join(files),
                    os.path.join(temp, "c"),
                    "build_ext",
                    "--inplace",
                    "--build-temp",
                    os.path.join(temp, "tmp"),
                    "--build-lib",
                    os.path.join(temp, "lib"),
                ],
                cwd=source,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if process.returncode:
            self.clean([version])
            last = process.stdout.decode("utf-8", "replace").strip().splitlines()[-1:]
            _say(f"compiling with mypyc failed ({''.join(last)[:200]}): installing pure Python")
            return
        self._record(source, modules)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["artifacts"].extend(
            ["/src/callstream/**/*.so", "/src/callstream/_compiled.json"]
        )
        if version != "editable":  # an editable install has src/ itself on the path
            for shared in glob.glob(os.path.join(source, "*__mypyc*.so")):
                build_data["force_include"][shared] = os.path.basename(shared)
        _say(f"compiled {len(modules)} modules with mypyc")

    def _cannot_compile(self) -> str | None:
        """Why compiling is impossible here, or None."""
        try:
            import mypyc.build  # noqa: F401
            import setuptools  # noqa: F401
        except ImportError as exc:
            return f"mypyc is not available ({exc.name})"
        compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
        if shutil.which(os.environ.get("CC", compiler).split()[0]) is None:
            return "no C compiler found"
        return None

    def _record(self, source: str, modules: list[str]) -> None:
        """Write ``_compiled.json``: what each compiled module was built from."""
        entries = {}
        for module in modules:
            path = os.path.join(source, module.replace(".", "/") + ".py")
            stat = os.stat(path)
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            entries[module] = {
                "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "sha256": digest,
            }
        with open(os.path.join(source, "callstream", "_compiled.json"), "w") as handle:
            json.dump({"python": sys.implementation.cache_tag, "modules": entries}, handle)
