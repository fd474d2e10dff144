-- Alerts in: a page's integrations (Prometheus Alertmanager, Grafana, a generic JSON body),
-- each with its own secret token (only its SHA-256 is kept), how an alert picks a component
-- and a status, how long a status set by an alert holds, and whether an incident is opened.
-- Keep in step with the other backend's folder of the same name.
CREATE TABLE integrations (
    id                 TEXT PRIMARY KEY NOT NULL,
    page_id            TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    kind               TEXT NOT NULL CHECK (kind IN ('alertmanager', 'grafana', 'generic')),
    name               TEXT NOT NULL,
    token_hash         TEXT NOT NULL,
    component_label    TEXT NOT NULL,
    component_map      TEXT NOT NULL,
    severity_label     TEXT NOT NULL,
    severity_map       TEXT NOT NULL,
    default_status     TEXT NOT NULL,
    hold_secs          INTEGER NOT NULL,
    template_id        TEXT REFERENCES incident_templates (id) ON DELETE SET NULL,
    incident_mode      TEXT NOT NULL CHECK (incident_mode IN ('off', 'draft', 'publish')),
    notify_subscribers BOOLEAN NOT NULL,
    last_used_at       TIMESTAMP,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL
);
CREATE INDEX integrations_page ON integrations (page_id);

-- The last word of each alert an integration has heard, by fingerprint: a repeated
-- notification that says the same is recognised and changes nothing.
CREATE TABLE alert_states (
    integration_id TEXT NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
    fingerprint    TEXT NOT NULL,
    component_id   TEXT NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    alert_name     TEXT NOT NULL,
    summary        TEXT,
    status         TEXT NOT NULL,
    firing         BOOLEAN NOT NULL,
    starts_at      TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (integration_id, fingerprint)
);
CREATE INDEX alert_states_component ON alert_states (component_id, firing);

-- A component whose status an alert set (and no one has changed since): which alert, when.
-- Any other change of the status removes the mark, so a resolved alert restores only what
-- an alert set; a responder's status stays.
CREATE TABLE alert_marks (
    component_id   TEXT PRIMARY KEY NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    integration_id TEXT REFERENCES integrations (id) ON DELETE SET NULL,
    integration    TEXT NOT NULL,
    alert_name     TEXT NOT NULL,
    set_at         TIMESTAMP NOT NULL
);

-- An incident an integration proposes (from its template, when a component went to major
-- outage), waiting for a responder to publish or dismiss it.
CREATE TABLE incident_drafts (
    id             TEXT PRIMARY KEY NOT NULL,
    page_id        TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    integration_id TEXT REFERENCES integrations (id) ON DELETE SET NULL,
    template_id    TEXT REFERENCES incident_templates (id) ON DELETE SET NULL,
    component_id   TEXT NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    alert_name     TEXT NOT NULL,
    summary        TEXT,
    created_at     TIMESTAMP NOT NULL
);
CREATE INDEX incident_drafts_page ON incident_drafts (page_id, created_at);
