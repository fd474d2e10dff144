-- Events are expanded into deliveries a chunk of subscribers at a time (by subscriber id), so
-- the first deliveries go out while a large page's later chunks are still being written.
-- `expanded_through` is the last subscriber id expanded; `expanded_at` is set after the last chunk.
-- Keep in step with the other backend's folder of the same name.
ALTER TABLE notification_events ADD COLUMN expanded_through TEXT;
DROP INDEX subscribers_page_state;
CREATE INDEX subscribers_page_state ON subscribers (page_id, state, id);
