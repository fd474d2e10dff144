//! Component groups, components and the history of component statuses (`component_groups`,
//! `components`, `component_status_changes`). Uptime bars are computed from the history.

use chrono::NaiveDateTime;
use diesel::dsl::max;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{component_groups, component_status_changes, components};
use crate::domain::{ComponentId, ComponentStatus, GroupId, IncidentId, PageId};

/// A named group of components on a page, e.g. "EU region".
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable)]
#[diesel(table_name = component_groups)]
pub struct ComponentGroup {
    pub id: GroupId,
    pub page_id: PageId,
    pub name: String,
    pub description: Option<String>,
    pub position: i32,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// A new component group.
#[derive(Debug, Insertable)]
#[diesel(table_name = component_groups)]
pub struct NewComponentGroup<'a> {
    pub id: &'a GroupId,
    pub page_id: &'a PageId,
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub position: i32,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// One part of the service whose status the page shows, e.g. "API".
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable)]
#[diesel(table_name = components)]
pub struct Component {
    pub id: ComponentId,
    pub page_id: PageId,
    pub group_id: Option<GroupId>,
    pub name: String,
    pub description: Option<String>,
    pub position: i32,
    /// A free-form region label, e.g. `eu-west-1`.
    pub region: Option<String>,
    pub status: ComponentStatus,
    /// Whether the public page shows the component.
    pub showcase: bool,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Whether the component means "signing in" (the status page then points people who
    /// cannot sign in to the support form more strongly when it is affected).
    pub signin: bool,
}

/// A new component.
#[derive(Debug, Insertable)]
#[diesel(table_name = components)]
pub struct NewComponent<'a> {
    pub id: &'a ComponentId,
    pub page_id: &'a PageId,
    pub group_id: Option<&'a GroupId>,
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub position: i32,
    pub region: Option<&'a str>,
    pub status: ComponentStatus,
    pub showcase: bool,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Changes to a component: `None` leaves a column alone, `Some(None)` clears a nullable one.
/// The status changes only through [`set_status`], which the services pair with a history row.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = components)]
pub struct ComponentChanges {
    pub group_id: Option<Option<GroupId>>,
    pub name: Option<String>,
    pub description: Option<Option<String>>,
    pub position: Option<i32>,
    pub region: Option<Option<String>>,
    pub showcase: Option<bool>,
    /// Always set, so a change set is never empty.
    pub updated_at: NaiveDateTime,
}

/// One change of a component's status; `old_status` is `None` for the component's first row.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Identifiable)]
#[diesel(table_name = component_status_changes)]
pub struct ComponentStatusChange {
    pub id: String,
    pub component_id: ComponentId,
    pub old_status: Option<ComponentStatus>,
    pub new_status: ComponentStatus,
    /// The incident (or maintenance) that made the change, if any.
    pub incident_id: Option<IncidentId>,
    pub changed_at: NaiveDateTime,
}

/// A new history row.
#[derive(Debug, Insertable)]
#[diesel(table_name = component_status_changes)]
pub struct NewComponentStatusChange<'a> {
    pub id: &'a str,
    pub component_id: &'a ComponentId,
    pub old_status: Option<ComponentStatus>,
    pub new_status: ComponentStatus,
    pub incident_id: Option<&'a IncidentId>,
    pub changed_at: NaiveDateTime,
}

/// Inserts a group and returns it.
pub fn insert_group(conn: &mut DbConn, new: &NewComponentGroup<'_>) -> QueryResult<ComponentGroup> {
    diesel::insert_into(component_groups::table)
        .values(new)
        .execute(conn)?;
    find_group(conn, new.id)
}

/// The group with this id.
pub fn find_group(conn: &mut DbConn, id: &GroupId) -> QueryResult<ComponentGroup> {
    component_groups::table
        .find(id)
        .select(ComponentGroup::as_select())
        .first(conn)
}

/// The groups of a page, by position.
pub fn list_groups(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<ComponentGroup>> {
    component_groups::table
        .filter(component_groups::page_id.eq(page_id))
        .order((component_groups::position.asc(), component_groups::id.asc()))
        .select(ComponentGroup::as_select())
        .load(conn)
}

/// The highest group position used on a page.
pub fn max_group_position(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Option<i32>> {
    component_groups::table
        .filter(component_groups::page_id.eq(page_id))
        .select(max(component_groups::position))
        .first(conn)
}

/// Inserts a component and returns it.
pub fn insert(conn: &mut DbConn, new: &NewComponent<'_>) -> QueryResult<Component> {
    diesel::insert_into(components::table)
        .values(new)
        .execute(conn)?;
    find(conn, new.id)
}

/// The component with this id.
pub fn find(conn: &mut DbConn, id: &ComponentId) -> QueryResult<Component> {
    components::table
        .find(id)
        .select(Component::as_select())
        .first(conn)
}

/// The components of a page with these ids (ids of other pages are left out). The ids are
/// texts: this is where ids a client sent are found to be the page's components, or not.
pub fn find_on_page(
    conn: &mut DbConn,
    page_id: &PageId,
    ids: &[&str],
) -> QueryResult<Vec<Component>> {
    components::table
        .filter(components::page_id.eq(page_id))
        .filter(components::id.eq_any(ids))
        .select(Component::as_select())
        .load(conn)
}

/// The components of a page, by position.
pub fn list_for_page(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<Component>> {
    components::table
        .filter(components::page_id.eq(page_id))
        .order((components::position.asc(), components::id.asc()))
        .select(Component::as_select())
        .load(conn)
}

/// The highest component position used on a page.
pub fn max_position(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Option<i32>> {
    components::table
        .filter(components::page_id.eq(page_id))
        .select(max(components::position))
        .first(conn)
}

/// Applies `changes` to the component `id` and returns it as it now is.
pub fn update(
    conn: &mut DbConn,
    id: &ComponentId,
    changes: &ComponentChanges,
) -> QueryResult<Component> {
    diesel::update(components::table.find(id))
        .set(changes)
        .execute(conn)?;
    find(conn, id)
}

/// Stores a new status on the component (the caller records the history row).
pub fn set_status(
    conn: &mut DbConn,
    id: &ComponentId,
    status: ComponentStatus,
    at: NaiveDateTime,
) -> QueryResult<usize> {
    diesel::update(components::table.find(id))
        .set((components::status.eq(status), components::updated_at.eq(at)))
        .execute(conn)
}

/// Appends a history row.
pub fn insert_status_change(
    conn: &mut DbConn,
    new: &NewComponentStatusChange<'_>,
) -> QueryResult<usize> {
    diesel::insert_into(component_status_changes::table)
        .values(new)
        .execute(conn)
}

/// The history of a component over `[from, until)`, oldest first. The first row is the last
/// change at or before `from`, when there is one, so the status at the window's start is known.
pub fn history(
    conn: &mut DbConn,
    component_id: &ComponentId,
    from: NaiveDateTime,
    until: NaiveDateTime,
) -> QueryResult<Vec<ComponentStatusChange>> {
    use component_status_changes::dsl as c;
    let before = c::component_status_changes
        .filter(c::component_id.eq(component_id))
        .filter(c::changed_at.le(from))
        .order((c::changed_at.desc(), c::id.desc()))
        .select(ComponentStatusChange::as_select())
        .first(conn)
        .optional()?;
    let within = c::component_status_changes
        .filter(c::component_id.eq(component_id))
        .filter(c::changed_at.gt(from))
        .filter(c::changed_at.lt(until))
        .order((c::changed_at.asc(), c::id.asc()))
        .select(ComponentStatusChange::as_select())
        .load(conn)?;
    Ok(before.into_iter().chain(within).collect())
}
