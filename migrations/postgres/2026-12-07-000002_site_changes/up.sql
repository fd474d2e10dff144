-- One counter for the whole site that moves whenever a page's counter (page_changes) moves, a
-- page is added or a page is removed; each page's row keeps the value the counter had when the
-- page last moved. The refresher asks for the pages that moved since the value it last read,
-- instead of reading every page's row: a write to one page among 1,000 no longer pays for the
-- other 999 (issue 39). Keep in step with the other backend's folder of the same name.
--
-- The counter's order is the commit order: a transaction takes the counter's row lock when it
-- moves it and holds it to its commit, so a later transaction's value is higher and becomes
-- visible later. page_changes moves in deferred triggers (at commit), so the lock is held for
-- the commit only. Every path takes the counter's lock before a row of page_changes (a page
-- removed takes it before the rows go), so two writers never wait for each other in a cycle.

CREATE TABLE site_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq BIGINT NOT NULL DEFAULT 0
);
INSERT INTO site_changes (id, seq) VALUES (1, 0);

ALTER TABLE page_changes ADD COLUMN site_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX page_changes_site_seq ON page_changes (site_seq);

CREATE FUNCTION site_changed() RETURNS BIGINT LANGUAGE sql AS $$
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1 RETURNING seq;
$$;

CREATE OR REPLACE FUNCTION page_changed(page TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT := site_changed();
BEGIN
    UPDATE page_changes SET revision = revision + 1, site_seq = seq WHERE page_id = page;
END $$;

CREATE OR REPLACE FUNCTION page_change_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT := site_changed();
BEGIN
    INSERT INTO page_changes (page_id, site_seq) VALUES (NEW.id, seq) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE FUNCTION page_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM site_changed();
    RETURN NULL;
END $$;
CREATE TRIGGER status_pages_removal BEFORE DELETE ON status_pages
    FOR EACH STATEMENT EXECUTE FUNCTION page_removal();
