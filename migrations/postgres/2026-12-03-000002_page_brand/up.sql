-- A page's own look: its brand colour (#rrggbb, readable on white), its theme (auto, light or
-- dark), its header links (a JSON array of {label, url}), its footer (Markdown) and its custom
-- stylesheet; and the images it carries (its logo and favicon, checked and, for SVG, filtered
-- before they are stored), served fingerprinted from memory. Keep in step with the other
-- backend's folder of the same name.
ALTER TABLE status_pages ADD COLUMN brand_color TEXT;
ALTER TABLE status_pages ADD COLUMN theme TEXT NOT NULL DEFAULT 'auto';
ALTER TABLE status_pages ADD COLUMN header_links TEXT NOT NULL DEFAULT '[]';
ALTER TABLE status_pages ADD COLUMN footer TEXT;
ALTER TABLE status_pages ADD COLUMN custom_css TEXT;

CREATE TABLE page_images (
    page_id      TEXT NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    data         BYTEA NOT NULL,
    digest       TEXT NOT NULL,
    uploaded_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (page_id, kind)
);
