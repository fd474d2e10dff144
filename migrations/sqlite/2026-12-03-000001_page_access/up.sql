-- Who may read a page: its visibility (public, private or internal; a page that was not public
-- was served to no one, and becomes internal: its responders still read it), the e-mail
-- domains whose addresses may ask for a sign-in link, who may use its support form, and the
-- epoch of its access settings (every reader's pass names one; moving it signs every reader
-- out). The password, read tokens and sign-in links have tables of their own, so no secret
-- sits in the page's row. Keep in step with the other backend's folder of the same name.
ALTER TABLE status_pages ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public';
UPDATE status_pages SET visibility = 'internal' WHERE is_public = FALSE;
ALTER TABLE status_pages DROP COLUMN is_public;
ALTER TABLE status_pages ADD COLUMN allowed_email_domains TEXT NOT NULL DEFAULT '';
ALTER TABLE status_pages ADD COLUMN support_reach TEXT NOT NULL DEFAULT 'everyone';
ALTER TABLE status_pages ADD COLUMN access_epoch BIGINT NOT NULL DEFAULT 0;

-- A private page's password (argon2), one per page.
CREATE TABLE page_passwords (
    page_id       TEXT PRIMARY KEY REFERENCES status_pages (id) ON DELETE CASCADE,
    password_hash TEXT NOT NULL,
    set_at        TIMESTAMP NOT NULL
);

-- Read tokens for machine clients of a restricted page: only the token's SHA-256 is kept.
CREATE TABLE page_read_tokens (
    id         TEXT PRIMARY KEY,
    page_id    TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX page_read_tokens_page ON page_read_tokens (page_id);

-- Sign-in links mailed to readers of a private page: 15 minutes, single use (used_at).
CREATE TABLE page_reader_links (
    id         TEXT PRIMARY KEY,
    page_id    TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    next_path  TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at    TIMESTAMP,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX page_reader_links_page ON page_reader_links (page_id, created_at);
