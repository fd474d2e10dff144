-- Each component's row of component_changes keeps the value the site's change counter
-- (site_changes) had when the component last moved, as page_changes' rows do. A read of a page
-- after an earlier one then asks for the components that moved since the counter that read
-- saw, and counts the page's components to find those removed, instead of reading every
-- component's revision (on a page of 1,000 components, 1,000 index probes per refresh;
-- issue 39). A component added moves too, so it is among those that moved. Keep in step with
-- the other backend's folder of the same name.

ALTER TABLE component_changes ADD COLUMN site_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX component_changes_site_seq ON component_changes (site_seq);

-- SQLite writes one transaction at a time, so the counter's order is the commit order.
CREATE TRIGGER component_changes_moved AFTER UPDATE OF revision ON component_changes
BEGIN
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1;
    UPDATE component_changes SET site_seq = (SELECT seq FROM site_changes WHERE id = 1)
        WHERE component_id = NEW.component_id;
END;
CREATE TRIGGER component_changes_added AFTER INSERT ON component_changes
BEGIN
    UPDATE site_changes SET seq = seq + 1 WHERE id = 1;
    UPDATE component_changes SET site_seq = (SELECT seq FROM site_changes WHERE id = 1)
        WHERE component_id = NEW.component_id;
END;
