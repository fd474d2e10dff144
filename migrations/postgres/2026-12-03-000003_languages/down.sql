ALTER TABLE subscribers DROP COLUMN language;
ALTER TABLE postmortems DROP COLUMN translations;
ALTER TABLE incident_updates DROP COLUMN translations;
ALTER TABLE incidents DROP COLUMN translations;
ALTER TABLE status_pages DROP COLUMN languages;
ALTER TABLE status_pages DROP COLUMN default_language;
