DROP TABLE page_images;
ALTER TABLE status_pages DROP COLUMN custom_css;
ALTER TABLE status_pages DROP COLUMN footer;
ALTER TABLE status_pages DROP COLUMN header_links;
ALTER TABLE status_pages DROP COLUMN theme;
ALTER TABLE status_pages DROP COLUMN brand_color;
