#!/usr/bin/env bash
# A branded page against the same page without its brand, in the same run: wrk on loopback
# against Herald at its default settings. Before each run the demo page is switched between
# Herald's own look and a full brand (a logo, a brand colour, header links, a footer and a
# custom stylesheet: PATCH and PUT /api/v1/pages/demo...), so plain and branded runs alternate
# and a burst of other work on this shared machine hits both alike. Prints req/s and p99 of
# each and the branded/plain ratios, for the page (brotli and identity) and its history.
#
#   bench/branded-page.sh                       # 256 connections, 10 s per run, 3 rounds
#   CONNECTIONS=64 DURATION=5s ROUNDS=5 bench/branded-page.sh
#
# What public reads cost against nginx serving the same bytes is bench/public-page.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
ROUNDS="${ROUNDS:-3}"
PORT="${HERALD_PORT:-18483}"

command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }
cargo build --release --quiet
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$PORT"
unset HERALD_LOG HERALD_WORKERS HERALD_LOG_FORMAT
herald=./target/release/herald
"$herald" demo >/dev/null
"$herald" user add --email bench@example.com --role owner >/dev/null
owner="$("$herald" token create --email bench@example.com)"
"$herald" serve >"$work/herald.log" 2>&1 &
herald_pid=$!
base="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

api() { # method path [json] -> the answer's body; fails on an error answer
  curl -fsS -X "$1" -H "Authorization: Bearer $owner" -H 'Content-Type: application/json' \
    ${3:+--data "$3"} "$base/api/v1$2"
}
cat >"$work/logo.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 30"><rect width="30" height="30" rx="6" fill="#6f42c1"/><path d="M8 22 L15 8 L22 22 Z" fill="#fff"/><rect x="38" y="9" width="74" height="12" rx="3" fill="#6f42c1"/></svg>
SVG
branded() {
  curl -fsS -X PUT -H "Authorization: Bearer $owner" -H 'Content-Type: image/svg+xml' \
    --data-binary @"$work/logo.svg" "$base/api/v1/pages/demo/logo" >/dev/null
  api PATCH /pages/demo '{"brand_color": "#6f42c1", "theme": "auto",
    "header_links": [{"label": "Help centre", "url": "https://help.example.com/"}, {"label": "Contact", "url": "mailto:support@example.com"}],
    "footer": "© Example Ltd · [Privacy](https://example.com/privacy) · [Terms](https://example.com/terms)",
    "custom_css": ".brand-logo { height: 2rem; } .site-footer { font-size: 0.85rem; }"}' >/dev/null
}
plain() {
  # 404 when there is no logo to remove.
  curl -sS -o /dev/null -X DELETE -H "Authorization: Bearer $owner" "$base/api/v1/pages/demo/logo"
  api PATCH /pages/demo '{"brand_color": null, "theme": "auto", "header_links": [], "footer": null, "custom_css": null}' >/dev/null
}

# The branded page must carry its brand, and the plain one none of it.
branded
html="$(curl -fsS "$base/status/demo")"
for needle in 'class="brand-logo"' '/status/demo/brand.' 'Help centre' 'Privacy'; do
  grep -q "$needle" <<<"$html" || { echo "the branded page lacks $needle" >&2; exit 1; }
done
plain
html="$(curl -fsS "$base/status/demo")"
! grep -q 'brand-logo\|/status/demo/brand.\|Help centre' <<<"$html" ||
  { echo "the plain page still carries the brand" >&2; exit 1; }

run() { # url [accept-encoding] -> "rps p99-in-ms"; any error answer fails the bench
  local out
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency ${2:+-H "Accept-Encoding: $2"} "$1")"
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "errors for $1:" >&2; echo "$out" >&2; return 1
  fi
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")"
}
to_ms() {
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf 'connections=%s duration=%s threads=%s rounds=%s cpus=%s (medians of alternating runs)\n' \
  "$CONNECTIONS" "$DURATION" "$THREADS" "$ROUNDS" "$(nproc)"
printf '%-16s %-8s %-8s %10s %9s %10s %10s\n' endpoint encoding look "req/s" p99 "rps ratio" "p99 ratio"
for endpoint in "/status/demo|br" "/status/demo|" "/status/demo/history?page=1|gzip"; do
  IFS='|' read -r path encoding <<<"$endpoint"
  declare -A runs=([plain]="" [branded]="")
  for _ in $(seq 1 "$ROUNDS"); do
    plain
    runs[plain]+="$(run "$base$path" "$encoding")"$'\n'
    branded
    runs[branded]+="$(run "$base$path" "$encoding")"$'\n'
  done
  p_rps="$(awk 'NF {print $1}' <<<"${runs[plain]}" | median)"
  p_ms="$(awk 'NF {print $2}' <<<"${runs[plain]}" | median)"
  for look in plain branded; do
    rps="$(awk 'NF {print $1}' <<<"${runs[$look]}" | median)"
    ms="$(awk 'NF {print $2}' <<<"${runs[$look]}" | median)"
    printf '%-16s %-8s %-8s %10s %7sms %10s %10s\n' "$(basename "$path")" "${encoding:-identity}" \
      "$look" "$rps" "$ms" \
      "$(awk -v a="$rps" -v b="$p_rps" 'BEGIN { printf "%.3fx", a / b }')" \
      "$(awk -v a="$ms" -v b="$p_ms" 'BEGIN { printf "%.2fx", a / b }')"
  done
done
