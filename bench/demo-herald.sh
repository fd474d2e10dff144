# Sourced by the benchmarks that measure one Herald serving its demo page against itself in
# two states (bench/private-page.sh, bench/branded-page.sh, bench/multilingual-page.sh): wrk installed, the release build,
# Herald at its default settings on a fresh SQLite file with `herald demo`, an owner's API
# token (`$owner`, `api`), and wrk runs reduced to req/s and p99. Expects CONNECTIONS,
# DURATION, THREADS and PORT to be set.

command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }
cargo build --release --quiet
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$PORT"
unset HERALD_LOG HERALD_WORKERS HERALD_LOG_FORMAT
herald=./target/release/herald
"$herald" demo >/dev/null
"$herald" user add --email bench@example.com --role owner >/dev/null
owner="$("$herald" token create --email bench@example.com)"
"$herald" serve >"$work/herald.log" 2>&1 &
herald_pid=$!
base="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

api() { # method path [json] -> the answer's body; fails on an error answer
  curl -fsS -X "$1" -H "Authorization: Bearer $owner" -H 'Content-Type: application/json' \
    ${3:+--data "$3"} "$base/api/v1$2"
}

run() { # url [header] [accept-encoding] -> "rps p99-in-ms"; any error answer fails the bench
  local out
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency ${2:+-H "$2"} ${3:+-H "Accept-Encoding: $3"} "$1")"
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "errors for $1:" >&2; echo "$out" >&2; return 1
  fi
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")"
}
to_ms() { # wrk latency like 12.34ms, 1.2s, 950.00us
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
