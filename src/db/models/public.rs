//! Bulk reads for rendering a public page: a handful of queries per page instead of one per row.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::components::{Component, ComponentStatusChange};
use super::incidents::{Incident, IncidentUpdate, IncidentUpdateComponent};
use super::postmortems::{FollowUp, Postmortem, TimelineEntryRow};
use crate::db::DbConn;
use crate::db::schema::{
    component_status_changes, incident_components, incident_update_components, incident_updates,
    incidents, postmortem_follow_ups, postmortem_timeline_entries, postmortems,
};
use crate::domain::{ComponentId, IncidentId, PageId, Visibility};

/// Incidents of a page that are open, or started (or scheduled) at or after `since`: their ids
/// with their revisions (`incident_changes`), newest first.
pub fn incidents_since(
    conn: &mut DbConn,
    page_id: &PageId,
    since: NaiveDateTime,
) -> QueryResult<Vec<(IncidentId, i64)>> {
    use crate::db::schema::incident_changes;
    incidents::table
        .inner_join(incident_changes::table)
        .filter(incidents::page_id.eq(page_id))
        .filter(
            incidents::resolved_at
                .is_null()
                .or(incidents::started_at.ge(since))
                .or(incidents::scheduled_for.ge(since)),
        )
        .order((incidents::started_at.desc(), incidents::id.desc()))
        .select((incidents::id, incident_changes::revision))
        .load(conn)
}

/// The revision of each of the page's components (its counter in `component_changes`).
pub fn component_revisions(
    conn: &mut DbConn,
    page_id: &PageId,
) -> QueryResult<Vec<(ComponentId, i64)>> {
    use crate::db::schema::{component_changes, components};
    components::table
        .inner_join(component_changes::table)
        .filter(components::page_id.eq(page_id))
        .select((components::id, component_changes::revision))
        .load(conn)
}

/// The revisions of the page's components that moved after the site's counter was `seq`
/// (read through the index on `site_seq`: as many rows as components moved site-wide since),
/// and how many components the page has (fewer than a read holds plus those it has not seen:
/// one was removed).
pub fn components_moved_since(
    conn: &mut DbConn,
    page_id: &PageId,
    seq: i64,
) -> QueryResult<(Vec<(ComponentId, i64)>, i64)> {
    use crate::db::schema::{component_changes, components};
    let moved = component_changes::table
        .inner_join(components::table)
        .filter(component_changes::site_seq.gt(seq))
        .filter(components::page_id.eq(page_id))
        .select((components::id, component_changes::revision))
        .load(conn)?;
    let count = components::table
        .filter(components::page_id.eq(page_id))
        .count()
        .get_result(conn)?;
    Ok((moved, count))
}

/// These components' rows (in no particular order).
pub fn components_by_id(conn: &mut DbConn, ids: &[ComponentId]) -> QueryResult<Vec<Component>> {
    use crate::db::schema::components;
    components::table
        .filter(components::id.eq_any(ids))
        .select(Component::as_select())
        .load(conn)
}

/// These incidents' rows (in no particular order).
pub fn incidents_by_id(conn: &mut DbConn, ids: &[IncidentId]) -> QueryResult<Vec<Incident>> {
    incidents::table
        .filter(incidents::id.eq_any(ids))
        .select(Incident::as_select())
        .load(conn)
}

/// Updates of these incidents, newest first.
pub fn updates_of(
    conn: &mut DbConn,
    incident_ids: &[IncidentId],
) -> QueryResult<Vec<IncidentUpdate>> {
    incident_updates::table
        .filter(incident_updates::incident_id.eq_any(incident_ids))
        .order((
            incident_updates::created_at.desc(),
            incident_updates::id.desc(),
        ))
        .select(IncidentUpdate::as_select())
        .load(conn)
}

/// Component changes made by these updates.
pub fn update_changes_of(
    conn: &mut DbConn,
    update_ids: &[String],
) -> QueryResult<Vec<IncidentUpdateComponent>> {
    incident_update_components::table
        .filter(incident_update_components::incident_update_id.eq_any(update_ids))
        .select(IncidentUpdateComponent::as_select())
        .load(conn)
}

/// (incident id, component id) pairs of the components these incidents affect.
pub fn affected_of(
    conn: &mut DbConn,
    incident_ids: &[IncidentId],
) -> QueryResult<Vec<(IncidentId, ComponentId)>> {
    incident_components::table
        .filter(incident_components::incident_id.eq_any(incident_ids))
        .select((
            incident_components::incident_id,
            incident_components::component_id,
        ))
        .load(conn)
}

/// Published postmortems of these incidents.
pub fn published_postmortems_of(
    conn: &mut DbConn,
    incident_ids: &[IncidentId],
) -> QueryResult<Vec<Postmortem>> {
    postmortems::table
        .filter(postmortems::incident_id.eq_any(incident_ids))
        .filter(postmortems::published.eq(true))
        .select(Postmortem::as_select())
        .load(conn)
}

/// Timeline entries of these postmortems, in time order.
pub fn timelines_of(
    conn: &mut DbConn,
    postmortem_ids: &[String],
) -> QueryResult<Vec<TimelineEntryRow>> {
    postmortem_timeline_entries::table
        .filter(postmortem_timeline_entries::postmortem_id.eq_any(postmortem_ids))
        .order((
            postmortem_timeline_entries::occurred_at.asc(),
            postmortem_timeline_entries::id.asc(),
        ))
        .select(TimelineEntryRow::as_select())
        .load(conn)
}

/// Follow-ups of these postmortems, by position.
pub fn follow_ups_of(conn: &mut DbConn, postmortem_ids: &[String]) -> QueryResult<Vec<FollowUp>> {
    postmortem_follow_ups::table
        .filter(postmortem_follow_ups::postmortem_id.eq_any(postmortem_ids))
        .order((
            postmortem_follow_ups::position.asc(),
            postmortem_follow_ups::id.asc(),
        ))
        .select(FollowUp::as_select())
        .load(conn)
}

/// Status changes of these components after `since`, plus for each the last change at or before
/// `since` (the status in force when the window opens), in time order per component. Two
/// queries whatever the number of components: the last change before the window is the one no
/// later change before it follows (found through the index on component and time).
pub fn status_history_of(
    conn: &mut DbConn,
    component_ids: &[ComponentId],
    since: NaiveDateTime,
) -> QueryResult<Vec<ComponentStatusChange>> {
    use component_status_changes::dsl as c;
    use diesel::dsl::{exists, not};
    let later = diesel::alias!(component_status_changes as later);
    let mut rows: Vec<ComponentStatusChange> = c::component_status_changes
        .filter(c::component_id.eq_any(component_ids))
        .filter(c::changed_at.gt(since))
        .select(ComponentStatusChange::as_select())
        .load(conn)?;
    // Two conditions, each a seek on the index, rather than one with an OR that the index
    // cannot serve (which visits every earlier row of the component for each row).
    let later_time = later
        .filter(later.field(c::component_id).eq(c::component_id))
        .filter(later.field(c::changed_at).gt(c::changed_at))
        .filter(later.field(c::changed_at).le(since));
    let same_time_later_id = later
        .filter(later.field(c::component_id).eq(c::component_id))
        .filter(later.field(c::changed_at).eq(c::changed_at))
        .filter(later.field(c::id).gt(c::id));
    let before: Vec<ComponentStatusChange> = c::component_status_changes
        .filter(c::component_id.eq_any(component_ids))
        .filter(c::changed_at.le(since))
        .filter(not(exists(later_time)))
        .filter(not(exists(same_time_later_id)))
        .select(ComponentStatusChange::as_select())
        .load(conn)?;
    rows.extend(before);
    rows.sort_by(|a, b| {
        (&a.component_id, a.changed_at, &a.id).cmp(&(&b.component_id, b.changed_at, &b.id))
    });
    Ok(rows)
}

/// What decides whether a page must be re-rendered: its routing fields and its revision, a
/// counter that triggers move in the transaction of every change to what the page shows
/// (migration `page_changes`), so a change made by any Herald process is noticed by every
/// other one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRevision {
    pub page_id: PageId,
    pub slug: String,
    pub custom_domain: Option<String>,
    pub is_default: bool,
    pub visibility: Visibility,
    pub revision: i64,
}

/// Every page's revision number alone (a change to a page's routing fields moves it too):
/// what a pass compares with what it rendered, reading as little per page as it can.
pub fn page_revision_numbers(conn: &mut DbConn) -> QueryResult<Vec<(PageId, i64)>> {
    use crate::db::schema::page_changes;
    page_changes::table
        .select((page_changes::page_id, page_changes::revision))
        .load(conn)
}

/// The site's change counter: it moves whenever any page's revision moves, a page is added or
/// a page is removed, in commit order. Its one row is made by the migration.
pub fn site_seq(conn: &mut DbConn) -> QueryResult<i64> {
    use crate::db::schema::site_changes;
    site_changes::table.select(site_changes::seq).first(conn)
}

/// The revision numbers of the pages that moved after the site's counter was `seq` (read
/// through the index on `site_seq`: as many rows as pages moved), and how many pages there
/// are (fewer than a pass holds plus those it has not seen: a page was removed).
pub fn pages_moved_since(conn: &mut DbConn, seq: i64) -> QueryResult<(Vec<(PageId, i64)>, i64)> {
    use crate::db::schema::page_changes;
    let moved = page_changes::table
        .filter(page_changes::site_seq.gt(seq))
        .select((page_changes::page_id, page_changes::revision))
        .load(conn)?;
    let count = page_changes::table.count().get_result(conn)?;
    Ok((moved, count))
}

/// The revision of every page, in one query that reads a row per page (however much the
/// pages hold), by slug.
pub fn page_revisions(conn: &mut DbConn) -> QueryResult<Vec<PageRevision>> {
    page_revisions_among(conn, None)
}

/// The revisions of the pages `ids` (those that still exist), by slug.
pub fn page_revisions_of(conn: &mut DbConn, ids: &[PageId]) -> QueryResult<Vec<PageRevision>> {
    page_revisions_among(conn, Some(ids))
}

fn page_revisions_among(
    conn: &mut DbConn,
    ids: Option<&[PageId]>,
) -> QueryResult<Vec<PageRevision>> {
    use crate::db::schema::{page_changes, status_pages};
    let mut query = status_pages::table
        .inner_join(page_changes::table)
        .select((
            status_pages::id,
            status_pages::slug,
            status_pages::custom_domain,
            status_pages::is_default,
            status_pages::visibility,
            page_changes::revision,
        ))
        .order(status_pages::slug)
        .into_boxed();
    if let Some(ids) = ids {
        query = query.filter(status_pages::id.eq_any(ids));
    }
    let rows: Vec<(PageId, String, Option<String>, bool, Visibility, i64)> = query.load(conn)?;
    Ok(rows
        .into_iter()
        .map(
            |(page_id, slug, custom_domain, is_default, visibility, revision)| PageRevision {
                page_id,
                slug,
                custom_domain,
                is_default,
                visibility,
                revision,
            },
        )
        .collect())
}
