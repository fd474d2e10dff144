//! A page's logo and favicon from the console's settings (owners): `POST
//! /admin/pages/{slug}/images/{logo|favicon}` takes a `multipart/form-data` upload (its CSRF
//! field read by the `Authenticated` extractor, the file checked as the API's `PUT` checks it:
//! a real PNG, SVG or WebP, an SVG filtered of anything that runs or loads), and
//! `POST .../images/{role}/delete` removes it. Both go back to the settings (303); a refused
//! file is an error page naming the field and its reason, with the way back.

use actix_web::{HttpRequest, HttpResponse, web};
use bytes::BytesMut;
use futures_util::StreamExt;
use serde_json::json;

use super::see_other;
use super::write::{audited, change};
use crate::domain::ImageRole;
use crate::domain::image::{MAX_IMAGE_BYTES, check_image};
use crate::error::{AppError, AppResult};
use crate::http::auth::{Authenticated, Permission};
use crate::services::{brand, pages};
use crate::state::AppState;

/// Registers the routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/admin/pages/{slug}/images/{role}", web::post().to(upload))
        .route(
            "/admin/pages/{slug}/images/{role}/delete",
            web::post().to(remove),
        );
}

fn role(text: &str) -> AppResult<ImageRole> {
    text.parse()
        .map_err(|_| AppError::NotFound("page image".into()))
}

/// The `image` file of an upload, at most [`MAX_IMAGE_BYTES`].
async fn image_field(req: &HttpRequest, payload: web::Payload) -> AppResult<Vec<u8>> {
    let unreadable = |e: actix_multipart::MultipartError| {
        AppError::BadRequest(format!("the upload could not be read: {e}"))
    };
    let mut parts = actix_multipart::Multipart::new(req.headers(), payload.into_inner());
    while let Some(part) = parts.next().await {
        let mut part = part.map_err(unreadable)?;
        if part.name() != Some("image") {
            while let Some(chunk) = part.next().await {
                chunk.map_err(unreadable)?;
            }
            continue;
        }
        let mut bytes = BytesMut::new();
        while let Some(chunk) = part.next().await {
            let chunk = chunk.map_err(unreadable)?;
            if bytes.len() + chunk.len() > MAX_IMAGE_BYTES {
                return Err(AppError::field(
                    "image",
                    format!("the image is larger than {} KiB", MAX_IMAGE_BYTES / 1024),
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        if bytes.is_empty() {
            break;
        }
        return Ok(bytes.to_vec());
    }
    Err(AppError::field("image", "choose a PNG, SVG or WebP file"))
}

/// Stores the uploaded file as the page's logo or favicon.
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn upload(
    auth: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (slug, role) = path.into_inner();
    let role = self::role(&role)?;
    let bytes = image_field(&req, payload).await?;
    let checked = state
        .image_checks
        .run("checking an image", move || check_image(&bytes))
        .await?
        .map_err(|e| AppError::field("image", e.to_string()))?;
    let fields = json!({
        "content_type": checked.kind.content_type(),
        "bytes": checked.bytes.len(),
        "sanitised": checked.sanitised,
    });
    let back = format!("/admin/pages/{slug}/settings");
    audited(&state, &auth, Permission::Admin, move |c| {
        let page = pages::get_page_by_slug(c, &slug)?;
        let path = format!("/status/{}", page.slug);
        brand::put_image(c, &page.id, &path, role, checked)?;
        let action = match role {
            ImageRole::Logo => "page.logo",
            ImageRole::Favicon => "page.favicon",
        };
        Ok(((), change(action, "page", &page.id, Some(&page.id), fields)))
    })
    .await?;
    Ok(see_other(&back))
}

/// Removes the page's logo or favicon.
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
async fn remove(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let (slug, role) = path.into_inner();
    let role = self::role(&role)?;
    let back = format!("/admin/pages/{slug}/settings");
    audited(&state, &auth, Permission::Admin, move |c| {
        let page = pages::get_page_by_slug(c, &slug)?;
        brand::remove_image(c, &page.id, role)?;
        let action = match role {
            ImageRole::Logo => "page.logo_delete",
            ImageRole::Favicon => "page.favicon_delete",
        };
        Ok((
            (),
            change(action, "page", &page.id, Some(&page.id), json!({})),
        ))
    })
    .await?;
    Ok(see_other(&back))
}
