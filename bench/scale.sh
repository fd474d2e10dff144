#!/usr/bin/env bash
# Herald at real sizes (issue 39): resident memory, the overview's bytes, and what a single write
# costs (Herald's CPU) and how long it takes to answer, on pages of the sizes real users bring,
# on SQLite and on PostgreSQL. Each shape gets a fresh database and a fresh Herald:
#
#   components  one page of 1,000 components in 20 groups, one language
#   incidents   one page of 20 components and 1,000 resolved incidents of 5 updates each
#   together    both on one page (1,000 components in 20 groups, 1,000 incidents), read in six
#               languages (en, de, fr, es, pt, ja)
#   pages       1,000 pages of 10 components and 20 resolved incidents each; then, the same
#               way, a 1-page baseline (one such page alone), so that a write's cost on a page
#               among 1,000 can be read against its cost alone
#
# How:
# 1. The release `herald serve` at its defaults: only DATABASE_URL and HERALD_BIND are set
#    (every other HERALD_* variable is unset; it runs in a directory of its own, so no
#    herald.toml is read and its ./data stays there). An owner and an API token come from the
#    CLI (`herald user add`, `herald token create`); the shape is built through /api/v1,
#    BUILD_CLIENTS (16) requests at a time on keep-alive connections (bench/scale_setup.py).
#    Every incident changes one component (partial or major outage), gets 4 updates
#    (investigating, identified, monitoring, resolved) and gives the component back.
# 2. The past year. The API places an incident's started_at in the past (incident k, 1 the
#    newest, starts k * (365 days / incidents on the page) ago: 8.76 h apart at 1,000), but
#    stamps its updates, its resolution and the status changes it makes "now". So Herald is
#    stopped and SQL (plain UPDATEs with literal times, the same text run by Python's sqlite3
#    or by psql) moves, for every resolved incident: its updates to start + 0, 15, 30, 55 and
#    100 % of a resolution time of 75 to 134 minutes (from its id); identified_at,
#    monitoring_at and resolved_at to its first identified, monitoring and resolved update;
#    created_at to started_at and updated_at to resolved_at; each component_status_changes row
#    the incident made to the time of the update stamped nearest to it. Every component's
#    created_at and first status row (old_status NULL) move 400 days back, so the uptime bars
#    have a past. Then Herald starts again.
# 3. Settled: the public summary.json lists every component and incidents.json the newest
#    incident (first and last page), then Herald's CPU (utime + stime, /proc/PID/stat) stays
#    under QUIET_PCT (5) % of a core for QUIET_SECS (3) seconds in a row (or, with a warning,
#    QUIET_TIMEOUT, 300 s, passes). Then resident memory (VmRSS) and the overview's size (GET
#    /status/{slug}, no Accept-Encoding).
# 4. The pages shape: when Herald starts again, how long until the page rendered last in slug
#    order answers 200 (polled every 10 ms: a reader's request puts its page first) and until
#    /readyz answers 200 (every page rendered); Herald's CPU over IDLE_SECS (30) idle seconds,
#    in % of one core.
# 5. WRITES (20) writes of each kind, one after the other (WRITE_PAUSE, 0.2 s, between), on the
#    first page: a component's status (PATCH; component j % n to degraded_performance, or back
#    to operational when it comes round again; all set back afterwards, unmeasured), an update
#    to an open incident (opened first, unmeasured), a new incident (no component changed; the
#    20 stay open until all are measured, then they and the updated one are resolved,
#    unmeasured). For each: the wall time of the API's answer (which waits up to 2 s for the
#    public page: read-your-writes), Herald's CPU from just before the request until the
#    answer and until the public summary.json shows the write (polled every 5 ms, so the
#    polling's own small cost is in it; the sum of its threads' run time from
#    /proc/PID/task/*/schedstat, in ns, or utime + stime in 10 ms clock ticks when a thread
#    began or ended in between), and when it showed. p50 and p95 of each.
# 6. The components shape: an alert storm. wrk (WRK_CONNECTIONS 32, WRK_THREADS 2,
#    Accept-Encoding WRK_ENCODING br) reads the overview for WRK_SECS (4) idle, IDLE_ROUNDS (3)
#    times (the idle p99 is their median: one run's varies several-fold); then again while
#    200 components are set to major_outage by 200 clients, one PATCH every 10 ms (over
#    STORM_SECS, 2 s), STORM_ROUNDS (3) times, set back to operational (unmeasured) after each.
#    Printed: how long after the last answer (and after the last PATCH was sent) summary.json
#    shows all 200 (the worst storm's), the storm's answer times, and the overview's p99 idle
#    and during the storms (their median, like idle's) with their ratio; each storm's own line
#    too.
# 7. Resident memory again, after the writes and the storm (what the allocator kept).
# 8. A table per backend (shape | resident memory | after the writes | overview bytes | CPU per write p95 |
#    write answered p95, each kind), the storm and idle lines; at the end bench/public-page.sh
#    on the demo page with short settings (CONNECTIONS=64 DURATION=3s ROUNDS=3), whose
#    Herald/nginx ratios must not fall.
#
#   bench/scale.sh                                   # everything, full size, both backends
#   SCALE=0.02 BACKENDS=sqlite bench/scale.sh        # every 1,000 (and the storm's 200) x 0.02
#   SHAPES="components pages" bench/scale.sh         # some shapes (pages brings its baseline)
#   HERALD_BIN=/tmp/herald-old bench/scale.sh        # another build (no cargo build then)
#   PUBLIC_PAGE=0 bench/scale.sh                     # without public-page.sh at the end
#
# SCALE multiplies the sizes that are 1,000 (components, incidents, pages) and the storm's 200;
# a page's 20 groups or 20 components, the pages shape's 10 components and 20 incidents a page,
# 5 updates an incident and six languages stay. PostgreSQL: a database scale_<shape>_<pid> is
# created on PG_ADMIN's server (postgres://root@127.0.0.1:5432/test) and dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

BACKENDS="${BACKENDS:-sqlite postgres}"
SHAPES="${SHAPES:-components incidents together pages}"
SCALE="${SCALE:-1}"
PORT="${PORT:-18700}"
IDLE_SECS="${IDLE_SECS:-30}"
PG_ADMIN="${PG_ADMIN:-postgres://root@127.0.0.1:5432/test}"
PUBLIC_PAGE="${PUBLIC_PAGE:-1}"

if [[ -n "${HERALD_BIN:-}" ]]; then
  herald="$(realpath "$HERALD_BIN")"
else
  cargo build --release --quiet --bin herald
  target_dir="${CARGO_TARGET_DIR:-target}"
  [[ "$target_dir" == /* ]] || target_dir="$(pwd)/$target_dir"
  herald="$target_dir/release/herald"
fi
[[ -x "$herald" ]] || { echo "no Herald binary at $herald" >&2; exit 1; }
command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }

# Herald at its defaults: no setting of the caller's environment reaches it.
bin_given="${HERALD_BIN:-}"
for v in $(compgen -e | grep '^HERALD_' || true); do unset "$v"; done

work="$(mktemp -d)"
herald_pid=""
pg_db=""
cleanup() {
  local rc=$? log
  if (( rc != 0 )); then
    for log in "$work"/*/herald.log; do
      [[ -f "$log" ]] && { echo "--- the end of $log" >&2; tail -15 "$log" >&2; }
    done
  fi
  if [[ -n "$herald_pid" ]]; then kill "$herald_pid" 2>/dev/null || true; wait "$herald_pid" 2>/dev/null || true; fi
  [[ -n "$pg_db" ]] && psql "$PG_ADMIN" -Xqc "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

setup() { python3 bench/scale_setup.py "$@"; }
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

start_herald() { # DIR: serves DATABASE_URL from DIR until stop_herald
  (cd "$1" && exec "$herald" serve 2>>"$1/herald.log") &
  herald_pid=$!
  for _ in $(seq 1 6000); do
    curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return
    kill -0 "$herald_pid" 2>/dev/null || { echo "Herald ended; its log:" >&2; tail -20 "$1/herald.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "Herald did not become ready in 600 s" >&2
  exit 1
}
stop_herald() { kill "$herald_pid"; wait "$herald_pid" 2>/dev/null || true; herald_pid=""; }

run_shape() { # BACKEND SHAPE RESULTS
  local backend="$1" shape="$2" results="$3" dir="$work/$1-$2" token cpu0 t0
  mkdir -p "$dir"
  echo "== $backend: $shape"
  if [[ "$backend" == postgres ]]; then
    pg_db="scale_${shape//-/_}_$$"
    psql "$PG_ADMIN" -Xqc "CREATE DATABASE $pg_db" >/dev/null
    export DATABASE_URL="${PG_ADMIN%/*}/$pg_db"
  else
    export DATABASE_URL="sqlite://$dir/herald.db"
  fi
  export HERALD_BIND="127.0.0.1:$PORT"
  (cd "$dir" && echo "bench-password-1234" | "$herald" user add --email bench@example.com \
    --role owner --password-stdin >/dev/null 2>>"$dir/herald.log")
  token="$(cd "$dir" && "$herald" token create --email bench@example.com 2>>"$dir/herald.log")"

  start_herald "$dir"
  cpu0="$(ticks "$herald_pid")"; t0="$(date +%s)"
  setup build "$shape" "$PORT" "$token" "$SCALE" "$dir/state.json"
  echo "Herald's CPU while building: $(awk -v t=$(( $(ticks "$herald_pid") - cpu0 )) -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.1f", t / hz }') s in $(( $(date +%s) - t0 )) s"
  stop_herald
  setup shift "$DATABASE_URL"

  if [[ "$shape" == pages ]]; then
    (cd "$dir" && exec "$herald" serve 2>>"$dir/herald.log") &
    herald_pid=$!
    setup startup "$PORT" "$(date +%s.%N)" "$dir/state.json" "$results" "$shape"
  else
    start_herald "$dir"
  fi
  setup settle "$PORT" "$herald_pid" "$dir/state.json"
  setup measure "$PORT" "$herald_pid" "$dir/state.json" "$results" "$shape"
  [[ "$shape" == pages ]] && setup idle "$herald_pid" "$IDLE_SECS" "$results" "$shape"
  setup writes "$PORT" "$token" "$herald_pid" "$dir/state.json" "$results" "$shape"
  [[ "$shape" == components ]] && setup storm "$PORT" "$token" "$herald_pid" "$dir/state.json" "$SCALE" "$results" "$shape"
  setup after "$herald_pid" "$results" "$shape"
  stop_herald
  if [[ -n "$pg_db" ]]; then
    psql "$PG_ADMIN" -Xqc "DROP DATABASE $pg_db WITH (FORCE)" >/dev/null
    pg_db=""
  fi
  rm -rf "$dir"
}

printf '%s at its defaults; SCALE=%s; %s CPUs; %s\n' "$("$herald" --version 2>/dev/null || echo '?')" \
  "$SCALE" "$(nproc)" "$(date -u +%FT%TZ)"
for backend in $BACKENDS; do
  results="$work/results-$backend.json"
  for shape in $SHAPES; do
    run_shape "$backend" "$shape" "$results"
    [[ "$shape" == pages ]] && run_shape "$backend" one-page "$results"
  done
  setup table "$results" "$backend" >>"$work/tables.txt"
  echo >>"$work/tables.txt"
done
echo
cat "$work/tables.txt"

if [[ "$PUBLIC_PAGE" != 0 ]]; then
  echo "== bench/public-page.sh (the demo page; CONNECTIONS=64 DURATION=3s ROUNDS=3)"
  if [[ -n "$bin_given" ]] && ! grep -q HERALD_BIN bench/public-page.sh; then
    echo "(public-page.sh takes no HERALD_BIN: it measures its own build of target/release)"
  fi
  env ${bin_given:+HERALD_BIN="$bin_given"} CONNECTIONS=64 DURATION=3s ROUNDS=3 bench/public-page.sh
fi
