//! Component use cases: groups and components of a page, their statuses and the status
//! history the uptime bars are computed from.
//!
//! Every status change goes through [`apply_status`], which writes the component and its history
//! row together; incidents use it inside their own transaction.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;

use super::pages::{
    FieldCheck, MAX_DESCRIPTION_LEN, MAX_NAME_LEN, found, nullable, optional_text, required_line,
    row_time,
};
use crate::db::models::components::{
    self, Component, ComponentChanges, ComponentGroup, ComponentStatusChange, NewComponent,
    NewComponentGroup, NewComponentStatusChange,
};
use crate::db::models::pages;
use crate::db::{DbConn, new_id, now, write_tx};
use crate::domain::{ComponentId, ComponentStatus, GroupId, IncidentId, PageId};
use crate::error::{AppError, AppResult};

/// The longest region label, in characters.
const MAX_REGION_LEN: usize = 64;

/// A new component group. Without a position it goes last.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GroupInput {
    pub name: String,
    pub description: Option<String>,
    pub position: Option<i32>,
}

/// A new component. Without a position it goes last; without a status it is operational.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewComponentInput {
    pub name: String,
    pub description: Option<String>,
    pub group_id: Option<String>,
    pub region: Option<String>,
    pub position: Option<i32>,
    pub status: Option<ComponentStatus>,
    pub showcase: Option<bool>,
}

/// Changes to a component: absent fields stay as they are; `null` clears an optional one (a
/// `null` group takes the component out of its group). The status has its own use case.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct UpdateComponentInput {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub description: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub group_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub region: Option<Option<String>>,
    pub position: Option<i32>,
    pub showcase: Option<bool>,
}

impl UpdateComponentInput {
    /// Whether it changes nothing (a PATCH of the status alone): the row is then not written,
    /// so its `updated_at` stays and the page is not marked changed twice.
    pub fn is_empty(&self) -> bool {
        let Self {
            name,
            description,
            group_id,
            region,
            position,
            showcase,
        } = self;
        name.is_none()
            && description.is_none()
            && group_id.is_none()
            && region.is_none()
            && position.is_none()
            && showcase.is_none()
    }
}

/// A page's components in display order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComponentTree {
    /// Groups and ungrouped components, merged by position.
    pub entries: Vec<ComponentEntry>,
}

/// One top-level entry of a page.
#[derive(Debug, Clone, PartialEq)]
pub enum ComponentEntry {
    /// A group with its components, by position.
    Group {
        group: ComponentGroup,
        components: Vec<Component>,
    },
    /// A component outside any group.
    Component(Component),
}

impl ComponentTree {
    /// Every component, in display order.
    pub fn components(&self) -> impl Iterator<Item = &Component> {
        self.entries.iter().flat_map(|entry| match entry {
            ComponentEntry::Group { components, .. } => components.as_slice(),
            ComponentEntry::Component(c) => std::slice::from_ref(c),
        })
    }

    /// Every component's status, in display order.
    pub fn statuses(&self) -> AppResult<Vec<ComponentStatus>> {
        Ok(self.components().map(|c| c.status).collect())
    }
}

/// The position after the last one (0 for the first); one placed at the largest position
/// already shares it with the next, and the lists order ties by id (creation order).
fn next_position(last: Option<i32>) -> i32 {
    last.map_or(0, |p| p.saturating_add(1))
}

/// Creates a component group on a page.
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn create_group(
    conn: &mut DbConn,
    page_id: &PageId,
    input: &GroupInput,
) -> AppResult<ComponentGroup> {
    let mut check = FieldCheck::default();
    let name = check.check("name", required_line(&input.name, MAX_NAME_LEN));
    let description = check.check(
        "description",
        optional_text(input.description.as_deref(), MAX_DESCRIPTION_LEN),
    );
    let (name, description) = check.done((|| Some((name?, description?)))())?;
    write_tx(conn, |conn| {
        found(pages::find(conn, page_id), "page")?;
        let position = match input.position {
            Some(p) => p,
            None => next_position(components::max_group_position(conn, page_id)?),
        };
        let (id, at) = (GroupId::new(), now());
        let group = NewComponentGroup {
            id: &id,
            page_id,
            name: &name,
            description: description.as_deref(),
            position,
            created_at: at,
            updated_at: at,
        };
        Ok(components::insert_group(conn, &group)?)
    })
}

/// Creates a component and records its first history row (no old status → its status).
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn create_component(
    conn: &mut DbConn,
    page_id: &PageId,
    input: &NewComponentInput,
) -> AppResult<Component> {
    let mut check = FieldCheck::default();
    let name = check.check("name", required_line(&input.name, MAX_NAME_LEN));
    let description = check.check(
        "description",
        optional_text(input.description.as_deref(), MAX_DESCRIPTION_LEN),
    );
    let region = check.check(
        "region",
        optional_text(input.region.as_deref(), MAX_REGION_LEN),
    );
    let (name, description, region) = check.done((|| Some((name?, description?, region?)))())?;
    let status = input.status.unwrap_or(ComponentStatus::Operational);
    write_tx(conn, |conn| {
        found(pages::find(conn, page_id), "page")?;
        let group_id = input.group_id.as_deref().filter(|g| !g.trim().is_empty());
        check_group(conn, page_id, group_id)?;
        let group_id = group_id.map(GroupId::from);
        let position = match input.position {
            Some(p) => p,
            None => next_position(components::max_position(conn, page_id)?),
        };
        let (id, at) = (ComponentId::new(), now());
        let new = NewComponent {
            id: &id,
            page_id,
            group_id: group_id.as_ref(),
            name: &name,
            description: description.as_deref(),
            position,
            region: region.as_deref(),
            status,
            showcase: input.showcase.unwrap_or(true),
            created_at: at,
            updated_at: at,
        };
        let component = components::insert(conn, &new)?;
        record_change(conn, &id, None, status, None, at)?;
        Ok(component)
    })
}

/// Changes a component's name, description, group, region, position or showcase flag.
#[tracing::instrument(skip_all, fields(component_id = %component_id))]
pub fn update_component(
    conn: &mut DbConn,
    component_id: &ComponentId,
    input: &UpdateComponentInput,
) -> AppResult<Component> {
    let mut check = FieldCheck::default();
    let name = input
        .name
        .as_deref()
        .map(|n| required_line(n, MAX_NAME_LEN))
        .transpose();
    let patch = |v: &Option<Option<String>>, max| {
        v.as_ref()
            .map(|v| optional_text(v.as_deref(), max))
            .transpose()
    };
    let changes = ComponentChanges {
        group_id: input.group_id.as_ref().map(|g| {
            g.as_deref()
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(GroupId::from)
        }),
        name: check.check("name", name).flatten(),
        description: check
            .check(
                "description",
                patch(&input.description, MAX_DESCRIPTION_LEN),
            )
            .flatten(),
        position: input.position,
        region: check
            .check("region", patch(&input.region, MAX_REGION_LEN))
            .flatten(),
        showcase: input.showcase,
        updated_at: now(),
    };
    let changes = check.done(Some(changes))?;
    write_tx(conn, |conn| {
        let component = found(components::find(conn, component_id), "component")?;
        if let Some(group_id) = &changes.group_id {
            check_group(conn, &component.page_id, group_id.as_deref())?;
        }
        Ok(components::update(conn, component_id, &changes)?)
    })
}

/// Sets a component's status, recording a history row (with the incident that caused it, if
/// any) only when the status actually changes.
#[tracing::instrument(skip_all, fields(component_id = %component_id, status = %status))]
pub fn set_component_status(
    conn: &mut DbConn,
    component_id: &ComponentId,
    status: ComponentStatus,
    incident_id: Option<&IncidentId>,
) -> AppResult<Component> {
    write_tx(conn, |conn| {
        let component = found(components::find(conn, component_id), "component")?;
        set_found_status(conn, component, status, incident_id)
    })
}

/// [`set_component_status`] of a component the caller found in its transaction (a handler that
/// checked the component's page first): answers the component as it now is, without reading it
/// again (the status and `updated_at` are the only columns a status change writes).
pub fn set_found_status(
    conn: &mut DbConn,
    mut component: Component,
    status: ComponentStatus,
    incident_id: Option<&IncidentId>,
) -> AppResult<Component> {
    let at = now();
    let changed = apply_status(conn, &component, status, incident_id, at)?;
    if changed.is_some() {
        if incident_id.is_none() {
            crate::services::outbox::component_status_changed(conn, &component, at)?;
        }
        component.status = status;
        component.updated_at = at;
    }
    Ok(component)
}

/// Moves `component` to `status` at `at` and records the history row; answers the old status
/// when it changed and `None` when it already had that status. Runs in the caller's transaction.
pub fn apply_status(
    conn: &mut DbConn,
    component: &Component,
    status: ComponentStatus,
    incident_id: Option<&IncidentId>,
    at: NaiveDateTime,
) -> AppResult<Option<ComponentStatus>> {
    let old = component.status;
    if old == status {
        return Ok(None);
    }
    components::set_status(conn, &component.id, status, at)?;
    // Whoever set it now, it is no longer the status an alert set.
    crate::db::models::integrations::remove_mark(conn, &component.id)?;
    record_change(conn, &component.id, Some(old), status, incident_id, at)?;
    Ok(Some(old))
}

/// Marks whether the component is the sign-in (the support form points to itself most
/// strongly while it is affected).
pub fn set_signin(conn: &mut DbConn, component_id: &ComponentId, signin: bool) -> AppResult<()> {
    crate::db::models::support::set_signin(conn, component_id.as_str(), signin, crate::db::now())?;
    Ok(())
}

/// The page's groups, in display order.
pub fn list_groups(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<ComponentGroup>> {
    Ok(components::list_groups(conn, page_id)?)
}

/// The page's groups and components in display order.
pub fn list_components(conn: &mut DbConn, page_id: &PageId) -> AppResult<ComponentTree> {
    let groups = components::list_groups(conn, page_id)?;
    let mut all = components::list_for_page(conn, page_id)?;
    let mut entries: Vec<(i32, ComponentEntry)> = Vec::new();
    for group in groups {
        let (members, rest) = all
            .into_iter()
            .partition(|c| c.group_id.as_deref() == Some(group.id.as_str()));
        all = rest;
        entries.push((
            group.position,
            ComponentEntry::Group {
                group,
                components: members,
            },
        ));
    }
    // What is left is ungrouped (a dangling group id cannot happen: the key is ON DELETE SET NULL).
    entries.extend(
        all.into_iter()
            .map(|c| (c.position, ComponentEntry::Component(c))),
    );
    // Stable: at equal positions groups come before ungrouped components.
    entries.sort_by_key(|(position, _)| *position);
    Ok(ComponentTree {
        entries: entries.into_iter().map(|(_, entry)| entry).collect(),
    })
}

/// The component with this id.
pub fn get_component(conn: &mut DbConn, component_id: &ComponentId) -> AppResult<Component> {
    found(components::find(conn, component_id), "component")
}

/// The component with this id on this page (404 for one of another page).
pub fn get_page_component(
    conn: &mut DbConn,
    page_id: &PageId,
    component_id: &ComponentId,
) -> AppResult<Component> {
    let component = get_component(conn, component_id)?;
    if component.page_id != page_id {
        return Err(AppError::NotFound("component".into()));
    }
    Ok(component)
}

/// A component's status history over `[from, until)`, oldest first, starting with the change
/// in effect at `from` when there is one.
pub fn component_history(
    conn: &mut DbConn,
    component_id: &ComponentId,
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> AppResult<Vec<ComponentStatusChange>> {
    if until <= from {
        return Err(AppError::field("until", "must be after from"));
    }
    Ok(components::history(
        conn,
        component_id,
        row_time(from),
        row_time(until),
    )?)
}

/// Answers 404 unless `group_id` is a group of the page (or absent).
fn check_group(conn: &mut DbConn, page_id: &PageId, group_id: Option<&str>) -> AppResult<()> {
    let Some(group_id) = group_id else {
        return Ok(());
    };
    match components::find_group(conn, &GroupId::from(group_id)) {
        Ok(group) if group.page_id == page_id => Ok(()),
        Ok(_) | Err(diesel::result::Error::NotFound) => Err(AppError::NotFound(format!(
            "component group {group_id} (group_id) of this page"
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Appends one history row.
fn record_change(
    conn: &mut DbConn,
    component_id: &ComponentId,
    old: Option<ComponentStatus>,
    new: ComponentStatus,
    incident_id: Option<&IncidentId>,
    at: NaiveDateTime,
) -> AppResult<()> {
    let row = NewComponentStatusChange {
        id: &new_id(),
        component_id,
        old_status: old,
        new_status: new,
        incident_id,
        changed_at: at,
    };
    components::insert_status_change(conn, &row)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::next_position;

    #[test]
    fn a_new_position_follows_the_last_and_stops_at_the_largest() {
        assert_eq!(next_position(None), 0);
        assert_eq!(next_position(Some(4)), 5);
        assert_eq!(next_position(Some(-3)), -2);
        assert_eq!(next_position(Some(i32::MAX)), i32::MAX);
    }
}
