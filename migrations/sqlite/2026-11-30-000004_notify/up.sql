-- Subscribers and the durable notification fan-out: events written with the change that causes
-- them, expanded into one delivery row per recipient and channel (the unique key makes every
-- step safe to repeat). Keep in step with the other backend's folder of the same name.

CREATE TABLE subscribers (
    id                   TEXT PRIMARY KEY NOT NULL,
    page_id              TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    kind                 TEXT NOT NULL CHECK (kind IN ('email', 'webhook')),
    email                TEXT,
    url                  TEXT,
    contact_email        TEXT,
    secret               TEXT,
    whole_page           BOOLEAN NOT NULL DEFAULT TRUE,
    component_updates    BOOLEAN NOT NULL DEFAULT FALSE,
    state                TEXT NOT NULL CHECK (state IN ('pending', 'confirmed', 'quarantined', 'unsubscribed')),
    confirmed_at         TIMESTAMP,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    first_failure_at     TIMESTAMP,
    manage_token_id      TEXT NOT NULL,
    created_at           TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL,
    UNIQUE (page_id, email)
);
CREATE INDEX subscribers_page_state ON subscribers (page_id, state);

-- The components a subscriber chose (none listed and whole_page: every component).
CREATE TABLE subscriber_components (
    subscriber_id TEXT NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    component_id  TEXT NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    PRIMARY KEY (subscriber_id, component_id)
);
CREATE INDEX subscriber_components_component ON subscriber_components (component_id);

CREATE TABLE notification_events (
    id            TEXT PRIMARY KEY NOT NULL,
    page_id       TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    incident_id   TEXT REFERENCES incidents (id) ON DELETE CASCADE,
    update_id     TEXT REFERENCES incident_updates (id) ON DELETE CASCADE,
    component_id  TEXT REFERENCES components (id) ON DELETE CASCADE,
    subscriber_id TEXT REFERENCES subscribers (id) ON DELETE CASCADE,
    impact        TEXT,
    created_at    TIMESTAMP NOT NULL,
    expanded_at   TIMESTAMP
);
CREATE INDEX notification_events_unexpanded ON notification_events (expanded_at, created_at);
CREATE INDEX notification_events_incident ON notification_events (incident_id, created_at);

-- The components an event concerns (the subscribers' component filters match against these).
CREATE TABLE notification_event_components (
    event_id     TEXT NOT NULL REFERENCES notification_events (id) ON DELETE CASCADE,
    component_id TEXT NOT NULL,
    PRIMARY KEY (event_id, component_id)
);

CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY NOT NULL,
    event_id        TEXT NOT NULL REFERENCES notification_events (id) ON DELETE CASCADE,
    subscriber_id   TEXT NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    page_id         TEXT NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dead', 'skipped')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    last_error      TEXT,
    locked_by       TEXT,
    locked_until    TIMESTAMP,
    delivered_at    TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (event_id, subscriber_id, channel)
);
CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
CREATE INDEX deliveries_subscriber ON deliveries (subscriber_id, created_at);
CREATE INDEX deliveries_page ON deliveries (page_id, created_at);
