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

source bench/demo-herald.sh

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

printf 'connections=%s duration=%s threads=%s rounds=%s cpus=%s (medians of alternating runs)\n' \
  "$CONNECTIONS" "$DURATION" "$THREADS" "$ROUNDS" "$(nproc)"
printf '%-16s %-8s %-8s %10s %9s %10s %10s\n' endpoint encoding look "req/s" p99 "rps ratio" "p99 ratio"
for endpoint in "/status/demo|br" "/status/demo|" "/status/demo/history?page=1|gzip"; do
  IFS='|' read -r path encoding <<<"$endpoint"
  declare -A runs=([plain]="" [branded]="")
  for _ in $(seq 1 "$ROUNDS"); do
    plain
    runs[plain]+="$(run "$base$path" "" "$encoding")"$'\n'
    branded
    runs[branded]+="$(run "$base$path" "" "$encoding")"$'\n'
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
