//! `GET /admin/pages/{slug}/components`: the page's components with their statuses, and
//! `POST /admin/pages/{slug}/components/{id}/status`: a quick status change outside incidents.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde::Serialize;

use super::incidents::{Choice, choices, page_and_components};
use super::{Frame, render, see_other, signed_in};
use crate::auth::{Authenticated, Permission};
use crate::domain::ComponentStatus;
use crate::error::{AppError, AppResult};
use crate::services::components;
use crate::startup::AppState;

#[derive(Serialize)]
struct Row {
    name: String,
    action: String,
    current: &'static str,
    options: Vec<Choice>,
}

#[derive(Serialize)]
struct ComponentsPage {
    frame: Frame,
    page_name: String,
    slug: String,
    rows: Vec<Row>,
}

/// The status form body.
#[derive(Deserialize)]
pub struct StatusForm {
    status: String,
}

/// The components with a status select each (read-only for viewers).
#[tracing::instrument(skip_all)]
pub async fn list_components(
    auth: Option<Authenticated>,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let auth = match signed_in(auth) {
        Ok(auth) => auth,
        Err(to_login) => return Ok(*to_login),
    };
    let (page, parts) = page_and_components(&state, slug.into_inner()).await?;
    let all = || ComponentStatus::ALL.iter().map(|s| (s.as_str(), s.label()));
    let rows = parts
        .iter()
        .map(|c| {
            let status = c.status().map_or("", |s| s.as_str());
            Row {
                name: c.name.clone(),
                action: format!("/admin/pages/{}/components/{}/status", page.slug, c.id),
                current: c.status().map_or("Unknown", |s| s.label()),
                options: choices(all(), status),
            }
        })
        .collect();
    let view = ComponentsPage {
        frame: Frame::new(&state, &auth, format!("Components of {}", page.name)),
        page_name: page.name,
        slug: page.slug,
        rows,
    };
    render(&state, StatusCode::OK, "admin/components", &view)
}

/// Sets one component's status and goes back to the list (303).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn set_component_status(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    form: web::Form<StatusForm>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, id) = path.into_inner();
    let status: ComponentStatus = form
        .status
        .parse()
        .map_err(|_| AppError::field("status", "is not a component status"))?;
    let (page, parts) = page_and_components(&state, slug).await?;
    if !parts.iter().any(|c| c.id == id) {
        return Err(AppError::NotFound("component".into()));
    }
    state
        .db
        .run(move |c| components::set_component_status(c, &id, status, None))
        .await?;
    state.site.wake.notify_one();
    Ok(see_other(&format!("/admin/pages/{}/components", page.slug)))
}
