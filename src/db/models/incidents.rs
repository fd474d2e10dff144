//! Incidents, advisories and maintenances with their updates and the components they affect
//! (`incidents`, `incident_updates`, `incident_update_components`, `incident_components`).
//!
//! An incident is open while `resolved_at` is NULL: the services set it when an incident is
//! resolved or a maintenance completed, and clear it on reopen.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{
    incident_components, incident_update_components, incident_updates, incidents,
};
use crate::domain::{
    ComponentId, ComponentStatus, Impact, IncidentId, IncidentKind, LifecycleStatus, PageId,
    parse_reference,
};

/// An incident, advisory or maintenance as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable, Insertable)]
#[diesel(table_name = incidents)]
pub struct Incident {
    pub id: IncidentId,
    pub page_id: PageId,
    /// Human reference, unique per page, e.g. `INC-2026-0042`.
    pub reference: String,
    pub name: String,
    pub kind: IncidentKind,
    pub impact: Impact,
    /// The current status, in the vocabulary of its kind.
    pub status: LifecycleStatus,
    /// What users notice, in the provider's words.
    pub user_impact: Option<String>,
    /// Which customers, regions or features are affected.
    pub scope: Option<String>,
    /// The preliminary root cause.
    pub root_cause: Option<String>,
    pub started_at: NaiveDateTime,
    pub identified_at: Option<NaiveDateTime>,
    pub monitoring_at: Option<NaiveDateTime>,
    pub resolved_at: Option<NaiveDateTime>,
    pub scheduled_for: Option<NaiveDateTime>,
    pub scheduled_until: Option<NaiveDateTime>,
    /// Maintenances only: start and complete on their own at the window's edges.
    pub auto_transition: bool,
    /// Mirrors the latest update's deadline.
    pub next_update_by: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Its name in the page's other languages (`domain::translation`, as JSON).
    pub translations: String,
    /// What an integration attached (Statuspage's `metadata`): a JSON object of objects.
    pub metadata: String,
    /// Maintenances: what it does by itself, switch by switch
    /// (`domain::maintenance_plan::Plan`, as JSON).
    pub maintenance_plan: String,
}

/// Changes to an incident: `None` leaves a column alone, `Some(None)` clears a nullable one.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = incidents)]
pub struct IncidentChanges {
    pub name: Option<String>,
    pub impact: Option<Impact>,
    pub status: Option<LifecycleStatus>,
    pub user_impact: Option<Option<String>>,
    pub scope: Option<Option<String>>,
    pub root_cause: Option<Option<String>>,
    pub started_at: Option<NaiveDateTime>,
    pub identified_at: Option<Option<NaiveDateTime>>,
    pub monitoring_at: Option<Option<NaiveDateTime>>,
    pub resolved_at: Option<Option<NaiveDateTime>>,
    pub scheduled_for: Option<Option<NaiveDateTime>>,
    pub scheduled_until: Option<Option<NaiveDateTime>>,
    pub auto_transition: Option<bool>,
    pub next_update_by: Option<Option<NaiveDateTime>>,
    pub translations: Option<String>,
    pub metadata: Option<String>,
    pub maintenance_plan: Option<String>,
    /// Always set, so a change set is never empty.
    pub updated_at: NaiveDateTime,
}

/// One public update of an incident.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable)]
#[diesel(table_name = incident_updates)]
pub struct IncidentUpdate {
    pub id: String,
    pub incident_id: IncidentId,
    /// The status this update set, in the vocabulary of the incident's kind.
    pub status: LifecycleStatus,
    /// Markdown, as written by the responder.
    pub body: String,
    pub next_update_by: Option<NaiveDateTime>,
    pub author_id: Option<String>,
    /// Whether subscribers are told about this update.
    pub notify: bool,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Its body in the page's other languages (`domain::translation`, as JSON).
    pub translations: String,
    /// When it is shown to have happened, if a responder set it apart from `created_at`.
    pub display_at: Option<NaiveDateTime>,
}

/// A new update.
#[derive(Debug, Insertable)]
#[diesel(table_name = incident_updates)]
pub struct NewIncidentUpdate<'a> {
    pub id: &'a str,
    pub incident_id: &'a IncidentId,
    pub status: LifecycleStatus,
    pub body: &'a str,
    pub next_update_by: Option<NaiveDateTime>,
    pub author_id: Option<&'a str>,
    pub notify: bool,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// A component status change made by an update (old → new; equal when confirmed unchanged).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = incident_update_components)]
pub struct IncidentUpdateComponent {
    pub incident_update_id: String,
    pub component_id: ComponentId,
    pub old_status: ComponentStatus,
    pub new_status: ComponentStatus,
}

/// Inserts an incident and returns it.
pub fn insert(conn: &mut DbConn, new: &Incident) -> QueryResult<Incident> {
    diesel::insert_into(incidents::table)
        .values(new)
        .execute(conn)?;
    find(conn, &new.id)
}

/// The incident with this id.
pub fn find(conn: &mut DbConn, id: &IncidentId) -> QueryResult<Incident> {
    incidents::table
        .find(id)
        .select(Incident::as_select())
        .first(conn)
}

/// The incident of a page with this reference, if any.
pub fn find_by_reference(
    conn: &mut DbConn,
    page_id: &PageId,
    reference: &str,
) -> QueryResult<Option<Incident>> {
    incidents::table
        .filter(incidents::page_id.eq(page_id))
        .filter(incidents::reference.eq(reference))
        .select(Incident::as_select())
        .first(conn)
        .optional()
}

/// Applies `changes` to the incident `id` and returns it as it now is.
pub fn update(
    conn: &mut DbConn,
    id: &IncidentId,
    changes: &IncidentChanges,
) -> QueryResult<Incident> {
    diesel::update(incidents::table.find(id))
        .set(changes)
        .execute(conn)?;
    find(conn, id)
}

/// The highest sequence number used on a page by references starting `PREFIX-YEAR-`. Call it
/// inside the write transaction that inserts the next one: on PostgreSQL it first takes the
/// page's reference lock (a transaction-scoped advisory lock, bounded by the statement
/// timeout), so concurrent openings on one page take turns instead of choosing the same
/// number; SQLite's write transactions already run one at a time.
pub fn max_reference_seq(
    conn: &mut DbConn,
    page_id: &PageId,
    kind: IncidentKind,
    year: i32,
) -> QueryResult<u32> {
    if let DbConn::Postgres(_) = conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1))")
            .bind::<diesel::sql_types::Text, _>(format!("herald:incident-references:{page_id}"))
            .execute(conn)?;
    }
    let references: Vec<String> = incidents::table
        .filter(incidents::page_id.eq(page_id))
        .filter(incidents::reference.like(format!("{}-{year}-%", kind.reference_prefix())))
        .select(incidents::reference)
        .load(conn)?;
    let seqs = references.iter().filter_map(|r| parse_reference(r));
    Ok(seqs
        .filter(|&(k, y, _)| k == kind && y == year)
        .map(|(_, _, seq)| seq)
        .max()
        .unwrap_or(0))
}

/// The open incidents of a page (any kind), most recently started first.
pub fn list_open(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<Incident>> {
    list(conn, page_id, true, None, i64::MAX, 0)
}

/// A page's incidents, most recently started first: only open ones when `open_only`, only one
/// kind when `kind` is given, `limit` rows from `offset`.
pub fn list(
    conn: &mut DbConn,
    page_id: &PageId,
    open_only: bool,
    kind: Option<IncidentKind>,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<Incident>> {
    let mut query = incidents::table
        .filter(incidents::page_id.eq(page_id))
        .into_boxed();
    if open_only {
        query = query.filter(incidents::resolved_at.is_null());
    }
    if let Some(kind) = kind {
        query = query.filter(incidents::kind.eq(kind.as_str()));
    }
    query
        .order((incidents::started_at.desc(), incidents::id.desc()))
        .limit(limit)
        .offset(offset)
        .select(Incident::as_select())
        .load(conn)
}

/// Inserts an update and returns it.
pub fn insert_update(
    conn: &mut DbConn,
    new: &NewIncidentUpdate<'_>,
) -> QueryResult<IncidentUpdate> {
    diesel::insert_into(incident_updates::table)
        .values(new)
        .execute(conn)?;
    incident_updates::table
        .find(new.id)
        .select(IncidentUpdate::as_select())
        .first(conn)
}

/// The updates of an incident, newest first.
pub fn updates_newest_first(
    conn: &mut DbConn,
    incident_id: &IncidentId,
) -> QueryResult<Vec<IncidentUpdate>> {
    incident_updates::table
        .filter(incident_updates::incident_id.eq(incident_id))
        .order((
            incident_updates::created_at.desc(),
            incident_updates::id.desc(),
        ))
        .select(IncidentUpdate::as_select())
        .load(conn)
}

/// The updates of several incidents, newest first.
pub fn updates_of(conn: &mut DbConn, incident_ids: &[&str]) -> QueryResult<Vec<IncidentUpdate>> {
    incident_updates::table
        .filter(incident_updates::incident_id.eq_any(incident_ids))
        .order((
            incident_updates::created_at.desc(),
            incident_updates::id.desc(),
        ))
        .select(IncidentUpdate::as_select())
        .load(conn)
}

/// The component changes the updates of several incidents made.
pub fn update_components_of(
    conn: &mut DbConn,
    incident_ids: &[&str],
) -> QueryResult<Vec<IncidentUpdateComponent>> {
    incident_update_components::table
        .inner_join(incident_updates::table)
        .filter(incident_updates::incident_id.eq_any(incident_ids))
        .order((
            incident_update_components::incident_update_id,
            incident_update_components::component_id,
        ))
        .select(IncidentUpdateComponent::as_select())
        .load(conn)
}

/// The (incident, component) pairs of the components several incidents affect (or affected).
pub fn affected_of(
    conn: &mut DbConn,
    incident_ids: &[&str],
) -> QueryResult<Vec<(IncidentId, ComponentId)>> {
    incident_components::table
        .filter(incident_components::incident_id.eq_any(incident_ids))
        .select((
            incident_components::incident_id,
            incident_components::component_id,
        ))
        .order((
            incident_components::incident_id,
            incident_components::component_id,
        ))
        .load(conn)
}

/// Records a component change made by an update.
/// Sets an update's translations (JSON, `domain::translation::stored`).
pub fn set_update_translations(
    conn: &mut DbConn,
    update_id: &str,
    translations: &str,
) -> QueryResult<usize> {
    diesel::update(incident_updates::table.find(update_id))
        .set(incident_updates::translations.eq(translations))
        .execute(conn)
}

pub fn insert_update_component(
    conn: &mut DbConn,
    row: &IncidentUpdateComponent,
) -> QueryResult<usize> {
    diesel::insert_into(incident_update_components::table)
        .values(row)
        .execute(conn)
}

/// The component changes made by these updates.
pub fn update_components(
    conn: &mut DbConn,
    update_ids: &[&str],
) -> QueryResult<Vec<IncidentUpdateComponent>> {
    incident_update_components::table
        .filter(incident_update_components::incident_update_id.eq_any(update_ids))
        .order((
            incident_update_components::incident_update_id,
            incident_update_components::component_id,
        ))
        .select(IncidentUpdateComponent::as_select())
        .load(conn)
}

/// The ids of the components an incident affects (or affected).
pub fn affected_component_ids(
    conn: &mut DbConn,
    incident_id: &IncidentId,
) -> QueryResult<Vec<ComponentId>> {
    incident_components::table
        .filter(incident_components::incident_id.eq(incident_id))
        .select(incident_components::component_id)
        .order(incident_components::component_id)
        .load(conn)
}

/// Marks a component as affected by an incident; doing it twice is harmless.
pub fn add_affected_component(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    component_id: &ComponentId,
) -> QueryResult<()> {
    let key = (
        incident_components::incident_id.eq(incident_id),
        incident_components::component_id.eq(component_id),
    );
    let exists: i64 = incident_components::table
        .filter(key.0)
        .filter(key.1)
        .count()
        .get_result(conn)?;
    if exists == 0 {
        diesel::insert_into(incident_components::table)
            .values(key)
            .execute(conn)?;
    }
    Ok(())
}

/// Whether an open incident of the page other than `except` affects the component.
pub fn affected_by_other_open(
    conn: &mut DbConn,
    page_id: &PageId,
    component_id: &ComponentId,
    except: &str,
) -> QueryResult<bool> {
    let count: i64 = incident_components::table
        .inner_join(incidents::table)
        .filter(incident_components::component_id.eq(component_id))
        .filter(incidents::page_id.eq(page_id))
        .filter(incidents::id.ne(except))
        .filter(incidents::resolved_at.is_null())
        .count()
        .get_result(conn)?;
    Ok(count > 0)
}

/// Deletes an incident; its updates, affected components, postmortem and pending
/// notifications go with it (their foreign keys cascade). The number of incidents deleted.
pub fn delete(conn: &mut DbConn, id: &IncidentId) -> QueryResult<usize> {
    diesel::delete(incidents::table.find(id)).execute(conn)
}

/// The update `update_id` of the incident `incident_id`, if it is one of its.
pub fn find_update(
    conn: &mut DbConn,
    incident_id: &IncidentId,
    update_id: &str,
) -> QueryResult<Option<IncidentUpdate>> {
    incident_updates::table
        .find(update_id)
        .filter(incident_updates::incident_id.eq(incident_id))
        .select(IncidentUpdate::as_select())
        .first(conn)
        .optional()
}

/// Sets an update's body and display time (`None` leaves either as it is).
pub fn edit_update(
    conn: &mut DbConn,
    update_id: &str,
    body: Option<&str>,
    display_at: Option<NaiveDateTime>,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    let target = incident_updates::table.find(update_id);
    if let Some(body) = body {
        diesel::update(target)
            .set(incident_updates::body.eq(body))
            .execute(conn)?;
    }
    if let Some(display_at) = display_at {
        diesel::update(target)
            .set(incident_updates::display_at.eq(display_at))
            .execute(conn)?;
    }
    diesel::update(target)
        .set(incident_updates::updated_at.eq(at))
        .execute(conn)
}

diesel::define_sql_function! {
    /// SQL's `lower`, the same on both backends.
    fn lower(text: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

/// A `LIKE` pattern (escaped with `\\`) of text that holds `text`, in lower case.
pub fn holding(text: &str) -> String {
    let escaped: String = text
        .to_lowercase()
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    format!("%{escaped}%")
}

/// A page's incidents whose name, status or an update's body holds `text` (any case), most
/// recently started first, `limit` rows from `offset`.
pub fn search(
    conn: &mut DbConn,
    page_id: &PageId,
    text: &str,
    limit: i64,
    offset: i64,
) -> QueryResult<Vec<Incident>> {
    let pattern = holding(text);
    let in_updates = incident_updates::table
        .filter(
            lower(incident_updates::body)
                .like(pattern.clone())
                .escape('\\'),
        )
        .select(incident_updates::incident_id);
    incidents::table
        .filter(incidents::page_id.eq(page_id))
        .filter(
            lower(incidents::name)
                .like(pattern)
                .escape('\\')
                .or(incidents::status.eq(text.to_lowercase()))
                .or(incidents::id.eq_any(in_updates)),
        )
        .order((incidents::started_at.desc(), incidents::id.desc()))
        .limit(limit)
        .offset(offset)
        .select(Incident::as_select())
        .load(conn)
}
