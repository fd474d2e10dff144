-- The background checks that look across every page (responders' reminders, overdue updates,
-- automatic maintenances, maintenances starting soon) read the few open or scheduled
-- incidents through these, instead of every incident ever held: with 1,000 pages of 20
-- incidents each, the reminder check read 20,000 rows after every write. Keep in step with
-- the other backend's folder of the same name.
CREATE INDEX incidents_open ON incidents (next_update_by) WHERE resolved_at IS NULL;
CREATE INDEX incidents_scheduled ON incidents (status, scheduled_for);
