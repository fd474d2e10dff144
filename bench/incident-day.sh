#!/usr/bin/env bash
# Incident day: Herald at its default settings under what a real outage brings at once.
#
# Part 1 (SQLite, the default database). 10,000 email and 10,000 webhook subscribers (a real
# SMTP sink and HTTP receivers on 16 loopback hosts, examples/notify_sink.rs). In the same run:
#   - the public page under wrk -t2 -c256, idle;
#   - a quiet fan-out (an incident opened, nothing else running): its rate;
#   - a fan-out with only readers on the page (wrk -c256 over its first DURING_SECS seconds):
#     the page's p99 against idle;
#   - then everything together: a sign-in flood (wrk -c48 posting wrong passwords, each request
#     from another address behind the trusted proxy, with a valid login CSRF pair), a responder
#     polling the API and the console with a bearer token and a session, a new incident's
#     fan-out, and the public page under wrk -c256 again.
# It prints the public page's req/s and p99 against idle, the responder's p95 (and any non-2xx)
# during the flood, and the fan-out rate against the quiet one.
#
# Part 2 (a PostgreSQL server of its own, initdb as the postgres user): the database frozen
# with SIGSTOP for 30 s (as a failover or a partition looks from Herald) while the public page
# is under wrk -c256 and support submissions keep coming (16 senders, each submission with its
# own form token and address). It prints the page's p99 against idle, the submissions accepted
# and refused, and after SIGCONT the time until /readyz answers 200 and until every accepted
# submission is stored.
#
# Targets: the public page's p99 under load, and during the fan-out alone, within 2x of idle; the responder API's p95 under
# 1 s. The only settings are the ones a deployment like this has: the SMTP relay, the public
# URL, private webhook targets allowed (the receivers are on loopback) and the proxy trusted
# (so the flood's many addresses are seen as such).
#
#   bench/incident-day.sh
#   PART2=0 bench/incident-day.sh        # part 1 only
#   KEEP_LOGS=/tmp/logs bench/incident-day.sh
set -euo pipefail
cd "$(dirname "$0")/.."

EMAILS="${EMAILS:-10000}"
WEBHOOKS="${WEBHOOKS:-10000}"
HOSTS="${HOSTS:-16}"
PORT="${PORT:-18680}"
SMTP_PORT="${SMTP_PORT:-18625}"
SINK_PORT="${SINK_PORT:-18690}"
PG_PORT="${PG_PORT:-18632}"
FREEZE_SECS="${FREEZE_SECS:-30}"
PART2="${PART2:-1}"
DURING_SECS="${DURING_SECS:-3}"

need() { command -v "$1" >/dev/null 2>&1 || { echo "installing $2"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null; }; }
need wrk wrk
need psql postgresql-client

cargo build --release --quiet --bin herald --example notify_sink
herald="./target/release/herald"
work="$(mktemp -d)"
chmod 755 "$work"
pg_pids() { # the frozen server's processes: the postmaster and its children
  local main; main="$(head -1 "$pg_data/postmaster.pid" 2>/dev/null)" || return 0
  echo "$main" $(pgrep -P "$main")
}
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  [[ -n "${sink_pid:-}" ]] && kill "$sink_pid" 2>/dev/null || true
  if [[ -n "${pg_data:-}" ]]; then
    for pid in $(pg_pids); do kill -CONT "$pid" 2>/dev/null || true; done
    runuser -u postgres -- pg_ctl -D "$pg_data" -m immediate stop >/dev/null 2>&1 || true
  fi
  wait 2>/dev/null || true
  [[ -n "${KEEP_LOGS:-}" ]] && mkdir -p "$KEEP_LOGS" && cp "$work"/*.log "$KEEP_LOGS"/ 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

base="http://127.0.0.1:$PORT"
now_ms() { date +%s%3N; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }

start_herald() { # database-url log-name: a fresh Herald with the demo page and an owner's token in $token
  export DATABASE_URL="$1" HERALD_BIND="127.0.0.1:$PORT" HERALD_DATA_DIR="$work/data-$2" \
    HERALD_SMTP_URL="smtp://127.0.0.1:$SMTP_PORT" HERALD_MAIL_FROM="Herald <status@example.com>" \
    HERALD_ALLOW_PRIVATE_WEBHOOKS=true HERALD_PUBLIC_URL="$base" HERALD_TRUSTED_PROXIES=127.0.0.1/32
  "$herald" demo >/dev/null
  echo "bench-password-1234" | "$herald" user add --email bench@example.com --role owner --password-stdin >/dev/null
  token="$("$herald" token create --email bench@example.com)"
  "$herald" serve 2>"$work/herald-$2.log" &
  herald_pid=$!
  for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
}
stop_herald() { kill "$herald_pid"; wait "$herald_pid" 2>/dev/null || true; herald_pid=""; }

page() { # seconds -> "req/s p99_ms" of the public page under wrk -t2 -c256
  wrk -t2 -c256 -d"$1s" --latency "$base/status/demo" >"$work/wrk-page.out"
  awk '/Requests\/sec/ { rps = $2 } /^ +99%/ { v = $2; ms = v + 0; if (v ~ /us$/) ms /= 1000; else if (v ~ /[^m]s$/) ms *= 1000; p99 = ms }
       END { printf "%.0f %.1f\n", rps, p99 }' "$work/wrk-page.out"
}

incident() { # opens an incident (every subscriber is notified); prints the time it was answered
  curl -fsS -X POST "$base/api/v1/pages/demo/incidents" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"name\":\"$1\",\"status\":\"investigating\",\"impact\":\"major\",\"body\":\"We are investigating.\"}" >/dev/null
  now_ms
}

fanned_out() { # posted-ms -> "seconds rate" once every subscriber got it
  local posted=$1 s
  while :; do
    s="$(curl -fsS "http://127.0.0.1:$SINK_PORT/stats")"
    (( $(field emails <<<"$s") >= EMAILS && $(field webhooks <<<"$s") >= WEBHOOKS )) && break
    (( $(now_ms) - posted > 600000 )) && { echo "fan-out timed out: $s" >&2; exit 1; }
    sleep 0.2
  done
  local last; last=$(python3 -c "import json,sys; s=json.load(sys.stdin); print(max(s['email_last_ms'], s['webhook_last_ms']))" <<<"$s")
  awk -v n=$((EMAILS + WEBHOOKS)) -v ms=$((last - posted)) 'BEGIN { printf "%.1f %.0f\n", ms / 1000, n * 1000 / ms }'
}

# --- part 1 -------------------------------------------------------------------------------
./target/release/examples/notify_sink "$SMTP_PORT" "$SINK_PORT" "$HOSTS" 2>"$work/sink.log" &
sink_pid=$!
start_herald "sqlite://$work/herald.db" sqlite

echo "== part 1: SQLite, $EMAILS email + $WEBHOOKS webhook subscribers over $HOSTS hosts, defaults"
python3 - "$base" "$token" "$EMAILS" "$WEBHOOKS" "$SINK_PORT" "$HOSTS" <<'PY'
import http.client, json, sys, threading
from concurrent.futures import ThreadPoolExecutor
base, token, emails, hooks, port, hosts = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
local = threading.local()
def post(body):
    if not hasattr(local, "c"):
        local.c = http.client.HTTPConnection(base.split("//")[1], timeout=60)
    local.c.request("POST", "/api/v1/pages/demo/subscribers", json.dumps(body),
                    {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    r = local.c.getresponse(); text = r.read()
    if r.status != 201:
        raise SystemExit(f"subscribe answered {r.status}: {text[:300]!r}")
bodies = [{"type": "email", "email": f"reader{i}@example.com"} for i in range(emails)]
bodies += [{"type": "webhook", "url": f"http://127.0.0.{1 + i % hosts}:{port}/hook/{i}"} for i in range(hooks)]
with ThreadPoolExecutor(8) as pool:
    for _ in pool.map(post, bodies): pass
PY

read -r idle_rps idle_p99 < <(page 10)
echo "public page idle: $idle_rps req/s, p99 $idle_p99 ms"

curl -fsS -X POST "http://127.0.0.1:$SINK_PORT/reset" >/dev/null
read -r quiet_s quiet_rate < <(fanned_out "$(incident 'Quiet fan-out')")
echo "fan-out quiet: $((EMAILS + WEBHOOKS)) deliveries in $quiet_s s ($quiet_rate/s)"

# Readers while a fan-out runs, nothing else: the page's p99 over the fan-out's first seconds.
curl -fsS -X POST "http://127.0.0.1:$SINK_PORT/reset" >/dev/null
posted="$(incident 'Readers during a fan-out')"
read -r during_rps during_p99 < <(page "$DURING_SECS")
read -r during_s during_rate < <(fanned_out "$posted")
echo "public page during the fan-out alone: $during_rps req/s, p99 $during_p99 ms: $(awk -v a="$during_p99" -v b="$idle_p99" 'BEGIN { printf "%.2fx", a / b }') of idle (target <= 2x)"
echo "  the fan-out took $during_s s ($during_rate/s) with the readers on it; the page was measured over its first $DURING_SECS s$(awk -v a="$during_s" -v b="$DURING_SECS" 'BEGIN { if (a < b) printf " (WARNING: the fan-out ended first)" }')"

# The responder signed in before the flood, as one on duty is.
curl -fsS -c "$work/jar-r" "$base/admin/login" -o "$work/login-r.html"
csrf_r="$(sed -nE 's/.*name="csrf_token" value="([^"]+)".*/\1/p' "$work/login-r.html" | head -1)"
curl -sS -o /dev/null -b "$work/jar-r" -c "$work/jar-r" --data-urlencode "email=bench@example.com" \
  --data-urlencode "password=bench-password-1234" --data-urlencode "csrf_token=$csrf_r" "$base/admin/login"
session="$(awk '$6 == "herald_session" { print $6 "=" $7 }' "$work/jar-r")"
[[ -n "$session" ]] || { echo "the responder could not sign in" >&2; exit 1; }

# The flood: one login CSRF pair (as an attacker's script would fetch), wrong passwords for
# the real account and for unknown ones, each request from another address.
curl -fsS -c "$work/jar" "$base/admin/login" -o "$work/login.html"
csrf="$(sed -nE 's/.*name="csrf_token" value="([^"]+)".*/\1/p' "$work/login.html" | head -1)"
cookie="$(awk '$6 == "herald_login" { print $6 "=" $7 }' "$work/jar")"
cat >"$work/flood.lua" <<LUA
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Cookie"] = "$cookie"
function request()
  n = n + 1
  local who = (n % 4 == 0) and "bench%40example.com" or ("someone" .. (n % 1000) .. "%40example.com")
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format(nil, nil, nil, "email=" .. who .. "&password=wrong-guess-" .. n .. "&csrf_token=$csrf")
end
codes = {}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function response(status) codes[status] = (codes[status] or 0) + 1 end
function done()
  local all = {}
  for _, t in ipairs(threads) do
    local c = t:get("codes")
    for k, v in pairs(c) do all[k] = (all[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(all) do table.insert(parts, k .. ":" .. v) end
  table.sort(parts)
  io.write("CODES " .. table.concat(parts, ",") .. "\n")
end
LUA
flood_secs=40
wrk -t2 -c48 -d"${flood_secs}s" -s "$work/flood.lua" "$base/admin/login" >"$work/flood.out" &
flood_pid=$!

# The responder: the API and the console, one request after another, for the flood's length.
python3 - "$base" "$token" "$flood_secs" "$session" >"$work/responder.out" <<'PY' &
import http.client, sys, time
base, token, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
host = base.split("//")[1]
def conn(): return http.client.HTTPConnection(host, timeout=30)
session = sys.argv[4]
api, console, bad = [], [], {}
started = time.time()
a, b = conn(), conn()
while time.time() - started < secs:
    for kind, cn, path, headers, out in (
        ("api", a, "/api/v1/pages/demo/incidents", {"Authorization": "Bearer " + token}, api),
        ("console", b, "/admin", {"Cookie": session}, console)):
        t = time.perf_counter()
        try:
            cn.request("GET", path, headers=headers); r = cn.getresponse(); r.read(); status = r.status
        except Exception as e:
            status = type(e).__name__
            if kind == "api": a = conn()
            else: b = conn()
        out.append(time.perf_counter() - t)
        if status != 200: bad[f"{kind} {status}"] = bad.get(f"{kind} {status}", 0) + 1
    time.sleep(0.05)
def p(xs, q): xs = sorted(xs); return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000
print(f"{p(api, .95):.1f} {p(console, .95):.1f} {len(api)} {len(console)} {sum(bad.values())} {bad or '-'}")
PY
responder_pid=$!

sleep 2 # the flood at full strength
read -r flood_only_rps flood_only_p99 < <(page 10)
curl -fsS -X POST "http://127.0.0.1:$SINK_PORT/reset" >/dev/null
posted="$(incident 'Incident day')"
read -r load_rps load_p99 < <(page 15)
read -r load_s load_rate < <(fanned_out "$posted")
wait "$flood_pid" "$responder_pid"
read -r api_p95 console_p95 api_n console_n bad_n bad < "$work/responder.out"
flood_rps="$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/flood.out")"
flood_codes="$(awk '/^CODES/ {print $2}' "$work/flood.out")"
stop_herald

echo "public page under the flood alone: $flood_only_rps req/s, p99 $flood_only_p99 ms"
echo "public page under load: $load_rps req/s, p99 $load_p99 ms (idle $idle_rps req/s, p99 $idle_p99 ms): p99 $(awk -v a="$load_p99" -v b="$idle_p99" 'BEGIN { printf "%.2fx", a / b }') of idle (target <= 2x)"
echo "sign-in flood: $flood_rps attempts/s from random addresses for ${flood_secs} s, answers by status: $flood_codes"
echo "responder during the flood: API p95 $api_p95 ms over $api_n requests, console p95 $console_p95 ms over $console_n; not 200: $bad_n $bad (target: API p95 < 1000 ms)"
echo "fan-out under load: $((EMAILS + WEBHOOKS)) deliveries in $load_s s ($load_rate/s), quiet $quiet_rate/s: $(awk -v a="$load_rate" -v b="$quiet_rate" 'BEGIN { printf "%.2fx", a / b }') of quiet"

(( PART2 )) || exit 0

# --- part 2 -------------------------------------------------------------------------------
echo "== part 2: PostgreSQL frozen with SIGSTOP for ${FREEZE_SECS} s, defaults"
pg_data="$work/pg"
mkdir "$pg_data" && chown postgres "$pg_data"
runuser -u postgres -- initdb -D "$pg_data" -A trust -U postgres >/dev/null
runuser -u postgres -- pg_ctl -D "$pg_data" -o "-p $PG_PORT -k $pg_data -c listen_addresses=127.0.0.1" -l "$pg_data/postgres.log" -w start >/dev/null
psql -qh 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE herald" >/dev/null
pg_url="postgres://postgres@127.0.0.1:$PG_PORT/herald"
start_herald "$pg_url" postgres

read -r idle_rps idle_p99 < <(page 10)
echo "public page idle: $idle_rps req/s, p99 $idle_p99 ms"

# Form tokens fetched before the freeze (the form page is served from memory either way) and
# aged past the minimum fill time.
python3 - "$base" "$work/tokens" <<'PY'
import json, sys, time, urllib.request
base, out = sys.argv[1], sys.argv[2]
with open(out, "w") as f:
    for _ in range(8000):
        f.write(json.load(urllib.request.urlopen(base + "/status/demo/api/support"))["form_token"] + "\n")
time.sleep(3.2)
PY

for pid in $(pg_pids); do kill -STOP "$pid"; done
frozen="$(now_ms)"
wrk -t2 -c256 -d"${FREEZE_SECS}s" --latency "$base/status/demo" >"$work/wrk-frozen.out" &
wrk_pid=$!
python3 - "$base" "$work/tokens" "$FREEZE_SECS" >"$work/support.out" <<'PY'
import http.client, json, sys, threading, time
base, tokens, secs = sys.argv[1], open(sys.argv[2]).read().split(), float(sys.argv[3])
host = base.split("//")[1]
lock = threading.Lock(); counts = {}; started = time.time(); slowest = [0.0]
def sender(k):
    c = http.client.HTTPConnection(host, timeout=30)
    while time.time() - started < secs:
        with lock:
            if not tokens: return
            token = tokens.pop()
        body = json.dumps({"name": "Frozen Reader", "email": "reader@example.com", "topic": "sign_in",
                           "message": "I cannot sign in and the status page says you know.", "form_token": token})
        t = time.perf_counter()
        try:
            c.request("POST", "/status/demo/api/support", body,
                      {"Content-Type": "application/json", "X-Forwarded-For": f"10.9.{k}.{len(tokens) % 250 + 1}"})
            r = c.getresponse(); r.read(); status = r.status
        except Exception as e:
            status = type(e).__name__; c = http.client.HTTPConnection(host, timeout=30)
        with lock:
            counts[status] = counts.get(status, 0) + 1
            slowest[0] = max(slowest[0], time.perf_counter() - t)
threads = [threading.Thread(target=sender, args=(k,)) for k in range(16)]
for t in threads: t.start()
for t in threads: t.join()
print(counts.get(201, 0), sum(v for k, v in counts.items() if k != 201), f"{slowest[0] * 1000:.0f}", json.dumps(counts).replace(" ", ""))
PY
wait "$wrk_pid"
for pid in $(pg_pids); do kill -CONT "$pid"; done
thawed="$(now_ms)"
read -r accepted refused slowest counts < "$work/support.out"
frozen_p99="$(awk '/^ +99%/ { v = $2; ms = v + 0; if (v ~ /us$/) ms /= 1000; else if (v ~ /[^m]s$/) ms *= 1000; printf "%.1f", ms }' "$work/wrk-frozen.out")"
frozen_rps="$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk-frozen.out")"
frozen_non2xx="$(awk '/Non-2xx/ {print $NF}' "$work/wrk-frozen.out")"

until curl -fsS "$base/readyz" >/dev/null 2>&1; do (( $(now_ms) - thawed > 120000 )) && { echo "not ready 120 s after the thaw" >&2; exit 1; }; sleep 0.05; done
ready_ms=$(( $(now_ms) - thawed ))
until [[ "$(psql -qtAh 127.0.0.1 -p "$PG_PORT" -U postgres herald -c 'SELECT count(*) FROM support_submissions')" -ge "$accepted" ]]; do
  (( $(now_ms) - thawed > 120000 )) && { echo "the spool was not replayed 120 s after the thaw" >&2; exit 1; }; sleep 0.1
done
stored_ms=$(( $(now_ms) - thawed ))
stored="$(psql -qtAh 127.0.0.1 -p "$PG_PORT" -U postgres herald -c 'SELECT count(*) || $$ rows, $$ || count(DISTINCT id) || $$ distinct$$ FROM support_submissions')"
stop_herald

echo "public page while the database is frozen: $frozen_rps req/s, p99 $frozen_p99 ms (idle p99 $idle_p99 ms), non-2xx ${frozen_non2xx:-0}"
echo "support during the freeze: $accepted accepted, $refused not ($counts), slowest answer $slowest ms"
echo "after the thaw: /readyz 200 in $ready_ms ms; every accepted submission stored in $stored_ms ms ($stored)"
