#!/usr/bin/env bash
# Pipelines and frames of the sample scene on Mesa's software Vulkan driver (lavapipe), through
# kiln-player. Run after `scripts/build.sh release kiln kiln-player`:
#   bench/bench_render.sh [runs]
# Cold: a fresh pipeline cache per run; warm: the cache the previous run saved. Per run: the time to
# create every pipeline, Kiln's pipeline-cache outcome, what the driver reports through
# VK_EXT_pipeline_creation_feedback, and the mean frame time over 30 frames (after the first).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | head -1)
export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd KILN_RENDER_DEVICE=llvmpipe
build/release/editor/kiln cook assets --out "$work/cooked" --cache-root "$work/cook-cache" >/dev/null 2>&1

field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
play() {  # $1: cache root
  build/release/player/kiln-player "$work/cooked" --json --frames 31 --cache-root "$1" 2>/dev/null |
    sed -n '/^{/p'
}

# One run on the cache at $2, one table row labelled $1; its creation time added to $total.
row() {
  local out ms
  out=$(play "$2")
  ms=$(field create_ms <<<"$out")
  total=$(echo "$total + $ms" | bc -l)
  printf '| %s | %s | %.1f | %s | %.1f |\n' "$1" "$(field outcome <<<"$out")" "$ms" "$(field cache_hits <<<"$out")" \
    "$(field mean_ms <<<"$out")"
}

printf '| run | pipeline cache | create ms | driver cache hits | frame ms |\n|---|---|---|---|---|\n'
total=0
for i in $(seq "$runs"); do row "cold $i" "$work/cold-$i"; done
cold_total=$total
play "$work/warm" >/dev/null  # fills the cache
total=0
for i in $(seq "$runs"); do row "warm $i" "$work/warm"; done
warm_total=$total
printf '\nmean pipeline creation: cold %.1f ms, warm %.1f ms, warm/cold %.2f\n' \
  "$(echo "$cold_total / $runs" | bc -l)" "$(echo "$warm_total / $runs" | bc -l)" \
  "$(echo "$warm_total / $cold_total" | bc -l)"
