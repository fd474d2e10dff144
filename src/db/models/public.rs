//! Bulk reads for rendering a public page: a handful of queries per page instead of one per row.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::components::ComponentStatusChange;
use super::incidents::{Incident, IncidentUpdate, IncidentUpdateComponent};
use super::postmortems::{FollowUp, Postmortem, TimelineEntryRow};
use crate::db::DbConn;
use crate::db::schema::{
    component_status_changes, incident_components, incident_update_components, incident_updates,
    incidents, postmortem_follow_ups, postmortem_timeline_entries, postmortems,
};
use crate::domain::{ComponentId, IncidentId, PageId, Visibility};

/// Incidents of a page that are open, or started (or scheduled) at or after `since`.
pub fn incidents_since(
    conn: &mut DbConn,
    page_id: &PageId,
    since: NaiveDateTime,
) -> QueryResult<Vec<Incident>> {
    incidents::table
        .filter(incidents::page_id.eq(page_id))
        .filter(
            incidents::resolved_at
                .is_null()
                .or(incidents::started_at.ge(since))
                .or(incidents::scheduled_for.ge(since)),
        )
        .order((incidents::started_at.desc(), incidents::id.desc()))
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
/// `since` (the status in force when the window opens), in time order per component.
pub fn status_history_of(
    conn: &mut DbConn,
    component_ids: &[ComponentId],
    since: NaiveDateTime,
) -> QueryResult<Vec<ComponentStatusChange>> {
    use component_status_changes::dsl as c;
    let mut rows: Vec<ComponentStatusChange> = c::component_status_changes
        .filter(c::component_id.eq_any(component_ids))
        .filter(c::changed_at.gt(since))
        .select(ComponentStatusChange::as_select())
        .load(conn)?;
    for id in component_ids {
        let before = c::component_status_changes
            .filter(c::component_id.eq(id))
            .filter(c::changed_at.le(since))
            .order((c::changed_at.desc(), c::id.desc()))
            .select(ComponentStatusChange::as_select())
            .first(conn)
            .optional()?;
        rows.extend(before);
    }
    rows.sort_by(|a, b| {
        (&a.component_id, a.changed_at, &a.id).cmp(&(&b.component_id, b.changed_at, &b.id))
    });
    Ok(rows)
}

/// What decides whether a page must be re-rendered: its routing fields and a fingerprint of
/// everything shown on it (latest change time and row count of each table family), so a change
/// made by any Herald process is noticed by every other one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRevision {
    pub page_id: PageId,
    pub slug: String,
    pub custom_domain: Option<String>,
    pub is_default: bool,
    pub visibility: Visibility,
    pub fingerprint: Vec<(Option<NaiveDateTime>, i64)>,
}

type Tally = (PageId, Option<NaiveDateTime>, i64);

/// The revision of every page, in a few aggregate queries.
pub fn page_revisions(conn: &mut DbConn) -> QueryResult<Vec<PageRevision>> {
    use crate::db::schema::{
        component_groups, components, page_images, page_passwords, page_read_tokens, status_pages,
    };
    use diesel::dsl::{count, max};
    let pages: Vec<(
        PageId,
        String,
        Option<String>,
        bool,
        Visibility,
        NaiveDateTime,
    )> = status_pages::table
        .select((
            status_pages::id,
            status_pages::slug,
            status_pages::custom_domain,
            status_pages::is_default,
            status_pages::visibility,
            status_pages::updated_at,
        ))
        .order(status_pages::slug)
        .load(conn)?;
    let tallies: Vec<Vec<Tally>> = vec![
        components::table
            .group_by(components::page_id)
            .select((
                components::page_id,
                max(components::updated_at),
                count(components::id),
            ))
            .load(conn)?,
        component_groups::table
            .group_by(component_groups::page_id)
            .select((
                component_groups::page_id,
                max(component_groups::updated_at),
                count(component_groups::id),
            ))
            .load(conn)?,
        incidents::table
            .group_by(incidents::page_id)
            .select((
                incidents::page_id,
                max(incidents::updated_at),
                count(incidents::id),
            ))
            .load(conn)?,
        incident_updates::table
            .inner_join(incidents::table)
            .group_by(incidents::page_id)
            .select((
                incidents::page_id,
                max(incident_updates::updated_at),
                count(incident_updates::id),
            ))
            .load(conn)?,
        postmortems::table
            .inner_join(incidents::table)
            .group_by(incidents::page_id)
            .select((
                incidents::page_id,
                max(postmortems::updated_at),
                count(postmortems::id),
            ))
            .load(conn)?,
        // A vendor's status, incidents or reachability changed for a mirrored component.
        super::mirrors::tally(conn)?,
        // Who may read it: a read token made or revoked, a password set.
        page_read_tokens::table
            .group_by(page_read_tokens::page_id)
            .select((
                page_read_tokens::page_id,
                max(page_read_tokens::created_at),
                count(page_read_tokens::id),
            ))
            .load(conn)?,
        page_passwords::table
            .group_by(page_passwords::page_id)
            .select((
                page_passwords::page_id,
                max(page_passwords::set_at),
                count(page_passwords::page_id),
            ))
            .load(conn)?,
        // Its look: a logo or favicon uploaded or removed.
        page_images::table
            .group_by(page_images::page_id)
            .select((
                page_images::page_id,
                max(page_images::uploaded_at),
                count(page_images::page_id),
            ))
            .load(conn)?,
    ];
    Ok(pages
        .into_iter()
        .map(
            |(page_id, slug, custom_domain, is_default, visibility, updated_at)| {
                let mut fingerprint = vec![(Some(updated_at), 1)];
                for table in &tallies {
                    let found = table.iter().find(|(id, _, _)| *id == page_id);
                    fingerprint.push(found.map(|(_, at, n)| (*at, *n)).unwrap_or((None, 0)));
                }
                PageRevision {
                    page_id,
                    slug,
                    custom_domain,
                    is_default,
                    visibility,
                    fingerprint,
                }
            },
        )
        .collect())
}
