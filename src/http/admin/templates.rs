//! Incident templates of a page (responders and owners): `GET /admin/pages/{slug}/templates`,
//! `GET/POST .../templates/new`, `GET/POST .../templates/{id}`, `POST .../templates/{id}/delete`
//! (the form's handlers are [`super::record`]'s). A template pre-fills the "open an incident"
//! form (`?template={id}`).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::filled;
use super::form::{COMPONENT_PREFIX, Errors, Submitted};
use super::incidents::{choices, component_choices, page_components};
use super::record::{self, Record, audit};
use super::{ConsoleFrame, render};
use crate::db::DbConn;
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::db::models::templates::IncidentTemplate;
use crate::domain::{Impact, PageId};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::pages;
use crate::services::templates::{self, TemplateInput};
use crate::state::AppState;

/// Registers the template routes ("new" before "{id}").
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/admin/pages/{slug}/templates",
        web::get().to(list_templates),
    );
    record::routes::<Templates>(cfg);
}

#[derive(Serialize)]
struct Row {
    name: String,
    title: String,
    edit: String,
    use_href: String,
}

#[derive(Serialize)]
struct ListPage {
    frame: ConsoleFrame,
    page_name: String,
    new_href: String,
    rows: Vec<Row>,
}

/// A page's incident templates; the form lists the page's components.
pub struct Templates;

impl Record for Templates {
    type Lists = Vec<Component>;
    type Row = IncidentTemplate;
    type New = TemplateInput;
    type Patch = TemplateInput;
    type Id = String;

    const PERMISSION: Permission = Permission::Write;
    const PATHS: (&'static str, &'static str) = ("templates", "templates");
    const FIELDS: &'static [&'static str] = &["name", "title", "impact", "body"];
    const NOUNS: (&'static str, &'static str) = ("Template", "an incident template");
    const AUDIT: [&'static str; 4] = audit!("template");
    const TEMPLATE: &'static str = "admin/template_form";

    fn context(c: &mut DbConn, slug: &str) -> AppResult<(StatusPage, Vec<Component>)> {
        page_components(c, slug)
    }

    fn row(c: &mut DbConn, page: &StatusPage, id: &String) -> AppResult<IncidentTemplate> {
        page_template(c, &page.id, id)
    }

    fn names(template: &IncidentTemplate) -> (&str, &str) {
        (&template.id, &template.name)
    }

    fn stored(template: &IncidentTemplate) -> Submitted {
        template_values(template)
    }

    /// The impact and component choices.
    fn extra(parts: &Vec<Component>, form: &Submitted, refused: Option<&FieldErrors>) -> Value {
        let component_errors = refused.map(Errors::from_fields).unwrap_or_default();
        let impacts = std::iter::once(("", "From the component statuses"))
            .chain(Impact::ALL.iter().map(|i| (i.as_str(), i.label())));
        json!({
            "impacts": choices(impacts, form.get("impact")),
            "components": component_choices(parts, form, &component_errors),
        })
    }

    fn new_input(form: &Submitted) -> Result<TemplateInput, FieldErrors> {
        form.template_input()
    }

    fn patch_input(form: &Submitted) -> Result<TemplateInput, FieldErrors> {
        form.template_input()
    }

    fn create(c: &mut DbConn, page_id: &PageId, input: &TemplateInput) -> AppResult<String> {
        let t = templates::create_template(c, page_id, input).map_err(taken)?;
        Ok(t.id)
    }

    fn update(
        c: &mut DbConn,
        page_id: &PageId,
        id: &String,
        input: &TemplateInput,
    ) -> AppResult<()> {
        templates::update_template(c, page_id, id, input).map_err(taken)?;
        Ok(())
    }

    fn delete(c: &mut DbConn, page_id: &PageId, id: &String) -> AppResult<()> {
        templates::delete_template(c, page_id, id)
    }
}

/// The form filled from a stored template (also what the incident form starts from).
pub fn template_values(template: &IncidentTemplate) -> Submitted {
    let mut form = filled([
        ("name", template.name.clone()),
        ("title", template.title.clone()),
        ("impact", template.impact.clone().unwrap_or_default()),
        ("body", template.body.clone()),
    ]);
    let statuses: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&template.components).unwrap_or_default();
    for (id, status) in statuses {
        form.0.push((format!("{COMPONENT_PREFIX}{id}"), status));
    }
    form
}

/// A second template of the same name on a page is a mistake to correct in the form.
fn taken(e: AppError) -> AppError {
    match e {
        AppError::Conflict(_) => {
            AppError::field("name", "another template of this page has this name")
        }
        other => other,
    }
}

/// The template `id` of the page (404 for one of another page).
pub fn page_template(conn: &mut DbConn, page_id: &PageId, id: &str) -> AppResult<IncidentTemplate> {
    templates::get_template(conn, page_id, id)
}

/// The page's templates (responders and owners).
#[tracing::instrument(skip_all)]
pub async fn list_templates(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let slug = slug.into_inner();
    let (page, all) = state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let all = templates::list_templates(c, &page.id)?;
            Ok((page, all))
        })
        .await?;
    let base = format!("/admin/pages/{}/templates", page.slug);
    let rows = all
        .into_iter()
        .map(|t| Row {
            edit: format!("{base}/{}", t.id),
            use_href: format!("/admin/pages/{}/incidents/new?template={}", page.slug, t.id),
            name: t.name,
            title: t.title,
        })
        .collect();
    let view = ListPage {
        frame: ConsoleFrame::new(
            &state,
            &auth,
            format!("Incident templates of {}", page.name),
        ),
        page_name: page.name,
        new_href: format!("{base}/new"),
        rows,
    };
    render(&state, StatusCode::OK, "admin/templates", &view)
}
