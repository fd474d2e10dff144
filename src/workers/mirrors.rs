//! The mirror poller: every second it takes the vendors' summaries that fell due (each URL once,
//! however many components follow it, and each taken by one process only when several share
//! the database), reads them with `If-None-Match` under the outbound rules, a few at a time,
//! and records what came back (`services::mirrors::record`). A page that shows something new
//! is re-rendered at once.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::db::Db;
use crate::delivery::fetch::{Fetched, Fetcher};
use crate::domain::vendor;
use crate::render::site::PublicSite;
use crate::services::mirrors::{self, Polled};

/// How often due summaries are looked for.
pub const TICK: Duration = Duration::from_secs(1);
/// Summaries read at once.
pub const CONCURRENCY: usize = 16;
/// Summaries taken per look (the rest are taken at the next).
const BATCH: i64 = 256;

/// Runs until `stop` is cancelled.
pub async fn run(
    db: Db,
    fetcher: Fetcher,
    poll: Duration,
    site: Arc<PublicSite>,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(TICK) => {}
        }
        let now = crate::db::now();
        let due = match db
            .run(move |c| mirrors::claim_due(c, now, poll, BATCH))
            .await
        {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "looking for vendors' pages to read failed");
                continue;
            }
        };
        if due.is_empty() {
            continue;
        }
        let shown = poll_all(&db, &fetcher, due, &stop).await;
        if shown {
            site.passes.wake();
        }
    }
}

/// Reads each `(url, etag)` and records the outcome; whether a page shows something new.
pub async fn poll_all(
    db: &Db,
    fetcher: &Fetcher,
    due: Vec<(String, Option<String>)>,
    stop: &CancellationToken,
) -> bool {
    let mut results = futures_util::stream::iter(due)
        .map(|(url, etag)| async move {
            let fetched = fetcher
                .get(&url, etag.as_deref(), vendor::MAX_SUMMARY_BYTES)
                .await;
            (url, fetched)
        })
        .buffer_unordered(CONCURRENCY);
    let mut shown = false;
    loop {
        let next = tokio::select! {
            _ = stop.cancelled() => break,
            next = results.next() => next,
        };
        let Some((url, fetched)) = next else { break };
        let at = crate::db::now();
        let label = url.clone();
        // Parsed on the database's blocking threads, not on the executor.
        let recorded = db
            .run(move |c| {
                let polled = match fetched {
                    Ok(Fetched::NotModified) => Polled::NotModified,
                    Ok(Fetched::Document { body, etag }) => match vendor::parse(&body) {
                        Ok(summary) => Polled::Summary(Box::new(summary), etag),
                        Err(e) => Polled::Failed(e.to_string()),
                    },
                    Err(e) => Polled::Failed(e.to_string()),
                };
                if let Polled::Failed(error) = &polled {
                    tracing::info!(url = %redacted(&url), %error, "a vendor's page could not be read");
                }
                mirrors::record(c, &url, polled, at)
            })
            .await;
        match recorded {
            Ok(changed) => shown |= changed,
            Err(e) => {
                tracing::warn!(url = %redacted(&label), error = %e, "recording a vendor's page failed")
            }
        }
    }
    shown
}

/// The vendor's summary at `url` as it is now, read without an ETag (a mirror being set up),
/// or why it cannot be read.
pub async fn read_now(
    fetcher: &Fetcher,
    url: &url::Url,
) -> Result<(vendor::Summary, Option<String>), String> {
    let fetched = fetcher
        .get(url.as_str(), None, vendor::MAX_SUMMARY_BYTES)
        .await
        .map_err(|e| e.to_string())?;
    let Fetched::Document { body, etag } = fetched else {
        return Err("it answered 304 Not Modified to a plain request".into());
    };
    // Parsed off the executor: a summary may be a few MiB.
    let summary = tokio::task::spawn_blocking(move || vendor::parse(&body))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    Ok((summary, etag))
}

/// A URL for the log: scheme, host and path (a query may carry a token).
fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.query().is_some() {
                u.set_query(Some("redacted"));
            }
            u.to_string()
        }
        Err(_) => "(invalid URL)".to_owned(),
    }
}
