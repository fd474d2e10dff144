#!/usr/bin/env bash
# Public read path: wrk on loopback against Herald at its default settings and, in the same
# run, against nginx set up as its users set it up to serve static files well, serving the very
# same bytes from files. Prints req/s and p99 for both and the Herald/nginx ratios.
#
# Herald: `herald demo` then `herald serve`, nothing tuned: the default log level (info), the
# default workers, the default everything. Only the database file and the port are chosen.
#
# nginx: worker_processes auto, sendfile, tcp_nopush, keepalive_requests 1000000 (wrk's
# connections stay open, as a browser's or a CDN's do), keepalive_timeout 65,
# open_file_cache, access_log off, and gzip_static/brotli_static serving Herald's own
# compressed bytes, so both send the same bytes for each encoding.
#
# Endpoints and encodings: the page and summary.json in identity, gzip and br; the root (`/`),
# an incident page and history.atom in identity and gzip.
#
#   bench/public-page.sh                     # 256 connections, 10 s per run, 3 rounds
#   CONNECTIONS=64 DURATION=5s ROUNDS=5 bench/public-page.sh
#   ONLY=summary.json bench/public-page.sh   # endpoints whose path contains ONLY
#
# The last column is each server's own CPU time per request (user + system, from /proc), Herald's
# then nginx's: with wrk on the same cores, req/s is shared out between client and server, and
# this says what the server itself spends.
#
# The machine is shared and noisy: each figure is the median of ROUNDS runs, Herald and nginx
# alternating, so a burst of other work hits both sides alike.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
ROUNDS="${ROUNDS:-3}"
ONLY="${ONLY:-}"
HERALD_PORT="${HERALD_PORT:-18480}"
NGINX_PORT="${NGINX_PORT:-18481}"

apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; apt_install wrk; }
command -v nginx >/dev/null 2>&1 || { echo "installing nginx"; apt_install nginx-light; }
BROTLI_MODULE=/usr/lib/nginx/modules/ngx_http_brotli_static_module.so
[[ -f "$BROTLI_MODULE" ]] || { echo "installing nginx's brotli_static"; apt_install libnginx-mod-http-brotli-static; }
# The distribution's nginx may have started with its own configuration: it is not ours.
systemctl stop nginx >/dev/null 2>&1 || service nginx stop >/dev/null 2>&1 || true

cargo build --release --quiet
work="$(mktemp -d)"
# nginx's workers run as an unprivileged user: they must be able to read the files (mktemp's 0700
# would have them answer 403, and the comparison would be against tiny error pages).
chmod 755 "$work"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  [[ -f "$work/nginx.pid" ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Herald at its defaults: only where its data lives and where it listens.
export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$HERALD_PORT"
unset HERALD_LOG HERALD_WORKERS HERALD_LOG_FORMAT
./target/release/herald demo >/dev/null
./target/release/herald serve >"$work/herald.log" 2>&1 &
herald_pid=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$HERALD_PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

herald="http://127.0.0.1:$HERALD_PORT"
incident="$(curl -fsS "$herald/status/demo/api/v2/incidents.json" | python3 -c \
  'import json, sys; print(json.load(sys.stdin)["incidents"][0]["id"])')"
# path on the site | file under www | content type
endpoints=(
  "/status/demo|status/demo/index.html|text/html"
  "/status/demo/api/v2/summary.json|status/demo/api/v2/summary.json|application/json"
  "/|index.html|text/html"
  "/status/demo/incidents/$incident|status/demo/incidents/$incident.html|text/html"
  "/status/demo/history.atom|status/demo/history.atom|application/atom+xml"
)

# The very same bytes, as static files for nginx, in each encoding.
locations=""
for e in "${endpoints[@]}"; do
  IFS='|' read -r path file type <<<"$e"
  mkdir -p "$(dirname "$work/www/$file")"
  curl -fsS "$herald$path" -o "$work/www/$file"
  curl -fsS -H 'Accept-Encoding: gzip' "$herald$path" -o "$work/www/$file.gz"
  curl -fsS -H 'Accept-Encoding: br' "$herald$path" -o "$work/www/$file.br"
  locations+="    location = $path { default_type \"$type\"; try_files /$file =404; }"$'\n'
done
cat >"$work/nginx.conf" <<CONF
load_module $BROTLI_MODULE;
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  open_file_cache max=100;
  gzip_static on;
  brotli_static on;
  types { }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $work/www;
$locations  }
}
CONF
chmod -R a+rX "$work/www"
nginx -t -q -c "$work/nginx.conf"
nginx -c "$work/nginx.conf"
for _ in $(seq 1 50); do curl -fsS "http://127.0.0.1:$NGINX_PORT/" >/dev/null 2>&1 && break; sleep 0.1; done

# Both servers must answer 200 with the very same bytes in each encoding, or the comparison
# means nothing.
for e in "${endpoints[@]}"; do
  IFS='|' read -r path _ _ <<<"$e"
  for enc in identity gzip br; do
    h="$(curl -fsS -H "Accept-Encoding: $enc" -D "$work/h.headers" "$herald$path" | sha256sum)"
    n="$(curl -fsS -H "Accept-Encoding: $enc" -D "$work/n.headers" "http://127.0.0.1:$NGINX_PORT$path" | sha256sum)" || {
      echo "nginx does not serve $path" >&2; exit 1; }
    [[ "$h" == "$n" ]] || { echo "nginx and Herald send different bytes for $path ($enc)" >&2; exit 1; }
    if [[ "$enc" != identity ]]; then
      grep -qi "^content-encoding: $enc" "$work/h.headers" || { echo "Herald sent $path without $enc" >&2; exit 1; }
      grep -qi "^content-encoding: $enc" "$work/n.headers" || { echo "nginx sent $path without $enc" >&2; exit 1; }
    fi
  done
done

source bench/measure.sh
server_pids() { # herald|nginx -> the server's processes (nginx: its workers too)
  if [[ "$1" == herald ]]; then echo "$herald_pid"
  else local master; master="$(cat "$work/nginx.pid")"; echo "$master" $(pgrep -P "$master"); fi
}
run() { # name url [accept-encoding] -> "rps p99-in-ms cpu-us-per-request"; any error answer fails the bench
  local out pids before after
  pids="$(server_pids "$1")"
  before="$(cpu_ticks $pids)"
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency ${3:+-H "Accept-Encoding: $3"} "$2")"
  after="$(cpu_ticks $pids)"
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "$1 answered errors for $2:" >&2; echo "$out" >&2; return 1
  fi
  figures "$out" "$((after - before))"
}

printf 'connections=%s duration=%s threads=%s rounds=%s cpus=%s (medians of alternating runs)\n' \
  "$CONNECTIONS" "$DURATION" "$THREADS" "$ROUNDS" "$(nproc)"
printf 'Herald at its defaults (%s); nginx %s tuned for static files\n' \
  "$(./target/release/herald --version 2>/dev/null || echo herald)" "$(nginx -v 2>&1 | sed 's/.*\///')"
printf '%-16s %-8s %10s %10s %12s %10s %9s %9s %11s\n' endpoint encoding "req/s" "p99" "nginx req/s" "nginx p99" \
  "rps ratio" "p99 ratio" "cpu us/req"
for e in "${endpoints[@]}"; do
  IFS='|' read -r path file _ <<<"$e"
  [[ -z "$ONLY" || "$path" == *"$ONLY"* ]] || continue
  encodings=(identity gzip)
  [[ "$path" == /status/demo || "$path" == */summary.json ]] && encodings+=(br)
  for encoding in "${encodings[@]}"; do
    accept=""; [[ "$encoding" != identity ]] && accept="$encoding"
    h_runs=(); n_runs=()
    for _ in $(seq 1 "$ROUNDS"); do
      h_runs+=("$(run herald "$herald$path" "$accept")") || exit 1
      n_runs+=("$(run nginx "http://127.0.0.1:$NGINX_PORT$path" "$accept")") || exit 1
    done
    h_rps="$(printf '%s\n' "${h_runs[@]}" | awk '{print $1}' | median)"
    h_ms="$(printf '%s\n' "${h_runs[@]}" | awk '{print $2}' | median)"
    n_rps="$(printf '%s\n' "${n_runs[@]}" | awk '{print $1}' | median)"
    n_ms="$(printf '%s\n' "${n_runs[@]}" | awk '{print $2}' | median)"
    h_cpu="$(printf '%s\n' "${h_runs[@]}" | awk '{print $3}' | median)"
    n_cpu="$(printf '%s\n' "${n_runs[@]}" | awk '{print $3}' | median)"
    name="$(basename "$path")"; [[ "$path" == / ]] && name="/"
    [[ "$path" == */incidents/* ]] && name="incident page"
    printf '%-16s %-8s %10s %8sms %12s %8sms %9s %9s %11s\n' "$name" "$encoding" "$h_rps" "$h_ms" "$n_rps" "$n_ms" \
      "$(awk -v a="$h_rps" -v b="$n_rps" 'BEGIN { printf "%.2fx", a / b }')" \
      "$(awk -v a="$h_ms" -v b="$n_ms" 'BEGIN { printf "%.2fx", a / b }')" "$h_cpu/$n_cpu"
  done
done
for e in "${endpoints[@]}"; do
  IFS='|' read -r path file _ <<<"$e"
  printf 'bytes %s: %s (gzip %s, br %s)\n' "$path" "$(stat -c %s "$work/www/$file")" \
    "$(stat -c %s "$work/www/$file.gz")" "$(stat -c %s "$work/www/$file.br")"
done
