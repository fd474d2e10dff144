CREATE OR REPLACE FUNCTION page_changed(page TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT := site_changed();
BEGIN
    UPDATE page_changes SET revision = revision + 1, site_seq = seq WHERE page_id = page;
END $$;

CREATE OR REPLACE FUNCTION site_changed() RETURNS BIGINT LANGUAGE sql AS $$
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1 RETURNING seq;
$$;
