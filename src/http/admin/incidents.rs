//! `GET /admin/pages/{slug}/incidents/new`: the form that opens an incident (pre-filled from a
//! template with `?template=`), its view, and the component selects the console's forms share.
//! The POST is [`super::open`]'s.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::form::{Errors, Submitted};
use super::status_grid::{Choosing, StatusGrid, status_grid};
use super::templates::{page_template, template_values};
use super::{ConsoleFrame, preview_of, render};
use crate::db::DbConn;
use crate::db::models::components::Component;
use crate::db::models::pages::StatusPage;
use crate::db::models::templates::IncidentTemplate;
use crate::domain::{Impact, IncidentStatus};
use crate::error::AppResult;
use crate::http::auth::{Authenticated, Permission};
pub use crate::render::html::choice::Choice;
use crate::services::{components, pages, templates};
use crate::state::AppState;

pub use super::timeline::{post_update, show_incident};

/// `(value, label)` pairs as options, `selected` marked.
pub fn choices(
    all: impl IntoIterator<Item = (&'static str, &'static str)>,
    selected: &str,
) -> Vec<Choice> {
    let all = all.into_iter().map(|(v, l)| (v.to_owned(), l.to_owned()));
    crate::render::html::choice::options(all, selected)
}

/// The status grid of an incident, maintenance or template form: "No change" unless the
/// form asks for a status.
pub fn component_choices(
    components: &[Component],
    form: &Submitted,
    errors: &Errors,
) -> StatusGrid {
    status_grid(components, form, errors, Choosing::Changes)
}

/// The page an incident is opened on.
#[derive(Debug, Serialize)]
struct PageInfo {
    name: String,
    slug: String,
    time_zone: String,
}

/// What `admin/incident_new` shows.
#[derive(Debug, Serialize)]
pub struct OpenForm {
    frame: ConsoleFrame,
    page: PageInfo,
    action: String,
    values: Values,
    impacts: Vec<Choice>,
    statuses: Vec<Choice>,
    components: StatusGrid,
    errors: Errors,
    /// The message rendered as the public page will show it, when a preview was asked for.
    preview: Option<String>,
    /// The page's templates, each a link that pre-fills this form.
    templates: Vec<TemplateLink>,
    /// The name and message in the page's other languages.
    translations: Vec<super::translations::LanguageFields>,
    /// "Next update in 15 / 30 / 60 min", beside the field.
    quick_deadlines: Vec<Choice>,
}

/// A template as a link that opens the incident form filled from it.
#[derive(Debug, Serialize)]
pub struct TemplateLink {
    name: String,
    href: String,
}

impl TemplateLink {
    /// The link to open an incident on page `slug` from `template`.
    pub fn new(slug: &str, template: IncidentTemplate) -> Self {
        Self {
            href: format!("/admin/pages/{slug}/incidents/new?template={}", template.id),
            name: template.name,
        }
    }
}

/// `?template={id}` on the new-incident form.
#[derive(Debug, Deserialize)]
pub struct TemplateQuery {
    template: Option<String>,
}

/// What was typed, to fill the form again.
#[derive(Debug, Serialize)]
struct Values {
    name: String,
    body: String,
    next_update_by: String,
    user_impact: String,
    scope: String,
    root_cause: String,
}

/// The view of the open form.
pub fn open_form(
    frame: ConsoleFrame,
    page: StatusPage,
    parts: Vec<Component>,
    form: &Submitted,
    errors: Errors,
) -> OpenForm {
    let impacts = std::iter::once(("", "From the component statuses"))
        .chain(Impact::ALL.iter().map(|i| (i.as_str(), i.label())));
    let open = IncidentStatus::ALL.iter().filter(|s| s.is_open());
    let status = match form.get("status") {
        "" => "investigating",
        s => s,
    };
    OpenForm {
        translations: super::translations::fields(&page, form, super::translations::OPENING),
        quick_deadlines: super::form::quick_choices(form),
        frame,
        action: format!("/admin/pages/{}/incidents/new", page.slug),
        impacts: choices(impacts, form.get("impact")),
        statuses: choices(open.map(|s| (s.as_str(), s.label())), status),
        components: component_choices(&parts, form, &errors),
        preview: preview_of(form),
        templates: Vec::new(),
        values: Values {
            name: form.get("name").to_owned(),
            body: form.get("body").to_owned(),
            next_update_by: form.get("next_update_by").to_owned(),
            user_impact: form.get("user_impact").to_owned(),
            scope: form.get("scope").to_owned(),
            root_cause: form.get("root_cause").to_owned(),
        },
        errors,
        page: PageInfo {
            name: page.name,
            slug: page.slug,
            time_zone: page.time_zone,
        },
    }
}

/// The page of `slug` with its components.
pub async fn page_and_components(
    state: &AppState,
    slug: String,
) -> AppResult<(StatusPage, Vec<Component>)> {
    state.db.run(move |c| page_components(c, &slug)).await
}

/// The page of `slug` with its components, on a connection.
pub fn page_components(c: &mut DbConn, slug: &str) -> AppResult<(StatusPage, Vec<Component>)> {
    let page = pages::get_page_by_slug(c, slug)?;
    let tree = components::list_components(c, &page.id)?;
    Ok((page, tree.components().cloned().collect()))
}

/// The empty form (responders and owners), pre-filled from a template with `?template=`.
#[tracing::instrument(skip_all)]
pub async fn new_incident_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    query: web::Query<TemplateQuery>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Write)?;
    let (page, parts) = page_and_components(&state, slug.into_inner()).await?;
    let (page_id, chosen) = (page.id.clone(), query.into_inner().template);
    let (all, chosen) = state
        .db
        .run(move |c| {
            let all = templates::list_templates(c, &page_id)?;
            let chosen = match chosen.filter(|id| !id.is_empty()) {
                Some(id) => Some(page_template(c, &page_id, &id)?),
                None => None,
            };
            Ok((all, chosen))
        })
        .await?;
    let form = match &chosen {
        Some(t) => {
            let mut form = template_values(t);
            form.0.retain(|(k, _)| k != "name");
            form.0.push(("name".into(), t.title.clone()));
            form
        }
        None => Submitted::default(),
    };
    let frame = ConsoleFrame::new(&state, &auth, format!("Open an incident on {}", page.name));
    let slug = page.slug.clone();
    let mut view = open_form(frame, page, parts, &form, Errors::default());
    view.templates = all
        .into_iter()
        .map(|t| TemplateLink::new(&slug, t))
        .collect();
    render(&state, StatusCode::OK, "admin/incident_new", &view)
}
