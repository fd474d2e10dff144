//! `GET /admin/pages/{slug}/components`: the page's groups and components with their
//! statuses (links to manage them for owners), and `POST .../components/{id}/status`: a quick
//! status change outside incidents (responders).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde::Serialize;
use serde_json::json;

use super::incidents::{Choice, choices};
use super::write::{audited, change};
use super::{ConsoleFrame, render, see_other};
use crate::auth::{Authenticated, Permission};
use crate::db::models::components::Component;
use crate::domain::{ComponentId, ComponentStatus};
use crate::error::{AppError, AppResult};
use crate::services::components::{self, ComponentEntry, ComponentTree};
use crate::services::pages;
use crate::state::AppState;

#[derive(Serialize)]
struct Row {
    name: String,
    group: Option<String>,
    region: Option<String>,
    position: i32,
    action: String,
    edit: String,
    current: &'static str,
    options: Vec<Choice>,
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
    rows: Vec<Row>,
    groups: Vec<GroupRow>,
}

/// The status form body.
#[derive(Deserialize)]
pub struct StatusForm {
    status: String,
}

fn row(slug: &str, c: &Component, group: Option<&str>) -> Row {
    let all = ComponentStatus::ALL.iter().map(|s| (s.as_str(), s.label()));
    let status = c.status.as_str();
    let base = format!("/admin/pages/{slug}/components/{}", c.id);
    Row {
        name: c.name.clone(),
        group: group.map(str::to_owned),
        region: c.region.clone(),
        position: c.position,
        action: format!("{base}/status"),
        edit: base,
        current: c.status.label(),
        options: choices(all, status),
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

/// The components with a status select each (read-only for viewers).
#[tracing::instrument(skip_all)]
pub async fn list_components(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    let (page, tree) = state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let tree = components::list_components(c, &page.id)?;
            Ok((page, tree))
        })
        .await?;
    let (rows, groups) = rows(&page.slug, &tree);
    let view = ComponentsPage {
        frame: ConsoleFrame::new(&state, &auth, format!("Components of {}", page.name)),
        page_name: page.name,
        slug: page.slug,
        rows,
        groups,
    };
    render(&state, StatusCode::OK, "admin/components", &view)
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
        components::set_component_status(c, &id, status, None)?;
        let fields = json!({"status": status.as_str()});
        let audit = change("component.update", "component", &id, Some(&page.id), fields);
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&to))
}
