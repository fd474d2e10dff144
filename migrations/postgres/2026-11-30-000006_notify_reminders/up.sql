-- Reminders to responders: one row per incident, promised deadline and kind (due_soon, overdue),
-- inserted by the one process that sends it (the unique key decides among several).
CREATE TABLE responder_reminders (
    incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    deadline    TIMESTAMP NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('due_soon', 'overdue')),
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (incident_id, deadline, kind)
);
