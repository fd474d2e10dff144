//! Upkeep the core services leave out: deleting pages, components and groups, and changing a
//! group. Records are addressed within their page, so one of another page is not found.

use serde::Deserialize;

use crate::db::models::components::{self, ComponentGroup};
use crate::db::models::page_admin::{self, GroupChanges};
use crate::db::{DbConn, now, write_tx};
use crate::domain::{ComponentId, GroupId, PageId};
use crate::error::{AppError, AppResult};
use crate::services::pages::{
    FieldCheck, MAX_DESCRIPTION_LEN, MAX_NAME_LEN, found, nullable, optional_text, required_line,
};

/// Changes to a group: absent fields stay as they are; `null` clears the description.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GroupPatch {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub description: Option<Option<String>>,
    pub position: Option<i32>,
}

/// The group with this id on this page.
pub fn get_group(
    conn: &mut DbConn,
    page_id: &PageId,
    group_id: &GroupId,
) -> AppResult<ComponentGroup> {
    let group = found(components::find_group(conn, group_id), "component group")?;
    if group.page_id != page_id {
        return Err(AppError::NotFound("component group".into()));
    }
    Ok(group)
}

/// Changes a group's name, description or position.
#[tracing::instrument(skip_all, fields(group_id = %group_id))]
pub fn update_group(
    conn: &mut DbConn,
    page_id: &PageId,
    group_id: &GroupId,
    patch: &GroupPatch,
) -> AppResult<ComponentGroup> {
    let mut check = FieldCheck::default();
    let name = patch
        .name
        .as_deref()
        .map(|n| required_line(n, MAX_NAME_LEN))
        .transpose();
    let description = patch
        .description
        .as_ref()
        .map(|d| optional_text(d.as_deref(), MAX_DESCRIPTION_LEN))
        .transpose();
    let changes = GroupChanges {
        name: check.check("name", name).flatten(),
        description: check.check("description", description).flatten(),
        position: patch.position,
        updated_at: now(),
    };
    let changes = check.done(Some(changes))?;
    write_tx(conn, |conn| {
        get_group(conn, page_id, group_id)?;
        page_admin::update_group(conn, group_id, &changes)?;
        Ok(components::find_group(conn, group_id)?)
    })
}

/// Deletes a page with its components, incidents and templates.
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn delete_page(conn: &mut DbConn, page_id: &PageId) -> AppResult<()> {
    gone(page_admin::delete_page(conn, page_id)?, "page")
}

/// Deletes a component of a page with its status history.
pub fn delete_component(
    conn: &mut DbConn,
    page_id: &PageId,
    component_id: &ComponentId,
) -> AppResult<()> {
    write_tx(conn, |conn| {
        let component = found(components::find(conn, component_id), "component")?;
        if component.page_id != page_id {
            return Err(AppError::NotFound("component".into()));
        }
        gone(
            page_admin::delete_component(conn, component_id)?,
            "component",
        )
    })
}

/// Deletes a group of a page; its components stay, ungrouped.
pub fn delete_group(conn: &mut DbConn, page_id: &PageId, group_id: &GroupId) -> AppResult<()> {
    write_tx(conn, |conn| {
        get_group(conn, page_id, group_id)?;
        gone(page_admin::delete_group(conn, group_id)?, "component group")
    })
}

fn gone(rows: usize, what: &str) -> AppResult<()> {
    match rows {
        0 => Err(AppError::NotFound(what.to_owned())),
        _ => Ok(()),
    }
}
