-- Herald core schema (SQLite). Keep in step with ../../postgres/ (same migration names, same columns).
-- ids are UUIDv7 strings made in Rust; times are UTC.

CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY NOT NULL,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('owner', 'responder', 'viewer')),
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);

CREATE TABLE status_pages (
    id                         TEXT PRIMARY KEY NOT NULL,
    slug                       TEXT NOT NULL UNIQUE,
    name                       TEXT NOT NULL,
    description                TEXT,
    public_url                 TEXT,
    custom_domain              TEXT UNIQUE,
    time_zone                  TEXT NOT NULL DEFAULT 'UTC',
    support_email              TEXT,
    is_default                 BOOLEAN NOT NULL DEFAULT FALSE,
    is_public                  BOOLEAN NOT NULL DEFAULT TRUE,
    next_update_none_mins      INTEGER,
    next_update_minor_mins     INTEGER,
    next_update_major_mins     INTEGER,
    next_update_critical_mins  INTEGER,
    created_at                 TIMESTAMP NOT NULL,
    updated_at                 TIMESTAMP NOT NULL
);

CREATE TABLE component_groups (
    id          TEXT PRIMARY KEY NOT NULL,
    page_id     TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT,
    position    INTEGER NOT NULL DEFAULT 0,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE INDEX component_groups_page ON component_groups (page_id, position);

CREATE TABLE components (
    id          TEXT PRIMARY KEY NOT NULL,
    page_id     TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    group_id    TEXT REFERENCES component_groups (id) ON DELETE SET NULL,
    name        TEXT NOT NULL,
    description TEXT,
    position    INTEGER NOT NULL DEFAULT 0,
    region      TEXT,
    status      TEXT NOT NULL DEFAULT 'operational',
    showcase    BOOLEAN NOT NULL DEFAULT TRUE,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE INDEX components_page ON components (page_id, position);
CREATE INDEX components_group ON components (group_id);

CREATE TABLE incidents (
    id              TEXT PRIMARY KEY NOT NULL,
    page_id         TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    reference       TEXT NOT NULL,
    name            TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('incident', 'advisory', 'maintenance')),
    impact          TEXT NOT NULL CHECK (impact IN ('none', 'minor', 'major', 'critical')),
    status          TEXT NOT NULL,
    user_impact     TEXT,
    scope           TEXT,
    root_cause      TEXT,
    started_at      TIMESTAMP NOT NULL,
    identified_at   TIMESTAMP,
    monitoring_at   TIMESTAMP,
    resolved_at     TIMESTAMP,
    scheduled_for   TIMESTAMP,
    scheduled_until TIMESTAMP,
    auto_transition BOOLEAN NOT NULL DEFAULT FALSE,
    next_update_by  TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (page_id, reference)
);
CREATE INDEX incidents_page_open ON incidents (page_id, resolved_at, started_at);

CREATE TABLE incident_components (
    incident_id  TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    component_id TEXT NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    PRIMARY KEY (incident_id, component_id)
);
CREATE INDEX incident_components_component ON incident_components (component_id);

CREATE TABLE incident_updates (
    id             TEXT PRIMARY KEY NOT NULL,
    incident_id    TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    status         TEXT NOT NULL,
    body           TEXT NOT NULL,
    next_update_by TIMESTAMP,
    author_id      TEXT REFERENCES users (id) ON DELETE SET NULL,
    notify         BOOLEAN NOT NULL DEFAULT TRUE,
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);
CREATE INDEX incident_updates_incident ON incident_updates (incident_id, created_at);

CREATE TABLE incident_update_components (
    incident_update_id TEXT NOT NULL REFERENCES incident_updates (id) ON DELETE CASCADE,
    component_id       TEXT NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    old_status         TEXT NOT NULL,
    new_status         TEXT NOT NULL,
    PRIMARY KEY (incident_update_id, component_id)
);

CREATE TABLE component_status_changes (
    id                 TEXT PRIMARY KEY NOT NULL,
    component_id       TEXT NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    old_status         TEXT,
    new_status         TEXT NOT NULL,
    incident_id        TEXT REFERENCES incidents (id) ON DELETE SET NULL,
    changed_at         TIMESTAMP NOT NULL
);
CREATE INDEX component_status_changes_component ON component_status_changes (component_id, changed_at);

CREATE TABLE postmortems (
    id            TEXT PRIMARY KEY NOT NULL,
    incident_id   TEXT NOT NULL UNIQUE REFERENCES incidents (id) ON DELETE CASCADE,
    summary       TEXT NOT NULL DEFAULT '',
    root_cause    TEXT NOT NULL DEFAULT '',
    scope_figures TEXT NOT NULL DEFAULT '[]',
    published     BOOLEAN NOT NULL DEFAULT FALSE,
    published_at  TIMESTAMP,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);

CREATE TABLE postmortem_timeline_entries (
    id            TEXT PRIMARY KEY NOT NULL,
    postmortem_id TEXT NOT NULL REFERENCES postmortems (id) ON DELETE CASCADE,
    occurred_at   TIMESTAMP NOT NULL,
    description   TEXT NOT NULL
);
CREATE INDEX postmortem_timeline_postmortem ON postmortem_timeline_entries (postmortem_id, occurred_at);

CREATE TABLE postmortem_follow_ups (
    id            TEXT PRIMARY KEY NOT NULL,
    postmortem_id TEXT NOT NULL REFERENCES postmortems (id) ON DELETE CASCADE,
    description   TEXT NOT NULL,
    owner         TEXT,
    state         TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'in_progress', 'done')),
    position      INTEGER NOT NULL DEFAULT 0,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);
CREATE INDEX postmortem_follow_ups_postmortem ON postmortem_follow_ups (postmortem_id, position);

-- The durable job queue: a write and the job it causes commit together.
CREATE TABLE jobs (
    id           TEXT PRIMARY KEY NOT NULL,
    kind         TEXT NOT NULL,
    payload      TEXT NOT NULL,
    run_at       TIMESTAMP NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 10,
    locked_by    TEXT,
    locked_until TIMESTAMP,
    last_error   TEXT,
    dead_at      TIMESTAMP,
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX jobs_ready ON jobs (dead_at, run_at);
