//! A page's own webhooks (`page_webhooks`): where support notices and responder reminders are
//! POSTed, each with its signing secret. At most one per page and purpose.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::page_webhooks;
use crate::domain::PageId;

/// A stored page webhook.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = page_webhooks)]
pub struct PageWebhook {
    pub page_id: PageId,
    /// `support` or `responder`.
    pub purpose: String,
    pub url: String,
    /// The Standard Webhooks signing secret (`whsec_...`).
    pub secret: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// The page's webhook for `purpose`, if set.
pub fn find(
    conn: &mut DbConn,
    page_id: &PageId,
    purpose: &str,
) -> QueryResult<Option<PageWebhook>> {
    page_webhooks::table
        .find((page_id, purpose))
        .select(PageWebhook::as_select())
        .first(conn)
        .optional()
}

/// Every webhook of the page.
pub fn list(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<PageWebhook>> {
    page_webhooks::table
        .filter(page_webhooks::page_id.eq(page_id))
        .order(page_webhooks::purpose)
        .select(PageWebhook::as_select())
        .load(conn)
}

/// Stores `row`, replacing the page's webhook for the same purpose.
pub fn put(conn: &mut DbConn, row: &PageWebhook) -> QueryResult<()> {
    let updated = diesel::update(page_webhooks::table.find((&row.page_id, &row.purpose)))
        .set((
            page_webhooks::url.eq(&row.url),
            page_webhooks::secret.eq(&row.secret),
            page_webhooks::updated_at.eq(row.updated_at),
        ))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(page_webhooks::table)
            .values(row)
            .execute(conn)?;
    }
    Ok(())
}

/// Removes the page's webhook for `purpose`; returns how many went.
pub fn remove(conn: &mut DbConn, page_id: &PageId, purpose: &str) -> QueryResult<usize> {
    diesel::delete(page_webhooks::table.find((page_id, purpose))).execute(conn)
}
