#!/usr/bin/env python3
"""Latencies for bench/backup.sh, from one client on keep-alive connections until the file
STOP exists: MODE `read` GETs PATH; MODE `write` PATCHes a component's status through the API
(TOKEN), alternating. Prints p50, p95 and p99 in ms and the count."""

import http.client
import json
import os
import sys
import time

mode, port, path, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
token = os.environ.get("TOKEN", "")
conns = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
times = []
flip = False
while not os.path.exists(stop) or not times:
    started = time.perf_counter()
    if mode == "read":
        conns.request("GET", path, headers={"Accept-Encoding": "br"})
    else:
        flip = not flip
        body = json.dumps({"status": "degraded_performance" if flip else "operational"})
        conns.request("PATCH", path, body=body, headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    res = conns.getresponse()
    res.read()
    if res.status >= 400:
        sys.exit(f"{mode} {path}: {res.status}")
    times.append((time.perf_counter() - started) * 1000)
    if mode == "write":
        time.sleep(0.05)
times.sort()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"{pick(0.5):.2f} {pick(0.95):.2f} {pick(0.99):.2f} {len(times)}")
