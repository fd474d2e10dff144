#!/usr/bin/env bash
# Public page throughput: wrk on loopback against Herald's /status/demo and its summary.json,
# and in the same run against nginx serving the very same bytes from static files, with the
# same connections and duration. Prints requests/s and p99 for both and Herald/nginx ratios.
# Two encodings: identity (wrk's default, no Accept-Encoding) and gzip (what browsers get; nginx
# serves Herald's own gzip bytes with gzip_static, so both send the same bytes again).
#
#   bench/public-page.sh            # 256 connections, 15 s per run
#   CONNECTIONS=64 DURATION=10s ROUNDS=5 bench/public-page.sh
#
# The machine is shared and noisy: each figure is the median of ROUNDS runs, Herald and nginx
# alternating, so a burst of other work hits both sides alike.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-15s}"
THREADS="${THREADS:-2}"
ROUNDS="${ROUNDS:-3}"
HERALD_PORT="${HERALD_PORT:-18480}"
NGINX_PORT="${NGINX_PORT:-18481}"

need() { command -v "$1" >/dev/null 2>&1 || { echo "installing $2"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null; }; }
need wrk wrk
need nginx nginx-light

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
chmod -R a+rX "$work/www"
nginx -c "$work/nginx.conf"
sleep 0.5

# Both servers must answer 200 with the very same bytes, or the comparison means nothing.
for enc in identity gzip; do
  for path in /status/demo /status/demo/api/v2/summary.json; do
    h="$(curl -fsS -H "Accept-Encoding: $enc" "http://127.0.0.1:$HERALD_PORT$path" | sha256sum)"
    n="$(curl -fsS -H "Accept-Encoding: $enc" "http://127.0.0.1:$NGINX_PORT$path" | sha256sum)" || {
      echo "nginx does not serve $path" >&2; exit 1; }
    [[ "$h" == "$n" ]] || { echo "nginx and Herald send different bytes for $path ($enc)" >&2; exit 1; }
  done
done

run() { # name url [accept-encoding] -> "rps p99-in-ms"; a run with any error answer fails the bench
  local out
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency ${3:+-H "Accept-Encoding: $3"} "$2")"
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "$1 answered errors for $2:" >&2; echo "$out" >&2; return 1
  fi
  local rps p99
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  echo "$rps $(to_ms "$p99")"
}
to_ms() { # wrk latency like 12.34ms, 1.2s, 950.00us
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf 'connections=%s duration=%s threads=%s rounds=%s cpus=%s (medians of alternating runs)\n' \
  "$CONNECTIONS" "$DURATION" "$THREADS" "$ROUNDS" "$(nproc)"
printf '%-12s %-8s %12s %10s %12s %10s %9s %9s\n' endpoint encoding "req/s" "p99" "nginx req/s" "nginx p99" "rps ratio" "p99 ratio"
for encoding in identity gzip; do
  accept=""; [[ "$encoding" == gzip ]] && accept="gzip"
  for path in /status/demo /status/demo/api/v2/summary.json; do
    h_runs=(); n_runs=()
    for _ in $(seq 1 "$ROUNDS"); do
      h_runs+=("$(run herald "http://127.0.0.1:$HERALD_PORT$path" "$accept")") || exit 1
      n_runs+=("$(run nginx "http://127.0.0.1:$NGINX_PORT$path" "$accept")") || exit 1
    done
    h_rps="$(printf '%s\n' "${h_runs[@]}" | awk '{print $1}' | median)"
    h_ms="$(printf '%s\n' "${h_runs[@]}" | awk '{print $2}' | median)"
    n_rps="$(printf '%s\n' "${n_runs[@]}" | awk '{print $1}' | median)"
    n_ms="$(printf '%s\n' "${n_runs[@]}" | awk '{print $2}' | median)"
    printf '%-12s %-8s %12s %8sms %12s %8sms %9s %9s\n' "$(basename "$path")" "$encoding" "$h_rps" "$h_ms" "$n_rps" "$n_ms" \
      "$(awk -v a="$h_rps" -v b="$n_rps" 'BEGIN { printf "%.2fx", a / b }')" \
      "$(awk -v a="$h_ms" -v b="$n_ms" 'BEGIN { printf "%.2fx", a / b }')"
  done
done
printf 'bytes: page %s (gzip %s), summary.json %s (gzip %s)\n' \
  "$(stat -c %s "$work/www/status/demo/index.html")" "$(stat -c %s "$work/www/status/demo/index.html.gz")" \
  "$(stat -c %s "$work/www/status/demo/api/v2/summary.json")" "$(stat -c %s "$work/www/status/demo/api/v2/summary.json.gz")"
