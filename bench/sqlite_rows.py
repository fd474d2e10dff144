#!/usr/bin/env python3
"""What SQLite itself spends per delivery row, without Herald: expansion's insert (one
INSERT ... SELECT from the subscribers), the engine's claim (lease a batch of due deliveries,
UPDATE ... RETURNING) and its record of delivered ones (UPDATE ... WHERE id IN),
on the deliveries table as migrations/sqlite creates it (same indexes, WAL, synchronous=NORMAL).
Python's sqlite3 module calls the same C library, so this is a floor under Herald's database
cost per delivery. Then the same for a design the claim could move to (leased runs: one row
leases a chunk of an event's deliveries, which are read rather than written). Prints
microseconds per row, best of ROUNDS.

    python3 bench/sqlite_rows.py            # 10,000 rows, 3 rounds
    ROWS=50000 ROUNDS=5 python3 bench/sqlite_rows.py
"""
import os, sqlite3, tempfile, time, uuid

ROWS = int(os.environ.get("ROWS", "10000"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
SCHEMA = """PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY NOT NULL, event_id TEXT NOT NULL, subscriber_id TEXT NOT NULL,
    page_id TEXT NOT NULL, channel TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dead', 'skipped')),
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at TIMESTAMP NOT NULL, last_error TEXT,
    locked_by TEXT, locked_until TIMESTAMP, delivered_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL,
    UNIQUE (event_id, subscriber_id, channel));
CREATE INDEX deliveries_subscriber ON deliveries (subscriber_id, created_at);
CREATE INDEX deliveries_page ON deliveries (page_id, created_at);
CREATE INDEX deliveries_due ON deliveries (channel, next_attempt_at) WHERE state = 'pending';
"""
INSERT = ("INSERT INTO deliveries (id, event_id, subscriber_id, page_id, channel, state, attempts, "
          "next_attempt_at, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)")
NOW, AT, LEASE = "2026-11-30 18:00:00.123456", "2026-11-30 18:00:01.000000", "2026-11-30 18:00:30.000000"


def delivery_rows(ev, page, subscribers):
    """Pending webhook deliveries of event `ev` to `subscribers`, as expansion writes them."""
    return [(f"{ev}.{s}.webhook", ev, s, page, "webhook", "pending", 0, NOW, NOW, NOW) for s in subscribers]


def one_round(path):
    c = sqlite3.connect(path, isolation_level=None)
    c.executescript(SCHEMA)
    ev, page = str(uuid.uuid4()), str(uuid.uuid4())
    # Expansion writes the rows in one INSERT ... SELECT from the subscribers (no row passes
    # through the program), so the floor is measured the same way.
    c.execute("CREATE TABLE subs (id TEXT PRIMARY KEY NOT NULL)")
    c.executemany("INSERT INTO subs (id) VALUES (?)", [(str(uuid.uuid4()),) for _ in range(ROWS)])
    started = time.perf_counter()
    c.execute("BEGIN IMMEDIATE")
    c.execute("INSERT INTO deliveries (id, event_id, subscriber_id, page_id, channel, state, attempts, "
              "next_attempt_at, created_at, updated_at) SELECT ? || '.' || id || '.webhook', ?, id, ?, "
              "'webhook', 'pending', 0, ?, ?, ? FROM subs ORDER BY id", (ev, ev, page, NOW, NOW, NOW))
    c.execute("COMMIT")
    insert = time.perf_counter() - started
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # The engine's claim, as in src/db/models/notify.rs (batches of 1,024).
    started, claimed = time.perf_counter(), []
    while True:
        c.execute("BEGIN IMMEDIATE")
        got = c.execute(
            "UPDATE deliveries SET locked_by = 'w', locked_until = ?, next_attempt_at = ? "
            "WHERE id IN (SELECT id FROM deliveries WHERE state = 'pending' AND channel = 'webhook' "
            "AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until < ?) "
            "ORDER BY next_attempt_at LIMIT 1024) "
            "RETURNING id, event_id, subscriber_id, channel, attempts, last_error",
            (LEASE, LEASE, AT, AT)).fetchall()
        c.execute("COMMIT")
        if not got:
            break
        claimed += got
    claim = time.perf_counter() - started
    assert len(claimed) == ROWS, len(claimed)
    mark = record_delivered(c, [r[0] for r in claimed], "locked_by = NULL, locked_until = NULL, ")
    c.close()
    return insert, claim, mark


def record_delivered(c, ids, unlock):
    """The engine's record of delivered ones, in batches of 256 ids; answers the seconds taken."""
    started = time.perf_counter()
    for i in range(0, len(ids), 256):
        batch = ids[i:i + 256]
        c.execute("BEGIN IMMEDIATE")
        c.execute("UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = ?, "
                  f"last_error = NULL, {unlock}updated_at = ? "
                  f"WHERE id IN ({','.join('?' * len(batch))}) "
                  "AND NOT state IN ('delivered', 'failed', 'dead', 'skipped')", [AT, AT] + batch)
        c.execute("COMMIT")
    return time.perf_counter() - started


def runs_round(path):
    """The design the claim could move to: a run (one chunk of an event's subscribers, as
    expansion writes them) is leased with one row, and its deliveries are read, not written,
    through the unique index's (event_id, subscriber_id) range; outcomes are recorded as now."""
    c = sqlite3.connect(path, isolation_level=None)
    c.executescript(SCHEMA + """CREATE TABLE runs (event_id TEXT NOT NULL, after_id TEXT NOT NULL,
        upto_id TEXT NOT NULL, locked_by TEXT, locked_until TIMESTAMP, PRIMARY KEY (event_id, after_id));""")
    ev, page = str(uuid.uuid4()), str(uuid.uuid4())
    subs = sorted(str(uuid.uuid4()) for _ in range(ROWS))
    c.execute("BEGIN IMMEDIATE")
    c.executemany(INSERT, delivery_rows(ev, page, subs))
    bounds = [""] + subs[1023::1024] + ([subs[-1]] if ROWS % 1024 else [])
    c.executemany("INSERT INTO runs (event_id, after_id, upto_id) VALUES (?,?,?)",
                  [(ev, a, b) for a, b in zip(bounds, bounds[1:])])
    c.execute("COMMIT")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    started, claimed = time.perf_counter(), []
    while True:
        c.execute("BEGIN IMMEDIATE")
        run = c.execute("UPDATE runs SET locked_by = 'w', locked_until = ? WHERE rowid = (SELECT rowid "
                        "FROM runs WHERE locked_until IS NULL LIMIT 1) RETURNING event_id, after_id, upto_id",
                        (LEASE,)).fetchone()
        got = [] if run is None else c.execute(
            "SELECT id, event_id, subscriber_id, channel, attempts, last_error FROM deliveries "
            "WHERE event_id = ? AND subscriber_id > ? AND subscriber_id <= ? AND channel = 'webhook' "
            "AND state = 'pending'", run).fetchall()
        c.execute("COMMIT")
        if run is None:
            break
        claimed += got
    claim = time.perf_counter() - started
    assert len(claimed) == ROWS, len(claimed)
    mark = record_delivered(c, [r[0] for r in claimed], "")
    c.close()
    return claim, mark


def best_of(round_fn):
    """Microseconds per row of each figure `round_fn` answers, the best of ROUNDS fresh files."""
    best = None
    for _ in range(ROUNDS):
        with tempfile.TemporaryDirectory() as work:
            times = round_fn(os.path.join(work, "bench.db"))
            best = times if best is None else [min(a, b) for a, b in zip(best, times)]
    return [t / ROWS * 1e6 for t in best]


per_row = best_of(one_round)
print(f"{ROWS} rows, best of {ROUNDS}: expand (insert) {per_row[0]:.1f} us/row, "
      f"claim {per_row[1]:.1f} us/row, record delivered {per_row[2]:.1f} us/row")
per_row = best_of(runs_round)
print(f"leased runs instead: claim (read) {per_row[0]:.1f} us/row, record delivered {per_row[1]:.1f} us/row")
