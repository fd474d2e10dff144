-- The support contact form: submissions (stored directly or replayed from the spool, keyed by
-- an id made before spooling) and the components that mean "signing in" on a page.

CREATE TABLE support_submissions (
    id TEXT PRIMARY KEY NOT NULL,
    page_id TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    reference TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    topic TEXT NOT NULL,
    component_id TEXT,
    account TEXT,
    message TEXT NOT NULL,
    wants_copy BOOLEAN NOT NULL DEFAULT FALSE,
    status TEXT NOT NULL DEFAULT 'open',
    incident_id TEXT,
    client_ip TEXT,
    spooled BOOLEAN NOT NULL DEFAULT FALSE,
    submitted_at TIMESTAMP NOT NULL,
    handled_at TIMESTAMP,
    handled_by TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX support_submissions_page_submitted ON support_submissions (page_id, submitted_at);
CREATE INDEX support_submissions_submitted ON support_submissions (submitted_at);
CREATE INDEX support_submissions_reference ON support_submissions (reference);

ALTER TABLE components ADD COLUMN signin BOOLEAN NOT NULL DEFAULT FALSE;
