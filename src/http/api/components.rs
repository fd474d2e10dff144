//! `/pages/{slug}/components` and `/pages/{slug}/component-groups`.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::Value;

use super::body::{Parts, typed};
use super::run::{self, Api, Record};
use super::views;
use crate::domain::{ComponentId, ComponentStatus, GroupId};
use crate::error::AppResult;
use crate::http::auth::Permission;
use crate::services::components::{
    self as service, GroupInput, NewComponentInput, UpdateComponentInput,
};
use crate::services::page_admin::{self, GroupPatch};

/// A component patch: its fields, and optionally a new status (Statuspage sends both at once)
/// and the sign-in mark (see the support form).
#[derive(Deserialize)]
struct StatusPatch {
    status: Option<ComponentStatus>,
    signin: Option<bool>,
}

/// `POST /pages/{slug}/components`.
#[tracing::instrument(skip_all)]
pub async fn create_component(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let input: NewComponentInput = typed(&fields)?;
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let component = service::create_component(c, &page.id, &input)?;
        run::answered(
            201,
            views::component(&component),
            Record::new("component.create", "component", &component.id),
        )
    })
    .await
}

/// `GET /pages/{slug}/components`: the page's components in display order.
pub async fn list_components(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        let tree = service::list_components(c, &page.id)?;
        Ok(tree.components().map(views::component).collect())
    })
    .await
}

/// `PATCH /pages/{slug}/components/{id}`: name, description, group, region, position,
/// showcase and status.
#[tracing::instrument(skip_all)]
pub async fn update_component(
    api: Api,
    path: web::Path<(String, ComponentId)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let mut parts = Parts::of(&fields)?;
    let input: UpdateComponentInput = parts.part()?;
    let StatusPatch { status, signin } = parts.part()?;
    parts.finish()?;
    api.page_write(
        status_only_permission(&fields),
        slug,
        fields,
        move |c, page| {
            let mut component = service::get_page_component(c, &page.id, &id)?;
            if !input.is_empty() {
                component = service::update_component(c, &id, &input)?;
            }
            if let Some(status) = status {
                component = service::set_found_status(c, component, status, None)?;
            }
            if let Some(signin) = signin {
                service::set_signin(c, &id, signin)?;
                component = service::get_component(c, &id)?;
            }
            run::answered(
                200,
                views::component(&component),
                Record::new("component.update", "component", &id),
            )
        },
    )
    .await
}

/// `POST /pages/{slug}/component-groups`.
#[tracing::instrument(skip_all)]
pub async fn create_group(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let input: GroupInput = typed(&fields)?;
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let group = service::create_group(c, &page.id, &input)?;
        run::answered(
            201,
            views::group(&group, &[]),
            Record::new("component_group.create", "component_group", &group.id),
        )
    })
    .await
}

/// `GET /pages/{slug}/component-groups`: the groups with their members' ids.
pub async fn list_groups(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    let slug = slug.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        let tree = service::list_components(c, &page.id)?;
        Ok(tree
            .entries
            .iter()
            .filter_map(|entry| match entry {
                service::ComponentEntry::Group { group, components } => {
                    Some(views::group(group, &components.iter().collect::<Vec<_>>()))
                }
                service::ComponentEntry::Component(_) => None,
            })
            .collect())
    })
    .await
}

/// `DELETE /pages/{slug}/components/{id}`.
#[tracing::instrument(skip_all)]
pub async fn delete_component(
    api: Api,
    path: web::Path<(String, ComponentId)>,
) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Admin, slug, Value::Null, move |c, page| {
        page_admin::delete_component(c, &page.id, &id)?;
        run::deleted(Record::new("component.delete", "component", &id))
    })
    .await
}

/// `PATCH /pages/{slug}/component-groups/{id}`: name, description, position.
#[tracing::instrument(skip_all)]
pub async fn update_group(
    api: Api,
    path: web::Path<(String, GroupId)>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let ((slug, id), fields) = (path.into_inner(), body.into_inner());
    let patch: GroupPatch = typed(&fields)?;
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let group = page_admin::update_group(c, &page.id, &id, &patch)?;
        let members = service::list_components(c, &page.id)?;
        let members: Vec<_> = members
            .components()
            .filter(|m| m.group_id.as_deref() == Some(group.id.as_str()))
            .collect();
        run::answered(
            200,
            views::group(&group, &members),
            Record::new("component_group.update", "component_group", &id),
        )
    })
    .await
}

/// `DELETE /pages/{slug}/component-groups/{id}`: its components stay, ungrouped.
#[tracing::instrument(skip_all)]
pub async fn delete_group(api: Api, path: web::Path<(String, GroupId)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Admin, slug, Value::Null, move |c, page| {
        page_admin::delete_group(c, &page.id, &id)?;
        run::deleted(Record::new(
            "component_group.delete",
            "component_group",
            &id,
        ))
    })
    .await
}

/// Responders change a component's status; its name, place and flags, like creating and
/// deleting components and groups, are the page's structure, which owners manage.
fn status_only_permission(fields: &Value) -> Permission {
    match fields.as_object() {
        Some(body) if !body.is_empty() && body.keys().all(|key| key == "status") => {
            Permission::Write
        }
        _ => Permission::Admin,
    }
}
