#!/usr/bin/env bash
# What signed sets and keyed remote entries cost. Run after
# `scripts/build.sh release kiln kiln-player bench_trust`:
#   bench/bench_trust.sh [--shaders 6] [--keywords 7] [--textures 200]
# 1. Hashing, signature checks and HMAC tags in one process, Kiln (Nettle) beside OpenSSL (bench_trust).
# 2. The generated large project cooked signed: `kiln set verify` (every pack hashed) and the
#    player's start (its own startup_ms, no GPU) with and without --trust, 9 runs each, interleaved,
#    medians; sha256sum over the same packs as the anchor for the hashing rate.
# 3. A second machine cooking from a warm Redis remote, with and without a farm key, 5 runs each,
#    interleaved: the whole cook's wall time, and the difference per remote entry.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
kiln=build/release/editor/kiln
player=build/release/player/kiln-player
args=("$@")
[[ ${#args[@]} -gt 0 ]] || args=(--shaders 6 --keywords 7 --textures 200)

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

echo "## In one process"
build/release/bench/bench_trust

python3 bench/make_large_project.py "$work/project" "${args[@]}" >/dev/null
"$kiln" key generate "$work/release.key" >/dev/null
"$kiln" cook "$work/project" --out "$work/set" --cache-root "$work/cache" --sign "$work/release.key" >/dev/null 2>&1

echo
echo "## The generated project (${args[*]}), signed"
bytes=$("$kiln" set verify "$work/set" --trust "$work/release.key.pub" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes"])')
verify_ms=()
sum_ms=()
for _ in 1 2 3 4 5; do
  verify_ms+=("$("$kiln" set verify "$work/set" --trust "$work/release.key.pub" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["ms"])')")
  t0=$(now)
  sha256sum "$work"/set/*.pack >/dev/null
  t1=$(now)
  sum_ms+=("$(echo "($t1 - $t0) * 1000" | bc -l)")
done
v=$(printf '%s\n' "${verify_ms[@]}" | median)
s=$(printf '%s\n' "${sum_ms[@]}" | median)
printf '| packs | %.1f MiB |\n| --- | --- |\n' "$(echo "$bytes / 1048576" | bc -l)"
printf '| kiln set verify: open, check the signature, hash every pack | %.1f ms (%.0f MB/s) |\n' "$v" \
  "$(echo "$bytes / $v / 1000" | bc -l)"
printf '| sha256sum of the same packs (a whole process) | %.1f ms (%.0f MB/s) |\n' "$s" \
  "$(echo "$bytes / $s / 1000" | bc -l)"

plain=()
trusted=()
for _ in $(seq 9); do
  plain+=("$(KILN_RENDER_DEVICE=none "$player" "$work/set" --cache-root "$work/pc" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["startup_ms"])')")
  trusted+=("$(KILN_RENDER_DEVICE=none "$player" "$work/set" --cache-root "$work/pc" --json --trust "$work/release.key.pub" | python3 -c 'import json,sys; print(json.load(sys.stdin)["startup_ms"])')")
done
p=$(printf '%s\n' "${plain[@]}" | median)
t=$(printf '%s\n' "${trusted[@]}" | median)
printf '| kiln-player start, no GPU, without trust | %.1f ms |\n' "$p"
printf '| kiln-player start, no GPU, --trust | %.1f ms (%+.1f ms, %.2fx) |\n' "$t" "$(echo "$t - $p" | bc -l)" \
  "$(echo "$t / $p" | bc -l)"

echo
echo "## A second machine from a warm Redis remote"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/redis"
redis-server --port "$port" --bind 127.0.0.1 --dir "$work/redis" --save "" --appendonly no \
  --logfile "$work/redis/log" &
pids+=($!)
for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
"$kiln" key generate --remote "$work/farm.key" >/dev/null
# Database 0 unkeyed, database 1 keyed, each filled by a first machine.
"$kiln" cook "$work/project" --out "$work/a0" --cache-root "$work/ca0" --cache-remote "redis://127.0.0.1:$port/0" >/dev/null 2>&1
"$kiln" cook "$work/project" --out "$work/a1" --cache-root "$work/ca1" --cache-remote "redis://127.0.0.1:$port/1" \
  --cache-remote-key "$work/farm.key" >/dev/null 2>&1
unkeyed=()
keyed=()
entries=0
for i in 1 2 3 4 5; do
  t0=$(now)
  "$kiln" cook "$work/project" --out "$work/b0-$i" --cache-root "$work/cb0-$i" \
    --cache-remote "redis://127.0.0.1:$port/0" --cache-remote-read-only true >/dev/null 2>&1
  t1=$(now)
  "$kiln" cook "$work/project" --out "$work/b1-$i" --cache-root "$work/cb1-$i" --report "$work/b1.json" \
    --cache-remote "redis://127.0.0.1:$port/1" --cache-remote-read-only true \
    --cache-remote-key "$work/farm.key" >/dev/null 2>&1
  t2=$(now)
  unkeyed+=("$(echo "($t1 - $t0) * 1000" | bc -l)")
  keyed+=("$(echo "($t2 - $t1) * 1000" | bc -l)")
  entries=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"]["remote"]["hits"])' "$work/b1.json")
done
u=$(printf '%s\n' "${unkeyed[@]}" | median)
k=$(printf '%s\n' "${keyed[@]}" | median)
printf '| remote hits per cook | %d |\n| --- | --- |\n' "$entries"
printf '| cook from the remote, unkeyed | %.0f ms |\n' "$u"
printf '| cook from the remote, keyed | %.0f ms (%.2fx; %+.1f us per entry) |\n' "$k" "$(echo "$k / $u" | bc -l)" \
  "$(echo "($k - $u) * 1000 / $entries" | bc -l)"
