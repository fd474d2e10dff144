#!/usr/bin/env bash
# A Statuspage-shaped integration is as fast as Herald's own (issue 43): incidents opened and
# updated through the Statuspage API (/v1) and through Herald's own (/api/v1), on the same page,
# alternating in one run; p50 and p95 of each, and /v1's over /api/v1's (target: within 1.2x).
#
# How:
# 1. A fresh SQLite database in a temporary directory: `herald migrate`, an owner
#    (bench@example.com, a generated password) and an API token of theirs (`herald token
#    create`), the same token for both APIs.
# 2. `herald serve` (release, defaults: only DATABASE_URL and HERALD_BIND set), once /readyz
#    answers 200: the page `bench` and one component of it (`API`) through /api/v1.
# 3. bench/v1_load.py: one client, one keep-alive connection, one request at a time. A round
#    through /api/v1 (POST .../incidents with the component degraded_performance, POST
#    .../incidents/ID/updates identified with it partial_outage, then resolved), then one
#    through /v1 (POST /v1/pages/bench/incidents, PATCH .../incidents/ID identified, then
#    resolved), WARMUP (20) pairs untimed and ROUNDS (300) timed. The open and the update are
#    timed apart; the resolve only keeps the page from piling up open incidents (timed apart,
#    shown, not judged). The page has no subscribers, so no notification is measured.
# 4. A table of p50 and p95 of open and update through each API and their ratio /v1 : /api/v1,
#    and a last line saying whether every ratio is within MAX_RATIO (1.2).
#
#   bench/v1.sh                                  # 300 rounds each
#   ROUNDS=1000 WARMUP=50 bench/v1.sh
#   HERALD_BIN=/tmp/herald-old bench/v1.sh       # another build (no cargo build then)
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS="${ROUNDS:-300}"
WARMUP="${WARMUP:-20}"
MAX_RATIO="${MAX_RATIO:-1.2}"
PORT="${PORT:-18530}"
HERALD_BIN="${HERALD_BIN:-$PWD/target/release/herald}"

if [[ ! -x "$HERALD_BIN" ]]; then
  cargo build --release --quiet
fi
HERALD_BIN="$(realpath "$HERALD_BIN")"
bench="$PWD/bench"
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$PORT" HERALD_LOG=warn
unset $(env | grep -o '^HERALD_[A-Z_]*' | grep -v -e HERALD_BIND -e HERALD_LOG -e HERALD_BIN) 2>/dev/null || true

echo "== setup: a fresh SQLite database, an owner and their token"
"$HERALD_BIN" migrate >/dev/null
"$HERALD_BIN" user add --email bench@example.com --role owner >/dev/null
TOKEN="$("$HERALD_BIN" token create --email bench@example.com)"
export TOKEN

"$HERALD_BIN" serve 2>"$work/herald.log" &
herald_pid=$!
for _ in $(seq 1 600); do
  curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  kill -0 "$herald_pid" 2>/dev/null || { echo "herald serve exited:" >&2; cat "$work/herald.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null

api() { curl -fsS -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "$@"; }
api -X POST -d '{"slug": "bench", "name": "Bench"}' "http://127.0.0.1:$PORT/api/v1/pages" >/dev/null
component=$(api -X POST -d '{"name": "API"}' "http://127.0.0.1:$PORT/api/v1/pages/bench/components" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "   page bench, component API ($component)"

echo "== $WARMUP rounds untimed, then $ROUNDS timed: /api/v1, then /v1, alternating"
started=$(date +%s.%N)
python3 "$bench/v1_load.py" "$PORT" bench "$component" "$ROUNDS" "$WARMUP" >"$work/figures"
printf "   done in %.1f s\n" "$(echo "$(date +%s.%N) - $started" | bc)"

figure() { awk -v a="$1" -v s="$2" -v c="$3" '$1 == a && $2 == s { print $c }' "$work/figures"; }
ratio() { awk -v v="$1" -v h="$2" 'BEGIN { printf "%.2f", v / h }'; }
within() { awk -v r="$1" -v m="$MAX_RATIO" 'BEGIN { exit !(r <= m) }'; }

echo
echo "| step | /api/v1 p50 | /v1 p50 | ratio | /api/v1 p95 | /v1 p95 | ratio |"
echo "|---|---|---|---|---|---|---|"
verdict="" failed=0
for step in open update; do
  row="| $step"
  for col in 3 4; do
    herald=$(figure api_v1 "$step" "$col") statuspage=$(figure v1 "$step" "$col")
    r=$(ratio "$statuspage" "$herald")
    row="$row | $herald ms | $statuspage ms | ${r}x"
    name="$step p$([[ $col == 3 ]] && echo 50 || echo 95)"
    if within "$r"; then verdict="$verdict, $name ${r}x"; else verdict="$verdict, $name ${r}x (OVER)"; failed=1; fi
  done
  echo "$row |"
done
echo "| resolve (not judged) | $(figure api_v1 resolve 3) ms | $(figure v1 resolve 3) ms | $(ratio "$(figure v1 resolve 3)" "$(figure api_v1 resolve 3)")x" \
  "| $(figure api_v1 resolve 4) ms | $(figure v1 resolve 4) ms | $(ratio "$(figure v1 resolve 4)" "$(figure api_v1 resolve 4)")x |"
echo
if (( failed )); then
  echo "/v1 is NOT within ${MAX_RATIO}x of /api/v1 on every figure ($ROUNDS rounds each):${verdict#,}"
else
  echo "/v1 is within ${MAX_RATIO}x of /api/v1 on every figure ($ROUNDS rounds each):${verdict#,}"
fi
