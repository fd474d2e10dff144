DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
