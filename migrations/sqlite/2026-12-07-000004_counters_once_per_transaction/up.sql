-- On PostgreSQL the site's and a page's change counters now move once per transaction (each
-- UPDATE there writes a new version of the row, and a transaction of N changes cost N^2 / 2).
-- SQLite rewrites a row in place, so its triggers stay as they are.
-- Keep in step with the other backend's folder of the same name.
SELECT 1;
