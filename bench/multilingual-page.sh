#!/usr/bin/env bash
# A page read in two languages with a full brand, against the same page in one language
# without one, in the same run: wrk on loopback against Herald at its default settings. Before
# each run the demo page is switched between Herald's own look in English alone and a full
# brand (logo, colour, header links, footer, custom CSS) with German enabled beside English,
# so the runs alternate and a burst of other work on this shared machine hits both alike. The
# second state is read twice: by a browser that asks for German (Accept-Language: de-DE,de;
# q=0.9,en;q=0.8, the negotiated path) and by one that sends no language (the default, English).
# A German page is a longer document than an English one, so a fourth state tells the cost
# of being German from the cost of the brand and the second language: the plain page with
# German as its one language ("plain-de"), which the German reader of the rich page is also
# set against ("rich-de/plain-de"). Prints req/s and p99 of each and the ratios to the plain
# page, for the page (brotli and identity) and its history.
#
#   bench/multilingual-page.sh                       # 256 connections, 3 s per run, 9 rounds
#   CONNECTIONS=64 DURATION=10s ROUNDS=3 bench/multilingual-page.sh
#
# What public reads cost against nginx serving the same bytes is bench/public-page.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-256}"
DURATION="${DURATION:-3s}"
THREADS="${THREADS:-2}"
ROUNDS="${ROUNDS:-9}"
PORT="${HERALD_PORT:-18484}"
GERMAN='Accept-Language: de-DE,de;q=0.9,en;q=0.8'

source bench/demo-herald.sh

rich() { brand_on '"languages": ["en", "de"], "default_language": "en"'; }
plain() { brand_off '"languages": ["en"], "default_language": "en"'; }
plain_de() { brand_off '"languages": ["de"], "default_language": "de"'; }

# The rich page must carry its brand and answer German to a German browser; the plain one
# neither.
rich
html="$(curl -fsS -H "$GERMAN" "$base/status/demo")"
for needle in 'class="brand-logo"' '/status/demo/brand.' 'Help centre' '<html lang="de"' '>Verlauf<'; do
  grep -q "$needle" <<<"$html" || { echo "the rich page lacks $needle" >&2; exit 1; }
done
plain
html="$(curl -fsS -H "$GERMAN" "$base/status/demo")"
! grep -q 'brand-logo\|<html lang="de"\|lang-switch' <<<"$html" ||
  { echo "the plain page still carries the brand or German" >&2; exit 1; }

# What six languages cost in memory: the process's resident size with the demo page (90 days
# of uptime, a year of history) in English alone, then in all six (each language's pages held
# beside the default's), read after the page has been rendered and served.
rss() { awk '/^VmRSS/ {print $2}' "/proc/$herald_pid/status"; }
settle() { for _ in 1 2 3; do curl -fsS -o /dev/null -H "$GERMAN" "$base/status/demo"; done; sleep 1; }
settle; one="$(rss)"
api PATCH /pages/demo '{"languages": ["en", "de", "fr", "es", "pt", "ja"]}' >/dev/null
settle; six="$(rss)"
plain; settle
printf 'resident memory: %s KiB with one language, %s KiB with six (+%s KiB)\n' \
  "$one" "$six" "$((six - one))"

# Each state's document, in bytes, identity and brotli: what a reader is sent.
# size HEADER ENCODING: the bytes of /status/demo sent for that request header and encoding.
size() { curl -fsS -o /dev/null -w '%{size_download}' ${1:+-H "$1"} ${2:+-H "Accept-Encoding: $2"} "$base/status/demo"; }
plain; printf 'page bytes (identity / br): plain %s / %s' "$(size "" "")" "$(size "" br)"
plain_de; printf ', plain-de %s / %s' "$(size "$GERMAN" "")" "$(size "$GERMAN" br)"
rich; printf ', rich-de %s / %s, rich-default %s / %s\n' "$(size "$GERMAN" "")" \
  "$(size "$GERMAN" br)" "$(size "" "")" "$(size "" br)"

header state
for endpoint in "/status/demo|br" "/status/demo|" "/status/demo/history?page=1|gzip"; do
  IFS='|' read -r path encoding <<<"$endpoint"
  declare -A runs=([plain]="" [plain-de]="" [rich-de]="" [rich-default]="")
  for _ in $(seq 1 "$ROUNDS"); do
    plain
    runs[plain]+="$(run "$base$path" "" "$encoding")"$'\n'
    plain_de
    runs[plain-de]+="$(run "$base$path" "$GERMAN" "$encoding")"$'\n'
    rich
    runs[rich-de]+="$(run "$base$path" "$GERMAN" "$encoding")"$'\n'
    runs[rich-default]+="$(run "$base$path" "" "$encoding")"$'\n'
  done
  for state in plain plain-de rich-de rich-default; do
    report "$path" "$encoding" "$state" "${runs[$state]}" "${runs[plain]}"
  done
  report "$path" "$encoding" "rich-de/plain-de" "${runs[rich-de]}" "${runs[plain-de]}"
done
