#!/usr/bin/env bash
# A private page read with a read token, against the same page public, in the same run: wrk on
# loopback against Herald at its default settings. The demo page is switched between public
# and private before each run (PATCH /api/v1/pages/demo), so public and private runs alternate
# and a burst of other work on this shared machine hits both alike. The token is sent as a
# bearer header (API clients) and in the query (feed readers). Prints req/s and p99 of each,
# and the private/public ratios.
#
#   bench/private-page.sh                       # 256 connections, 3 s per run, 9 rounds
#   CONNECTIONS=64 DURATION=10s ROUNDS=3 bench/private-page.sh
#
# What public reads cost against nginx serving the same bytes is bench/public-page.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-3s}"
THREADS="${THREADS:-2}"
ROUNDS="${ROUNDS:-9}"
PORT="${HERALD_PORT:-18482}"

source bench/demo-herald.sh

visibility() { api PATCH /pages/demo "{\"visibility\": \"$1\"}" >/dev/null; }
read_token="$(api POST /pages/demo/read-tokens '{"name": "bench"}' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

# The private page must refuse a stranger and answer the token with the public page's content
# (the same JSON but for the page's updated_at, which each switch moves).
same_json() { python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in (a, b): d["page"].pop("updated_at")
sys.exit(a != b)' "$@"; }
visibility private
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/status/demo/api/v2/summary.json")" == 401 ]] ||
  { echo "the private page did not refuse a stranger" >&2; exit 1; }
curl -fsS -H "Authorization: Bearer $read_token" "$base/status/demo/api/v2/summary.json" -o "$work/private.json"
visibility public
curl -fsS "$base/status/demo/api/v2/summary.json" -o "$work/public.json"
same_json "$work/private.json" "$work/public.json" || { echo "the private page serves other content" >&2; exit 1; }

header "read as"
for endpoint in "/status/demo|br" "/status/demo/api/v2/summary.json|" "/status/demo/history.atom|gzip"; do
  IFS='|' read -r path encoding <<<"$endpoint"
  declare -A runs=([public]="" [bearer]="" [query]="")
  for _ in $(seq 1 "$ROUNDS"); do
    visibility public
    runs[public]+="$(run "$base$path" "" "$encoding")"$'\n'
    visibility private
    runs[bearer]+="$(run "$base$path" "Authorization: Bearer $read_token" "$encoding")"$'\n'
    runs[query]+="$(run "$base$path?token=$read_token" "" "$encoding")"$'\n'
  done
  for as in public bearer query; do
    report "$path" "$encoding" "$as" "${runs[$as]}" "${runs[public]}"
  done
done
