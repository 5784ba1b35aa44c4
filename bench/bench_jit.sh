#!/usr/bin/env bash
# Run times of the benchmark scripts: Kiln's JIT (warm page cache, checked and unchecked mode)
# against Kiln's interpreter, LuaJIT with its JIT on and off, lua5.1 and lua5.4. Whole-process wall
# times, best of N; each script's output is first checked against lua5.1's. The last line is the
# geometric mean of luajit/jit over the scripts, and how many scripts reach half LuaJIT's speed.
#   bench/bench_jit.sh [runs]        (build first: scripts/build.sh release kiln)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-3}"
kiln=build/release/editor/kiln
[[ -x $kiln ]] || { echo "build kiln first: scripts/build.sh release kiln" >&2; exit 1; }
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

source bench/timing.sh

printf '%-15s %8s %8s %8s %8s %8s %8s %8s   %s\n' script interp jit jit-unck luajit lj-joff lua5.1 lua5.4 \
  "ratios luajit/jit luajit/jit-unck lj-joff/jit lua5.1/jit lua5.4/interp"
log_sum=0
scripts=0
half=0
for script in bench/scripts/*.lua; do
  name=$(basename "$script" .lua)
  want=$(lua5.1 "$script")
  for mode in checked unchecked; do  # fills the cache: the timed runs start warm
    got=$($kiln script run "$script" --cache-root "$cache" --mode $mode)
    [[ "$got" == "$want" ]] || { echo "$name: Kiln's JIT output differs from lua5.1's" >&2; exit 1; }
  done
  i=$(best "$kiln" script run "$script" --jit off)
  j=$(best "$kiln" script run "$script" --cache-root "$cache")
  u=$(best "$kiln" script run "$script" --cache-root "$cache" --mode unchecked)
  lj=$(best luajit "$script")
  ljo=$(best luajit -joff "$script")
  l51=$(best lua5.1 "$script")
  l54=$(best lua5.4 "$script")
  printf '%-15s %8s %8s %8s %8s %8s %8s %8s   %.2f %.2f %.2f %.2f %.2f\n' "$name" "$i" "$j" "$u" "$lj" "$ljo" "$l51" "$l54" \
    "$(echo "$lj / $j" | bc -l)" "$(echo "$lj / $u" | bc -l)" "$(echo "$ljo / $j" | bc -l)" "$(echo "$l51 / $j" | bc -l)" \
    "$(echo "$l54 / $i" | bc -l)"
  log_sum=$(echo "$log_sum + l($lj / $j)" | bc -l)
  scripts=$((scripts + 1))
  if (( $(echo "$lj / $j >= 0.5" | bc -l) )); then half=$((half + 1)); fi
done
printf 'geometric mean luajit/jit %.2f over %d scripts; %d of them at least half of LuaJIT\n' \
  "$(echo "e($log_sum / $scripts)" | bc -l)" "$scripts" "$half"
