-- A counter per incident that every change to what the incident shows moves (its row, its
-- updates and the component changes they made, the components it affects, its postmortem with
-- the postmortem's timeline and follow-ups), kept by triggers in the transaction of the change:
-- a read of a page rebuilds only the incidents whose counter moved and keeps the others it
-- read before. A move also moves the page's counter (page_changes). Keep in step with the
-- other backend's folder of the same name.
-- On PostgreSQL the triggers are deferred to the commit, as page_changes' are.

CREATE TABLE incident_changes (
    incident_id TEXT PRIMARY KEY NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL DEFAULT 1
);
INSERT INTO incident_changes (incident_id) SELECT id FROM incidents;

CREATE FUNCTION incident_change_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO incident_changes (incident_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE FUNCTION incident_changed(incident TEXT) RETURNS void LANGUAGE sql AS $$
    UPDATE incident_changes SET revision = revision + 1 WHERE incident_id = incident;
    SELECT page_changed((SELECT page_id FROM incidents WHERE id = incident));
$$;
CREATE FUNCTION incident_change_by_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM incident_changed(NEW.id);
    RETURN NULL;
END $$;

CREATE FUNCTION incident_change_by_incident_updates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM incident_changed(OLD.incident_id);
    ELSE
        PERFORM incident_changed(NEW.incident_id);
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER incident_updates_incident_change AFTER INSERT OR UPDATE OR DELETE ON incident_updates
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_incident_updates();

CREATE FUNCTION incident_change_by_incident_components() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM incident_changed(OLD.incident_id);
    ELSE
        PERFORM incident_changed(NEW.incident_id);
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER incident_components_incident_change AFTER INSERT OR UPDATE OR DELETE ON incident_components
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_incident_components();

CREATE FUNCTION incident_change_by_incident_update_components() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM incident_changed((SELECT incident_id FROM incident_updates WHERE id = OLD.incident_update_id));
    ELSE
        PERFORM incident_changed((SELECT incident_id FROM incident_updates WHERE id = NEW.incident_update_id));
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER incident_update_components_incident_change AFTER INSERT OR UPDATE OR DELETE ON incident_update_components
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_incident_update_components();

CREATE FUNCTION incident_change_by_postmortems() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM incident_changed(OLD.incident_id);
    ELSE
        PERFORM incident_changed(NEW.incident_id);
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER postmortems_incident_change AFTER INSERT OR UPDATE OR DELETE ON postmortems
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_postmortems();

CREATE FUNCTION incident_change_by_postmortem_timeline_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM incident_changed((SELECT incident_id FROM postmortems WHERE id = OLD.postmortem_id));
    ELSE
        PERFORM incident_changed((SELECT incident_id FROM postmortems WHERE id = NEW.postmortem_id));
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER postmortem_timeline_entries_incident_change AFTER INSERT OR UPDATE OR DELETE ON postmortem_timeline_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_postmortem_timeline_entries();

CREATE FUNCTION incident_change_by_postmortem_follow_ups() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM incident_changed((SELECT incident_id FROM postmortems WHERE id = OLD.postmortem_id));
    ELSE
        PERFORM incident_changed((SELECT incident_id FROM postmortems WHERE id = NEW.postmortem_id));
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER postmortem_follow_ups_incident_change AFTER INSERT OR UPDATE OR DELETE ON postmortem_follow_ups
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_postmortem_follow_ups();

CREATE TRIGGER incidents_incident_change_insert AFTER INSERT ON incidents
    FOR EACH ROW EXECUTE FUNCTION incident_change_insert();
CREATE CONSTRAINT TRIGGER incidents_incident_change AFTER UPDATE ON incidents
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION incident_change_by_id();
