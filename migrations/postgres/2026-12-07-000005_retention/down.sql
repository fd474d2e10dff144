DROP INDEX deliveries_finished;
