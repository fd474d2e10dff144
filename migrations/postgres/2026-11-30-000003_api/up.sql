-- The JSON API's own tables: the audit log, idempotency keys and incident templates.

CREATE TABLE audit_log (
    id TEXT PRIMARY KEY NOT NULL,
    at TIMESTAMP NOT NULL,
    actor_id TEXT,
    actor_email TEXT NOT NULL,
    action TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    entity_id TEXT,
    page_id TEXT,
    changes TEXT NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_page_at ON audit_log (page_id, at);
CREATE INDEX audit_log_actor_at ON audit_log (actor_id, at);

CREATE TABLE idempotency_keys (
    user_id TEXT NOT NULL,
    route TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, route, idem_key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

CREATE TABLE incident_templates (
    id TEXT PRIMARY KEY NOT NULL,
    page_id TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    title TEXT NOT NULL,
    impact TEXT,
    body TEXT NOT NULL,
    components TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (page_id, name)
);
