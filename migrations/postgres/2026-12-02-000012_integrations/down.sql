DROP TABLE incident_drafts;
DROP TABLE alert_marks;
DROP TABLE alert_states;
DROP TABLE integrations;
