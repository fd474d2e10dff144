-- Each component's row of component_changes keeps the value the site's change counter
-- (site_changes) had when the component last moved, as page_changes' rows do. A read of a page
-- after an earlier one then asks for the components that moved since the counter that read
-- saw, and counts the page's components to find those removed, instead of reading every
-- component's revision: on a page of 1,000 components that read was 1,000 index probes and
-- the largest statement of a refresh (1.6 ms of PostgreSQL's time per pass; issue 39).
-- A component added moves too (at commit), so it is among those that moved. Keep in step with
-- the other backend's folder of the same name.
--
-- The counter's lock is taken before the component's row, as page_changed takes it before the
-- page's (see site_changes), so two writers never wait for each other in a cycle.

ALTER TABLE component_changes ADD COLUMN site_seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX component_changes_site_seq ON component_changes (site_seq);

CREATE OR REPLACE FUNCTION component_changed(component TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    seq BIGINT := site_changed();
BEGIN
    UPDATE component_changes SET revision = revision + 1, site_seq = seq
        WHERE component_id = component;
END $$;

DROP TRIGGER components_component_change ON components;
CREATE CONSTRAINT TRIGGER components_component_change AFTER INSERT OR UPDATE ON components
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION component_change_by_id();
