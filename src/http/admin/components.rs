//! `GET /admin/pages/{slug}/components`: the page's components as one status grid (every
//! status set in one place, outside incidents), then its groups and components with links to
//! manage them for owners. `POST .../components/statuses` saves the grid and
//! `POST .../components/{id}/status` sets one component (responders).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde::Serialize;
use serde_json::json;

use super::form::{Errors, Submitted};
use super::status_grid::{Choosing, StatusGrid, status_grid};
use super::write::{audited, change, submit};
use super::{ConsoleFrame, render, render_form, see_other};
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::domain::{ComponentId, ComponentStatus};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::components::{self, ComponentEntry, ComponentTree};
use crate::services::pages;
use crate::state::AppState;

#[derive(Serialize)]
struct Row {
    name: String,
    group: Option<String>,
    region: Option<String>,
    position: i32,
    edit: String,
    current: &'static str,
    tone: &'static str,
}

#[derive(Serialize)]
struct GroupRow {
    name: String,
    description: Option<String>,
    position: i32,
    members: usize,
    edit: String,
}

#[derive(Serialize)]
struct ComponentsPage {
    frame: ConsoleFrame,
    page_name: String,
    slug: String,
    /// Where the grid posts.
    action: String,
    grid: StatusGrid,
    errors: Errors,
    rows: Vec<Row>,
    groups: Vec<GroupRow>,
}

/// The status form body.
#[derive(Deserialize)]
pub struct StatusForm {
    status: String,
}

fn row(slug: &str, c: &Component, group: Option<&str>) -> Row {
    Row {
        name: c.name.clone(),
        group: group.map(str::to_owned),
        region: c.region.clone(),
        position: c.position,
        edit: format!("/admin/pages/{slug}/components/{}", c.id),
        current: c.status.label(),
        tone: crate::render::html::format::StatusLook::component_tone(c.status),
    }
}

/// The rows of the tree in display order, and its groups.
fn rows(slug: &str, tree: &ComponentTree) -> (Vec<Row>, Vec<GroupRow>) {
    let (mut rows, mut groups) = (Vec::new(), Vec::new());
    for entry in &tree.entries {
        match entry {
            ComponentEntry::Group { group, components } => {
                groups.push(GroupRow {
                    name: group.name.clone(),
                    description: group.description.clone(),
                    position: group.position,
                    members: components.len(),
                    edit: format!("/admin/pages/{slug}/groups/{}", group.id),
                });
                rows.extend(components.iter().map(|c| row(slug, c, Some(&group.name))));
            }
            ComponentEntry::Component(c) => rows.push(row(slug, c, None)),
        }
    }
    (rows, groups)
}

/// The page and its components, read together.
async fn page_tree(state: &AppState, slug: String) -> AppResult<(StatusPage, ComponentTree)> {
    state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let tree = components::list_components(c, &page.id)?;
            Ok((page, tree))
        })
        .await
}

/// The components page, its grid showing `form` (the current statuses when blank) and the
/// messages of `refused`.
fn components_page(
    state: &AppState,
    auth: &Authenticated,
    (page, tree): (StatusPage, ComponentTree),
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> ComponentsPage {
    let (rows, groups) = rows(&page.slug, &tree);
    let errors = refused.map(Errors::from_fields).unwrap_or_default();
    let all: Vec<Component> = tree.components().cloned().collect();
    ComponentsPage {
        frame: ConsoleFrame::new(state, auth, format!("Components of {}", page.name)),
        action: format!("/admin/pages/{}/components/statuses", page.slug),
        grid: status_grid(&all, form, &errors, Choosing::Statuses),
        errors,
        page_name: page.name,
        slug: page.slug,
        rows,
        groups,
    }
}

/// The components as a status grid (writers) and a table (read-only for viewers).
#[tracing::instrument(skip_all)]
pub async fn list_components(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let read = page_tree(&state, slug.into_inner()).await?;
    let view = components_page(&state, &auth, read, &Submitted::default(), None);
    render(&state, StatusCode::OK, "admin/components", &view)
}

/// Saves the grid: each component whose status differs from the one chosen is set, in one
/// transaction with one audit row naming them (303 back to the page). A status that is not
/// one, or a component of another page, shows the grid again with its message (422) and
/// sets nothing.
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn set_component_statuses(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let slug = slug.into_inner();
    let mut errors = FieldErrors::new();
    let mut asked = form.components(&mut errors);
    // A grid saved as it stands writes nothing (no empty audit row): only the rows that ask
    // for another status than the component's go on (and ids not of this page, refused there).
    let (_, tree) = page_tree(&state, slug.clone()).await?;
    asked.retain(|id, status| {
        let stored = tree.components().find(|c| c.id.as_str() == id);
        stored.is_none_or(|c| c.status != *status)
    });
    if errors.is_empty() && asked.is_empty() {
        return Ok(see_other(&format!("/admin/pages/{slug}/components")));
    }
    let checked = if errors.is_empty() {
        Ok(asked)
    } else {
        Err(errors)
    };
    let on = slug.clone();
    let saved = submit(checked, |asked| {
        audited(&state, &auth, Permission::Write, move |c| {
            let page = pages::get_page_by_slug(c, &on)?;
            let set = set_statuses(c, &page.id, &asked)?;
            let audit = change("component.statuses", "page", &page.id, Some(&page.id), set);
            Ok(((), audit))
        })
    })
    .await?;
    match saved {
        Ok(()) => Ok(see_other(&format!("/admin/pages/{slug}/components"))),
        Err(refused) => {
            let read = page_tree(&state, slug).await?;
            let view = components_page(&state, &auth, read, &form, Some(&refused));
            render_form(&state, Some(refused), "admin/components", &view)
        }
    }
}

/// Sets each component of `asked` that is not already in its status; answers what changed
/// (`{id: status}`). A component of another page refuses the whole grid.
fn set_statuses(
    c: &mut crate::db::DbConn,
    page_id: &crate::domain::PageId,
    asked: &std::collections::BTreeMap<String, ComponentStatus>,
) -> AppResult<serde_json::Value> {
    let mut set = serde_json::Map::new();
    for (id, status) in asked {
        let id = ComponentId::from(id.as_str());
        let component = components::get_component(c, &id)
            .ok()
            .filter(|component| component.page_id == *page_id)
            .ok_or_else(|| {
                AppError::field(
                    &format!("components.{id}"),
                    "is not a component of this page",
                )
            })?;
        if component.status != *status {
            components::set_found_status(c, component, *status, None)?;
            set.insert(id.to_string(), json!(status.as_str()));
        }
    }
    Ok(serde_json::Value::Object(set))
}

/// Sets one component's status and goes back to the list (303).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn set_component_status(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, ComponentId)>,
    form: web::Form<StatusForm>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, id) = path.into_inner();
    let status: ComponentStatus = form
        .status
        .parse()
        .map_err(|_| AppError::field("status", "is not a component status"))?;
    let to = format!("/admin/pages/{slug}/components");
    audited(&state, &auth, Permission::Write, move |c| {
        let page = pages::get_page_by_slug(c, &slug)?;
        let component = components::get_component(c, &id)?;
        if component.page_id != page.id {
            return Err(AppError::NotFound("component".into()));
        }
        components::set_found_status(c, component, status, None)?;
        let fields = json!({"status": status.as_str()});
        let audit = change("component.update", "component", &id, Some(&page.id), fields);
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&to))
}
