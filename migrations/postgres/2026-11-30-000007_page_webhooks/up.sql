-- A page's own webhooks (not subscribers'): `support` gets a notice of every support form
-- submission, `responder` gets the responders' reminders. Each has its own Standard Webhooks
-- signing secret (`whsec_...`), made when the URL is set and shown once.
CREATE TABLE page_webhooks (
    page_id    TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('support', 'responder')),
    url        TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (page_id, purpose)
);
