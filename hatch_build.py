"""Build hook: pure Python unless ``CALLSTREAM_COMPILE=1``; then mypyc through hatch-mypyc.

Without the switch a build (``pip install .``, ``pip install -e .``, ``python -m build``)
needs hatchling alone and compiles nothing. With ``CALLSTREAM_COMPILE=1`` in the
environment, a wheel build asks for hatch-mypyc, mypy and the runtime dependencies (see
:meth:`CompileSwitch.dependencies`) and hands the compile to hatch-mypyc's own hook with
this table's settings (``[tool.hatch.build.targets.wheel.hooks.custom]`` in
``pyproject.toml``: ``include``, ``mypy-args``, ``options``).

What this adds to hatch-mypyc (docs/design.md, "Build"): the project's own switch; and a
source tree that never keeps compiled files -- hatch-mypyc compiles in place and cleans
only before its next run, so the compiled files would stay beside the sources and
shadow every later edit. Here they are removed after the wheel has taken them, and any
left over are removed by every build, pure ones included. An editable install is always
pure Python (its modules are the sources themselves).
"""

from __future__ import annotations

import glob
import os
import sys
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SWITCH = "CALLSTREAM_COMPILE"


def _say(message: str) -> None:
    """One line on the build's output (pip shows it with -v)."""
    print(f"callstream: {message}", file=sys.stderr, flush=True)


class CompileSwitch(BuildHookInterface):  # type: ignore[misc]
    """hatch-mypyc's hook behind ``CALLSTREAM_COMPILE=1`` (see the module docstring)."""

    PLUGIN_NAME = "custom"

    def _compiling(self) -> bool:
        return os.environ.get(SWITCH) == "1" and self.target_name == "wheel"

    def dependencies(self) -> list[str]:
        if not self._compiling():
            return []
        hook = ["hatch-mypyc>=0.16", "mypy>=1.11"]
        # mypy reads the runtime dependencies' types (pydantic, anyio, ...)
        return hook + list(self.metadata.core.dependencies)

    def _remove_compiled(self) -> None:
        """Delete every compiled file under ``src/`` (the sources stay)."""
        source = os.path.join(self.root, "src")
        for suffix in ("so", "pyd"):
            for path in glob.glob(os.path.join(source, "**", f"*.{suffix}"), recursive=True):
                os.remove(path)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._remove_compiled()
        if not self._compiling():
            return
        if version == "editable":
            _say(f"{SWITCH}=1 ignored: an editable install is pure Python")
            return
        from hatch_mypyc.plugin import MypycBuildHook

        mypyc = MypycBuildHook(
            self.root,
            self.config,
            self.build_config,
            self.metadata,
            self.directory,
            self.target_name,
            self.app,
        )
        mypyc.initialize(version, build_data)
        _say(f"compiled {len(mypyc.included_files)} modules with mypyc")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        self._remove_compiled()
