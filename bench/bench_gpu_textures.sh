#!/usr/bin/env bash
# GPU texture formats, measured side by side. Run after
# `scripts/build.sh release kiln kiln-player bench_gpu_textures`:
#   bench/bench_gpu_textures.sh
# 1. Encoding rate and PSNR per format on photographs (the sample photographs of Debian's
#    python3-skimage package, unpacked from the package file, not installed) and on the sample
#    project's textures; BC1/BC3 also through libsquish's own image loop. One thread.
# 2. ASTC against the astcenc tool at the same settings (6x6, -medium, one thread): astcenc's own
#    "coding rate" (its compression alone, without reading and writing files).
# 3. Bytes on the GPU against RGBA8: the sample project and a generated one, cooked with "textures": "bc".
# 4. Upload time of every texture of the RGBA8 and the BC sets on lavapipe.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench=build/release/bench/bench_gpu_textures
kiln=build/release/editor/kiln

photos=()
if (cd "$work" && apt-get download python3-skimage >/dev/null 2>&1); then
  dpkg-deb -x "$work"/python3-skimage_*.deb "$work/skimage"
  for p in astronaut coffee chelsea brick grass gravel; do
    photos+=("$(find "$work/skimage" -name "$p.png" | head -1)")
  done
else
  echo "(python3-skimage could not be downloaded: photographs left out)" >&2
fi

echo "## Encoding, one thread"
# libsquish's image loop runs on OpenMP threads unless told otherwise: one, as Kiln here.
OMP_NUM_THREADS=1 "$bench" encode "${photos[@]}" assets/textures/brick.png assets/textures/skin.png --threads 1

echo
echo "## ASTC -medium, one thread: Kiln (libastcenc in process) against the astcenc tool"
echo "(medians of 5 runs, interleaved; each side's compression alone, its context made beforehand)"
median() { sort -g | sed -n 3p; }
printf '| image | block | Kiln MP/s | astcenc MP/s | Kiln / astcenc |\n|---|---|---|---|---|\n'
for p in "${photos[@]}"; do
  for block in 4x4 6x6 8x8; do
    : >"$work/kiln.txt"
    : >"$work/astcenc.txt"
    for _ in 1 2 3 4 5; do
      "$bench" encode-once "$p" "astc$block" >>"$work/kiln.txt"
      astcenc -cl "$p" "$work/out.astc" "$block" -medium -j 1 | grep -i "coding rate" | grep -o '[0-9.]*' | head -1 \
        >>"$work/astcenc.txt"
    done
    k=$(median <"$work/kiln.txt")
    a=$(median <"$work/astcenc.txt")
    printf '| %s | %s | %.3f | %.3f | %.2f |\n' "$(basename "$p")" "$block" "$k" "$a" "$(echo "$k / $a" | bc -l)"
  done
done

echo
echo "## Bytes on the GPU"
printf '| project | textures | formats | GPU bytes | as RGBA8 | ratio |\n|---|---|---|---|---|---|\n'
python3 bench/make_large_project.py "$work/large" --textures 200 --size 256 >/dev/null
for project in assets "$work/large"; do
  cp -r "$project" "$work/bc-project"
  echo '{"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.0", "textures": "bc"}]}}' \
    >"$work/bc-project/kiln.json"
  "$kiln" cook "$work/bc-project" --out "$work/bc-$(basename "$project")" --json --cache-root "$work/cache" \
    2>/dev/null | sed -n '/^{/,$p' >"$work/report.json"
  python3 - "$project" "$work/report.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[2]))["textures"]
formats = ", ".join(f"{n} {f}" for f, n in sorted(t["formats"].items()))
print(f"| {sys.argv[1].split('/')[-1]} | {t['files']} | {formats} | {t['gpu_bytes']} | {t['rgba8_gpu_bytes']} | "
      f"{t['rgba8_gpu_bytes'] / t['gpu_bytes']:.2f}x |")
PY
  rm -rf "$work/bc-project"
done

echo
echo "## Upload on lavapipe"
icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json | head -1)
"$kiln" cook assets --out "$work/rgba-assets" --cache-root "$work/cache" >/dev/null 2>&1
VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd "$bench" upload "$work/rgba-assets" "$work/bc-assets"
