#!/usr/bin/env bash
# CPU time of the benchmark scripts, for hosts whose wall time is noisy: Kiln's JIT (warm page cache,
# checked mode) against LuaJIT, and Kiln's interpreter against lua5.4. Each pair runs alternately,
# the least `perf stat` task-clock of N runs counts; each script's output is first checked against
# lua5.1's. The last line is the geometric mean of luajit/JIT.
#   bench/bench_jit_cpu.sh [runs]        (build first: scripts/build.sh release kiln)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-5}"
kiln=build/release/editor/kiln
[[ -x $kiln ]] || { echo "build kiln first: scripts/build.sh release kiln" >&2; exit 1; }
command -v perf >/dev/null || { echo "needs perf (linux-perf)" >&2; exit 1; }
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

cpu_ms() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }'; }
least() { echo "$1 $2" | awk '{ print ($1 < $2) ? $1 : $2 }'; }

printf '%-15s %9s %9s %8s %9s %9s %8s\n' script "jit ms" "luajit" "lj/jit" "interp" "lua5.4" "54/int"
log_sum=0
scripts=0
for script in bench/scripts/*.lua; do
  name=$(basename "$script" .lua)
  want=$(lua5.1 "$script")
  got=$($kiln script run "$script" --cache-root "$cache")  # fills the cache: the timed runs start warm
  [[ "$got" == "$want" ]] || { echo "$name: Kiln's output differs from lua5.1's" >&2; exit 1; }
  j=1e9 lj=1e9 i=1e9 l54=1e9
  for _ in $(seq "$runs"); do
    j=$(least "$j" "$(cpu_ms "$kiln" script run "$script" --cache-root "$cache")")
    lj=$(least "$lj" "$(cpu_ms luajit "$script")")
    i=$(least "$i" "$(cpu_ms "$kiln" script run "$script" --jit off)")
    l54=$(least "$l54" "$(cpu_ms lua5.4 "$script")")
  done
  printf '%-15s %9.1f %9.1f %8.2f %9.1f %9.1f %8.2f\n' "$name" "$j" "$lj" "$(echo "$lj / $j" | bc -l)" "$i" "$l54" \
    "$(echo "$l54 / $i" | bc -l)"
  log_sum=$(echo "$log_sum + l($lj / $j)" | bc -l)
  scripts=$((scripts + 1))
done
printf 'geometric mean luajit/jit %.2f over %d scripts\n' "$(echo "e($log_sum / $scripts)" | bc -l)" "$scripts"
