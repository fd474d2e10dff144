"""bench/scale.sh's steps: a shape built through /api/v1, resolved incidents moved into the past
year with SQL, the site waited on until it settles, and the measurements (memory, overview
bytes, writes, the alert storm with wrk, idle CPU). Results go to a JSON file, one entry per
shape, which `table` prints. Python 3.11 standard library only.

    scale_setup.py build SHAPE PORT TOKEN SCALE STATE
    scale_setup.py shift DATABASE_URL
    scale_setup.py settle PORT PID STATE
    scale_setup.py measure PORT PID STATE RESULTS KEY
    scale_setup.py idle PID SECS RESULTS KEY
    scale_setup.py writes PORT TOKEN PID STATE RESULTS KEY
    scale_setup.py storm PORT TOKEN PID STATE SCALE RESULTS KEY
    scale_setup.py table RESULTS BACKEND
"""

import http.client
import json
import math
import os
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

HZ = os.sysconf("SC_CLK_TCK")
# Set-up requests go this many at a time, each on its own keep-alive connection.
CLIENTS = int(os.environ.get("BUILD_CLIENTS", "16"))
WRITES = int(os.environ.get("WRITES", "20"))
LANGUAGES = ["en", "de", "fr", "es", "pt", "ja"]
YEAR = timedelta(days=365)
# Every component's creation (and its first status row) is moved back this far, before the
# oldest incident, so its uptime bars have a past.
COMPONENTS_SINCE = timedelta(days=400)


# --- HTTP ---------------------------------------------------------------------------------

class Api:
    """The JSON API with an owner's token, one keep-alive connection per thread."""

    def __init__(self, port, token):
        self.port, self.token = int(port), token
        self.local = threading.local()
        self.lock = threading.Lock()
        self.conflicts = 0

    def conn(self):
        c = getattr(self.local, "conn", None)
        if c is None:
            c = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        return c

    def call(self, method, path, body=None, retry_busy=False):
        resets = 0
        for _ in range(50):
            try:
                c = self.conn()
                c.request(method, "/api/v1" + path,
                          json.dumps(body) if body is not None else None,
                          {"Content-Type": "application/json",
                           "Authorization": "Bearer " + self.token})
                res = c.getresponse()
                text = res.read()
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                # The server closed a connection left idle past its keep-alive: a new one.
                self.local.conn = None
                resets += 1
                if resets > 1:
                    raise
                continue
            if res.status == 503 and retry_busy:
                # A bound full (the pool): building waits its turn, as a client would.
                time.sleep(float(res.getheader("Retry-After") or 1))
                continue
            if res.status == 409 and retry_busy and path.endswith("/incidents"):
                # Two incidents opened at once on PostgreSQL can draw the same reference
                # (INC-YYYY-NNNN) and one is refused; nothing was written, so it is sent again.
                with self.lock:
                    self.conflicts += 1
                time.sleep(0.05)
                continue
            if res.status not in (200, 201):
                raise SystemExit(f"{method} {path} answered {res.status}: {text[:300]!r}")
            return json.loads(text or b"null")
        raise SystemExit(f"{method} {path}: still {res.status} after 50 tries")

    def build(self, method, path, body=None):
        return self.call(method, path, body, retry_busy=True)


class Public:
    """The public site, read as a machine client would (identity, one connection)."""

    def __init__(self, port):
        self.port = int(port)
        self.c = None

    def get(self, path, accept_encoding=True):
        for attempt in range(2):
            try:
                if self.c is None:
                    self.c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                # http.client sends "Accept-Encoding: identity" unless told not to; the overview's
                # size is read with no Accept-Encoding at all.
                self.c.putrequest("GET", path, skip_accept_encoding=not accept_encoding)
                self.c.endheaders()
                res = self.c.getresponse()
                return res.status, res.read(), res
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self.c = None
                if attempt:
                    raise

    def json(self, path):
        status, body, _ = self.get(path)
        if status != 200:
            raise SystemExit(f"GET {path} answered {status}")
        return json.loads(body)


def cpu_ticks(pid):
    """utime + stime of the process (all its threads), in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_ms(pid):
    """The process's CPU time in ms, to the nanosecond where it can be: the sum of every
    thread's run time (/proc/PID/task/*/schedstat) with the thread ids it was read over, and
    utime + stime (whole clock ticks, which also hold the threads that ended)."""
    threads, ns = [], 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns += int(f.read().split()[0])
            threads.append(tid)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return sorted(threads), ns / 1e6, cpu_ticks(pid) * 1000 / HZ


def cpu_between(before, after):
    """CPU ms from one cpu_ms reading to another: the threads' run time when the same threads
    ran throughout, else (a thread ended or began, its time would be lost or half counted) the
    clock ticks'."""
    if before[0] == after[0]:
        return after[1] - before[1]
    return after[2] - before[2]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise SystemExit(f"no VmRSS for {pid}")


def iso(t):
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- build --------------------------------------------------------------------------------

SHAPES = {
    # name: pages, components per page, groups per page, incidents per page, languages
    "components": lambda s: (1, n(1000, s), 20, 0, 1),
    "incidents": lambda s: (1, 20, 0, n(1000, s), 1),
    "together": lambda s: (1, n(1000, s), 20, n(1000, s), 6),
    "pages": lambda s: (n(1000, s), 10, 0, 20, 1),
    "one-page": lambda s: (1, 10, 0, 20, 1),  # the pages shape's baseline
}


def n(full, scale):
    return max(1, round(full * scale))


def build(shape, port, token, scale, state_file):
    pages, per_page, groups, incidents, languages = SHAPES[shape](float(scale))
    groups = min(groups, per_page)
    api = Api(port, token)
    began = time.monotonic()
    requests = [0]
    lock = threading.Lock()

    def call(method, path, body=None):
        with lock:
            requests[0] += 1
        return api.build(method, path, body)

    slugs = [f"p{i:04}" for i in range(1, pages + 1)] if pages > 1 else ["big"]
    state = {"shape": shape, "slugs": slugs, "pages": {}}
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(lambda s: call("POST", "/pages", {
            "slug": s, "name": f"Customer {s}" if pages > 1 else "Big Co",
            "description": "Status of our services."}), slugs))
        group_ids = {}
        for s in slugs:
            group_ids[s] = list(pool.map(lambda g: call(
                "POST", f"/pages/{s}/component-groups",
                {"name": f"Region {g + 1:02}", "position": g})["id"], range(groups)))

        def component(job):
            s, i = job
            body = {"name": f"Service {i + 1:04}", "position": i}
            if group_ids[s]:
                body["group_id"] = group_ids[s][i * len(group_ids[s]) // per_page]
                body["name"] = f"Edge node {i + 1:04}"
            return s, call("POST", f"/pages/{s}/components", body)["id"]

        components = {s: [] for s in slugs}
        for s, cid in pool.map(component, [(s, i) for s in slugs for i in range(per_page)]):
            components[s].append(cid)

        # Incident k (1 = the newest) starts k * (a year / incidents) ago, so they spread over
        # the past year; the API places started_at, `shift` moves everything stamped "now".
        spacing = YEAR / max(incidents, 1)
        now = datetime.now(timezone.utc)

        def incident(s, k):
            cid = components[s][k % len(components[s])]
            bad = "partial_outage" if k % 3 else "major_outage"
            inc = call("POST", f"/pages/{s}/incidents", {
                "name": f"Elevated error rates on Service {k % per_page + 1:04} (#{k})",
                "impact": "major" if bad == "major_outage" else "minor",
                "status": "investigating",
                "body": "We are investigating elevated error rates and timeouts for some "
                        "requests. Some customers may see failed or slow requests.",
                "components": {cid: bad},
                "started_at": iso(now - k * spacing),
            })
            for status, body, change in (
                ("investigating", "We are still investigating. About 5 % of requests fail; "
                                  "retries mostly succeed.", None),
                ("identified", "A faulty configuration change was identified as the cause. "
                               "We are rolling it back.", None),
                ("monitoring", "The rollback is complete and error rates are back to normal. "
                               "We are monitoring the results.", None),
                ("resolved", "This incident has been resolved. Requests have succeeded "
                             "normally for an hour.", {cid: "operational"}),
            ):
                update = {"status": status, "body": body}
                if change:
                    update["components"] = change
                call("POST", f"/pages/{s}/incidents/{inc['id']}/updates", update)
            return k, inc["id"]

        # The incidents of one component are made one after the other (different components'
        # at once), so each makes its two status rows (outage, then operational): two open at
        # once on one component would make one row fewer, and a hole in the uptime history.
        def chain(job):
            s, first = job
            return s, [incident(s, k) for k in range(first, incidents + 1, per_page)]

        made = {s: {} for s in slugs}
        for s, done in pool.map(chain, [(s, c) for s in slugs
                                        for c in range(1, min(per_page, incidents) + 1)]):
            made[s].update(done)
        if languages > 1:
            list(pool.map(lambda s: call("PATCH", f"/pages/{s}", {
                "languages": LANGUAGES[:languages], "default_language": "en"}), slugs))
    for s in slugs:
        state["pages"][s] = {
            "components": components[s],
            "groups": group_ids[s],
            # newest first
            "incidents": [made[s][k] for k in sorted(made[s])],
        }
    with open(state_file, "w") as f:
        json.dump(state, f)
    took = time.monotonic() - began
    print(f"built {shape}: {pages} page(s) of {per_page} components in {groups} groups, "
          f"{incidents} resolved incidents of 5 updates each, {languages} language(s): "
          f"{requests[0]} API requests in {took:.0f} s ({requests[0] / took:.0f}/s)"
          + (f"; {api.conflicts} refused 409 and sent again" if api.conflicts else ""), flush=True)


# --- the past year, with SQL ----------------------------------------------------------------

class Sqlite:
    def __init__(self, path):
        self.db = sqlite3.connect(path)

    def query(self, sql):
        return [tuple(r) for r in self.db.execute(sql)]

    def script(self, sql):
        self.db.executescript("BEGIN;\n" + sql + "COMMIT;\n")
        self.db.close()


class Psql:
    def __init__(self, url):
        self.url = url

    def query(self, sql):
        out = subprocess.run(["psql", self.url, "-X", "-q", "-A", "-t", "-F", "\t", "-c", sql],
                             check=True, capture_output=True, text=True).stdout
        return [tuple(None if v == "" else v for v in line.split("\t"))
                for line in out.splitlines() if line]

    def script(self, sql):
        subprocess.run(["psql", self.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-1", "-f", "-"],
                       input=sql, check=True, text=True, stdout=subprocess.DEVNULL)


def parse_time(v):
    """A stored naive UTC time, as SQLite (diesel's text) or psql writes it."""
    v = v.replace("T", " ").rstrip("Z")
    if "." in v:
        head, frac = v.split(".")
        v = f"{head}.{frac[:6]:0<6}"
    else:
        v += ".000000"
    return datetime.strptime(v, "%Y-%m-%d %H:%M:%S.%f")


def lit(t):
    """A plain literal both backends take for a TIMESTAMP column, written as diesel writes one
    to SQLite (chrono's `%F %T%.f`: no fraction when it is zero, else 3 or 6 digits), so text
    comparisons there hold."""
    frac = "" if not t.microsecond else \
        f".{t.microsecond // 1000:03}" if t.microsecond % 1000 == 0 else f".{t.microsecond:06}"
    return "'" + t.strftime("%Y-%m-%d %H:%M:%S") + frac + "'"


def shift(url):
    db = Sqlite(url.removeprefix("sqlite://")) if url.startswith("sqlite://") else Psql(url)
    began = time.monotonic()
    incidents = {iid: parse_time(start) for iid, start in db.query(
        "SELECT id, started_at FROM incidents "
        "WHERE kind = 'incident' AND resolved_at IS NOT NULL")}
    updates = {}
    for uid, iid, status, created in db.query(
            "SELECT u.id, u.incident_id, u.status, u.created_at FROM incident_updates u "
            "JOIN incidents i ON i.id = u.incident_id "
            "WHERE i.kind = 'incident' AND i.resolved_at IS NOT NULL"):
        updates.setdefault(iid, []).append((parse_time(created), uid, status))
    changes = {}
    for cid, iid, changed in db.query(
            "SELECT id, incident_id, changed_at FROM component_status_changes "
            "WHERE incident_id IS NOT NULL"):
        if iid in incidents:
            changes.setdefault(iid, []).append((parse_time(changed), cid))
    sql = []
    for iid, start in incidents.items():
        ups = sorted(updates.get(iid, []))
        # Resolved 75 to 134 minutes after it started (from the id, so a rerun is the same);
        # the updates between, minutes apart.
        took = timedelta(minutes=75 + int(iid.replace("-", "")[-6:], 16) % 60)
        fractions = [0, 0.15, 0.3, 0.55, 1] if len(ups) == 5 else \
            [i / max(len(ups) - 1, 1) for i in range(len(ups))]
        placed = []
        for (old, uid, status), frac in zip(ups, fractions):
            at = start + took * frac
            placed.append((old, at, status))
            sql.append(f"UPDATE incident_updates SET created_at = {lit(at)}, "
                       f"updated_at = {lit(at)} WHERE id = '{uid}';")
        first = {}
        for _, at, status in placed:
            first.setdefault(status, at)
        end = placed[-1][1] if placed else start + took
        sets = [f"started_at = {lit(start)}", f"created_at = {lit(start)}",
                f"resolved_at = {lit(end)}", f"updated_at = {lit(end)}"]
        for column, status in (("identified_at", "identified"), ("monitoring_at", "monitoring")):
            if status in first:
                sets.append(f"{column} = {lit(first[status])}")
        sql.append(f"UPDATE incidents SET {', '.join(sets)} WHERE id = '{iid}';")
        # A status row the incident made moves with the update it was made with (the one
        # stamped nearest to it).
        for changed, cid in changes.get(iid, []):
            at = min(placed, key=lambda p: abs((p[0] - changed).total_seconds()))[1] \
                if placed else start
            sql.append(f"UPDATE component_status_changes SET changed_at = {lit(at)} "
                       f"WHERE id = '{cid}';")
    since = lit(datetime.now(timezone.utc).replace(tzinfo=None) - COMPONENTS_SINCE)
    sql.append(f"UPDATE components SET created_at = {since};")
    sql.append(f"UPDATE component_status_changes SET changed_at = {since} "
               "WHERE old_status IS NULL;")
    db.script("\n".join(sql) + "\n")
    print(f"moved {len(incidents)} resolved incidents, "
          f"{sum(len(u) for u in updates.values())} updates and "
          f"{sum(len(c) for c in changes.values())} status rows into the past year "
          f"({len(sql)} statements, {time.monotonic() - began:.1f} s)", flush=True)


# --- settling and measuring -----------------------------------------------------------------

def shows(public, slug, page):
    """Whether the public page serves what was built: every component, the newest incident."""
    status, body, _ = public.get(f"/status/{slug}/api/v2/summary.json")
    if status != 200:
        return False
    listed = {c["id"] for c in json.loads(body)["components"]}
    if not set(page["components"]) <= listed:
        return False
    if page["incidents"]:
        status, body, _ = public.get(f"/status/{slug}/api/v2/incidents.json")
        if status != 200 or page["incidents"][0] not in {
                i["id"] for i in json.loads(body)["incidents"]}:
            return False
    return True


def settle(port, pid, state_file):
    state = json.load(open(state_file))
    public = Public(port)
    began = time.monotonic()
    timeout = float(os.environ.get("SETTLE_TIMEOUT", "1800"))
    slugs = sorted({state["slugs"][0], state["slugs"][-1]})
    while not all(shows(public, s, state["pages"][s]) for s in slugs):
        if time.monotonic() - began > timeout:
            raise SystemExit(f"the public page does not show the data after {timeout:.0f} s")
        time.sleep(0.5)
    shown = time.monotonic() - began
    # Then until Herald's CPU stops moving: QUIET_SECS seconds in a row under QUIET_PCT % of a
    # core (a Herald that never gets there is measured anyway after QUIET_TIMEOUT, with a
    # warning).
    quiet_secs = int(os.environ.get("QUIET_SECS", "3"))
    quiet_pct = float(os.environ.get("QUIET_PCT", "5"))
    quiet_timeout = float(os.environ.get("QUIET_TIMEOUT", "300"))
    quiet, waited = 0, time.monotonic()
    last = cpu_ticks(pid)
    while quiet < quiet_secs:
        time.sleep(1)
        now = cpu_ticks(pid)
        quiet = quiet + 1 if (now - last) * 100 / HZ <= quiet_pct else 0
        last = now
        if time.monotonic() - waited > quiet_timeout:
            print(f"warning: Herald's CPU still above {quiet_pct} % of a core "
                  f"{quiet_timeout:.0f} s after the page showed the data", flush=True)
            break
    print(f"settled: the page showed the data {shown:.1f} s after start, quiet after "
          f"{time.monotonic() - began:.1f} s", flush=True)


def save(results_file, key, **fields):
    try:
        results = json.load(open(results_file))
    except FileNotFoundError:
        results = {}
    results.setdefault(key, {}).update(fields)
    with open(results_file, "w") as f:
        json.dump(results, f, indent=1)


def measure(port, pid, state_file, results_file, key):
    state = json.load(open(state_file))
    slug = state["slugs"][0]
    status, body, res = Public(port).get(f"/status/{slug}", accept_encoding=False)
    if status != 200 or res.getheader("Content-Encoding"):
        raise SystemExit(f"GET /status/{slug} answered {status} {res.getheader('Content-Encoding')}")
    pages = state["pages"]
    save(results_file, key, rss_mb=rss_mb(pid), overview_bytes=len(body),
         pages=len(pages), components=len(pages[slug]["components"]),
         incidents=len(pages[slug]["incidents"]))
    print(f"resident memory {rss_mb(pid):.1f} MB, overview of {slug} {len(body)} bytes identity",
          flush=True)


def after(pid, results_file, key):
    """Resident memory again once the writes (and the storm) are done: what the allocator kept."""
    save(results_file, key, rss_after_mb=rss_mb(pid))
    print(f"resident memory after the writes: {rss_mb(pid):.1f} MB", flush=True)


def idle(pid, secs, results_file, key):
    secs = float(secs)
    before = cpu_ticks(pid)
    time.sleep(secs)
    pct = (cpu_ticks(pid) - before) * 100 / HZ / secs
    save(results_file, key, idle_pct=pct, idle_secs=secs)
    print(f"idle: {pct:.2f} % of one core over {secs:.0f} s", flush=True)


def startup(port, started_at, state_file, results_file, key):
    """Herald was started at `started_at` (epoch seconds) on a site of many pages: how long
    until the page rendered last in slug order answers 200 (a reader's request puts it first)
    and until /readyz answers 200 (every page rendered)."""
    state = json.load(open(state_file))
    last = sorted(state["slugs"])[-1]
    started_at = float(started_at)
    first = ready = None
    while ready is None:
        now = time.time()
        if now - started_at > 600:
            raise SystemExit("Herald did not become ready in 600 s")
        try:
            if first is None and Public(port).get(f"/status/{last}")[0] == 200:
                first = time.time() - started_at
            if Public(port).get("/readyz")[0] == 200:
                ready = time.time() - started_at
        except (ConnectionRefusedError, ConnectionResetError, http.client.RemoteDisconnected):
            pass
        time.sleep(0.01)
    if first is None:
        first = ready
    save(results_file, key, startup={"first_answer_s": first, "ready_s": ready,
                                     "page": last})
    print(f"start-up: /status/{last} (rendered last in slug order) answered 200 "
          f"{first:.2f} s after start; every page rendered (/readyz 200) after {ready:.2f} s",
          flush=True)


def component_shows(cid, status):
    return lambda answer: lambda s: any(
        c["id"] == cid and c["status"] == status for c in s["components"])


def update_shows(iid):
    return lambda answer: lambda s: any(
        i["id"] == iid and answer["incident_update"]["id"] in
        {u["id"] for u in i["incident_updates"]} for i in s["incidents"])


def incident_shows(answer):
    return lambda s: any(i["id"] == answer["id"] for i in s["incidents"])


def timed(api, public, pid, slug, method, path, body, visible):
    """One write: its answer and (answered ms, Herald's CPU ms from just before the request
    until the public summary.json shows the write, shown ms). `visible(answer)` is the test of
    a summary."""
    cpu0 = cpu_ms(pid)
    t0 = time.monotonic()
    answer = api.call(method, path, body)
    answered = time.monotonic() - t0
    shows_it = visible(answer)
    while not shows_it(public.json(f"/status/{slug}/api/v2/summary.json")):
        if time.monotonic() - t0 > 60:
            raise SystemExit(f"{method} {path}: not on the public page after 60 s")
        time.sleep(0.005)
    shown = time.monotonic() - t0
    cpu = cpu_between(cpu0, cpu_ms(pid))
    return answer, [answered * 1000, cpu, shown * 1000]


def writes(port, token, pid, state_file, results_file, key):
    state = json.load(open(state_file))
    slug = state["slugs"][0]
    comps = state["pages"][slug]["components"]
    api, public = Api(port, token), Public(port)
    base = f"/pages/{slug}"
    figures = {"status": [], "update": [], "open": []}
    pause = float(os.environ.get("WRITE_PAUSE", "0.2"))

    # Component status changes: component j % n goes degraded, or back to operational when the
    # same component comes round again. Afterwards (unmeasured) every one back to operational.
    current = {}
    for j in range(WRITES):
        cid = comps[j % len(comps)]
        new = "operational" if current.get(cid) == "degraded_performance" \
            else "degraded_performance"
        _, f = timed(api, public, pid, slug, "PATCH", f"{base}/components/{cid}",
                     {"status": new}, component_shows(cid, new))
        current[cid] = new
        figures["status"].append(f)
        time.sleep(pause)
    for cid, status in current.items():
        if status != "operational":
            api.call("PATCH", f"{base}/components/{cid}", {"status": "operational"})

    # Updates to one open incident (opened first, unmeasured).
    inc = api.call("POST", f"{base}/incidents", {
        "name": "Slow dashboard loads", "impact": "minor",
        "body": "Some customers see slow dashboard loads. We are investigating."})
    time.sleep(pause)
    for j in range(WRITES):
        _, f = timed(api, public, pid, slug, "POST", f"{base}/incidents/{inc['id']}/updates",
                     {"body": f"Update {j + 1}: we are still investigating; dashboards take "
                              f"about {10 + j} seconds to load for some customers."},
                     update_shows(inc["id"]))
        figures["update"].append(f)
        time.sleep(pause)

    # New incidents (no component changed), each left open while the next ones are opened;
    # afterwards (unmeasured) all resolved, with the one the updates went to.
    opened = [inc["id"]]
    for j in range(WRITES):
        answer, f = timed(api, public, pid, slug, "POST", f"{base}/incidents", {
            "name": f"Delayed webhooks ({j + 1})", "impact": "minor",
            "body": "Some webhooks are delivered late. We are investigating."}, incident_shows)
        opened.append(answer["id"])
        figures["open"].append(f)
        time.sleep(pause)
    for iid in opened:
        api.call("POST", f"{base}/incidents/{iid}/updates",
                 {"status": "resolved", "body": "This incident has been resolved."})
    save(results_file, key, writes=figures)
    for kind, rows in figures.items():
        print(f"{KINDS[kind]:>17}: {describe(rows)}", flush=True)


KINDS = {"status": "status change", "update": "incident update", "open": "incident opened"}


def pct(values, p):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def describe(rows):
    col = lambda i: [r[i] for r in rows]
    return (f"answered p50 {pct(col(0), 50):5.0f} p95 {pct(col(0), 95):5.0f} ms; "
            f"Herald CPU p50 {pct(col(1), 50):5.0f} p95 {pct(col(1), 95):5.0f} ms; "
            f"on the public page p50 {pct(col(2), 50):5.0f} p95 {pct(col(2), 95):5.0f} ms")


# --- the alert storm ------------------------------------------------------------------------

def to_ms(v):
    for unit, factor in (("us", 0.001), ("ms", 1), ("s", 1000)):
        if v.endswith(unit):
            return float(v[:-len(unit)]) * factor
    raise ValueError(v)


def wrk(url, secs):
    """Starts wrk against url; .result() gives its p99 in ms and req/s."""
    args = ["wrk", f"-t{os.environ.get('WRK_THREADS', '2')}",
            f"-c{os.environ.get('WRK_CONNECTIONS', '32')}", f"-d{secs}s", "--latency",
            "-H", f"Accept-Encoding: {os.environ.get('WRK_ENCODING', 'br')}", url]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)

    class Run:
        def result(self):
            out = proc.communicate()[0]
            if proc.returncode or "Non-2xx" in out or "Socket errors" in out:
                raise SystemExit(f"wrk failed or saw errors:\n{out}")
            p99 = next(to_ms(line.split()[1]) for line in out.splitlines()
                       if line.strip().startswith("99%"))
            rps = next(float(line.split()[1]) for line in out.splitlines()
                       if line.startswith("Requests/sec"))
            return p99, rps
    return Run()


def storm(port, token, pid, state_file, scale, results_file, key):
    state = json.load(open(state_file))
    slug = state["slugs"][0]
    comps = state["pages"][slug]["components"]
    count = min(n(200, float(scale)), len(comps))
    spread = float(os.environ.get("STORM_SECS", "2"))
    secs = int(os.environ.get("WRK_SECS", "4"))
    url = f"http://127.0.0.1:{port}/status/{slug}"
    public = Public(port)

    # Idle: the median of IDLE_ROUNDS (3) runs, as one run's p99 on 2 shared cores varies
    # several-fold from run to run.
    rounds = [wrk(url, secs).result() for _ in range(int(os.environ.get("IDLE_ROUNDS", "3")))]
    idle_p99 = sorted(r[0] for r in rounds)[len(rounds) // 2]
    idle_rps = sorted(r[1] for r in rounds)[len(rounds) // 2]
    print("storm: overview p99 idle, each round: "
          + ", ".join(f"{r[0]:.1f} ms" for r in rounds), flush=True)
    time.sleep(1)

    # STORM_ROUNDS (3) storms, each set back (unmeasured) before the next: the p99 during the
    # storm is their median, as the idle p99 is (one run's p99 varies several-fold), and how
    # long the changes took to show is the worst round's.
    targets = comps[-count:]
    api = Api(port, token)
    rounds = []
    for _ in range(int(os.environ.get("STORM_ROUNDS", "3"))):
        rounds.append(storm_round(port, token, pid, slug, targets, spread, secs, url, public))
        print("storm: one round: " + storm_line(rounds[-1]), flush=True)
        # Back to operational, unmeasured.
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(lambda cid: api.build("PATCH", f"/pages/{slug}/components/{cid}",
                                                {"status": "operational"}), targets))
        time.sleep(1)
    mid = sorted(rounds, key=lambda r: r["p99_storm_ms"])[len(rounds) // 2]
    worst = max(rounds, key=lambda r: r["after_last_post_ms"])
    fig = dict(mid, p99_idle_ms=idle_p99, rps_idle=idle_rps,
               after_last_answer_ms=worst["after_last_answer_ms"],
               after_last_post_ms=worst["after_last_post_ms"],
               rounds=len(rounds), p99_storm_each_ms=[r["p99_storm_ms"] for r in rounds])
    save(results_file, key, storm=fig)
    print(storm_line(fig), flush=True)


def storm_round(port, token, pid, slug, targets, spread, secs, url, public):
    """One storm: every target set to major_outage, change i sent at i * spread / count, one
    client per change (connected ahead), while wrk reads the overview."""
    count = len(targets)
    conns = [http.client.HTTPConnection("127.0.0.1", int(port), timeout=120) for _ in targets]
    for c in conns:
        c.connect()
    sent, answered = [0.0] * count, [0.0] * count
    errors = []

    def one(i, t_start):
        delay = t_start + i * spread / count - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        sent[i] = time.monotonic()
        try:
            conns[i].request("PATCH", f"/api/v1/pages/{slug}/components/{targets[i]}",
                             json.dumps({"status": "major_outage"}),
                             {"Content-Type": "application/json",
                              "Authorization": "Bearer " + token})
            res = conns[i].getresponse()
            body = res.read()
            if res.status != 200:
                errors.append(f"{res.status} {body[:200]!r}")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
        answered[i] = time.monotonic()

    during = wrk(url, secs)
    time.sleep(0.5)  # wrk's connections open first
    cpu0 = cpu_ticks(pid)
    t_start = time.monotonic() + 0.05
    threads = [threading.Thread(target=one, args=(i, t_start)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wanted = set(targets)
    while True:
        doc = public.json(f"/status/{slug}/api/v2/summary.json")
        if wanted <= {c["id"] for c in doc["components"] if c["status"] == "major_outage"}:
            break
        if time.monotonic() - t_start > 120:
            raise SystemExit("the storm's changes are not all on the public page after 120 s")
        time.sleep(0.01)
    all_shown = time.monotonic()
    cpu = (cpu_ticks(pid) - cpu0) / HZ
    storm_p99, storm_rps = during.result()
    for c in conns:
        c.close()
    if errors:
        raise SystemExit(f"{len(errors)} storm writes failed: {errors[:3]}")
    answers = [(a - s) * 1000 for s, a in zip(sent, answered)]
    return {
        "changes": count, "spread_secs": spread,
        "after_last_answer_ms": (all_shown - max(answered)) * 1000,
        "after_last_post_ms": (all_shown - max(sent)) * 1000,
        "answer_p50_ms": pct(answers, 50), "answer_p95_ms": pct(answers, 95),
        "answer_max_ms": max(answers), "cpu_secs": cpu,
        "p99_idle_ms": 0.0, "p99_storm_ms": storm_p99,
        "rps_idle": 0.0, "rps_storm": storm_rps,
    }


def storm_line(f):
    if not f["p99_idle_ms"]:
        return (f"all shown {f['after_last_post_ms']:.0f} ms after the last PATCH; answers p50 "
                f"{f['answer_p50_ms']:.0f} p95 {f['answer_p95_ms']:.0f} ms; overview p99 "
                f"{f['p99_storm_ms']:.1f} ms")
    rounds = ""
    if f.get("rounds", 1) > 1:
        rounds = (f" (the median of {f['rounds']} storms: "
                  + ", ".join(f"{x:.1f}" for x in f["p99_storm_each_ms"])
                  + " ms; shown: the worst storm's)")
    return (f"storm: {f['changes']} component changes over {f['spread_secs']:.0f} s: all on the "
            f"public page {f['after_last_answer_ms']:.0f} ms after the last answer "
            f"({f['after_last_post_ms']:.0f} ms after the last PATCH was sent); answers p50 "
            f"{f['answer_p50_ms']:.0f} p95 {f['answer_p95_ms']:.0f} max {f['answer_max_ms']:.0f} "
            f"ms; Herald CPU {f['cpu_secs']:.2f} s (serving wrk too). Overview p99 (wrk, "
            f"{os.environ.get('WRK_ENCODING', 'br')}) idle {f['p99_idle_ms']:.1f} ms, during the "
            f"storm {f['p99_storm_ms']:.1f} ms{rounds}: "
            f"{f['p99_storm_ms'] / f['p99_idle_ms']:.2f}x")


# --- the table ------------------------------------------------------------------------------

def label(key, r):
    return {
        "components": f"{r['components']} components",
        "incidents": f"{r['incidents']} incidents",
        "together": "together, 6 languages",
        "pages": f"{r['pages']} pages",
        "one-page": "1 page (baseline)",
    }.get(key, key)


def table(results_file, backend):
    results = json.load(open(results_file))
    print(f"== {backend}: resident memory after settling, and after the writes; CPU per write = Herald's utime+stime "
          f"from the request until summary.json shows it; p95 over {WRITES} writes each "
          f"(status change / incident update / incident opened)")
    head = (f"{'shape':24} {'resident':>9} {'after':>7} {'overview':>10} {'CPU per write p95 (ms)':>24} "
            f"{'write answered p95 (ms)':>24}")
    print(head)
    print("-" * len(head))
    for key, r in results.items():
        if "writes" not in r:
            continue
        w = r["writes"]
        cpu = " / ".join(f"{pct([x[1] for x in w[k]], 95):.0f}" for k in KINDS)
        ans = " / ".join(f"{pct([x[0] for x in w[k]], 95):.0f}" for k in KINDS)
        print(f"{label(key, r):24} {r['rss_mb']:6.0f} MB {r.get('rss_after_mb', 0):4.0f} MB "
              f"{r['overview_bytes'] / 1024:7.0f} KB "
              f"{cpu:>24} {ans:>24}")
    for key, r in results.items():
        if "storm" in r:
            print(f"{label(key, r)} {storm_line(r['storm'])}")
        if "idle_pct" in r:
            print(f"{label(key, r)}: idle CPU {r['idle_pct']:.2f} % of one core over "
                  f"{r['idle_secs']:.0f} s")
        if "startup" in r:
            u = r["startup"]
            print(f"{label(key, r)}: start-up, the page rendered last answered after "
                  f"{u['first_answer_s']:.2f} s, every page rendered after {u['ready_s']:.2f} s")
    if "pages" in results and "one-page" in results:
        many, one = results["pages"]["writes"], results["one-page"]["writes"]
        ratios = ", ".join(
            f"{KINDS[k]} {pct([x[1] for x in many[k]], 95):.0f} vs "
            f"{pct([x[1] for x in one[k]], 95):.0f} ms" for k in KINDS)
        print(f"other pages' cost (CPU p95, {results['pages']['pages']} pages vs 1): {ratios}")


if __name__ == "__main__":
    step, args = sys.argv[1], sys.argv[2:]
    steps = {"build": build, "shift": shift, "settle": settle, "measure": measure,
             "idle": idle, "after": after, "startup": startup, "writes": writes, "storm": storm, "table": table}
    if step not in steps:
        raise SystemExit(f"unknown step {step}")
    steps[step](*args)
