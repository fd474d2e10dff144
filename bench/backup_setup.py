#!/usr/bin/env python3
"""Fills a migrated Herald SQLite database for bench/backup.sh: SUBSCRIBERS confirmed mail
subscribers of the page `demo` (made by `herald demo` first) and, for each, one delivered
notification of each of two incident updates: 2 x SUBSCRIBERS delivery rows. The first update's
deliveries are OLD_DAYS old (past the default 90 days' retention), the second's are today's.
Rows are written as Herald writes them (ids, the timestamp text Diesel writes), with SQLite's
bulk-load settings; nothing of Herald's runs meanwhile."""

import datetime
import os
import sqlite3
import sys
import time
import uuid


def uuid7():
    """A UUIDv7, as Herald makes its ids (time-ordered: rows arrive in the order of their
    keys, as Herald's do)."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | ((rand >> 62) & 0xFFF) << 64 | (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))

path, subscribers, old_days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = OFF")
page_id, = db.execute("SELECT id FROM status_pages WHERE slug = 'demo'").fetchone()
incident_id, = db.execute(
    "SELECT id FROM incidents WHERE page_id = ? ORDER BY started_at LIMIT 1", (page_id,)
).fetchone()
updates = [u for (u,) in db.execute(
    "SELECT id FROM incident_updates WHERE incident_id = ? ORDER BY created_at LIMIT 2",
    (incident_id,))]
now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
def stamp(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")
times = [now - datetime.timedelta(days=old_days), now - datetime.timedelta(hours=1)]
events = []
for update, at in zip(updates, times):
    event = uuid7()
    db.execute(
        "INSERT INTO notification_events (id, page_id, kind, incident_id, update_id, created_at, "
        "expanded_at) VALUES (?, ?, 'incident.updated', ?, ?, ?, ?)",
        (event, page_id, incident_id, update, stamp(at), stamp(at)))
    events.append((event, stamp(at)))
BATCH = 50_000
for start in range(0, subscribers, BATCH):
    subs, deliveries = [], []
    for n in range(start, min(start + BATCH, subscribers)):
        sid = uuid7()
        created = stamp(times[0] - datetime.timedelta(days=1))
        subs.append((sid, page_id, f"reader{n}@example.com", created, uuid7(),
                     created, created))
        for event, at in events:
            deliveries.append((uuid7(), event, sid, page_id, at, at, at, at))
    db.executemany(
        "INSERT INTO subscribers (id, page_id, kind, email, whole_page, component_updates, state, "
        "confirmed_at, consecutive_failures, manage_token_id, created_at, updated_at) "
        "VALUES (?, ?, 'email', ?, 1, 0, 'confirmed', ?, 0, ?, ?, ?)", subs)
    db.executemany(
        "INSERT INTO deliveries (id, event_id, subscriber_id, page_id, channel, state, attempts, "
        "next_attempt_at, delivered_at, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, 'email', 'delivered', 1, ?, ?, ?, ?)", deliveries)
    db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
counts = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
          for t in ("subscribers", "deliveries")}
print(f"subscribers {counts['subscribers']}, deliveries {counts['deliveries']}")
