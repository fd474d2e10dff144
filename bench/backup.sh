#!/usr/bin/env bash
# Backup, restore and retention at the size of issue 42: 1,000,000 subscribers and 2,000,000
# delivery rows, on Herald's default backend (SQLite), with Herald serving at its defaults.
#
# How:
# 1. A fresh SQLite database: `herald migrate`, `herald demo` (the page `demo`), then
#    bench/backup_setup.py adds SUBSCRIBERS (1,000,000) confirmed mail subscribers of it and,
#    for each, a delivered notification of each of two incident updates (2,000,000 deliveries);
#    the first update's are OLD_DAYS (120) days old, past the default 90 days' retention.
# 2. `herald serve` (release, defaults: only DATABASE_URL and HERALD_BIND set). wrk
#    (WRK_CONNECTIONS 16, 2 threads, Accept-Encoding br) reads /status/demo for WRK_SECS (10)
#    idle: its p99.
# 3. `herald backup` while Herald serves: its wall time and its peak resident memory (the extra
#    memory a backup costs: it is a process of its own; /usr/bin/time's maximum RSS), the
#    file's size. Then a second backup with wrk reading /status/demo throughout (wrk's duration
#    is the first backup's time, rounded down): p99 during the backup against idle, as a ratio.
# 4. `herald restore` of the backup into a new PostgreSQL database on PG_ADMIN's server
#    (postgres://root@127.0.0.1:5432/test): its wall time (it includes checking every row and
#    the checksum). The database is dropped at the end.
# 5. Retention: a responder's writes (bench/backup_load.py: a component's status PATCHed through
#    the API every 50 ms, one at a time, on a page of their own without subscribers, so that
#    no fan-out is measured) for WRITE_SECS (10) idle, then while `herald retention`
#    deletes the 1,000,000 deliveries past their time: the write's p95 idle and during, as a
#    ratio, and how long the deletion took.
#
#   bench/backup.sh                    # full size
#   SUBSCRIBERS=100000 bench/backup.sh # smaller
#   HERALD_BIN=/tmp/herald-old bench/backup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SUBSCRIBERS="${SUBSCRIBERS:-1000000}"
OLD_DAYS="${OLD_DAYS:-120}"
WRK_CONNECTIONS="${WRK_CONNECTIONS:-16}"
WRK_SECS="${WRK_SECS:-10}"
WRITE_SECS="${WRITE_SECS:-10}"
PORT="${PORT:-18490}"
PG_ADMIN="${PG_ADMIN:-postgres://root@127.0.0.1:5432/test}"

command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }
if [[ -z "${HERALD_BIN:-}" ]]; then
  cargo build --release --quiet
  HERALD_BIN="$PWD/target/release/herald"
fi
work="$(mktemp -d)"
pg_db="backup_bench_$$"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$PORT" HERALD_LOG=warn
unset $(env | grep -o '^HERALD_[A-Z_]*' | grep -v -e HERALD_BIND -e HERALD_LOG -e HERALD_BIN) 2>/dev/null || true

echo "== data: $SUBSCRIBERS subscribers, $((2 * SUBSCRIBERS)) deliveries"
"$HERALD_BIN" migrate >/dev/null
"$HERALD_BIN" demo >/dev/null
started=$(date +%s.%N)
python3 "$OLDPWD/bench/backup_setup.py" "$work/herald.db" "$SUBSCRIBERS" "$OLD_DAYS"
printf "   made in %.0f s; the database is %s\n" "$(echo "$(date +%s.%N) - $started" | bc)" \
  "$(du -h "$work/herald.db" | cut -f1)"
echo 'correct horse battery staple' | "$HERALD_BIN" user add --email ops@example.com --role owner --password-stdin >/dev/null
TOKEN="$("$HERALD_BIN" token create --email ops@example.com)"
export TOKEN

"$HERALD_BIN" serve &
herald_pid=$!
for _ in $(seq 1 600); do
  curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null

p99() { wrk -t2 -c"$WRK_CONNECTIONS" -d"$1" --latency -H "Accept-Encoding: br" \
  "http://127.0.0.1:$PORT/status/demo" | awk '/^ +99%/ {v=$2; u=v; gsub(/[0-9.]/,"",u); gsub(/[a-z]/,"",v); if (u=="us") v/=1000; if (u=="s") v*=1000; print v}'; }

echo "== the public page, idle"
idle_p99=$(p99 "${WRK_SECS}s")
echo "   p99 ${idle_p99} ms"

echo "== herald backup, while Herald serves"
/usr/bin/time -f "%e %M" -o "$work/time1" "$HERALD_BIN" backup --out "$work/one.herald" >/dev/null 2>"$work/progress1"
read -r backup_secs backup_kb <"$work/time1"
size=$(du -h "$work/one.herald" | cut -f1)
echo "   ${backup_secs} s, peak resident memory $((backup_kb / 1024)) MB, file $size"

echo "== herald backup again, with wrk reading the page throughout"
secs=${backup_secs%.*}; (( secs < 2 )) && secs=2
"$HERALD_BIN" backup --out "$work/two.herald" >/dev/null 2>&1 &
backup_pid=$!
during_p99=$(p99 "${secs}s")
wait "$backup_pid"
echo "   p99 during the backup ${during_p99} ms; idle ${idle_p99} ms; ratio $(echo "scale=2; $during_p99 / $idle_p99" | bc)"

echo "== herald restore into PostgreSQL"
psql -q "$PG_ADMIN" -c "CREATE DATABASE $pg_db" >/dev/null
pg_url="${PG_ADMIN%/*}/$pg_db"
/usr/bin/time -f "%e %M" -o "$work/time3" env DATABASE_URL="$pg_url" "$HERALD_BIN" restore --from "$work/one.herald" >"$work/restored" 2>/dev/null
read -r restore_secs restore_kb <"$work/time3"
echo "   ${restore_secs} s, peak resident memory $((restore_kb / 1024)) MB ($(tail -1 "$work/restored"))"

echo "== retention: a responder's writes, idle and while 1,000,000 old deliveries go"
# The writes go to a page of their own: a status change on `demo` would notify its 1,000,000
# subscribers, and the fan-out's own writes would be measured instead of retention's effect.
api() { curl -fs -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "$@"; }
api -X POST -d '{"slug": "writes", "name": "Writes"}' "http://127.0.0.1:$PORT/api/v1/pages" >/dev/null
component=$(api -X POST -d '{"name": "API"}' "http://127.0.0.1:$PORT/api/v1/pages/writes/components" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
write_path="/api/v1/pages/writes/components/$component"
( sleep "$WRITE_SECS"; touch "$work/stop-idle" ) &
idle_w=$(python3 "$OLDPWD/bench/backup_load.py" write "$PORT" "$write_path" "$work/stop-idle")
python3 "$OLDPWD/bench/backup_load.py" write "$PORT" "$write_path" "$work/stop-during" >"$work/during_w" &
load_pid=$!
started=$(date +%s.%N)
"$HERALD_BIN" retention >"$work/deleted"
retention_secs=$(echo "$(date +%s.%N) - $started" | bc)
touch "$work/stop-during"
wait "$load_pid"
during_w=$(cat "$work/during_w")
read -r _ idle_p95 _ idle_n <<<"$idle_w"
read -r _ during_p95 _ during_n <<<"$during_w"
printf "   deleted in %.1f s: %s\n" "$retention_secs" "$(tr '\n' ' ' <"$work/deleted")"
echo "   write p95 idle ${idle_p95} ms (${idle_n} writes), during ${during_p95} ms (${during_n} writes); ratio $(echo "scale=2; $during_p95 / $idle_p95" | bc)"

echo
echo "| what | measured | target |"
echo "|---|---|---|"
echo "| backup of $SUBSCRIBERS subscribers + $((2 * SUBSCRIBERS)) deliveries | ${backup_secs} s | < 60 s |"
echo "| backup's resident memory (its own process) | $((backup_kb / 1024)) MB | < 100 MB |"
echo "| public page p99 during / idle | ${during_p99} / ${idle_p99} ms | < 2x |"
echo "| restore into PostgreSQL | ${restore_secs} s | < 120 s |"
echo "| write p95 during retention / idle | ${during_p95} / ${idle_p95} ms | < 2x |"
