#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test:
#   format   every C++ source laid out as .clang-format says (scripts/check_format.sh)
#   asan     the whole suite (and the benchmarks built) under AddressSanitizer + UndefinedBehaviorSanitizer
#   tsan     the concurrent tests (label "concurrent") under ThreadSanitizer
#   fuzz     every libFuzzer target for a few seconds from its seed corpus (scripts/fuzz.sh), from the
#            asan build when it is in the list (it has the targets too), else from the fuzz preset
# Name presets to run others or fewer: `scripts/test.sh release` runs the whole suite on the
# optimised build the main job uses; `scripts/test.sh release asan tsan fuzz` runs all four.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
presets=("$@")
[[ ${#presets[@]} -gt 0 ]] || presets=(format asan tsan fuzz)
failed=()
timings=("setup $SECONDS s")
phase_start=$SECONDS
phase_done() { timings+=("$1 $((SECONDS - phase_start)) s"); phase_start=$SECONDS; }
for preset in "${presets[@]}"; do
  if [[ "$preset" == format ]]; then
    echo "== format"
    scripts/check_format.sh || failed+=(format)
    phase_done format
    continue
  fi
  if [[ "$preset" == fuzz ]]; then
    echo "== fuzz: build and a short run of every target"
    # With asan in the list, its build has the fuzz targets too; otherwise the fuzz preset alone.
    fuzz_preset=fuzz
    [[ " ${presets[*]} " == *" asan "* ]] && fuzz_preset=asan
    KILN_FUZZ_PRESET="$fuzz_preset" scripts/fuzz.sh "${KILN_FUZZ_SECONDS:-6}" || failed+=(fuzz)
    phase_done fuzz
    continue
  fi
  echo "== $preset: build"
  if [[ "$preset" == tsan ]]; then
    scripts/build.sh "$preset" kiln_tests  # the concurrent suites only: no tools
  else
    scripts/build.sh "$preset"
  fi
  phase_done "$preset-build"
  echo "== $preset: test"
  ctest --preset "$preset" || failed+=("$preset")
  phase_done "$preset-test"
done
echo "== time: ${timings[*]}; $SECONDS s in all"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "FAILED presets: ${failed[*]}"
  exit 1
fi
echo "all presets passed: ${presets[*]}"
