-- A webhook host's requests in flight are capped in one place now, the engine's lanes; the
-- client no longer turns a request away as "host_busy". A delivery put off that way waited a
-- second and is due: it waits for nothing.
-- Keep in step with the other backend's folder of the same name.
UPDATE deliveries SET waiting_for = NULL WHERE waiting_for = 'host_busy';
