//! Retention: what is only history is deleted once past the time its setting keeps it
//! (`retention_*_days`), a small batch of each kind per transaction, by one process at a time.
//! What pages and the audit log show is not history and is never deleted here.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::config::Retention;
use crate::db::models::retention::{self as rows, History};
use crate::db::{DbConn, archive, write_tx};
use crate::error::AppResult;

/// Rows of one kind deleted in one transaction, at most: short enough that a write waiting
/// behind it waits milliseconds.
pub const BATCH: i64 = 1_000;

/// What one batch deleted, or that another process has the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Batch {
    Deleted(Vec<(&'static str, usize)>),
    NotOurTurn,
}

impl Batch {
    /// Whether a full batch of some kind was deleted: there may be more.
    pub fn more(&self) -> bool {
        match self {
            Self::Deleted(counts) => counts.iter().any(|(_, n)| *n as i64 >= BATCH),
            Self::NotOurTurn => false,
        }
    }
}

/// How long `kind` is kept.
fn kept(retention: &Retention, kind: History) -> Option<Duration> {
    match kind {
        History::Deliveries => retention.deliveries,
        History::Jobs => retention.jobs,
        History::Support => retention.support,
        History::Alerts => retention.alerts,
    }
}

/// The moment before which `kind` is past its time at `now` (`None`: kept for ever).
pub fn cutoff(retention: &Retention, kind: History, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let keep = chrono::Duration::from_std(kept(retention, kind)?).ok()?;
    now.checked_sub_signed(keep)
}

/// Deletes one batch of each kind past its time at `now`, in one transaction; then, once the
/// deliveries are gone, the notification events left with none.
pub fn delete_batch(
    conn: &mut DbConn,
    retention: &Retention,
    now: DateTime<Utc>,
) -> AppResult<Batch> {
    write_tx(conn, |c| {
        if !rows::take_turn(c)? {
            return Ok(Batch::NotOurTurn);
        }
        let mut deleted = Vec::new();
        for kind in History::ALL {
            let Some(before) = cutoff(retention, kind, now) else {
                continue;
            };
            let before = crate::services::pages::row_time(before);
            deleted.push((kind.table(), rows::delete_batch(c, kind, before, BATCH)?));
            if kind == History::Deliveries {
                let events = rows::delete_spent_events(c, before, BATCH)?;
                deleted.push(("notification_events", events));
            }
        }
        Ok(Batch::Deleted(deleted))
    })
}

/// What `/metrics` shows of the database's size: rows per table, and per kind of history the
/// age of the oldest row kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Sizes {
    pub rows: Vec<(String, i64)>,
    pub oldest: Vec<(&'static str, Option<DateTime<Utc>>)>,
}

/// Reads [`Sizes`], in one snapshot.
pub fn sizes(conn: &mut DbConn) -> AppResult<Sizes> {
    crate::db::read_snapshot(conn, |c| {
        let mut rows = Vec::new();
        for table in archive::tables(c).map_err(|e| anyhow::anyhow!(e))? {
            let n = archive::count(c, &table.name)?;
            rows.push((table.name, n));
        }
        let mut oldest = Vec::new();
        for kind in History::ALL {
            let at = rows::oldest(c, kind)?.map(|at| at.and_utc());
            oldest.push((kind.table(), at));
        }
        Ok(Sizes { rows, oldest })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn each_kind_is_past_its_time_after_its_own_setting_and_zero_keeps_it() {
        let day = Duration::from_secs(86_400);
        let retention = Retention {
            deliveries: Some(day * 90),
            jobs: Some(day * 30),
            support: None,
            alerts: Some(day),
        };
        let now = Utc.with_ymd_and_hms(2026, 12, 7, 12, 0, 0).unwrap();
        let at = |y, m, d| Some(Utc.with_ymd_and_hms(y, m, d, 12, 0, 0).unwrap());
        assert_eq!(cutoff(&retention, History::Deliveries, now), at(2026, 9, 8));
        assert_eq!(cutoff(&retention, History::Jobs, now), at(2026, 11, 7));
        assert_eq!(cutoff(&retention, History::Support, now), None);
        assert_eq!(cutoff(&retention, History::Alerts, now), at(2026, 12, 6));
    }

    #[test]
    fn a_full_batch_means_more_may_wait() {
        let full = Batch::Deleted(vec![("deliveries", BATCH as usize), ("jobs", 0)]);
        let short = Batch::Deleted(vec![("deliveries", 999), ("jobs", 3)]);
        assert!(full.more());
        assert!(!short.more());
        assert!(!Batch::NotOurTurn.more());
    }
}
