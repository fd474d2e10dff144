-- Nothing to undo: no delivery waits as host_busy any more.
SELECT 1;
