ALTER TABLE status_pages DROP COLUMN embed_origins;
