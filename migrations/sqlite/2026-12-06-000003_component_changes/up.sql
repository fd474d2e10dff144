-- A counter per component that every change to what a read of the component takes from the
-- database moves (its row and its status history), kept by triggers in the transaction of the
-- change: a read of a page reads again only the components whose counter moved (their rows
-- and history) and keeps the others it read before. A change to the status history also moves
-- the page's counter (page_changes; a change to the row already does). Keep in step with the
-- other backend's folder of the same name.

CREATE TABLE component_changes (
    component_id TEXT PRIMARY KEY NOT NULL REFERENCES components(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL DEFAULT 1
);
INSERT INTO component_changes (component_id) SELECT id FROM components;

CREATE TRIGGER components_component_change_insert AFTER INSERT ON components
BEGIN
    INSERT INTO component_changes (component_id) VALUES (NEW.id);
END;
CREATE TRIGGER components_component_change_update AFTER UPDATE ON components
BEGIN
    UPDATE component_changes SET revision = revision + 1 WHERE component_id = NEW.id;
END;

CREATE TRIGGER component_status_changes_component_change_insert AFTER INSERT ON component_status_changes
BEGIN
    UPDATE component_changes SET revision = revision + 1 WHERE component_id = NEW.component_id;
    UPDATE page_changes SET revision = revision + 1
    WHERE page_id = (SELECT page_id FROM components WHERE id = NEW.component_id);
END;
CREATE TRIGGER component_status_changes_component_change_update AFTER UPDATE ON component_status_changes
BEGIN
    UPDATE component_changes SET revision = revision + 1 WHERE component_id IN (OLD.component_id, NEW.component_id);
    UPDATE page_changes SET revision = revision + 1
    WHERE page_id IN (SELECT page_id FROM components WHERE id IN (OLD.component_id, NEW.component_id));
END;
CREATE TRIGGER component_status_changes_component_change_delete AFTER DELETE ON component_status_changes
BEGIN
    UPDATE component_changes SET revision = revision + 1 WHERE component_id = OLD.component_id;
    UPDATE page_changes SET revision = revision + 1
    WHERE page_id = (SELECT page_id FROM components WHERE id = OLD.component_id);
END;
