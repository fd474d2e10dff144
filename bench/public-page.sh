#!/usr/bin/env bash
# Public page throughput: wrk on loopback against Herald's /status/demo and its summary.json,
# and in the same run against nginx serving the very same bytes from static files, with the
# same connections and duration. Prints requests/s and p99 for both and Herald/nginx ratios.
# Two encodings: identity (wrk's default, no Accept-Encoding) and gzip (what browsers get; nginx
# serves Herald's own gzip bytes with gzip_static, so both send the same bytes again).
#
#   bench/public-page.sh            # 256 connections, 15 s per run
#   CONNECTIONS=64 DURATION=10s bench/public-page.sh
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-15s}"
THREADS="${THREADS:-2}"
HERALD_PORT="${HERALD_PORT:-18480}"
NGINX_PORT="${NGINX_PORT:-18481}"

need() { command -v "$1" >/dev/null 2>&1 || { echo "installing $2"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null; }; }
need wrk wrk
need nginx nginx-light

cargo build --release --quiet
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  [[ -f "$work/nginx.pid" ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$HERALD_PORT" HERALD_LOG=warn
./target/release/herald demo >/dev/null
./target/release/herald serve 2>"$work/herald.log" &
herald_pid=$!
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$HERALD_PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

# The very same bytes, as static files for nginx.
mkdir -p "$work/www/status/demo/api/v2"
curl -fsS "http://127.0.0.1:$HERALD_PORT/status/demo" -o "$work/www/status/demo/index.html"
curl -fsS "http://127.0.0.1:$HERALD_PORT/status/demo/api/v2/summary.json" -o "$work/www/status/demo/api/v2/summary.json"
curl -fsS -H 'Accept-Encoding: gzip' "http://127.0.0.1:$HERALD_PORT/status/demo" -o "$work/www/status/demo/index.html.gz"
curl -fsS -H 'Accept-Encoding: gzip' "http://127.0.0.1:$HERALD_PORT/status/demo/api/v2/summary.json" \
  -o "$work/www/status/demo/api/v2/summary.json.gz"
cat >"$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  gzip_static on;
  types { text/html html; application/json json; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $work/www;
    location = /status/demo { default_type text/html; try_files /status/demo/index.html =404; }
  }
}
CONF
nginx -c "$work/nginx.conf"
sleep 0.5

run() { # name url [accept-encoding]
  local out
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency ${3:+-H "Accept-Encoding: $3"} "$2")"
  local rps p99
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  echo "$1 $rps $p99"
}
to_ms() { # wrk latency like 12.34ms, 1.2s, 950.00us
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}

printf 'connections=%s duration=%s threads=%s cpus=%s\n' "$CONNECTIONS" "$DURATION" "$THREADS" "$(nproc)"
printf '%-12s %-8s %12s %10s %12s %10s %9s %9s\n' endpoint encoding "req/s" "p99" "nginx req/s" "nginx p99" "rps ratio" "p99 ratio"
for encoding in identity gzip; do
  accept=""; [[ "$encoding" == gzip ]] && accept="gzip"
  for path in /status/demo /status/demo/api/v2/summary.json; do
    read -r _ h_rps h_p99 < <(run herald "http://127.0.0.1:$HERALD_PORT$path" "$accept")
    read -r _ n_rps n_p99 < <(run nginx "http://127.0.0.1:$NGINX_PORT$path" "$accept")
    h_ms="$(to_ms "$h_p99")"; n_ms="$(to_ms "$n_p99")"
    printf '%-12s %-8s %12s %8sms %12s %8sms %9s %9s\n' "$(basename "$path")" "$encoding" "$h_rps" "$h_ms" "$n_rps" "$n_ms" \
      "$(awk -v a="$h_rps" -v b="$n_rps" 'BEGIN { printf "%.2fx", a / b }')" \
      "$(awk -v a="$h_ms" -v b="$n_ms" 'BEGIN { printf "%.2fx", a / b }')"
  done
done
printf 'bytes: page %s (gzip %s), summary.json %s (gzip %s)\n' \
  "$(stat -c %s "$work/www/status/demo/index.html")" "$(stat -c %s "$work/www/status/demo/index.html.gz")" \
  "$(stat -c %s "$work/www/status/demo/api/v2/summary.json")" "$(stat -c %s "$work/www/status/demo/api/v2/summary.json.gz")"
