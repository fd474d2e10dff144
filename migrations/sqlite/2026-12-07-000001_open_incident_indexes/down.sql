DROP INDEX incidents_scheduled;
DROP INDEX incidents_open;
