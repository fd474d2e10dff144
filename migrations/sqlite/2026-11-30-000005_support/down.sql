ALTER TABLE components DROP COLUMN signin;
DROP TABLE support_submissions;
