DROP TRIGGER page_changes_removed;
DROP TRIGGER page_changes_added;
DROP TRIGGER page_changes_moved;
DROP INDEX page_changes_site_seq;
ALTER TABLE page_changes DROP COLUMN site_seq;
DROP TABLE site_changes;
