-- What an import from another status page made: per page, each source record (a group, a
-- component, an incident or maintenance, an update) and the record it became, so a second
-- import adds only what is new. Keep in step with the other backend's folder of the same name.
CREATE TABLE imported_records (
    page_id    TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    source_id  TEXT NOT NULL,
    local_id   TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (page_id, kind, source_id)
);
