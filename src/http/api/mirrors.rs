//! `/pages/{slug}/mirrors`: components that follow a vendor's component on another
//! Statuspage-compatible page. Owners make a component follow one (the vendor's summary is
//! read at once, under the outbound rules, so a wrong URL or name is refused with the reason),
//! list them with the vendor's state, and stop following.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::Parts;
use super::run::{self, Api, Record};
use crate::domain::{ComponentId, vendor};
use crate::error::{AppError, AppResult};
use crate::http::auth::Permission;
use crate::services::mirrors::{self as service, Follow};

/// The body of `POST /pages/{slug}/mirrors`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FollowInput {
    /// The vendor's page, its `/api/v2/` base or its `summary.json`.
    url: String,
    /// The vendor's component: its id, its name, or "Group - Name".
    vendor_component: String,
    /// The component of this page that follows it; without it, one is made.
    #[serde(default)]
    component_id: Option<ComponentId>,
}

/// `POST /pages/{slug}/mirrors`: 201 with the mirrored component, its status already the
/// vendor's.
#[tracing::instrument(skip_all)]
pub async fn follow(
    api: Api,
    slug: web::Path<String>,
    body: web::Json<Value>,
) -> AppResult<HttpResponse> {
    let (slug, fields) = (slug.into_inner(), body.into_inner());
    let mut parts = Parts::of(&fields)?;
    let input: FollowInput = parts.part()?;
    parts.finish()?;
    // Only an owner makes Herald read another site, and only for a page there is.
    api.auth().require(Permission::Admin)?;
    let exists = slug.clone();
    api.state()
        .db
        .run(move |c| run::page(c, &exists).map(drop))
        .await?;
    let url = vendor::summary_url(&input.url).map_err(|m| AppError::field("url", m))?;
    let (summary, etag) = read_summary(api.state(), &url).await?;
    let poll = api.state().settings.mirror_poll;
    api.page_write(Permission::Admin, slug, fields, move |c, page| {
        let view = service::follow(
            c,
            &page.id,
            &Follow {
                url: &url,
                wanted: &input.vendor_component,
                summary: &summary,
                etag,
                component_id: input.component_id.as_ref(),
                poll,
                now: crate::db::now(),
            },
        )?;
        let id = view.component_id.to_string();
        run::answered(
            201,
            json!(view),
            Record::new("component.mirror", "component", &id),
        )
    })
    .await
}

/// The vendor's summary as it is now, or a 422 on `url` saying why it cannot be read.
async fn read_summary(
    state: &crate::state::AppState,
    url: &url::Url,
) -> AppResult<(vendor::Summary, Option<String>)> {
    crate::workers::mirrors::read_now(&state.fetcher, url)
        .await
        .map_err(|why| AppError::field("url", format!("{url} cannot be read: {why}")))
}

/// `GET /pages/{slug}/mirrors`.
pub async fn list(api: Api, slug: web::Path<String>) -> AppResult<HttpResponse> {
    api.page_read(Permission::Read, slug.into_inner(), move |c, page| {
        Ok(json!(service::list(c, &page.id)?))
    })
    .await
}

/// `GET /pages/{slug}/mirrors/{component_id}`.
pub async fn get(api: Api, path: web::Path<(String, ComponentId)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_read(Permission::Read, slug, move |c, page| {
        Ok(json!(service::get(c, &page.id, &id)?))
    })
    .await
}

/// `DELETE /pages/{slug}/mirrors/{component_id}`: the component stops following; it keeps
/// its status and stays on the page.
#[tracing::instrument(skip_all)]
pub async fn unfollow(api: Api, path: web::Path<(String, ComponentId)>) -> AppResult<HttpResponse> {
    let (slug, id) = path.into_inner();
    api.page_write(Permission::Admin, slug, Value::Null, move |c, page| {
        let view = service::unfollow(c, &page.id, &id)?;
        run::deleted(
            Record::new("component.unmirror", "component", id.as_str())
                .with_changes(json!({"url": view.url})),
        )
    })
    .await
}
