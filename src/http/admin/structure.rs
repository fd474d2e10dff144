//! Managing a page's components (owners): `GET/POST /admin/pages/{slug}/components/new`,
//! `GET/POST /admin/pages/{slug}/components/{id}` (name, description, group, region,
//! position) and `POST .../components/{id}/delete`. Groups are in [`super::groups`]. Every
//! write records its audit row and refreshes the public page.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{Choice, filled, messages, number, options, required, text, values};
use super::form::{FormTarget, Submitted};
use super::groups;
use super::write::{audited, change, form_changes, submit};
use super::{ConsoleFrame, render_form, see_other};
use crate::auth::{Authenticated, Permission};
use crate::db::models::components::{self as rows, Component, ComponentGroup};
use crate::db::models::pages::StatusPage;
use crate::domain::ComponentId;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::services::components::{self, NewComponentInput, UpdateComponentInput};
use crate::services::{page_admin, pages};
use crate::state::AppState;

/// The fields of the component form.
const FIELDS: &[&str] = &["name", "description", "group_id", "region", "position"];

/// Registers the component and group management routes ("new" before "{id}").
pub fn routes(cfg: &mut web::ServiceConfig) {
    let base = "/admin/pages/{slug}/components";
    cfg.route(&format!("{base}/new"), web::get().to(new_component_form))
        .route(&format!("{base}/new"), web::post().to(create_component))
        .route(
            &format!("{base}/{{id}}"),
            web::get().to(edit_component_form),
        )
        .route(&format!("{base}/{{id}}"), web::post().to(update_component))
        .route(
            &format!("{base}/{{id}}/delete"),
            web::post().to(delete_component),
        )
        .configure(groups::routes);
}

#[derive(Serialize)]
struct ComponentForm {
    frame: ConsoleFrame,
    #[serde(flatten)]
    target: FormTarget,
    back: String,
    values: Value,
    groups: Vec<Choice>,
    errors: Value,
}

/// The page of `slug` and its groups.
pub async fn page_and_groups(
    state: &AppState,
    slug: String,
) -> AppResult<(StatusPage, Vec<ComponentGroup>)> {
    state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let groups = rows::list_groups(c, &page.id)?;
            Ok((page, groups))
        })
        .await
}

/// The component `id` of the page `slug` (404 for one of another page) and the page's groups.
async fn load(
    state: &AppState,
    slug: String,
    id: ComponentId,
) -> AppResult<(StatusPage, Vec<ComponentGroup>, Component)> {
    state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let component = components::get_component(c, &id)?;
            if component.page_id != page.id {
                return Err(AppError::NotFound("component".into()));
            }
            let groups = rows::list_groups(c, &page.id)?;
            Ok((page, groups, component))
        })
        .await
}

fn show(
    state: &AppState,
    auth: &Authenticated,
    page: &StatusPage,
    groups: &[ComponentGroup],
    editing: Option<&Component>,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let back = format!("/admin/pages/{}/components", page.slug);
    let target = FormTarget::new(
        &back,
        editing.map(|c| (c.id.as_str(), format!("Component {}", c.name))),
        format!("Add a component to {}", page.name),
    );
    let choices = std::iter::once((String::new(), "No group".to_owned()))
        .chain(groups.iter().map(|g| (g.id.to_string(), g.name.clone())));
    let view = ComponentForm {
        frame: ConsoleFrame::new(state, auth, target.heading.clone()),
        back,
        target,
        values: values(form, FIELDS),
        groups: options(choices, form.get("group_id")),
        errors: messages(refused, FIELDS),
    };
    render_form(state, refused, "admin/component_form", &view)
}

/// The input of `create_component`, or the fields that could not be read.
fn new_input(form: &Submitted) -> Result<NewComponentInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let input = NewComponentInput {
        name: form.get("name").to_owned(),
        description: text(form, "description"),
        group_id: text(form, "group_id"),
        region: text(form, "region"),
        position: number(form, "position", &mut errors),
        ..NewComponentInput::default()
    };
    if !errors.is_empty() {
        // Refused before the service sees it: report a blank name too.
        required(form, "name", &mut errors);
    }
    errors.is_empty().then_some(input).ok_or(errors)
}

/// The input of `update_component`: every field replaced (blank clears), a blank position
/// keeps the current one.
fn update_input(form: &Submitted) -> Result<UpdateComponentInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let input = UpdateComponentInput {
        name: Some(form.get("name").to_owned()),
        description: Some(text(form, "description")),
        group_id: Some(text(form, "group_id")),
        region: Some(text(form, "region")),
        position: number(form, "position", &mut errors),
        showcase: None,
    };
    if !errors.is_empty() {
        // Refused before the service sees it: report a blank name too.
        required(form, "name", &mut errors);
    }
    errors.is_empty().then_some(input).ok_or(errors)
}

/// The empty form (owners).
#[tracing::instrument(skip_all)]
pub async fn new_component_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (page, groups) = page_and_groups(&state, slug.into_inner()).await?;
    show(
        &state,
        &auth,
        &page,
        &groups,
        None,
        &Submitted::default(),
        None,
    )
}

/// Creates the component and goes back to the list (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn create_component(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let form = Submitted(form.into_inner());
    let (page, groups) = page_and_groups(&state, slug.into_inner()).await?;
    let saved = submit(new_input(&form), |input| {
        let (page_id, fields) = (page.id.clone(), form_changes(&form, &[]));
        audited(&state, &auth, Permission::Admin, move |c| {
            let component = components::create_component(c, &page_id, &input)?;
            let id = component.id.clone();
            let audit = change("component.create", "component", &id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/pages/{}/components", page.slug))),
        Err(refused) => refused,
    };
    show(&state, &auth, &page, &groups, None, &form, Some(&refused))
}

/// The component's form, filled (owners).
#[tracing::instrument(skip_all)]
pub async fn edit_component_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, ComponentId)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (slug, id) = path.into_inner();
    let (page, groups, component) = load(&state, slug, id).await?;
    let form = filled([
        ("name", component.name.clone()),
        (
            "description",
            component.description.clone().unwrap_or_default(),
        ),
        (
            "group_id",
            component.group_id.as_deref().unwrap_or_default().to_owned(),
        ),
        ("region", component.region.clone().unwrap_or_default()),
        ("position", component.position.to_string()),
    ]);
    show(&state, &auth, &page, &groups, Some(&component), &form, None)
}

/// Saves the component and goes back to the list (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn update_component(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, ComponentId)>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let form = Submitted(form.into_inner());
    let (slug, id) = path.into_inner();
    let (page, groups, component) = load(&state, slug, id).await?;
    let saved = submit(update_input(&form), |input| {
        let (page_id, id) = (page.id.clone(), component.id.clone());
        let fields = form_changes(&form, &[]);
        audited(&state, &auth, Permission::Admin, move |c| {
            components::update_component(c, &id, &input)?;
            let audit = change("component.update", "component", &id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/pages/{}/components", page.slug))),
        Err(refused) => refused,
    };
    let editing = Some(&component);
    show(
        &state,
        &auth,
        &page,
        &groups,
        editing,
        &form,
        Some(&refused),
    )
}

/// Deletes the component with its history and goes back to the list (303).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn delete_component(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, ComponentId)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (slug, id) = path.into_inner();
    let (page, _, component) = load(&state, slug, id).await?;
    let page_id = page.id.clone();
    audited(&state, &auth, Permission::Admin, move |c| {
        page_admin::delete_component(c, &page_id, &component.id)?;
        let fields = json!({"name": component.name});
        let id = &component.id;
        let audit = change("component.delete", "component", id, Some(&page_id), fields);
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/pages/{}/components", page.slug)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_field_clears_it_and_a_bad_position_is_reported() {
        let form = filled([
            ("name", "API".to_owned()),
            ("region", " ".to_owned()),
            ("position", "x".to_owned()),
        ]);
        let errors = update_input(&form).unwrap_err();
        assert!(errors.contains_key("position"));
        let form = filled([("name", "API".to_owned()), ("region", String::new())]);
        let input = update_input(&form).unwrap();
        assert_eq!(input.region, Some(None));
        assert_eq!(input.position, None);
        assert!(crate::http::admin::fields::ticked(
            &filled([("x", "yes".to_owned())]),
            "x"
        ));
    }
}
