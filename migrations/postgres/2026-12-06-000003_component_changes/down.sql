DROP TRIGGER components_component_change_insert ON components;
DROP TRIGGER components_component_change ON components;
DROP TRIGGER component_status_changes_component_change ON component_status_changes;
DROP FUNCTION component_change_by_status_changes();
DROP FUNCTION component_change_by_id();
DROP FUNCTION component_changed(TEXT);
DROP FUNCTION component_change_insert();
DROP TABLE component_changes;
