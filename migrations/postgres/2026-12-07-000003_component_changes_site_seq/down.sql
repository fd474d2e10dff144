DROP TRIGGER components_component_change ON components;
CREATE CONSTRAINT TRIGGER components_component_change AFTER UPDATE ON components
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION component_change_by_id();
CREATE OR REPLACE FUNCTION component_changed(component TEXT) RETURNS void LANGUAGE sql AS $$
    UPDATE component_changes SET revision = revision + 1 WHERE component_id = component;
$$;
DROP INDEX component_changes_site_seq;
ALTER TABLE component_changes DROP COLUMN site_seq;
