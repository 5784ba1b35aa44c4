#!/usr/bin/env bash
# Kiln's script interpreter side by side with lua5.1, lua5.4 and LuaJIT's interpreter (-joff) on
# the same scripts (bench/scripts/*.lua, written in Kiln's subset). Best of N runs, wall seconds;
# ratios are the other interpreter's time over Kiln's (above 1: Kiln is faster).
#   bench/bench_scripts.sh [runs]        (build first: scripts/build.sh release kiln)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-3}"
kiln=build/release/editor/kiln
[[ -x $kiln ]] || { echo "build kiln first: scripts/build.sh release kiln" >&2; exit 1; }

source bench/timing.sh

printf '%-18s %8s %8s %8s %8s   %s\n' script kiln lua5.1 lua5.4 "luajit" "ratios lua5.1/kiln lua5.4/kiln luajit-joff/kiln"
for script in bench/scripts/*.lua; do
  name=$(basename "$script" .lua)
  # Same output first: a benchmark of a wrong answer measures nothing.
  if [[ "$($kiln script run "$script")" != "$(lua5.1 "$script")" ]]; then
    echo "$name: Kiln's output differs from lua5.1's" >&2
    exit 1
  fi
  k=$(best "$kiln" script run "$script")
  l51=$(best lua5.1 "$script")
  l54=$(best lua5.4 "$script")
  lj=$(best luajit -joff "$script")
  printf '%-18s %8s %8s %8s %8s   %.2f %.2f %.2f\n' "$name" "$k" "$l51" "$l54" "$lj" \
    "$(echo "$l51 / $k" | bc -l)" "$(echo "$l54 / $k" | bc -l)" "$(echo "$lj / $k" | bc -l)"
done
