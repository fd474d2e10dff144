#!/usr/bin/env bash
# Notification fan-out: N email subscribers (to a local SMTP sink) and N webhook subscribers (to a
# local HTTP receiver), one incident opened through the API, then the time from the API's answer
# to the first and to the last delivery, Herald's peak memory (VmHWM), and, in the same run, what
# the receiver accepts per second when wrk drives it directly with the same body.
# Then the same webhooks all on one host (every subscriber a Slack incoming webhook, or one
# customer's endpoint), on SQLite and on PostgreSQL, with the connections they came over.
# A last phase repeats the fan-out at BIG subscribers for the peak-memory target.
#
#   bench/fanout.sh                       # 10,000 + 10,000, then 100,000 in all
#   EMAILS=2000 WEBHOOKS=2000 BIG=0 bench/fanout.sh
#   BIG_EMAILS=0 bench/fanout.sh          # the 100,000 as webhooks only
#   ONE_HOST_BACKENDS=sqlite bench/fanout.sh   # the one-host run on SQLite only (default: both;
#                                              # PostgreSQL at PG_URL's server)
#   KEEP_LOGS=/tmp/logs HERALD_LOG="warn,herald::notify=debug" bench/fanout.sh  # keeps the logs
#   PERF=/tmp/fanout.perf BIG=0 bench/fanout.sh   # perf record of Herald during the fan-out
#   PERF_CALLGRAPH=dwarf PERF_FREQ=500 ...       # call stacks without a frame-pointer build
#   HERALD_BIN=/tmp/herald-old SEND_PATH=0 ...   # another build; without the send-path-alone part
#   BLAST_MODES="hyper herald" ...               # which send paths alone (webhook_blast modes)
#
# Then the sending path alone (examples/webhook_blast.rs: no database), to show the ceiling.
# Both sinks are examples/notify_sink.rs: a real SMTP server (mailin-embedded) and an actix-web
# receiver listening on 127.0.0.1..127.0.0.$HOSTS, so webhooks go to several destination hosts.
set -euo pipefail
cd "$(dirname "$0")/.."

EMAILS="${EMAILS:-10000}"
WEBHOOKS="${WEBHOOKS:-10000}"
BIG="${BIG:-100000}"
BIG_EMAILS="${BIG_EMAILS:-$((BIG / 2))}"
HOSTS="${HOSTS:-16}"
HERALD_PORT="${HERALD_PORT:-18580}"
SMTP_PORT="${SMTP_PORT:-18525}"
SINK_PORT="${SINK_PORT:-18590}"
TIMEOUT_SECS="${TIMEOUT_SECS:-600}"
herald_bin="${HERALD_BIN:-./target/release/herald}"   # another build to compare with
ONE_HOST_BACKENDS="${ONE_HOST_BACKENDS:-sqlite postgres}"
PG_URL="${PG_URL:-postgres://root@127.0.0.1:5432/test}"

command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }

cargo build --release --quiet --bin herald --example notify_sink --example webhook_blast
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  [[ -n "${sink_pid:-}" ]] && kill "$sink_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  [[ -n "${KEEP_LOGS:-}" ]] && mkdir -p "$KEEP_LOGS" && cp "$work"/*.log "$KEEP_LOGS"/
  rm -rf "$work"
}
trap cleanup EXIT

./target/release/examples/notify_sink "$SMTP_PORT" "$SINK_PORT" "$HOSTS" 2>"$work/sink.log" &
sink_pid=$!

api="http://127.0.0.1:$HERALD_PORT/api/v1"
start_herald() { # name [postgres]: a fresh database with the demo page and an owner's token in $token
  if [[ "${2:-sqlite}" == postgres ]]; then
    local db="herald_bench_$1"
    psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
    export DATABASE_URL="${PG_URL%/*}/$db"
  else
    export DATABASE_URL="sqlite://$work/herald-$1.db"
  fi
  export HERALD_BIND="127.0.0.1:$HERALD_PORT" HERALD_LOG="${HERALD_LOG:-warn}" \
    HERALD_SMTP_URL="smtp://127.0.0.1:$SMTP_PORT" HERALD_MAIL_FROM="Herald <status@example.com>" \
    HERALD_ALLOW_PRIVATE_WEBHOOKS=true HERALD_PUBLIC_URL="http://127.0.0.1:$HERALD_PORT"
  "$herald_bin" demo >/dev/null
  echo "bench-password-1234" | "$herald_bin" user add --email bench@example.com --role owner --password-stdin >/dev/null
  token="$("$herald_bin" token create --email bench@example.com)"
  "$herald_bin" serve 2>"$work/herald-$1.log" &
  herald_pid=$!
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$HERALD_PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
}
stop_herald() { kill "$herald_pid"; wait "$herald_pid" 2>/dev/null || true; herald_pid=""; }

subscribe() { # emails webhooks [hosts]: adds pre-confirmed subscribers through the responder API
  python3 - "$api" "$token" "$1" "$2" "$SINK_PORT" "${3:-$HOSTS}" <<'PY'
import http.client, json, sys, threading
from concurrent.futures import ThreadPoolExecutor
api, token, emails, hooks, port, hosts = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
host = api.split("//")[1].split("/")[0]
local = threading.local()
def post(body):
    if not hasattr(local, "c"):
        local.c = http.client.HTTPConnection(host, timeout=60)
    local.c.request("POST", "/api/v1/pages/demo/subscribers", json.dumps(body),
                    {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    r = local.c.getresponse(); text = r.read()
    if r.status != 201:
        raise SystemExit(f"subscribe answered {r.status}: {text[:300]!r}")
bodies = [{"type": "email", "email": f"reader{i}@example.com"} for i in range(emails)]
bodies += [{"type": "webhook", "url": f"http://127.0.0.{1 + i % hosts}:{port}/hook/{i}",
            "contact_email": f"ops{i}@example.com"} for i in range(hooks)]
with ThreadPoolExecutor(8) as pool:
    for _ in pool.map(post, bodies): pass
PY
}

now_ms() { date +%s%3N; }
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }
stats() { curl -fsS "http://127.0.0.1:$SINK_PORT/stats"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }

fan_out() { # emails webhooks -> prints first/last delivery times and peak RSS
  local emails=$1 hooks=$2 posted deadline s
  curl -fsS -X POST "http://127.0.0.1:$SINK_PORT/reset" >/dev/null
  curl -fsS -X POST "$api/pages/demo/incidents" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"name":"Sign-in failures for some customers","status":"investigating","impact":"major","body":"We are investigating failed sign-ins."}' >/dev/null
  posted=$(now_ms)
  local cpu0 sink0; cpu0=$(cpu_ms "$herald_pid"); sink0=$(cpu_ms "$sink_pid")
  [[ -n "${PERF:-}" ]] && { perf record -F "${PERF_FREQ:-2000}" --call-graph "${PERF_CALLGRAPH:-fp}" -p "$herald_pid" -o "$PERF" 2>/dev/null & perf_pid=$!; }
  deadline=$((posted + TIMEOUT_SECS * 1000))
  while :; do
    s="$(stats)"
    if (( $(field emails <<<"$s") >= emails && $(field webhooks <<<"$s") >= hooks )); then break; fi
    if (( $(now_ms) > deadline )); then echo "timed out: $s" >&2; exit 1; fi
    sleep 0.2
  done
  [[ -n "${perf_pid:-}" ]] && { kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true; perf_pid=""; }
  local ef el wf wl rss
  ef=$(field email_first_ms <<<"$s"); el=$(field email_last_ms <<<"$s")
  wf=$(field webhook_first_ms <<<"$s"); wl=$(field webhook_last_ms <<<"$s")
  rss=$(awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$herald_pid/status")
  local cpu; cpu=$(( $(cpu_ms "$herald_pid") - cpu0 ))
  sink_cpu_us=$(awk -v c=$(( $(cpu_ms "$sink_pid") - sink0 )) -v n=$((emails + hooks)) 'BEGIN { printf "%.1f", c * 1000 / n }')
  (( emails > 0 )) && printf 'emails %s: first %s ms, last %s ms after the API answered (%.0f/s)\n' "$emails" $((ef - posted)) \
    $((el - posted)) "$(awk -v n="$emails" -v a="$ef" -v b="$el" 'BEGIN { print (b > a) ? n * 1000 / (b - a) : n }')"
  (( hooks > 0 )) && printf 'webhooks %s: first %s ms, last %s ms after the API answered (%.0f/s), distinct ids %s\n' "$hooks" $((wf - posted)) \
    $((wl - posted)) "$(awk -v n="$hooks" -v a="$wf" -v b="$wl" 'BEGIN { print (b > a) ? n * 1000 / (b - a) : n }')" \
    "$(field webhook_ids <<<"$s")"
  (( hooks > 0 )) && echo "webhooks came over $(field webhook_connections <<<"$s") connections"
  echo "herald peak RSS: $rss MB; CPU time during the fan-out: $cpu ms ($(awk -v c="$cpu" -v n=$((emails + hooks)) 'BEGIN { printf "%.0f", c * 1000 / n }') us per delivery)"
  webhook_rate="$(awk -v n="$hooks" -v a="$wf" -v b="$wl" 'BEGIN { print (b > a) ? n * 1000 / (b - a) : n }')"
}

echo "== phase 1: $EMAILS email + $WEBHOOKS webhook subscribers over $HOSTS hosts"
start_herald one
t0=$(now_ms); subscribe "$EMAILS" "$WEBHOOKS"; echo "subscribed in $(( $(now_ms) - t0 )) ms"
fan_out "$EMAILS" "$WEBHOOKS"
stop_herald

# The receiver driven directly, same body, same connection count as Herald's pool is likely to use.
curl -fsS "http://127.0.0.1:$SINK_PORT/last" -o "$work/body.json"
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/body.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA
sink0=$(cpu_ms "$sink_pid")
/usr/bin/time -f "%U %S" -o "$work/wrk.cpu" wrk -t2 -c64 -d10s -s "$work/post.lua" "http://127.0.0.1:$SINK_PORT/hook/direct" >"$work/wrk.out"
direct="$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")"
total="$(awk '/requests in/ {print $1}' "$work/wrk.out")"
# Where the two cores go per request: the receiver (driven directly, and by Herald), wrk, Herald.
receiver_us="$(awk -v c=$(( $(cpu_ms "$sink_pid") - sink0 )) -v n="$total" 'BEGIN { printf "%.1f", c * 1000 / n }')"
echo "CPU per request driven by wrk: receiver $receiver_us us," \
  "wrk $(awk -v n="$total" '{ printf "%.1f", ($1 + $2) * 1e6 / n }' "$work/wrk.cpu") us; during Herald's fan-out: the sinks (SMTP and HTTP) $sink_cpu_us us per delivery"
echo "receiver direct: $direct req/s (wrk -t2 -c64, $(stat -c %s "$work/body.json")-byte body); Herald's webhook rate / direct: $(awk -v a="$webhook_rate" -v b="$direct" 'BEGIN { printf "%.2fx", a / b }')"

# The ceiling of the sending path alone, without the database, at the engine's 64 requests in
# flight: hyper's bare connections, hyper-util's pooled client (Herald's), then Herald's
# WebhookClient (signing, SSRF guard, per-host caps and breakers).
if (( WEBHOOKS > 0 )) && [[ "${SEND_PATH:-1}" != 0 ]]; then
  for mode in ${BLAST_MODES:-hyper pooled herald}; do
    blast="$(./target/release/examples/webhook_blast "$mode" "$WEBHOOKS" "$SINK_PORT" "$HOSTS" "$work/body.json")"
    echo "send path alone ($mode): $(field per_second <<<"$blast") req/s, $(field cpu_us_per_request <<<"$blast") us CPU per request; / direct: $(awk -v a="$(field per_second <<<"$blast")" -v b="$direct" 'BEGIN { printf "%.2fx", a / b }')"
    [[ "$mode" == hyper ]] && client_us="$(field cpu_us_per_request <<<"$blast")"
  done
fi

# The ceiling of any durable fan-out on this machine, before any of Herald's own work: the
# receiver's CPU per request (driven by wrk, its cheapest), the cheapest HTTP/1 client's
# (hyper's bare connections), and SQLite's own floor for writing a delivery row and recording
# its outcome (bench/sqlite_rows.py), shared by the same cores.
if [[ -n "${client_us:-}" ]]; then
  floor="$(python3 bench/sqlite_rows.py)"
  floor="${floor%%$'\n'*}"
  insert_us="$(sed -E 's/.*expand \(insert\) ([0-9.]+) us.*/\1/' <<<"$floor")"
  record_us="$(sed -E 's/.*record delivered ([0-9.]+) us.*/\1/' <<<"$floor")"
  awk -v cores="$(nproc)" -v r="$receiver_us" -v c="$client_us" -v i="$insert_us" -v w="$record_us" -v d="$direct" 'BEGIN {
    total = r + c + i + w; rate = cores * 1e6 / total
    printf "ceiling with nothing of Herald but its rows: %d cores / (receiver %.1f + HTTP client %.1f + SQLite insert %.1f + record %.1f us) = %.0f/s = %.2fx of direct\n", cores, r, c, i, w, rate, rate / d }'
fi

for backend in $ONE_HOST_BACKENDS; do
  (( WEBHOOKS > 0 )) || break
  echo "== one host: $WEBHOOKS webhook subscribers on 127.0.0.1 ($backend)"
  start_herald "onehost" "$backend"
  t0=$(now_ms); subscribe 0 "$WEBHOOKS" 1; echo "subscribed in $(( $(now_ms) - t0 )) ms"
  fan_out 0 "$WEBHOOKS"
  stop_herald
done

if (( BIG > 0 )); then
  echo "== phase 2: $BIG subscribers ($BIG_EMAILS email, the rest webhook) for peak memory"
  start_herald big
  t0=$(now_ms); subscribe "$BIG_EMAILS" $((BIG - BIG_EMAILS)); echo "subscribed in $(( $(now_ms) - t0 )) ms"
  fan_out "$BIG_EMAILS" $((BIG - BIG_EMAILS))
  stop_herald
fi
