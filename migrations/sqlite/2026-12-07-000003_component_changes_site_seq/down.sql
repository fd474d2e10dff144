DROP TRIGGER component_changes_added;
DROP TRIGGER component_changes_moved;
DROP INDEX component_changes_site_seq;
ALTER TABLE component_changes DROP COLUMN site_seq;
