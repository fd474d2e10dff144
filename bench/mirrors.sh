#!/usr/bin/env bash
# Vendors' status, mirrored: what 1,000 mirrored components cost, read every minute at the
# defaults (HERALD_MIRROR_POLL_SECS unset: 60 s), on SQLite (the default database).
#
# A release "vendor" Herald serves two pages: `big` (1,000 components) and `small` (10). Our
# release Herald mirrors 1,000 components in one of two shapes, each on a fresh database:
#   one-vendor    1,000 components follow the 1,000 components of `big`: one summary URL,
#                 read once a minute (a 1,000-component summary, about 0.4 MB).
#   many-vendors  1,000 components each follow a component of `small` at its own URL
#                 (`...summary.json?v=N`), as 1,000 different vendors would: 1,000 reads a
#                 minute, each answered 304 while nothing changed.
# Beside it, in the same run, a baseline Herald with the same page of 1,000 plain components
# and no mirrors. After setting up, both settle for SETTLE_SECS; then for MEASURE_SECS (180 s:
# three rounds of reads) the CPU time of each process (utime + stime from /proc) and its
# memory (VmRSS, VmHWM) are read, and halfway the vendor changes 10 components (so every
# summary changes: reads answer 200 and mirrored components move).
#
#   bench/mirrors.sh
#   SHAPES=many-vendors MEASURE_SECS=120 bench/mirrors.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VENDOR_PORT="${VENDOR_PORT:-18630}"
OURS_PORT="${OURS_PORT:-18631}"
BASE_PORT="${BASE_PORT:-18632}"
SHAPES="${SHAPES:-one-vendor many-vendors}"
SETTLE_SECS="${SETTLE_SECS:-70}"
MEASURE_SECS="${MEASURE_SECS:-180}"

cargo build --release --quiet --bin herald
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" == /* ]] || target_dir="$(pwd)/$target_dir"
herald="$target_dir/release/herald"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start NAME PORT [ENV=VALUE...]: a Herald with an owner token in $work/NAME.token.
start() {
  local name="$1" port="$2"
  shift 2
  mkdir -p "$work/$name"
  (
    cd "$work/$name"
    export DATABASE_URL="sqlite://$work/$name/herald.db" HERALD_BIND="127.0.0.1:$port" \
      HERALD_DATA_DIR="$work/$name" HERALD_LOG=warn "$@"
    echo "bench-password-1234" | "$herald" user add --email bench@example.com --role owner \
      --password-stdin >/dev/null
    "$herald" token create --email bench@example.com >"$work/$name.token"
    exec "$herald" serve 2>"$work/$name.log"
  ) &
  pids+=($!)
  echo $! >"$work/$name.pid"
  for _ in $(seq 1 200); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return
    sleep 0.1
  done
  echo "$name did not start" >&2
  exit 1
}

start vendor "$VENDOR_PORT"
python3 bench/mirrors_setup.py vendor "$VENDOR_PORT" "$(cat "$work/vendor.token")"

for shape in $SHAPES; do
  rm -rf "$work/ours" "$work/base"
  start ours "$OURS_PORT" HERALD_ALLOW_PRIVATE_WEBHOOKS=true
  start base "$BASE_PORT"
  echo "== $shape"
  python3 bench/mirrors_setup.py "$shape" "$OURS_PORT" "$(cat "$work/ours.token")" \
    "$VENDOR_PORT" "$BASE_PORT" "$(cat "$work/base.token")"
  python3 bench/mirrors_setup.py measure "$(cat "$work/ours.pid")" "$(cat "$work/base.pid")" \
    "$SETTLE_SECS" "$MEASURE_SECS" "$VENDOR_PORT" "$(cat "$work/vendor.token")" "$OURS_PORT" \
    "$(cat "$work/ours.token")"
  kill "$(cat "$work/ours.pid")" "$(cat "$work/base.pid")"
  wait "$(cat "$work/ours.pid")" "$(cat "$work/base.pid")" 2>/dev/null || true
done
