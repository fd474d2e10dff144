-- The sites that may frame a page's status embed (/status/{slug}/embed): origins separated by
-- spaces, as CSP's frame-ancestors takes them; empty, no site may. Keep in step with the
-- other backend's folder of the same name.
ALTER TABLE status_pages ADD COLUMN embed_origins TEXT NOT NULL DEFAULT '';
