//! Deleting pages, components and groups, and changing groups. Children go with their parent
//! (`ON DELETE CASCADE`); a deleted group's components stay, ungrouped (`SET NULL`).

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{component_groups, components, status_pages};
use crate::domain::{ComponentId, GroupId, PageId};

/// Changes to a group; `None` leaves a field alone, `Some(None)` clears the description.
#[derive(Debug, Default, AsChangeset)]
#[diesel(table_name = component_groups)]
pub struct GroupChanges {
    pub name: Option<String>,
    pub description: Option<Option<String>>,
    pub position: Option<i32>,
    pub updated_at: NaiveDateTime,
}

/// Applies changes to a group; returns how many rows changed.
pub fn update_group(conn: &mut DbConn, id: &GroupId, changes: &GroupChanges) -> QueryResult<usize> {
    diesel::update(component_groups::table.find(id))
        .set(changes)
        .execute(conn)
}

/// Deletes a page and everything on it; returns how many pages went.
pub fn delete_page(conn: &mut DbConn, id: &PageId) -> QueryResult<usize> {
    diesel::delete(status_pages::table.find(id)).execute(conn)
}

/// Deletes a component with its history; returns how many went.
pub fn delete_component(conn: &mut DbConn, id: &ComponentId) -> QueryResult<usize> {
    diesel::delete(components::table.find(id)).execute(conn)
}

/// Deletes a group (its components become ungrouped); returns how many went.
pub fn delete_group(conn: &mut DbConn, id: &GroupId) -> QueryResult<usize> {
    diesel::delete(component_groups::table.find(id)).execute(conn)
}
