-- The site's counter (site_changes) and a page's (page_changes) move once per transaction, not
-- once per row the transaction changed. Every UPDATE of a row in PostgreSQL writes a new
-- version of it, and each later UPDATE of that row in the same transaction walks past every
-- earlier version first: a transaction of N changes made the counter's single row N versions
-- long and cost N^2 / 2 steps. A transaction of 160,000 row changes over 1,000 pages (the
-- bench's move of incidents into the past year) ran for many minutes on the counter alone; an
-- import or a restore in one transaction would too. Keep in step with the other backend's
-- folder of the same name (SQLite rewrites a row in place: nothing to change there).
--
-- The first move in a transaction notes the value in a setting local to the transaction
-- (set_config(..., true)); the later ones answer it. A savepoint rolled back takes the note
-- back with the update it noted. The order of commits is the counter's order as before: the
-- first move takes the counter's row lock, held to the commit.

CREATE OR REPLACE FUNCTION site_changed() RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    noted TEXT := current_setting('herald.site_seq', true);
    moved BIGINT;
BEGIN
    IF coalesce(noted, '') <> '' THEN
        RETURN noted::BIGINT;
    END IF;
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO moved;
    PERFORM set_config('herald.site_seq', moved::TEXT, true);
    RETURN moved;
END $$;

-- A page's setting is named by a digest of its id (a setting's name takes letters, digits and
-- underscores only); a backend holds one such name per page it ever moved.
CREATE OR REPLACE FUNCTION page_changed(page TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT := site_changed();
    noted TEXT := 'herald.page_' || md5(coalesce(page, ''));
BEGIN
    IF page IS NULL OR coalesce(current_setting(noted, true), '') <> '' THEN
        RETURN;
    END IF;
    UPDATE page_changes SET revision = revision + 1, site_seq = seq WHERE page_id = page;
    PERFORM set_config(noted, '1', true);
END $$;
