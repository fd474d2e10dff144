-- Retention (issue 42): finished deliveries are deleted once past their time, oldest first, in
-- small batches; this index finds them without reading the pending ones or the whole table.
-- Keep in step with the other backend's folder of the same name.
CREATE INDEX deliveries_finished ON deliveries (updated_at) WHERE state <> 'pending';
