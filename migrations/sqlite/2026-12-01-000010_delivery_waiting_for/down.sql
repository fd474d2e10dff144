ALTER TABLE deliveries DROP COLUMN waiting_for;
