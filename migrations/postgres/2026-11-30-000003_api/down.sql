DROP TABLE incident_templates;
DROP TABLE idempotency_keys;
DROP TABLE audit_log;
