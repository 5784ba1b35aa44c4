#!/usr/bin/env bash
# Configures (once) and builds one CMake preset: release, debug, asan or tsan.
#   scripts/build.sh <preset> [targets...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset="${1:?usage: scripts/build.sh <preset> [targets...]}"
shift
# Configure again when the presets changed, so a changed cache variable takes effect.
if [[ ! -f "build/$preset/CMakeCache.txt" || CMakePresets.json -nt "build/$preset/CMakeCache.txt" ]]; then
  cmake --preset "$preset" >/dev/null
fi
jobs="${KILN_BUILD_JOBS:-$(nproc)}"
if [[ $# -gt 0 ]]; then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
