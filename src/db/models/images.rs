//! The images a page carries (`page_images`): its logo and favicon, one of each, stored as
//! served (an SVG already filtered), with the SHA-256 that fingerprints their URLs.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::page_images;
use crate::domain::{ImageRole, PageId};

/// An image as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = page_images)]
pub struct PageImage {
    pub page_id: PageId,
    pub kind: ImageRole,
    pub content_type: String,
    pub data: Vec<u8>,
    /// SHA-256 of `data`, hex.
    pub digest: String,
    pub uploaded_at: NaiveDateTime,
}

/// The page's images.
pub fn for_page(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<PageImage>> {
    page_images::table
        .filter(page_images::page_id.eq(page_id))
        .select(PageImage::as_select())
        .load(conn)
}

/// Stores `image`, replacing the page's image of the same role.
pub fn put(conn: &mut DbConn, image: &PageImage) -> QueryResult<()> {
    remove(conn, &image.page_id, image.kind)?;
    diesel::insert_into(page_images::table)
        .values(image)
        .execute(conn)?;
    Ok(())
}

/// Removes the page's image of `role`; whether there was one.
pub fn remove(conn: &mut DbConn, page_id: &PageId, role: ImageRole) -> QueryResult<bool> {
    let gone = diesel::delete(
        page_images::table
            .filter(page_images::page_id.eq(page_id))
            .filter(page_images::kind.eq(role)),
    )
    .execute(conn)?;
    Ok(gone > 0)
}
