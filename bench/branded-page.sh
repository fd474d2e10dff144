#!/usr/bin/env bash
# A branded page against the same page without its brand, in the same run: wrk on loopback
# against Herald at its default settings. Before each run the demo page is switched between
# Herald's own look and a full brand (a logo, a brand colour, header links, a footer and a
# custom stylesheet: PATCH and PUT /api/v1/pages/demo...), so plain and branded runs alternate
# and a burst of other work on this shared machine hits both alike. Prints req/s and p99 of
# each and the branded/plain ratios, for the page (brotli and identity) and its history.
#
#   bench/branded-page.sh                       # 256 connections, 3 s per run, 9 rounds
#   CONNECTIONS=64 DURATION=10s ROUNDS=3 bench/branded-page.sh
#
# What public reads cost against nginx serving the same bytes is bench/public-page.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-3s}"
THREADS="${THREADS:-2}"
ROUNDS="${ROUNDS:-9}"
PORT="${HERALD_PORT:-18483}"

source bench/demo-herald.sh

branded() { brand_on; }
plain() { brand_off; }

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

header look
for endpoint in "/status/demo|br" "/status/demo|" "/status/demo/history?page=1|gzip"; do
  IFS='|' read -r path encoding <<<"$endpoint"
  declare -A runs=([plain]="" [branded]="")
  for _ in $(seq 1 "$ROUNDS"); do
    plain
    runs[plain]+="$(run "$base$path" "" "$encoding")"$'\n'
    branded
    runs[branded]+="$(run "$base$path" "" "$encoding")"$'\n'
  done
  for look in plain branded; do
    report "$path" "$encoding" "$look" "${runs[$look]}" "${runs[plain]}"
  done
done
