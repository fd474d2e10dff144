//! Managing a page's component groups (owners): `GET/POST /admin/pages/{slug}/groups/new`,
//! `GET/POST /admin/pages/{slug}/groups/{id}` (name, description, position) and
//! `POST .../groups/{id}/delete` (its components stay, ungrouped).

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{filled, messages, number, required, text, values};
use super::form::{FormTarget, Submitted};
use super::write::{audited, change, form_changes, submit};
use super::{ConsoleFrame, render_form, see_other};
use crate::auth::{Authenticated, Permission};
use crate::db::models::components::ComponentGroup;
use crate::db::models::pages::StatusPage;
use crate::domain::GroupId;
use crate::error::{AppResult, FieldErrors};
use crate::services::components::{self, GroupInput};
use crate::services::page_admin::{self, GroupPatch};
use crate::services::pages;
use crate::state::AppState;

const FIELDS: &[&str] = &["name", "description", "position"];

/// Registers the group routes ("new" before "{id}").
pub fn routes(cfg: &mut web::ServiceConfig) {
    let base = "/admin/pages/{slug}/groups";
    cfg.route(&format!("{base}/new"), web::get().to(new_group_form))
        .route(&format!("{base}/new"), web::post().to(create_group))
        .route(&format!("{base}/{{id}}"), web::get().to(edit_group_form))
        .route(&format!("{base}/{{id}}"), web::post().to(update_group))
        .route(
            &format!("{base}/{{id}}/delete"),
            web::post().to(delete_group),
        );
}

#[derive(Serialize)]
struct GroupForm {
    frame: ConsoleFrame,
    #[serde(flatten)]
    target: FormTarget,
    back: String,
    values: Value,
    errors: Value,
}

async fn page(state: &AppState, slug: String) -> AppResult<StatusPage> {
    state
        .db
        .run(move |c| pages::get_page_by_slug(c, &slug))
        .await
}

async fn load(
    state: &AppState,
    slug: String,
    id: GroupId,
) -> AppResult<(StatusPage, ComponentGroup)> {
    state
        .db
        .run(move |c| {
            let page = pages::get_page_by_slug(c, &slug)?;
            let group = page_admin::get_group(c, &page.id, &id)?;
            Ok((page, group))
        })
        .await
}

fn show(
    state: &AppState,
    auth: &Authenticated,
    page: &StatusPage,
    editing: Option<&ComponentGroup>,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let back = format!("/admin/pages/{}/components", page.slug);
    let base = format!("/admin/pages/{}/groups", page.slug);
    let target = FormTarget::new(
        &base,
        editing.map(|g| (g.id.as_str(), format!("Group {}", g.name))),
        format!("Add a component group to {}", page.name),
    );
    let view = GroupForm {
        frame: ConsoleFrame::new(state, auth, target.heading.clone()),
        back,
        target,
        values: values(form, FIELDS),
        errors: messages(refused, FIELDS),
    };
    render_form(state, refused, "admin/group_form", &view)
}

/// The group fields typed: name, description (blank clears) and position (blank: last, or
/// unchanged).
fn group_input(form: &Submitted) -> Result<(String, Option<String>, Option<i32>), FieldErrors> {
    let mut errors = FieldErrors::new();
    let position = number(form, "position", &mut errors);
    let input = (
        form.get("name").to_owned(),
        text(form, "description"),
        position,
    );
    if !errors.is_empty() {
        // Refused before the service sees it: report a blank name too.
        required(form, "name", &mut errors);
    }
    errors.is_empty().then_some(input).ok_or(errors)
}

/// The empty form (owners).
#[tracing::instrument(skip_all)]
pub async fn new_group_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let page = page(&state, slug.into_inner()).await?;
    show(&state, &auth, &page, None, &Submitted::default(), None)
}

/// Creates the group and goes back to the components (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn create_group(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let form = Submitted(form.into_inner());
    let page = page(&state, slug.into_inner()).await?;
    let saved = submit(group_input(&form), |(name, description, position)| {
        let input = GroupInput {
            name,
            description,
            position,
        };
        let (page_id, fields) = (page.id.clone(), form_changes(&form, &[]));
        audited(&state, &auth, Permission::Admin, move |c| {
            let group = components::create_group(c, &page_id, &input)?;
            let kind = "component_group";
            let audit = change(
                "component_group.create",
                kind,
                &group.id,
                Some(&page_id),
                fields,
            );
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/pages/{}/components", page.slug))),
        Err(refused) => refused,
    };
    show(&state, &auth, &page, None, &form, Some(&refused))
}

/// The group's form, filled (owners).
#[tracing::instrument(skip_all)]
pub async fn edit_group_form(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, GroupId)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (slug, id) = path.into_inner();
    let (page, group) = load(&state, slug, id).await?;
    let form = filled([
        ("name", group.name.clone()),
        ("description", group.description.clone().unwrap_or_default()),
        ("position", group.position.to_string()),
    ]);
    show(&state, &auth, &page, Some(&group), &form, None)
}

/// Saves the group and goes back to the components (303), or the form again (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn update_group(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, GroupId)>,
    form: web::Form<Vec<(String, String)>>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let form = Submitted(form.into_inner());
    let (slug, id) = path.into_inner();
    let (page, group) = load(&state, slug, id).await?;
    let saved = submit(group_input(&form), |(name, description, position)| {
        let patch = GroupPatch {
            name: Some(name),
            description: Some(description),
            position,
        };
        let (page_id, id) = (page.id.clone(), group.id.clone());
        let fields = form_changes(&form, &[]);
        audited(&state, &auth, Permission::Admin, move |c| {
            page_admin::update_group(c, &page_id, &id, &patch)?;
            let kind = "component_group";
            let audit = change("component_group.update", kind, &id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    let refused = match saved {
        Ok(()) => return Ok(see_other(&format!("/admin/pages/{}/components", page.slug))),
        Err(refused) => refused,
    };
    show(&state, &auth, &page, Some(&group), &form, Some(&refused))
}

/// Deletes the group (its components stay, ungrouped) and goes back (303).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn delete_group(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, GroupId)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (slug, id) = path.into_inner();
    let (page, group) = load(&state, slug, id).await?;
    let page_id = page.id.clone();
    audited(&state, &auth, Permission::Admin, move |c| {
        page_admin::delete_group(c, &page_id, &group.id)?;
        let fields = json!({"name": group.name});
        let kind = "component_group";
        let audit = change(
            "component_group.delete",
            kind,
            &group.id,
            Some(&page_id),
            fields,
        );
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&format!("/admin/pages/{}/components", page.slug)))
}
