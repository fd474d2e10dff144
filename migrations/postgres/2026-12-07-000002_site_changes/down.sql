DROP TRIGGER status_pages_removal ON status_pages;
DROP FUNCTION page_removal();
CREATE OR REPLACE FUNCTION page_change_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO page_changes (page_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
DROP FUNCTION page_changed(TEXT);
CREATE FUNCTION page_changed(page TEXT) RETURNS void LANGUAGE sql AS $$
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = page;
$$;
DROP FUNCTION site_changed();
DROP INDEX page_changes_site_seq;
ALTER TABLE page_changes DROP COLUMN site_seq;
DROP TABLE site_changes;
