//! A page's images (its logo and favicon): stored once checked, described, removed. The check
//! itself (`domain::image::check_image`) is CPU work the caller runs off the async threads.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::db::models::images::{self, PageImage};
use crate::db::{DbConn, now, write_tx};
use crate::domain::image::{CheckedImage, ImageKind};
use crate::domain::{ImageRole, PageId};
use crate::error::{AppError, AppResult};
use crate::services::public::data::image_file_name;

/// What the API says of a page's image.
#[derive(Debug, Clone, Serialize)]
pub struct ImageView {
    pub role: ImageRole,
    pub content_type: String,
    /// Its size in bytes, as served.
    pub bytes: usize,
    pub sha256: String,
    /// Where the page serves it (below the page, so a restricted page's readers only).
    pub url: String,
    pub uploaded_at: chrono::DateTime<chrono::Utc>,
}

fn view(image: &PageImage, page_path: &str) -> ImageView {
    let kind = ImageKind::from_content_type(&image.content_type);
    let file = kind.map(|kind| image_file_name(image.kind.as_str(), kind, &image.digest));
    ImageView {
        role: image.kind,
        content_type: image.content_type.clone(),
        bytes: image.data.len(),
        sha256: image.digest.clone(),
        url: format!("{page_path}/{}", file.unwrap_or_default()),
        uploaded_at: image.uploaded_at.and_utc(),
    }
}

/// Stores a checked image as the page's `role`, replacing the one before.
pub fn put_image(
    conn: &mut DbConn,
    page_id: &PageId,
    page_path: &str,
    role: ImageRole,
    image: CheckedImage,
) -> AppResult<ImageView> {
    let row = PageImage {
        page_id: page_id.clone(),
        kind: role,
        content_type: image.kind.content_type().to_owned(),
        digest: hex::encode(Sha256::digest(&image.bytes)),
        data: image.bytes,
        uploaded_at: now(),
    };
    write_tx(conn, |conn| -> AppResult<()> {
        Ok(images::put(conn, &row)?)
    })?;
    Ok(view(&row, page_path))
}

/// The page's image of `role` (404 when it has none).
pub fn image(
    conn: &mut DbConn,
    page_id: &PageId,
    page_path: &str,
    role: ImageRole,
) -> AppResult<ImageView> {
    images::for_page(conn, page_id)?
        .iter()
        .find(|i| i.kind == role)
        .map(|i| view(i, page_path))
        .ok_or_else(|| AppError::NotFound(format!("the page's {}", role.as_str())))
}

/// Removes the page's image of `role` (404 when it has none).
pub fn remove_image(conn: &mut DbConn, page_id: &PageId, role: ImageRole) -> AppResult<()> {
    match images::remove(conn, page_id, role)? {
        true => Ok(()),
        false => Err(AppError::NotFound(format!("the page's {}", role.as_str()))),
    }
}
