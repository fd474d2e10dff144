#!/usr/bin/env bash
# Support form throughput: accepted (durable) submissions per second with 64 concurrent senders
# posting JSON to /status/{slug}/api/support, on SQLite, on PostgreSQL, and with the database
# down (every submission goes to the fsynced spool). After each run the database is counted:
# every accepted submission must be there exactly once (for the outage run, after the replay).
#
#   bench/support.sh                          # 64 connections, 10 s per run
#   CONNECTIONS=64 DURATION=20s PG_URL=postgres://root@127.0.0.1:5432/test bench/support.sh
#
# The per-address rate limit is raised for the run (HERALD_SUPPORT_RATE_PER_MIN). A form token
# makes one submission (sending it again answers the same reference and stores nothing), so,
# as browsers would, every submission carries a token of its own: wrk first fetches tokens
# (TOKEN_SECS of GET .../api/support), they age past the minimum fill time, and each POST takes
# the next one. POSTs past the fetched tokens reuse one and are counted apart ("reused").
# Target: at least 1,000 accepted submissions per second on SQLite.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
PORT="${PORT:-18490}"
PG_URL="${PG_URL:-postgres://root@127.0.0.1:5432/test}"
TOKEN_SECS="${TOKEN_SECS:-4s}"

need() { command -v "$1" >/dev/null 2>&1 || { echo "installing $2"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null; }; }
need wrk wrk
need sqlite3 sqlite3
need psql postgresql-client

cargo build --release --quiet
herald="${CARGO_TARGET_DIR:-target}/release/herald"
work="$(mktemp -d)"
pg_db="herald_bench_support_$$"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  [[ -n "${locker_pid:-}" ]] && kill "$locker_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  psql -q "$PG_URL" -c "ALTER DATABASE $pg_db ALLOW_CONNECTIONS true" >/dev/null 2>&1 || true
  psql -q "$PG_URL" -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/tokens.lua" <<'LUA'
-- GETs form tokens; each thread writes the ones it got to tokens-<n>.txt.
local counter = 0
function setup(thread) counter = counter + 1; thread:set("id", counter) end
function init(args)
  out = io.open(os.getenv("WORK") .. "/tokens-" .. id .. ".txt", "w")
end
function response(status, headers, body)
  local token = body and body:match('"form_token":"([^"]+)"')
  if status == 200 and token then out:write(token, "\n"); out:flush() end
end
LUA

cat >"$work/post.lua" <<'LUA'
-- POSTs a valid submission, each with the next fetched token; counts 201 answers per thread.
local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end
function init(args)
  accepted = 0
  other = 0
  reused = 0
  tokens = {}
  for line in io.lines(os.getenv("WORK") .. "/tokens-" .. id .. ".txt") do table.insert(tokens, line) end
  next_token = 1
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
function request()
  local token = tokens[next_token] or tokens[#tokens]
  next_token = next_token + 1
  return wrk.format(nil, nil, nil, string.format(os.getenv("BODY"), token))
end
function response(status, headers, body)
  if status ~= 201 then other = other + 1
  elseif next_token - 1 > #tokens then reused = reused + 1
  else accepted = accepted + 1 end
end
function done(summary, latency, requests)
  local a, o, r = 0, 0, 0
  for _, t in ipairs(threads) do a = a + t:get("accepted"); o = o + t:get("other"); r = r + t:get("reused") end
  local secs = summary.duration / 1e6
  io.write(string.format("RESULT accepted=%d other=%d reused=%d secs=%.2f per_sec=%.0f p99_ms=%.1f\n",
    a, o, r, secs, a / secs, latency:percentile(99) / 1000))
end
LUA

start() { # database url
  export DATABASE_URL="$1" HERALD_BIND="127.0.0.1:$PORT" \
    HERALD_DATA_DIR="$work/data" HERALD_SUPPORT_RATE_PER_MIN=10000000
  "$herald" demo >/dev/null
  "$herald" serve 2>>"$work/herald.log" &
  herald_pid=$!
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/status/demo/api/support" >/dev/null 2>&1 && break; sleep 0.1; done
}
stop() { kill "$herald_pid"; wait "$herald_pid" 2>/dev/null || true; herald_pid=""; }

run() { # -> "accepted per_sec p99 refused reused"
  export WORK="$work"
  rm -f "$work"/tokens-*.txt
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$TOKEN_SECS" -s "$work/tokens.lua" "http://127.0.0.1:$PORT/status/demo/api/support" >/dev/null
  sleep 3.2 # the minimum fill time of the last tokens fetched
  export BODY='{"name":"Bench Person","email":"bench@example.com","topic":"sign_in","message":"I cannot sign in since this morning; the page says try again.","form_token":"%s"}'
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$work/post.lua" "http://127.0.0.1:$PORT/status/demo/api/support" \
    | awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } print r["accepted"], r["per_sec"], r["p99_ms"], r["other"], r["reused"] }'
}

count_sqlite() { sqlite3 "$1" "SELECT count(*), count(DISTINCT id) FROM support_submissions"; }
count_pg() { psql -qtA "$1" -c "SELECT count(*) || '|' || count(DISTINCT id) FROM support_submissions"; }
wait_count() { # expected counter-command args...
  local expected="$1"; shift
  for _ in $(seq 1 3000); do
    [[ "$("$@" | cut -d'|' -f1)" -ge "$expected" ]] && break
    sleep 0.1
  done
  "$@"
}

printf 'connections=%s duration=%s threads=%s cpus=%s\n' "$CONNECTIONS" "$DURATION" "$THREADS" "$(nproc)"
printf '%-26s %10s %10s %10s %8s %7s %s\n' scenario accepted "per s" "p99 ms" refused reused "stored (rows|distinct ids)"

# SQLite, database up.
sqlite_db="$work/sqlite/herald.db"; mkdir -p "$work/sqlite"
start "sqlite://$sqlite_db"
read -r acc rate p99 other reused < <(run)
stop
printf '%-26s %10s %10s %10s %8s %7s %s\n' "sqlite" "$acc" "$rate" "$p99" "$other" "$reused" "$(count_sqlite "$sqlite_db")"

# PostgreSQL, database up.
psql -q "$PG_URL" -c "CREATE DATABASE $pg_db" >/dev/null
pg_url="${PG_URL%/*}/$pg_db"
start "$pg_url"
read -r acc rate p99 other reused < <(run)
stop
printf '%-26s %10s %10s %10s %8s %7s %s\n' "postgres" "$acc" "$rate" "$p99" "$other" "$reused" "$(count_pg "$pg_url")"

# SQLite, database down: another process holds the write lock for the whole run.
rm -rf "$work/data" "$work/sqlite"; mkdir -p "$work/sqlite"
start "sqlite://$sqlite_db"
python3 - "$sqlite_db" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[1] + ".locked", "w").close()
time.sleep(3600)
PY
locker_pid=$!
for _ in $(seq 1 100); do [[ -e "$sqlite_db.locked" ]] && break; sleep 0.1; done
read -r acc rate p99 other reused < <(run)
kill "$locker_pid"; wait "$locker_pid" 2>/dev/null || true; locker_pid=""
stored="$(wait_count "$acc" count_sqlite "$sqlite_db")"
stop
printf '%-26s %10s %10s %10s %8s %7s %s\n' "sqlite down (spool)" "$acc" "$rate" "$p99" "$other" "$reused" "$stored (after replay)"

# PostgreSQL, database down: connections refused and existing ones terminated.
rm -rf "$work/data"
psql -q "$PG_URL" -c "DROP DATABASE $pg_db WITH (FORCE)" -c "CREATE DATABASE $pg_db" >/dev/null
start "$pg_url"
psql -q "$PG_URL" -c "ALTER DATABASE $pg_db ALLOW_CONNECTIONS false" \
  -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$pg_db'" >/dev/null
read -r acc rate p99 other reused < <(run)
psql -q "$PG_URL" -c "ALTER DATABASE $pg_db ALLOW_CONNECTIONS true" >/dev/null
stored="$(wait_count "$acc" count_pg "$pg_url")"
stop
printf '%-26s %10s %10s %10s %8s %7s %s\n' "postgres down (spool)" "$acc" "$rate" "$p99" "$other" "$reused" "$stored (after replay)"
echo "target: >= 1000 accepted/s on SQLite; spool files were fsynced before each answer"
