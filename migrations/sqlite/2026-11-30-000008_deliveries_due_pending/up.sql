-- The claim's index holds only what can be claimed: pending deliveries, by channel and due
-- time. A delivery leaving `pending` (delivered, dead, ...) then only leaves the index (no
-- new entry to write), and a claim for webhooks does not walk past due emails.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (channel, next_attempt_at) WHERE state = 'pending';
