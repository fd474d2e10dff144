-- One counter for the whole site that moves whenever a page's counter (page_changes) moves, a
-- page is added or a page is removed; each page's row keeps the value the counter had when the
-- page last moved. The refresher asks for the pages that moved since the value it last read,
-- instead of reading every page's row: a write to one page among 1,000 no longer pays for the
-- other 999 (issue 39). Keep in step with the other backend's folder of the same name.

CREATE TABLE site_changes (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    seq BIGINT NOT NULL DEFAULT 0
);
INSERT INTO site_changes (id, seq) VALUES (1, 0);

ALTER TABLE page_changes ADD COLUMN site_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX page_changes_site_seq ON page_changes (site_seq);

-- SQLite writes one transaction at a time, so the counter's order is the commit order.
CREATE TRIGGER page_changes_moved AFTER UPDATE OF revision ON page_changes
BEGIN
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1;
    UPDATE page_changes SET site_seq = (SELECT seq FROM site_changes WHERE id = 1)
        WHERE page_id = NEW.page_id;
END;
CREATE TRIGGER page_changes_added AFTER INSERT ON page_changes
BEGIN
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1;
    UPDATE page_changes SET site_seq = (SELECT seq FROM site_changes WHERE id = 1)
        WHERE page_id = NEW.page_id;
END;
CREATE TRIGGER page_changes_removed AFTER DELETE ON page_changes
BEGIN
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1;
END;
