-- A counter per page that every change to what the page shows moves, kept by triggers in the
-- transaction that makes the change (so a change made by any Herald process, or by hand, is
-- seen): the public site's refresher reads one row per page instead of aggregating every
-- table of every page each second. The tables are those whose rows a public page shows
-- (its components, groups, incidents, their updates and postmortems, mirrors, who may read
-- it, its images, and the page's own row). Keep in step with the other backend's folder of
-- the same name.
-- On PostgreSQL the triggers are deferred to the commit, so the page's row is locked for the
-- commit only, not for the whole of a transaction that changes the page.

CREATE TABLE page_changes (
    page_id TEXT PRIMARY KEY NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL DEFAULT 1
);
INSERT INTO page_changes (page_id) SELECT id FROM status_pages;

CREATE FUNCTION page_change_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO page_changes (page_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE FUNCTION page_changed(page TEXT) RETURNS void LANGUAGE sql AS $$
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = page;
$$;
CREATE FUNCTION page_change_by_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM page_changed(NEW.id);
    RETURN NULL;
END $$;
CREATE FUNCTION page_change_by_page() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM page_changed(OLD.page_id);
    ELSE
        PERFORM page_changed(NEW.page_id);
    END IF;
    RETURN NULL;
END $$;
CREATE FUNCTION page_change_by_incident() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM page_changed((SELECT page_id FROM incidents WHERE id = OLD.incident_id));
    ELSE
        PERFORM page_changed((SELECT page_id FROM incidents WHERE id = NEW.incident_id));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER status_pages_change_insert AFTER INSERT ON status_pages
    FOR EACH ROW EXECUTE FUNCTION page_change_insert();
CREATE CONSTRAINT TRIGGER status_pages_change AFTER UPDATE ON status_pages
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_id();

CREATE CONSTRAINT TRIGGER components_change AFTER INSERT OR UPDATE OR DELETE ON components
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER component_groups_change AFTER INSERT OR UPDATE OR DELETE ON component_groups
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER incidents_change AFTER INSERT OR UPDATE OR DELETE ON incidents
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER mirrors_change AFTER INSERT OR UPDATE OR DELETE ON mirrors
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER page_read_tokens_change AFTER INSERT OR UPDATE OR DELETE ON page_read_tokens
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER page_passwords_change AFTER INSERT OR UPDATE OR DELETE ON page_passwords
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER page_images_change AFTER INSERT OR UPDATE OR DELETE ON page_images
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_page();
CREATE CONSTRAINT TRIGGER incident_updates_change AFTER INSERT OR UPDATE OR DELETE ON incident_updates
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_incident();
CREATE CONSTRAINT TRIGGER postmortems_change AFTER INSERT OR UPDATE OR DELETE ON postmortems
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION page_change_by_incident();
