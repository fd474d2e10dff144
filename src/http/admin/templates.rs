//! Incident templates of a page (responders and owners): `GET /admin/pages/{slug}/templates`,
//! `GET/POST .../templates/new`, `GET/POST .../templates/{id}`, `POST .../templates/{id}/delete`.
//! A template pre-fills the "open an incident" form (`?template={id}`).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{filled, messages, values};
use super::form::{COMPONENT_PREFIX, Errors, FormTarget, Submitted};
use super::incidents::{Choice, ComponentChoice, choices, component_choices, page_and_components};
use super::write::{audited, change, form_changes, submit};
use super::{ConsoleFrame, render, render_form, see_other};
use crate::auth::{Authenticated, Permission};
use crate::db::DbConn;
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::db::models::templates::IncidentTemplate;
use crate::domain::Impact;
use crate::domain::PageId;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::services::{pages, templates};
use crate::state::AppState;

const FIELDS: &[&str] = &["name", "title", "impact", "body"];

/// Registers the template routes ("new" before "{id}").
pub fn routes(cfg: &mut web::ServiceConfig) {
    let base = "/admin/pages/{slug}/templates";
    cfg.route(base, web::get().to(list_templates))
        .route(&format!("{base}/new"), web::get().to(new_template_form))
        .route(&format!("{base}/new"), web::post().to(create_template))
        .route(&format!("{base}/{{id}}"), web::get().to(edit_template_form))
        .route(&format!("{base}/{{id}}"), web::post().to(update_template))
        .route(
            &format!("{base}/{{id}}/delete"),
            web::post().to(delete_template),
        );
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

#[derive(Serialize)]
struct TemplateForm {
    frame: ConsoleFrame,
    #[serde(flatten)]
    target: FormTarget,
    back: String,
    values: Value,
    impacts: Vec<Choice>,
    components: Vec<ComponentChoice>,
    errors: Value,
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

fn show(
    state: &AppState,
    auth: &Authenticated,
    (page, parts): (&StatusPage, &[Component]),
    editing: Option<&IncidentTemplate>,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let base = format!("/admin/pages/{}/templates", page.slug);
    let target = FormTarget::new(
        &base,
        editing.map(|t| (t.id.as_str(), format!("Template {}", t.name))),
        format!("Add an incident template to {}", page.name),
    );
    let component_errors = refused.map(Errors::from_fields).unwrap_or_default();
    let impacts = std::iter::once(("", "From the component statuses"))
        .chain(Impact::ALL.iter().map(|i| (i.as_str(), i.label())));
    let view = TemplateForm {
        frame: ConsoleFrame::new(state, auth, target.heading.clone()),
        back: base,
        target,
        values: values(form, FIELDS),
        impacts: choices(impacts, form.get("impact")),
        components: component_choices(parts, form, &component_errors),
        errors: messages(refused, FIELDS),
    };
    render_form(state, refused, "admin/template_form", &view)
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

/// The empty form.
#[tracing::instrument(skip_all)]
pub async fn new_template_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (page, parts) = page_and_components(&state, slug.into_inner()).await?;
    let empty = Submitted::default();
    show(&state, &auth, (&page, &parts), None, &empty, None)
}

/// Creates the template and goes back to the list (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn create_template(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let form = Submitted(form.into_inner());
    let (page, parts) = page_and_components(&state, slug.into_inner()).await?;
    let saved = submit(form.template_input(), |input| {
        let (page_id, fields) = (page.id.clone(), form_changes(&form, &[]));
        audited(&state, &auth, Permission::Write, move |c| {
            let t = templates::create_template(c, &page_id, &input).map_err(taken)?;
            let audit = change("template.create", "template", &t.id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/pages/{}/templates", page.slug))),
        Err(refused) => refused,
    };
    show(&state, &auth, (&page, &parts), None, &form, Some(&refused))
}

async fn load(
    state: &AppState,
    slug: String,
    id: String,
) -> AppResult<(StatusPage, Vec<Component>, IncidentTemplate)> {
    let (page, parts) = page_and_components(state, slug).await?;
    let page_id = page.id.clone();
    let template = state
        .db
        .run(move |c| page_template(c, &page_id, &id))
        .await?;
    Ok((page, parts, template))
}

/// The template's form, filled.
#[tracing::instrument(skip_all)]
pub async fn edit_template_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, id) = path.into_inner();
    let (page, parts, template) = load(&state, slug, id).await?;
    let form = template_values(&template);
    show(&state, &auth, (&page, &parts), Some(&template), &form, None)
}

/// Saves the template and goes back to the list (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn update_template(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let form = Submitted(form.into_inner());
    let (slug, id) = path.into_inner();
    let (page, parts, template) = load(&state, slug, id).await?;
    let saved = submit(form.template_input(), |input| {
        let (page_id, id) = (page.id.clone(), template.id.clone());
        let fields = form_changes(&form, &[]);
        audited(&state, &auth, Permission::Write, move |c| {
            templates::update_template(c, &page_id, &id, &input).map_err(taken)?;
            let audit = change("template.update", "template", &id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/pages/{}/templates", page.slug))),
        Err(refused) => refused,
    };
    let editing = Some(&template);
    show(
        &state,
        &auth,
        (&page, &parts),
        editing,
        &form,
        Some(&refused),
    )
}

/// Deletes the template and goes back to the list (303).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn delete_template(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (slug, id) = path.into_inner();
    let to = format!("/admin/pages/{slug}/templates");
    audited(&state, &auth, Permission::Write, move |c| {
        let page = pages::get_page_by_slug(c, &slug)?;
        let template = page_template(c, &page.id, &id)?;
        templates::delete_template(c, &page.id, &id)?;
        let fields = json!({"name": template.name});
        let audit = change("template.delete", "template", &id, Some(&page.id), fields);
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&to))
}
