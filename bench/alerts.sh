#!/usr/bin/env bash
# Alerts in: the time from an Alertmanager POST to the changed summary.json, at the defaults.
# A release Herald serves the demo page (SQLite, then PostgreSQL at PG_URL's server) with an
# Alertmanager integration made through the API with no settings. Each round posts one
# notification (Alertmanager's webhook body, version 4) whose alert takes one of the demo's
# components a step worse (info → warning → critical: degraded, partial, major outage; a worse
# status applies at once, so every round is a change), then reads /status/demo/api/v2/summary.json
# on a kept-alive connection until the component shows its new status.
# Printed: the POST's round trip and the time until summary.json shows the change (from the
# POST's first byte), median, p95 and max over the rounds. Target: under 1 s.
#
#   bench/alerts.sh                 # SQLite and PostgreSQL
#   BACKENDS=sqlite bench/alerts.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-18620}"
BACKENDS="${BACKENDS:-sqlite postgres}"
PG_URL="${PG_URL:-postgres://root@127.0.0.1:5432/test}"

cargo build --release --quiet --bin herald
herald="${CARGO_TARGET_DIR:-target}/release/herald"
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for backend in $BACKENDS; do
  if [[ "$backend" == postgres ]]; then
    db="herald_bench_alerts"
    psql "$PG_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
    export DATABASE_URL="${PG_URL%/*}/$db"
  else
    export DATABASE_URL="sqlite://$work/herald.db"
  fi
  export HERALD_BIND="127.0.0.1:$PORT" HERALD_DATA_DIR="$work/$backend"
  mkdir -p "$HERALD_DATA_DIR"
  "$herald" demo >/dev/null
  echo "bench-password-1234" | "$herald" user add --email bench@example.com --role owner --password-stdin >/dev/null
  token="$("$herald" token create --email bench@example.com)"
  "$herald" serve 2>"$work/herald-$backend.log" &
  herald_pid=$!
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

  echo "== $backend"
  python3 - "$PORT" "$token" <<'PY'
import http.client, json, statistics, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
api = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
reader = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

def call(conn, method, path, body=None, headers=None):
    conn.request(method, path, json.dumps(body) if body is not None else None,
                 dict({"Content-Type": "application/json"}, **(headers or {})))
    res = conn.getresponse()
    return res.status, json.loads(res.read() or b"null")

owner = {"Authorization": "Bearer " + token}
status, made = call(api, "POST", "/api/v1/pages/demo/integrations",
                    {"kind": "alertmanager", "name": "Prometheus"}, owner)
assert status == 201, made
endpoint, secret = made["endpoint"], made["token"]
status, components = call(api, "GET", "/api/v1/pages/demo/components", None, owner)
names = [c["name"] for c in components if c["status"] == "operational" and c["showcase"]]
names = [n for n in names if sum(1 for m in names if m == n) == 1]
steps = [("info", "degraded_performance"), ("warning", "partial_outage"), ("critical", "major_outage")]

def shown(name):
    reader.request("GET", "/status/demo/api/v2/summary.json")
    summary = json.loads(reader.getresponse().read())
    return next(c["status"] for c in summary["components"] if c["name"] == name)

posts, visible = [], []
for step, (severity, wanted) in enumerate(steps):
    for i, name in enumerate(names):
        alert = {"status": "firing", "labels": {"alertname": f"Bench{step}", "component": name,
                 "severity": severity}, "annotations": {"summary": "bench"},
                 "startsAt": "2026-12-02T09:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
                 "fingerprint": f"{step:02x}{i:014x}"}
        body = {"version": "4", "groupKey": "{}:{}", "truncatedAlerts": 0, "status": "firing",
                "receiver": "herald", "groupLabels": {}, "commonLabels": {}, "commonAnnotations": {},
                "externalURL": "http://alertmanager:9093", "alerts": [alert]}
        start = time.perf_counter()
        status, outcome = call(api, "POST", endpoint, body, {"Authorization": "Bearer " + secret})
        posts.append(time.perf_counter() - start)
        assert status == 200 and outcome["changed"], outcome
        while shown(name) != wanted:
            if time.perf_counter() - start > 10:
                raise SystemExit(f"{name} did not show {wanted} within 10 s")
        visible.append(time.perf_counter() - start)

def line(label, xs):
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(len(xs) * 0.95))]
    print(f"{label}: n={len(xs)} median={statistics.median(xs)*1000:.1f} ms "
          f"p95={p95*1000:.1f} ms max={xs[-1]*1000:.1f} ms")
line("POST answered", posts)
line("summary.json shows it", visible)
PY
  kill "$herald_pid"; wait "$herald_pid" 2>/dev/null || true; herald_pid=""
done
