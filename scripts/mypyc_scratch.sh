#!/usr/bin/env bash
# Compile callstream's hot modules with mypyc into a scratch tree (never the source tree).
#
#   scripts/mypyc_scratch.sh [BUILD_DIR]     (default /tmp/mypyc-build)
#
# Copies src/ to BUILD_DIR/src, then compiles the modules listed in MODULES there, so the
# .so files sit next to copies of the .py files. Use the build with
#   PYTHONPATH=BUILD_DIR/src python -m pytest tests
# Modules NOT in the list stay interpreted (see the comments below for why).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-/tmp/mypyc-build}"
mkdir -p "$build"
rm -rf "$build/src"
cp -a "$here/src" "$build/src"
find "$build/src" \( -name '__pycache__' -o -name '*.so' \) -prune -exec rm -rf {} +
cd "$build/src"
MODULES=(
  callstream/_json/grammar.py
  callstream/_json/dump.py
  callstream/_json/state.py
  callstream/_json/values.py
  callstream/_json/scanner.py
  callstream/_json/parser.py
  callstream/_types.py
  callstream/_assembly/options.py
  callstream/_assembly/arguments.py
  callstream/_assembly/call.py
  callstream/_assembly/routing.py
  callstream/_assembly/verdict.py
  callstream/_assembly/validation.py
  callstream/_assembly/views.py
  callstream/_assembly/state.py
  callstream/_assembly/assembler.py
  callstream/providers/_fields.py
  callstream/providers/_bad_index.py
  callstream/providers/_plain.py
  callstream/providers/_arguments.py
  callstream/providers/_chunks.py
  callstream/providers/openai_chat.py
  callstream/providers/anthropic.py
  callstream/_pipeline.py
)
# Left interpreted on purpose:
#     the per-chunk frozen slotted dataclasses; fast_constructor builds them through
#     their slot descriptors, which a compiled class does not have (and a frozen dataclass
#     compiled gets an interpreted __init__, 4-8k instructions per object: issue 13).
#     _result.py also holds StreamState, the base of the interpreted drivers' stream
#     classes (an interpreted class cannot subclass a compiled one).
#   callstream/_errors.py: the exceptions inherit from two builtin exception types
#     (UsageError(CallstreamError, RuntimeError)), which mypyc does not implement; never
#     on the per-chunk path.
#   callstream/providers/_base.py: the runtime_checkable Translator protocol (a compiled
#     Protocol is no longer a protocol class for typing.runtime_checkable) and
#     tool_chunk, which is fast_constructor's generated function either way.
python -m mypyc "${MODULES[@]}"
find "$build/src/callstream" -name '*.so' | sort
