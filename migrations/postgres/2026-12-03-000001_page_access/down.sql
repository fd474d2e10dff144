DROP TABLE page_reader_links;
DROP TABLE page_read_tokens;
DROP TABLE page_passwords;
ALTER TABLE status_pages ADD COLUMN is_public BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE status_pages SET is_public = FALSE WHERE visibility <> 'public';
ALTER TABLE status_pages DROP COLUMN access_epoch;
ALTER TABLE status_pages DROP COLUMN support_reach;
ALTER TABLE status_pages DROP COLUMN allowed_email_domains;
ALTER TABLE status_pages DROP COLUMN visibility;
