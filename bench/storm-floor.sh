#!/usr/bin/env bash
# The floor under bench/scale.sh's storm figure: the overview's p99 as wrk reads it (the storm's
# settings: WRK_CONNECTIONS 32, WRK_THREADS 2, Accept-Encoding br, WRK_SECS 4) idle, ROUNDS (3)
# times, then beside a busy loop that is not Herald at all (one Python thread in its own session,
# so its own autogroup, as PostgreSQL's backends are), busy DUTIES of every 10 ms. What the loop
# adds to the p99 is what any one core's worth of other work on this machine adds, whatever
# Herald does; the storm brings about that much (PostgreSQL, its 200 clients, the re-renders).
#
#   bench/storm-floor.sh URL        # a running Herald's page, e.g. http://127.0.0.1:8080/status/acme
#   DUTIES="0.5 1" ROUNDS=5 bench/storm-floor.sh URL
set -euo pipefail
url="${1:?usage: bench/storm-floor.sh URL (a page of a running Herald)}"
ROUNDS="${ROUNDS:-3}"
DUTIES="${DUTIES:-0.25 0.5 1}"
secs="${WRK_SECS:-4}"
command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }
curl -fsS -o /dev/null "$url" || { echo "$url does not answer 200" >&2; exit 1; }

p99() {
  wrk -t"${WRK_THREADS:-2}" -c"${WRK_CONNECTIONS:-32}" -d"${secs}s" --latency \
    -H "Accept-Encoding: ${WRK_ENCODING:-br}" "$url" | awk '/ 99%/ { print $2 }'
}
burn() { # DUTY: busy that share of every 10 ms for WRK_SECS + 1 s
  setsid python3 -c '
import sys, time
duty, end = float(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    t = time.monotonic()
    while time.monotonic() - t < 0.01 * duty:
        pass
    if duty < 1:
        time.sleep(0.01 * (1 - duty))
' "$1" "$((secs + 1))" &
  burner=$!
}

line=""
for _ in $(seq 1 "$ROUNDS"); do line="$line $(p99)"; done
echo "overview p99 idle, each round:$line"
for duty in $DUTIES; do
  line=""
  for _ in $(seq 1 "$ROUNDS"); do
    burn "$duty"
    line="$line $(p99)"
    wait "$burner"
  done
  echo "beside a loop busy $duty of the time, each round:$line"
done
