-- A counter per incident that every change to what the incident shows moves (its row, its
-- updates and the component changes they made, the components it affects, its postmortem with
-- the postmortem's timeline and follow-ups), kept by triggers in the transaction of the change:
-- a read of a page rebuilds only the incidents whose counter moved and keeps the others it
-- read before. A move also moves the page's counter (page_changes). Keep in step with the
-- other backend's folder of the same name.

CREATE TABLE incident_changes (
    incident_id TEXT PRIMARY KEY NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL DEFAULT 1
);
INSERT INTO incident_changes (incident_id) SELECT id FROM incidents;

CREATE TRIGGER incidents_incident_change_insert AFTER INSERT ON incidents
BEGIN
    INSERT INTO incident_changes (incident_id) VALUES (NEW.id);
END;
CREATE TRIGGER incidents_incident_change_update AFTER UPDATE ON incidents
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.id;
END;
CREATE TRIGGER incident_changes_page_change AFTER UPDATE ON incident_changes
BEGIN
    UPDATE page_changes SET revision = revision + 1
    WHERE page_id = (SELECT page_id FROM incidents WHERE id = NEW.incident_id);
END;

CREATE TRIGGER incident_updates_incident_change_insert AFTER INSERT ON incident_updates
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.incident_id;
END;

CREATE TRIGGER incident_updates_incident_change_update AFTER UPDATE ON incident_updates
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.incident_id;
END;

CREATE TRIGGER incident_updates_incident_change_delete AFTER DELETE ON incident_updates
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = OLD.incident_id;
END;

CREATE TRIGGER incident_components_incident_change_insert AFTER INSERT ON incident_components
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.incident_id;
END;

CREATE TRIGGER incident_components_incident_change_update AFTER UPDATE ON incident_components
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.incident_id;
END;

CREATE TRIGGER incident_components_incident_change_delete AFTER DELETE ON incident_components
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = OLD.incident_id;
END;

CREATE TRIGGER incident_update_components_incident_change_insert AFTER INSERT ON incident_update_components
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM incident_updates WHERE id = NEW.incident_update_id);
END;

CREATE TRIGGER incident_update_components_incident_change_update AFTER UPDATE ON incident_update_components
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM incident_updates WHERE id = NEW.incident_update_id);
END;

CREATE TRIGGER incident_update_components_incident_change_delete AFTER DELETE ON incident_update_components
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM incident_updates WHERE id = OLD.incident_update_id);
END;

CREATE TRIGGER postmortems_incident_change_insert AFTER INSERT ON postmortems
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.incident_id;
END;

CREATE TRIGGER postmortems_incident_change_update AFTER UPDATE ON postmortems
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = NEW.incident_id;
END;

CREATE TRIGGER postmortems_incident_change_delete AFTER DELETE ON postmortems
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = OLD.incident_id;
END;

CREATE TRIGGER postmortem_timeline_entries_incident_change_insert AFTER INSERT ON postmortem_timeline_entries
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM postmortems WHERE id = NEW.postmortem_id);
END;

CREATE TRIGGER postmortem_timeline_entries_incident_change_update AFTER UPDATE ON postmortem_timeline_entries
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM postmortems WHERE id = NEW.postmortem_id);
END;

CREATE TRIGGER postmortem_timeline_entries_incident_change_delete AFTER DELETE ON postmortem_timeline_entries
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM postmortems WHERE id = OLD.postmortem_id);
END;

CREATE TRIGGER postmortem_follow_ups_incident_change_insert AFTER INSERT ON postmortem_follow_ups
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM postmortems WHERE id = NEW.postmortem_id);
END;

CREATE TRIGGER postmortem_follow_ups_incident_change_update AFTER UPDATE ON postmortem_follow_ups
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM postmortems WHERE id = NEW.postmortem_id);
END;

CREATE TRIGGER postmortem_follow_ups_incident_change_delete AFTER DELETE ON postmortem_follow_ups
BEGIN
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = (SELECT incident_id FROM postmortems WHERE id = OLD.postmortem_id);
END;
