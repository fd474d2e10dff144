ALTER TABLE incidents DROP COLUMN maintenance_plan;
ALTER TABLE status_pages DROP COLUMN embed_look;
ALTER TABLE incident_updates DROP COLUMN display_at;
ALTER TABLE incidents DROP COLUMN metadata;
