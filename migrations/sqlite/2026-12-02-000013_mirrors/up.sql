-- Vendors' status, mirrored: the Statuspage-compatible summaries Herald polls (one row per
-- summary URL, however many components follow it: one fetch serves them all, with its ETag),
-- and each component that follows a vendor's component. Keep in step with the other
-- backend's folder of the same name.
CREATE TABLE mirror_sources (
    url           TEXT PRIMARY KEY NOT NULL,
    etag          TEXT,
    vendor_name   TEXT NOT NULL,
    vendor_url    TEXT,
    -- The last answer that could be read (a summary, or 304 Not Modified).
    confirmed_at  TIMESTAMP,
    -- Since when no answer could be read, and why; NULL while the vendor answers.
    failing_since TIMESTAMP,
    last_error    TEXT,
    checked_at    TIMESTAMP,
    next_poll_at  TIMESTAMP NOT NULL,
    created_at    TIMESTAMP NOT NULL
);
CREATE INDEX mirror_sources_due ON mirror_sources (next_poll_at);

-- A component following a vendor's component: the vendor's status last seen (a component
-- moves only when it changes, so a responder's own status stays until then), the vendor's
-- open incidents that name it (JSON), and what is wrong with this one when the summary
-- answers but cannot serve it (the component was removed, say).
CREATE TABLE mirrors (
    component_id     TEXT PRIMARY KEY NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    page_id          TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    source_url       TEXT NOT NULL REFERENCES mirror_sources (url),
    vendor_component TEXT NOT NULL,
    vendor_label     TEXT NOT NULL,
    vendor_status    TEXT,
    incidents        TEXT NOT NULL,
    problem          TEXT,
    created_at       TIMESTAMP NOT NULL,
    updated_at       TIMESTAMP NOT NULL
);
CREATE INDEX mirrors_source ON mirrors (source_url);
CREATE INDEX mirrors_page ON mirrors (page_id);
