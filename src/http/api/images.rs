//! A page's images (owners): `PUT /pages/{slug}/{logo|favicon}` with the image as the body
//! (PNG, SVG or WebP, read as what its bytes are; an SVG is filtered of anything that could run
//! or load), `GET` describes it, `DELETE` removes it.

use actix_web::{HttpResponse, web};
use serde_json::json;

use super::run::{self, Api, Record};
use crate::domain::ImageRole;
use crate::domain::image::{MAX_IMAGE_BYTES, check_image};
use crate::error::{AppError, AppResult};
use crate::http::auth::Permission;
use crate::services::brand as service;

/// Registers one handler per role, each the shared one with its role.
macro_rules! per_role {
    ($($name:ident => $role:expr, $shared:ident($($arg:ident: $ty:ty),*);)*) => {$(
        pub async fn $name(api: Api, slug: web::Path<String>, $($arg: $ty),*) -> AppResult<HttpResponse> {
            $shared(api, slug.into_inner(), $role, $($arg),*).await
        }
    )*};
}

per_role! {
    put_logo => ImageRole::Logo, put(payload: web::Payload);
    put_favicon => ImageRole::Favicon, put(payload: web::Payload);
    get_logo => ImageRole::Logo, get();
    get_favicon => ImageRole::Favicon, get();
    delete_logo => ImageRole::Logo, delete();
    delete_favicon => ImageRole::Favicon, delete();
}

/// `PUT /pages/{slug}/logo` (or `/favicon`): stores the body as the page's image.
#[tracing::instrument(skip_all)]
async fn put(
    api: Api,
    slug: String,
    role: ImageRole,
    payload: web::Payload,
) -> AppResult<HttpResponse> {
    api.auth().require(Permission::Admin)?;
    let bytes = match payload.to_bytes_limited(MAX_IMAGE_BYTES).await {
        Ok(Ok(bytes)) => bytes,
        Err(_) => {
            return Err(AppError::field(
                "image",
                format!("the image is larger than {} KiB", MAX_IMAGE_BYTES / 1024),
            ));
        }
        Ok(Err(e)) => {
            return Err(AppError::BadRequest(format!(
                "the request body could not be read: {e}"
            )));
        }
    };
    let checked = api
        .state()
        .image_checks
        .run("checking an image", move || check_image(&bytes))
        .await?
        .map_err(|e| AppError::field("image", e.to_string()))?;
    let recorded = json!({
        "content_type": checked.kind.content_type(),
        "bytes": checked.bytes.len(),
        "sanitised": checked.sanitised,
    });
    let sanitised = checked.sanitised;
    api.page_write(Permission::Admin, slug, recorded, move |c, page| {
        let path = format!("/status/{}", page.slug);
        let view = service::put_image(c, &page.id, &path, role, checked)?;
        let mut body = json!(view);
        if let Some(body) = body.as_object_mut() {
            body.insert("sanitised".into(), json!(sanitised));
        }
        let action = match role {
            ImageRole::Logo => "page.logo",
            ImageRole::Favicon => "page.favicon",
        };
        run::answered(200, body, Record::new(action, "page", page.id.as_str()))
    })
    .await
}

/// `GET /pages/{slug}/logo` (or `/favicon`): what the page carries (404 when nothing).
async fn get(api: Api, slug: String, role: ImageRole) -> AppResult<HttpResponse> {
    api.page_read(Permission::Read, slug, move |c, page| {
        let path = format!("/status/{}", page.slug);
        Ok(json!(service::image(c, &page.id, &path, role)?))
    })
    .await
}

/// `DELETE /pages/{slug}/logo` (or `/favicon`): the page goes back to its name (or Herald's
/// icon).
#[tracing::instrument(skip_all)]
async fn delete(api: Api, slug: String, role: ImageRole) -> AppResult<HttpResponse> {
    api.page_write(Permission::Admin, slug, json!({}), move |c, page| {
        service::remove_image(c, &page.id, role)?;
        let action = match role {
            ImageRole::Logo => "page.logo_delete",
            ImageRole::Favicon => "page.favicon_delete",
        };
        run::deleted(Record::new(action, "page", page.id.as_str()))
    })
    .await
}
