-- What a pending delivery is waiting for when it was last put off without an attempt (no mail
-- server, its host busy or failing, its host's queue full, a shutdown): shown with the delivery
-- in the console and the deliveries API. NULL once it was attempted.
-- Keep in step with the other backend's folder of the same name.
ALTER TABLE deliveries ADD COLUMN waiting_for TEXT;
