//! Alerts in (`integrations`, `alert_states`, `alert_marks`, `incident_drafts`): a page's
//! integrations with their settings and token hash, the last word of each alert heard, which
//! alert set a component's status, and the incidents integrations propose.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{alert_marks, alert_states, components, incident_drafts, integrations};
use crate::domain::{
    ComponentId, ComponentStatus, IncidentMode, IntegrationId, IntegrationKind, PageId,
};

/// A stored integration.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = integrations, treat_none_as_null = true)]
pub struct Integration {
    pub id: IntegrationId,
    pub page_id: PageId,
    pub kind: IntegrationKind,
    pub name: String,
    /// The SHA-256 (hex) of the integration's token; the token itself is never stored.
    pub token_hash: String,
    pub component_label: String,
    /// Label value → component id, as a JSON object.
    pub component_map: String,
    pub severity_label: String,
    /// Severity → component status, as a JSON object.
    pub severity_map: String,
    pub default_status: ComponentStatus,
    pub hold_secs: i32,
    pub template_id: Option<String>,
    pub incident_mode: IncidentMode,
    pub notify_subscribers: bool,
    pub last_used_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Stores a new integration.
pub fn insert(conn: &mut DbConn, row: &Integration) -> QueryResult<usize> {
    diesel::insert_into(integrations::table)
        .values(row)
        .execute(conn)
}

/// The integration with this id.
pub fn find(conn: &mut DbConn, id: &IntegrationId) -> QueryResult<Integration> {
    integrations::table
        .find(id)
        .select(Integration::as_select())
        .first(conn)
}

/// The page's integrations, oldest first.
pub fn list(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<Integration>> {
    integrations::table
        .filter(integrations::page_id.eq(page_id))
        .order(integrations::id)
        .select(Integration::as_select())
        .load(conn)
}

/// Writes every column of `row` over the stored integration.
pub fn replace(conn: &mut DbConn, row: &Integration) -> QueryResult<usize> {
    diesel::update(integrations::table.find(&row.id))
        .set(row)
        .execute(conn)
}

/// Removes an integration (its alert states go with it; its marks and drafts stay, without it).
pub fn remove(conn: &mut DbConn, id: &IntegrationId) -> QueryResult<usize> {
    diesel::delete(integrations::table.find(id)).execute(conn)
}

/// Notes that the integration was used at `at`.
pub fn touch(conn: &mut DbConn, id: &IntegrationId, at: NaiveDateTime) -> QueryResult<usize> {
    diesel::update(integrations::table.find(id))
        .set(integrations::last_used_at.eq(at))
        .execute(conn)
}

/// The last word of one alert.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = alert_states, treat_none_as_null = true)]
pub struct AlertState {
    pub integration_id: IntegrationId,
    pub fingerprint: String,
    pub component_id: ComponentId,
    pub alert_name: String,
    pub summary: Option<String>,
    /// The status the alert asks for while it fires.
    pub status: ComponentStatus,
    pub firing: bool,
    pub starts_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// The alert of this integration with this fingerprint, if heard before.
pub fn find_state(
    conn: &mut DbConn,
    integration_id: &IntegrationId,
    fingerprint: &str,
) -> QueryResult<Option<AlertState>> {
    alert_states::table
        .find((integration_id, fingerprint))
        .select(AlertState::as_select())
        .first(conn)
        .optional()
}

/// Stores the alert's last word, replacing what was stored for its fingerprint.
pub fn put_state(conn: &mut DbConn, row: &AlertState) -> QueryResult<()> {
    let updated = diesel::update(alert_states::table.find((&row.integration_id, &row.fingerprint)))
        .set(row)
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(alert_states::table)
            .values(row)
            .execute(conn)?;
    }
    Ok(())
}

/// The statuses the alerts firing on a component ask for (of every integration).
pub fn firing_statuses(
    conn: &mut DbConn,
    component_id: &ComponentId,
) -> QueryResult<Vec<ComponentStatus>> {
    alert_states::table
        .filter(alert_states::component_id.eq(component_id))
        .filter(alert_states::firing.eq(true))
        .select(alert_states::status)
        .load(conn)
}

/// Which alert set a component's status, and when.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = alert_marks, treat_none_as_null = true)]
pub struct AlertMark {
    pub component_id: ComponentId,
    /// `None` once the integration is deleted (its name stays).
    pub integration_id: Option<IntegrationId>,
    pub integration: String,
    pub alert_name: String,
    pub set_at: NaiveDateTime,
}

/// The mark on a component, if an alert set its status.
pub fn find_mark(conn: &mut DbConn, component_id: &ComponentId) -> QueryResult<Option<AlertMark>> {
    alert_marks::table
        .find(component_id)
        .select(AlertMark::as_select())
        .first(conn)
        .optional()
}

/// The marks on a page's components.
pub fn page_marks(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<AlertMark>> {
    alert_marks::table
        .inner_join(components::table.on(components::id.eq(alert_marks::component_id)))
        .filter(components::page_id.eq(page_id))
        .select(AlertMark::as_select())
        .load(conn)
}

/// Marks a component's status as set by an alert.
pub fn put_mark(conn: &mut DbConn, row: &AlertMark) -> QueryResult<()> {
    let updated = diesel::update(alert_marks::table.find(&row.component_id))
        .set(row)
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(alert_marks::table)
            .values(row)
            .execute(conn)?;
    }
    Ok(())
}

/// Removes the mark: someone else set the status.
pub fn remove_mark(conn: &mut DbConn, component_id: &ComponentId) -> QueryResult<usize> {
    diesel::delete(alert_marks::table.find(component_id)).execute(conn)
}

/// An incident an integration proposes.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = incident_drafts)]
pub struct IncidentDraft {
    pub id: String,
    pub page_id: PageId,
    pub integration_id: Option<IntegrationId>,
    pub template_id: Option<String>,
    pub component_id: ComponentId,
    pub alert_name: String,
    pub summary: Option<String>,
    pub created_at: NaiveDateTime,
}

/// Stores a proposed incident.
pub fn insert_draft(conn: &mut DbConn, row: &IncidentDraft) -> QueryResult<usize> {
    diesel::insert_into(incident_drafts::table)
        .values(row)
        .execute(conn)
}

/// The page's proposed incidents, oldest first.
pub fn list_drafts(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<IncidentDraft>> {
    incident_drafts::table
        .filter(incident_drafts::page_id.eq(page_id))
        .order(incident_drafts::id)
        .select(IncidentDraft::as_select())
        .load(conn)
}

/// How many proposals wait on the page.
pub fn count_drafts(conn: &mut DbConn, page_id: &PageId) -> QueryResult<i64> {
    incident_drafts::table
        .filter(incident_drafts::page_id.eq(page_id))
        .count()
        .get_result(conn)
}

/// Whether a proposal for this component waits already.
pub fn draft_waits(conn: &mut DbConn, component_id: &ComponentId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        incident_drafts::table.filter(incident_drafts::component_id.eq(component_id)),
    ))
    .get_result(conn)
}

/// The proposal with this id.
pub fn find_draft(conn: &mut DbConn, id: &str) -> QueryResult<IncidentDraft> {
    incident_drafts::table
        .find(id)
        .select(IncidentDraft::as_select())
        .first(conn)
}

/// Removes a proposal (published or dismissed).
pub fn remove_draft(conn: &mut DbConn, id: &str) -> QueryResult<usize> {
    diesel::delete(incident_drafts::table.find(id)).execute(conn)
}
