-- A second factor per account (issue 44): its TOTP secret, confirmed once the account typed a
-- code from it, and the last step whose code was used (each step opens one sign-in); and its
-- single-use recovery codes, kept as SHA-256 digests (domain::second_factor). Keep in step
-- with the other backend's folder of the same name.
CREATE TABLE user_totp (
    user_id      TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    secret       TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    confirmed_at TIMESTAMP,
    last_step    BIGINT
);
CREATE TABLE user_recovery_codes (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    digest  TEXT NOT NULL,
    used_at TIMESTAMP,
    PRIMARY KEY (user_id, digest)
);
