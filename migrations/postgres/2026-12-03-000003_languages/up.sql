-- The languages a page is read in: its default (Herald's own words and the v2 JSON when none
-- is asked for) and the ones enabled (a JSON array of codes, holding the default); the
-- translations of what responders write (a JSON object by language code: {"de": {"name": ...,
-- "body": ...}}) on incidents, maintenance, their updates and postmortems; and the language a
-- subscriber reads mail in (NULL: the page's default). Keep in step with the other backend's
-- folder of the same name.
ALTER TABLE status_pages ADD COLUMN default_language TEXT NOT NULL DEFAULT 'en';
ALTER TABLE status_pages ADD COLUMN languages TEXT NOT NULL DEFAULT '["en"]';
ALTER TABLE incidents ADD COLUMN translations TEXT NOT NULL DEFAULT '{}';
ALTER TABLE incident_updates ADD COLUMN translations TEXT NOT NULL DEFAULT '{}';
ALTER TABLE postmortems ADD COLUMN translations TEXT NOT NULL DEFAULT '{}';
ALTER TABLE subscribers ADD COLUMN language TEXT;
