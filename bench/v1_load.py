#!/usr/bin/env python3
"""Latencies for bench/v1.sh: one client, one keep-alive connection, one request at a time.
Each round opens an incident on page SLUG (COMPONENT degraded_performance), updates it
(identified, COMPONENT partial_outage) and resolves it, first through Herald's own API
(/api/v1, Bearer TOKEN) and then through the Statuspage one (/v1, OAuth TOKEN); WARMUP rounds
untimed first, then ROUNDS timed. Open, update and resolve are timed apart (time.perf_counter,
request sent to answer read); the resolve is only there to keep the page from piling up open
incidents. Prints a line per API and step: `API STEP p50 p95 count` (ms)."""

import http.client
import json
import os
import sys
import time

port, slug, component = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rounds, warmup = int(sys.argv[4]), int(sys.argv[5])
token = os.environ["TOKEN"]
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def call(method, path, body, scheme, expect):
    """The request, its time in ms and its answer's JSON; any other status than EXPECT ends
    the run, with the answer's body."""
    data = json.dumps(body)
    headers = {"Authorization": f"{scheme} {token}", "Content-Type": "application/json",
               "Accept": "application/json"}
    started = time.perf_counter()
    conn.request(method, path, body=data, headers=headers)
    res = conn.getresponse()
    raw = res.read()
    ms = (time.perf_counter() - started) * 1000
    if res.status != expect:
        sys.exit(f"{method} {path}: {res.status} (expected {expect}): {raw[:2000].decode(errors='replace')}")
    return ms, (json.loads(raw) if raw else None)


def api_v1(n):
    base = f"/api/v1/pages/{slug}/incidents"
    t_open, answer = call("POST", base, {
        "name": f"Bench api/v1 {n}", "status": "investigating", "body": "Looking into it.",
        "impact": "minor", "components": {component: "degraded_performance"}}, "Bearer", 201)
    path = f"{base}/{answer['id']}/updates"
    t_update, _ = call("POST", path, {
        "status": "identified", "body": "Found it.",
        "components": {component: "partial_outage"}}, "Bearer", 201)
    t_resolve, _ = call("POST", path, {"status": "resolved", "body": "Fixed."}, "Bearer", 201)
    return t_open, t_update, t_resolve


def v1(n):
    base = f"/v1/pages/{slug}/incidents"
    t_open, answer = call("POST", base, {"incident": {
        "name": f"Bench v1 {n}", "status": "investigating", "body": "Looking into it.",
        "impact_override": "minor", "components": {component: "degraded_performance"}}},
        "OAuth", 201)
    path = f"{base}/{answer['id']}"
    t_update, _ = call("PATCH", path, {"incident": {
        "status": "identified", "body": "Found it.",
        "components": {component: "partial_outage"}}}, "OAuth", 200)
    t_resolve, _ = call("PATCH", path, {"incident": {"status": "resolved", "body": "Fixed."}},
                        "OAuth", 200)
    return t_open, t_update, t_resolve


apis = {"api_v1": api_v1, "v1": v1}
steps = ("open", "update", "resolve")
times = {(api, step): [] for api in apis for step in steps}
for n in range(warmup + rounds):
    for api, run in apis.items():  # alternating: an /api/v1 round, then a /v1 round
        taken = run(n)
        if n >= warmup:
            for step, ms in zip(steps, taken):
                times[(api, step)].append(ms)
conn.close()


def pick(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


for (api, step), xs in times.items():
    print(f"{api} {step} {pick(xs, 0.5):.2f} {pick(xs, 0.95):.2f} {len(xs)}")
