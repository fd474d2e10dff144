//! "Next update by" as a discipline, not a text line: overdue incidents, incidents due within a
//! few minutes (for reminders), and each page's punctuality. Which updates came late is the
//! domain's `lateness` over an incident's updates.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::db::DbConn;
use crate::db::models::deadlines;
use crate::db::models::incidents::Incident;
use crate::domain::{PageId, Promise, Punctuality, score};
use crate::error::AppResult;

/// Open incidents whose promised update is overdue at `now`, most overdue first; one page or all.
pub fn overdue(
    conn: &mut DbConn,
    page_id: Option<&str>,
    now: DateTime<Utc>,
) -> AppResult<Vec<Incident>> {
    Ok(deadlines::open_due_between(
        conn,
        page_id,
        None,
        now.naive_utc(),
    )?)
}

/// Open incidents whose promised update falls due within `minutes` of `now` (not yet overdue),
/// soonest first, on every page: what reminders to responders are sent for.
pub fn due_within(conn: &mut DbConn, minutes: i64, now: DateTime<Utc>) -> AppResult<Vec<Incident>> {
    let until = now + Duration::minutes(minutes.max(0));
    Ok(deadlines::open_due_between(
        conn,
        None,
        Some(now.naive_utc()),
        until.naive_utc(),
    )?)
}

/// A page's punctuality over the last 30 and 90 days.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PagePunctuality {
    pub last_30_days: Punctuality,
    pub last_90_days: Punctuality,
}

/// Deadlines met and missed on the page over the last 30 and 90 days.
pub fn punctuality(
    conn: &mut DbConn,
    page_id: &PageId,
    now: DateTime<Utc>,
) -> AppResult<PagePunctuality> {
    let since = now - Duration::days(90);
    let rows = deadlines::promises_since(conn, page_id, since.naive_utc())?;
    let mut result = PagePunctuality {
        last_30_days: Punctuality::default(),
        last_90_days: Punctuality::default(),
    };
    let mut start = 0;
    while start < rows.len() {
        let end = rows[start..]
            .iter()
            .position(|r| r.0 != rows[start].0)
            .map_or(rows.len(), |n| start + n);
        let promises: Vec<Promise> = rows[start..end]
            .iter()
            .map(|(_, posted, due)| Promise {
                posted_at: posted.and_utc(),
                next_update_by: due.map(|d| d.and_utc()),
            })
            .collect();
        result
            .last_30_days
            .add(score(&promises, now - Duration::days(30), now));
        result.last_90_days.add(score(&promises, since, now));
        start = end;
    }
    Ok(result)
}

/// How many open incidents are past their "next update by" at `at` (for `/metrics`).
pub fn overdue_count(conn: &mut DbConn, at: chrono::NaiveDateTime) -> AppResult<i64> {
    Ok(deadlines::overdue_count(conn, at)?)
}
