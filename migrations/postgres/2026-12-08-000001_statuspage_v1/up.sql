-- Statuspage's manage API (issue 43): an incident's metadata (a JSON object of objects, kept
-- as given and answered back), and an update's display time, which a responder may set apart
-- from when it was posted (NULL: the time it was posted). Keep in step with the other
-- backend's folder of the same name.
ALTER TABLE incidents ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE incident_updates ADD COLUMN display_at TIMESTAMP;
-- The look of a page's status embed (Statuspage's status_embed_config): the corner it sits in
-- and its colours for incidents and maintenances, a JSON object (domain::embed::Look).
ALTER TABLE status_pages ADD COLUMN embed_look TEXT NOT NULL DEFAULT '{}';
-- What a maintenance does by itself, switch by switch (Statuspage's scheduled_auto_* and
-- auto_transition_* switches; domain::maintenance_plan::Plan, as JSON): '{}' is Herald's
-- behaviour, every switch on.
ALTER TABLE incidents ADD COLUMN maintenance_plan TEXT NOT NULL DEFAULT '{}';
