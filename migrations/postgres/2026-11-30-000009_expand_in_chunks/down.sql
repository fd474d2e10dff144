DROP INDEX subscribers_page_state;
CREATE INDEX subscribers_page_state ON subscribers (page_id, state);
ALTER TABLE notification_events DROP COLUMN expanded_through;
