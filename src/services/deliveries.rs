//! A page's deliveries as responders handle them: one that is dead or failed goes back in the
//! queue (the console's button and `POST /api/v1/pages/{slug}/deliveries/{id}/retry`).

use chrono::NaiveDateTime;

use crate::db::DbConn;
use crate::db::models::notify::{self as rows, Delivery, DeliveryQuery};
use crate::domain::PageId;
use crate::error::{AppError, AppResult};

/// The deliveries `query` selects, newest first.
pub fn list(conn: &mut DbConn, query: &DeliveryQuery) -> AppResult<Vec<Delivery>> {
    Ok(rows::list_deliveries(conn, query)?)
}

/// Per channel, how many deliveries wait to be sent and since when the oldest (for `/metrics`).
pub fn pending_by_channel(
    conn: &mut DbConn,
) -> AppResult<Vec<(String, i64, Option<NaiveDateTime>)>> {
    Ok(rows::pending_by_channel(conn)?)
}

/// Puts the page's delivery `id` back in the queue, due at `now` with a fresh count of
/// attempts, and answers it as it now stands: 404 for no such delivery of the page, 409 for
/// one that is neither dead nor failed.
pub fn retry(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &str,
    now: NaiveDateTime,
) -> AppResult<Delivery> {
    let found = rows::find_delivery(conn, page_id, id)?
        .ok_or_else(|| AppError::NotFound("delivery".into()))?;
    if rows::requeue(conn, id, now)? == 0 {
        return Err(AppError::Conflict(format!(
            "delivery {id} is {}; only dead or failed deliveries are retried",
            found.state
        )));
    }
    Ok(rows::find_delivery(conn, page_id, id)?.unwrap_or(found))
}
