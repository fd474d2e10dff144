"""bench/mirrors.sh's steps: the vendor's pages, the 1,000 mirrors (or plain components), and
the measurement of CPU time and memory from /proc."""

import http.client
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

MIRRORS = 1000


# Set-up requests go 16 at a time (each connection its own), so the servers' refreshers render
# one page for many changes instead of one per change.
WORKERS = 16


def api(port, token):
    local = threading.local()

    def call(method, path, body=None, retried=False):
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            return send(conn, method, path, body)
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The server closed a connection left idle past its keep-alive: a new one.
            local.conn = None
            if retried:
                raise
            return call(method, path, body, retried=True)

    def send(conn, method, path, body):
        conn.request(
            method,
            "/api/v1" + path,
            json.dumps(body) if body is not None else None,
            {"Content-Type": "application/json", "Authorization": "Bearer " + token},
        )
        res = conn.getresponse()
        return res.status, json.loads(res.read() or b"null")

    return call


def made(answer):
    status, body = answer
    assert status in (200, 201), body
    return body


def vendor(port, token):
    call = api(int(port), token)
    for slug, count in (("big", MIRRORS), ("small", 10)):
        made(call("POST", "/pages", {"slug": slug, "name": f"Vendor {slug}"}))
        with ThreadPoolExecutor(WORKERS) as pool:
            list(pool.map(lambda i: made(call("POST", f"/pages/{slug}/components",
                                              {"name": f"Service {i:04}"})), range(count)))
    print("vendor: page big (1,000 components) and page small (10)", flush=True)


def mirrors(shape, port, token, vendor_port, base_port, base_token):
    call = api(int(port), token)
    made(call("POST", "/pages", {"slug": "acme", "name": "Acme"}))
    base = api(int(base_port), base_token)
    made(base("POST", "/pages", {"slug": "acme", "name": "Acme"}))
    started = time.monotonic()
    def one(i):
        if shape == "one-vendor":
            url = f"http://127.0.0.1:{vendor_port}/status/big"
            wanted = f"Service {i:04}"
        else:
            url = f"http://127.0.0.1:{vendor_port}/status/small/api/v2/summary.json?v={i}"
            wanted = f"Service {i % 10:04}"
        made(call("POST", "/pages/acme/mirrors", {"url": url, "vendor_component": wanted}))
        made(base("POST", "/pages/acme/components", {"name": f"Service {i:04}"}))

    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(one, range(MIRRORS)))
    listed = made(call("GET", "/pages/acme/mirrors"))
    sources = len({m["url"] for m in listed})
    print(
        f"{len(listed)} mirrored components on {sources} summary URL(s), set up in "
        f"{time.monotonic() - started:.0f} s (with the baseline's 1,000 plain components)",
        flush=True,
    )


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def memory(pid):
    kb = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                kb[key] = int(value.split()[0])
    return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024


def measure(ours, base, settle, window, vendor_port, vendor_token, port, token):
    settle, window = int(settle), int(window)
    time.sleep(settle)
    vendor_call = api(int(vendor_port), vendor_token)
    ours_call = api(int(port), token)
    start = {pid: cpu_seconds(pid) for pid in (ours, base)}
    began = time.monotonic()
    time.sleep(window / 2)
    for slug in ("big", "small"):
        components = made(vendor_call("GET", f"/pages/{slug}/components"))
        for component in components[:10]:
            made(
                vendor_call(
                    "PATCH",
                    f"/pages/{slug}/components/{component['id']}",
                    {"status": "partial_outage"},
                )
            )
    time.sleep(window - (time.monotonic() - began))
    elapsed = time.monotonic() - began
    for name, pid in (("mirrors", ours), ("baseline", base)):
        used = cpu_seconds(pid) - start[pid]
        rss, hwm = memory(pid)
        print(
            f"{name:9} CPU {used:6.2f} s in {elapsed:.0f} s = {100 * used / elapsed:5.2f} % of "
            f"one core ({60 * used / elapsed:.2f} s per minute); RSS {rss:6.1f} MiB, "
            f"peak {hwm:6.1f} MiB",
            flush=True,
        )
    listed = made(ours_call("GET", "/pages/acme/mirrors"))
    moved = sum(1 for m in listed if m["vendor_status"] == "partial_outage")
    failing = sum(1 for m in listed if m["failing_since"])
    print(f"after the vendor's change: {moved} mirrored components moved, {failing} failing")


if __name__ == "__main__":
    step, args = sys.argv[1], sys.argv[2:]
    if step == "vendor":
        vendor(*args)
    elif step in ("one-vendor", "many-vendors"):
        mirrors(step, *args)
    elif step == "measure":
        measure(*args)
    else:
        raise SystemExit(f"unknown step {step}")
