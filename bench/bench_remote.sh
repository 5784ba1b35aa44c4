#!/usr/bin/env bash
# Build farms: cooks of a generated large project (bench/make_large_project.py) sharing a remote
# cache, on a real redis-server and a real nginx (WebDAV PUT) started here on loopback ports, and the
# latency of one remote hit per blob (bench_remote). Run after
# `scripts/build.sh release kiln bench_remote`:
#   bench/bench_remote.sh [--shaders 6] [--keywords 7] [--textures 200]
# Every figure is whole-process wall time, as a ratio to one cold cook of the project on this
# machine with no remote (lower is better).
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

python3 bench/make_large_project.py "$work/project" "$@"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

redis_port=$(port)
mkdir -p "$work/redis"
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work/redis" --save "" --appendonly no \
  --logfile "$work/redis/log" &
pids+=($!)
http_port=$(port)
mkdir -p "$work/nginx/www/cache"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
pid $work/nginx/pid;
error_log $work/nginx/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$http_port;
    root $work/nginx/www;
    location /cache/ { dav_methods PUT DELETE; create_full_put_path on; }
  }
}
EOF
/usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
wait_port "$redis_port"
wait_port "$http_port"
redis_url="redis://127.0.0.1:$redis_port/0"
http_url="http://127.0.0.1:$http_port/cache"

# Wall seconds of one cook; $1: the name of its local cache root, the rest: extra arguments.
cook() {
  local cache="$work/cache-$1"
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$kiln" cook "$work/project" --cache-root "$cache" "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
empty_remote() {
  redis-cli -p "$redis_port" flushall >/dev/null
  rm -rf "$work/nginx/www/cache"/*
}
ratio() { printf '%.2f' "$(echo "$1 / $cold" | bc -l)"; }
row() { printf '| %s | %.1f s | %s |\n' "$1" "$2" "$(ratio "$2")"; }

cold=$(cook single --out "$work/out-single")
compiled=$(tail -1 "$work/last.log" | grep -o '[0-9]* compiled')
echo
echo "$(head -1 "$work/last.log" | sed 's/^cook: //') — one cold cook: $compiled"
echo
printf '| cook | wall | / one cold cook |\n| --- | --- | --- |\n'
row "one cold cook, no remote" "$cold"
for backend in redis http; do
  url=$redis_url
  [[ $backend == http ]] && url=$http_url
  empty_remote
  # Two shards on this one 2-core machine at once, one core each (two 1-core machines' worth)...
  t0=$(date +%s.%N)
  "$kiln" cook "$work/project" --cache-root "$work/shard1-$backend" --cache-remote "$url" --shard 1/2 --jobs 1 \
    >"$work/s1.log" 2>&1 &
  s1=$!
  "$kiln" cook "$work/project" --cache-root "$work/shard2-$backend" --cache-remote "$url" --shard 2/2 --jobs 1 \
    >"$work/s2.log" 2>&1 &
  s2=$!
  wait $s1 && wait $s2 || { cat "$work/s1.log" "$work/s2.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  row "$backend: shards 1/2 and 2/2 in parallel (--jobs 1 each)" "$(echo "$t1 - $t0" | bc -l)"
  assembled=$(cook "assemble-$backend" --out "$work/out-$backend" --cache-remote "$url")
  tail -1 "$work/last.log" | grep -q ' 0 compiled' || { echo "the assembly compiled variants" >&2; exit 1; }
  cmp -s <(cd "$work/out-$backend" && find . -type f -exec sha256sum {} + | sort) \
    <(cd "$work/out-single" && find . -type f -exec sha256sum {} + | sort) ||
    { echo "assembled packs differ from the single cook's" >&2; exit 1; }
  row "$backend: the assembly from remote hits alone (empty local cache)" "$assembled"
  # ...and each shard alone on the whole machine: what one of two machines spends.
  empty_remote
  alone=$(cook "alone-$backend" --cache-remote "$url" --shard 1/2)
  row "$backend: one shard of two alone (what each of two machines spends)" "$alone"
  empty_remote
  filled=$(cook "fill-$backend" --out "$work/fill-$backend" --cache-remote "$url")
  row "$backend: a cold cook that fills the remote" "$filled"
  second=$(cook "second-$backend" --out "$work/second-$backend" --cache-remote "$url")
  row "$backend: a second machine (empty local cache, warm remote)" "$second"
done
row "for scale: the first machine again (warm local cache, no remote)" "$(cook single --out "$work/out-warm")"

blob_bytes=$(find "$work/cache-single/shaders" -name '*.blob' -printf '%s\n' | awk '{s+=$1; n++} END {printf "%d", s/n}')
echo
build/release/bench/bench_remote --redis "$redis_url" --http "$http_url" --bytes "$blob_bytes" --dir "$work/latency"
