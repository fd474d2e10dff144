ALTER TABLE incident_updates DROP COLUMN display_at;
ALTER TABLE incidents DROP COLUMN metadata;
