#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each one on a copy of its seed corpus for SECONDS (default 6:
# the short run of the test command), KILN_FUZZ_JOBS targets at a time (default: one per core).
#   scripts/fuzz.sh [SECONDS] [TARGET...]        e.g. scripts/fuzz.sh 600 script   (a soak run)
# KILN_FUZZ_PRESET picks the build: `fuzz` (default; clang-14, -O1, ASan + UBSan, the fuzz targets
# alone: fastest per input, for soak runs) or `asan` (the test build, which has them too: what the
# test command uses, so that it compiles the engine once for both).
# New crashes are kept under build/<preset>/findings/<target>/ and make the run fail; copy each
# into fuzz/regressions/<target>/ with its fix, so that the test suite replays it from then on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds="${1:-6}"
shift || true
preset="${KILN_FUZZ_PRESET:-fuzz}"
bin="build/$preset/fuzz"
out="build/$preset"
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for t in fuzz/targets/*.cpp; do targets+=("$(basename "$t" .cpp)"); done
fi
mkdir -p build
scripts/build.sh "$preset" "${targets[@]/#/fuzz_}" > "build/fuzz-build-$preset.log" 2>&1 ||
  { tail -40 "build/fuzz-build-$preset.log"; echo "fuzz: build failed"; exit 1; }
# One target per core at a time: each run is single-threaded and lasts SECONDS.
jobs="${KILN_FUZZ_JOBS:-$(nproc)}"
status_dir="$out/fuzz-status"
rm -rf "$status_dir"
mkdir -p "$status_dir"
run_target() {
  local t="$1" work="$out/fuzz-work/$1" findings="$out/findings/$1"
  rm -rf "$work"
  mkdir -p "$work" "$findings"
  # New inputs go to the work directory; the committed seeds and regressions are only read.
  local seeds=("fuzz/corpus/$t")
  [[ -d "fuzz/regressions/$t" ]] && seeds+=("fuzz/regressions/$t")
  if ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:quarantine_size_mb=64" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
     "$bin/fuzz_$t" "$work" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 \
       -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 > "$out/fuzz-$t.log" 2>&1; then
    echo "fuzz $t: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/fuzz-$t.log" | awk '{print $2}') runs in ${seconds} s, clean"
  else
    { echo "fuzz $t: FAILED, see $out/fuzz-$t.log and $findings/"
      grep -E "ERROR|contract broken|SUMMARY" "$out/fuzz-$t.log" | head -5 || true; }
    touch "$status_dir/$t.failed"
  fi
}
running=0
for t in "${targets[@]}"; do
  if (( running >= jobs )); then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true
failed=()
for t in "${targets[@]}"; do
  [[ -e "$status_dir/$t.failed" ]] && failed+=("$t")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
