#!/usr/bin/env bash
# Rebuilds the fuzz corpora in fuzz/corpus from the sample project: the files the loaders read in a
# real cook and a real player. They are committed; run this when a format changes. Hand-written
# seeds beside them (named for what they test) are kept.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh release kiln kiln-fuzz-seeds >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus=fuzz/corpus
mkdir -p "$corpus"/{aot_page,blob,page_file,material_json,shader_pragmas,include_scanner,script,bytecode,pack_bytes,pack_records,tx,image,config,usage_record}

cp assets/materials/*.json "$corpus/material_json/"
cp assets/shaders/*.* assets/shaders/common/*.glsl "$corpus/shader_pragmas/"
cp assets/shaders/*.* assets/shaders/common/*.glsl "$corpus/include_scanner/"
cp assets/scripts/*.lua "$corpus/script/"

build/release/editor/kiln cook assets --out "$work/cooked" --cache-root "$work/cache" >/dev/null 2>&1
build/release/fuzz/kiln-fuzz-seeds "$work/cooked" "$corpus"
# Shader cache blobs as the fuzz target reads them: the file name, then the file.
n=0
for blob in $(find "$work/cache/shaders" -name '*.blob' | sort | head -4); do
  { printf '%s' "$(basename "$blob")"; cat "$blob"; } > "$corpus/blob/blob-$n"
  n=$((n + 1))
done

# Page code cache files as the fuzz target reads them: the store's key, then the file.
for script in assets/scripts/*.lua; do
  build/release/editor/kiln script run "$script" --cache-root "$work/cache" >/dev/null
done
# A page file is the payload of a cache store entry: the entry's 64-byte header comes off.
n=0
for page in $(find "$work/cache/jit" -name '*.blob' | sort | head -4); do
  { cat "$work/cache/jit/secret.key"; tail -c +65 "$page"; } > "$corpus/page_file/page-$n"
  n=$((n + 1))
done

# Small images: the fuzzer mutates faster from a few hundred bytes than from a real texture.
oiiotool --pattern checker:width=4:height=4 16x16 3 -d uint8 -o "$corpus/image/checker.png"
oiiotool --pattern fill:topleft=0,0,0,1:topright=1,0,0,1:bottomleft=0,1,0,1:bottomright=0,0,1,1 8x8 4 -d uint8 \
  -o "$corpus/image/gradient.tif"
maketx --tile 16 16 -o "$corpus/tx/checker.tx" "$corpus/image/checker.png" >/dev/null
maketx --tile 16 16 -d uint16 -o "$corpus/tx/gradient16.tx" "$corpus/image/gradient.tif" >/dev/null
maketx --tile 16 16 --compression none -o "$corpus/tx/gradient-raw.tx" "$corpus/image/gradient.tif" >/dev/null

cat > "$corpus/config/full.json" <<'JSON'
{"cache": {"root": "/tmp/kiln-cache", "disk_max": "2GiB", "keep_builds": 3, "memory_max": "256MiB"},
 "textures": {"memory_max": "auto"}, "shaders": {"disk_cache": true, "compile_workers": true,
 "compile_memory_max": "1GiB", "compile_timeout": 60}, "jit": {"cache": "on", "cache_verify": false,
 "compile_threads": 2}, "jobs": 4}
JSON
echo '{"cook": {"targets": [{"backend": "spirv"}]}, "jobs": 0}' > "$corpus/config/with-cook.json"
echo "fuzz seeds: $(find "$corpus" -type f | wc -l) files in $corpus"
