-- A counter per page that every change to what the page shows moves, kept by triggers in the
-- transaction that makes the change (so a change made by any Herald process, or by hand, is
-- seen): the public site's refresher reads one row per page instead of aggregating every
-- table of every page each second. The tables are those whose rows a public page shows
-- (its components, groups, incidents, their updates and postmortems, mirrors, who may read
-- it, its images, and the page's own row). Keep in step with the other backend's folder of
-- the same name.

CREATE TABLE page_changes (
    page_id TEXT PRIMARY KEY NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL DEFAULT 1
);
INSERT INTO page_changes (page_id) SELECT id FROM status_pages;

CREATE TRIGGER status_pages_change_insert AFTER INSERT ON status_pages
BEGIN
    INSERT INTO page_changes (page_id) VALUES (NEW.id);
END;
CREATE TRIGGER status_pages_change_update AFTER UPDATE ON status_pages
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.id;
END;

CREATE TRIGGER components_change_insert AFTER INSERT ON components
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER components_change_update AFTER UPDATE ON components
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER components_change_delete AFTER DELETE ON components
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER component_groups_change_insert AFTER INSERT ON component_groups
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER component_groups_change_update AFTER UPDATE ON component_groups
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER component_groups_change_delete AFTER DELETE ON component_groups
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER incidents_change_insert AFTER INSERT ON incidents
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER incidents_change_update AFTER UPDATE ON incidents
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER incidents_change_delete AFTER DELETE ON incidents
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER mirrors_change_insert AFTER INSERT ON mirrors
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER mirrors_change_update AFTER UPDATE ON mirrors
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER mirrors_change_delete AFTER DELETE ON mirrors
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER page_read_tokens_change_insert AFTER INSERT ON page_read_tokens
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER page_read_tokens_change_update AFTER UPDATE ON page_read_tokens
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER page_read_tokens_change_delete AFTER DELETE ON page_read_tokens
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER page_passwords_change_insert AFTER INSERT ON page_passwords
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER page_passwords_change_update AFTER UPDATE ON page_passwords
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER page_passwords_change_delete AFTER DELETE ON page_passwords
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER page_images_change_insert AFTER INSERT ON page_images
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER page_images_change_update AFTER UPDATE ON page_images
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = NEW.page_id;
END;

CREATE TRIGGER page_images_change_delete AFTER DELETE ON page_images
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = OLD.page_id;
END;

CREATE TRIGGER incident_updates_change_insert AFTER INSERT ON incident_updates
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = (SELECT page_id FROM incidents WHERE id = NEW.incident_id);
END;

CREATE TRIGGER incident_updates_change_update AFTER UPDATE ON incident_updates
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = (SELECT page_id FROM incidents WHERE id = NEW.incident_id);
END;

CREATE TRIGGER incident_updates_change_delete AFTER DELETE ON incident_updates
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = (SELECT page_id FROM incidents WHERE id = OLD.incident_id);
END;

CREATE TRIGGER postmortems_change_insert AFTER INSERT ON postmortems
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = (SELECT page_id FROM incidents WHERE id = NEW.incident_id);
END;

CREATE TRIGGER postmortems_change_update AFTER UPDATE ON postmortems
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = (SELECT page_id FROM incidents WHERE id = NEW.incident_id);
END;

CREATE TRIGGER postmortems_change_delete AFTER DELETE ON postmortems
BEGIN
    UPDATE page_changes SET revision = revision + 1 WHERE page_id = (SELECT page_id FROM incidents WHERE id = OLD.incident_id);
END;
