-- A counter per component that every change to what a read of the component takes from the
-- database moves (its row and its status history), kept by triggers in the transaction of the
-- change: a read of a page reads again only the components whose counter moved (their rows
-- and history) and keeps the others it read before. A change to the status history also moves
-- the page's counter (page_changes; a change to the row already does). Keep in step with the
-- other backend's folder of the same name.
-- On PostgreSQL the triggers are deferred to the commit, as page_changes' are.

CREATE TABLE component_changes (
    component_id TEXT PRIMARY KEY NOT NULL REFERENCES components(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL DEFAULT 1
);
INSERT INTO component_changes (component_id) SELECT id FROM components;

CREATE FUNCTION component_change_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO component_changes (component_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE FUNCTION component_changed(component TEXT) RETURNS void LANGUAGE sql AS $$
    UPDATE component_changes SET revision = revision + 1 WHERE component_id = component;
$$;
CREATE FUNCTION component_change_by_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM component_changed(NEW.id);
    RETURN NULL;
END $$;
CREATE FUNCTION component_change_by_status_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM component_changed(OLD.component_id);
        PERFORM page_changed((SELECT page_id FROM components WHERE id = OLD.component_id));
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM component_changed(NEW.component_id);
        PERFORM page_changed((SELECT page_id FROM components WHERE id = NEW.component_id));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER components_component_change_insert AFTER INSERT ON components
    FOR EACH ROW EXECUTE FUNCTION component_change_insert();
CREATE CONSTRAINT TRIGGER components_component_change AFTER UPDATE ON components
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION component_change_by_id();
CREATE CONSTRAINT TRIGGER component_status_changes_component_change AFTER INSERT OR UPDATE OR DELETE ON component_status_changes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION component_change_by_status_changes();
