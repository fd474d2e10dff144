//! The responder console under `/admin`: server-rendered HTML forms that work without
//! JavaScript. Reading needs a session (browsers without one are sent to `/admin/login`);
//! every POST carries the session's CSRF token (checked by the `Authenticated` extractor) and
//! needs its permission: responders write incidents, maintenance, component statuses,
//! postmortems and templates; owners also structure pages (components, groups, settings),
//! manage accounts and read the audit log. Every write goes through `write::audited`: the
//! service call and its audit row in one transaction, then the public pages are refreshed.

mod audit;
mod components;
mod dashboard;
mod details;
mod fields;
pub mod form;
mod groups;
mod history;
mod images;
mod incidents;
mod integrations;
mod live_preview;
mod maintenance;
mod new_page;
mod open;
mod postmortem;
mod postmortem_form;
mod read_tokens;
mod record;
mod settings;
mod status_grid;
mod structure;
mod subscribers;
pub mod support;
mod templates;
mod timeline;
mod tokens;
mod translations;
mod users;
mod vendors;
mod view;
mod write;

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use serde::Serialize;

use crate::db::DbConn;
use crate::db::models::pages::StatusPage;
use crate::domain::markdown::to_safe_html;
use crate::domain::{DeadlineState, deadline_state};
use crate::error::{AppError, AppResult};
use crate::http::auth::{self, Authenticated, Permission};
use crate::state::AppState;

pub use write::actor;

/// Registers the console routes (the sign-in page registers itself).
pub fn routes(cfg: &mut web::ServiceConfig) {
    // The subscriber pages come first, as they did when the public forms' routes held them.
    cfg.configure(subscribers::routes)
        .route("/admin", web::get().to(dashboard::show_dashboard))
        .route(
            "/admin/pages/{slug}/incidents/new",
            web::get().to(incidents::new_incident_form),
        )
        .route(
            "/admin/pages/{slug}/incidents/new",
            web::post().to(open::open_from_form::<open::Incident>),
        )
        .route(
            "/admin/pages/{slug}/maintenances/new",
            web::get().to(maintenance::new_maintenance_form),
        )
        .route(
            "/admin/pages/{slug}/maintenances/new",
            web::post().to(open::open_from_form::<open::Maintenance>),
        )
        .route(
            "/admin/pages/{slug}/components",
            web::get().to(components::list_components),
        )
        .route(
            "/admin/pages/{slug}/components/statuses",
            web::post().to(components::set_component_statuses),
        )
        .route(
            "/admin/pages/{slug}/components/{id}/status",
            web::post().to(components::set_component_status),
        )
        .route(
            "/admin/pages/{slug}/incidents",
            web::get().to(history::list_page_incidents),
        )
        .configure(structure::routes)
        .configure(live_preview::routes)
        .configure(images::routes)
        .configure(new_page::routes)
        .configure(settings::routes)
        .configure(templates::routes)
        .configure(integrations::routes)
        .configure(read_tokens::routes)
        .configure(vendors::routes)
        .configure(postmortem::routes)
        .configure(details::routes)
        .configure(users::routes)
        .configure(tokens::routes)
        .route("/admin/audit", web::get().to(audit::show_audit))
        .route(
            "/admin/incidents/{id}",
            web::get().to(incidents::show_incident),
        )
        .route(
            "/admin/incidents/{id}/updates",
            web::post().to(incidents::post_update),
        );
}

/// What every console page shows around its content.
#[derive(Debug, Serialize)]
pub struct ConsoleFrame {
    title: String,
    css: String,
    admin_css: String,
    js: String,
    /// The console's own script (the live preview, Ctrl+Enter).
    console_js: String,
    email: String,
    role: &'static str,
    csrf_token: String,
    can_write: bool,
    is_owner: bool,
    /// Open incidents whose promised update is late, on every console page (read from the
    /// in-memory site, never the database).
    overdue: Vec<Overdue>,
}

/// An open incident whose promised update is late, as the console's banner names it.
#[derive(Debug, Serialize)]
struct Overdue {
    reference: String,
    name: String,
    page: String,
    href: String,
    /// How late, e.g. "12 min".
    late: String,
}

/// Every open incident of every page whose promised update is due by `now`, the longest
/// overdue first.
fn overdue(state: &AppState, now: chrono::DateTime<chrono::Utc>) -> Vec<Overdue> {
    let snapshot = state.site.snapshot();
    let mut late: Vec<(chrono::DateTime<chrono::Utc>, Overdue)> = snapshot
        .pages
        .values()
        .chain(snapshot.restricted.values())
        .flat_map(|page| {
            let data = &page.data;
            data.open_incidents().filter_map(move |incident| {
                let by = incident.next_update_by?;
                let DeadlineState::Overdue { by: late } = deadline_state(Some(by), now) else {
                    return None;
                };
                Some((
                    by,
                    Overdue {
                        reference: incident.reference.clone(),
                        name: incident.name.clone(),
                        page: data.page.name.clone(),
                        href: format!("/admin/incidents/{}", incident.id),
                        late: crate::render::html::format::duration_text(late),
                    },
                ))
            })
        })
        .collect();
    late.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.reference.cmp(&b.1.reference)));
    late.into_iter().map(|(_, o)| o).collect()
}

impl ConsoleFrame {
    /// The frame of a page titled `title` for the caller `auth`.
    pub fn new(state: &AppState, auth: &Authenticated, title: impl Into<String>) -> Self {
        let assets = &state.site.renderer.assets;
        Self {
            title: title.into(),
            css: assets.url("app.css"),
            admin_css: assets.url("admin.css"),
            js: assets.url("app.js"),
            console_js: assets.url("console.js"),
            email: auth.email.clone(),
            role: auth.role.as_str(),
            csrf_token: auth::csrf_token(auth, state.secret.expose()),
            can_write: auth.can(Permission::Write),
            is_owner: auth.can(Permission::Admin),
            overdue: overdue(state, chrono::Utc::now()),
        }
    }
}

/// The message of a form rendered as the public page will show it (the same sanitizing
/// renderer), when the form was sent with its "Preview" button.
pub fn preview_of(form: &form::Submitted) -> Option<String> {
    fields::ticked(form, "preview").then(|| to_safe_html(form.get("body")))
}

/// The page `slug` and what `read` reads of it, for a caller with `permission` (404 when
/// there is no such page).
pub async fn read_page<R, F>(
    state: &AppState,
    auth: &Authenticated,
    permission: Permission,
    slug: String,
    read: F,
) -> AppResult<(StatusPage, R)>
where
    F: FnOnce(&mut DbConn, &StatusPage) -> AppResult<R> + Send + 'static,
    R: Send + 'static,
{
    auth.require(permission)?;
    state
        .db
        .run(move |c| {
            let page = crate::services::pages::get_page_by_slug(c, &slug)?;
            let read = read(c, &page)?;
            Ok((page, read))
        })
        .await
}

/// A 303 to `location`.
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// A console form page: 422 when it is shown again with the reasons it was refused, else 200.
pub fn render_form<T: Serialize, E>(
    state: &AppState,
    refused: Option<E>,
    name: &str,
    view: &T,
) -> AppResult<HttpResponse> {
    let status = match refused {
        Some(_) => actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        None => actix_web::http::StatusCode::OK,
    };
    render(state, status, name, view)
}

/// Renders the console template `name` with `view`, answering `status`.
pub fn render<T: Serialize>(
    state: &AppState,
    status: actix_web::http::StatusCode,
    name: &str,
    view: &T,
) -> AppResult<HttpResponse> {
    let html = state
        .site
        .renderer
        .templates
        .render(name, view)
        .map_err(AppError::Internal)?;
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, crate::http::CSP))
        .body(html))
}
