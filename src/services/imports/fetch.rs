//! Reading what an import brings, under the outbound rules: a Statuspage-compatible page
//! (`herald import statuspage`, `POST /api/v1/imports/statuspage`), its three public documents
//! below `/api/v2/` fetched with `delivery::fetch` and parsed off the executor; and the webhook
//! endpoints of a subscriber file (`herald import subscribers`), checked as a webhook
//! subscribing on the page is. Writing them is `services::imports`.

use crate::delivery::fetch::{Fetched, Fetcher};
use crate::delivery::outbound::{self, Policy};
use crate::domain::imports::statuspage::{self, IncidentsDoc, MaintenancesDoc, SummaryDoc};
use crate::domain::imports::subscriber_csv::{Entry, Row};
use crate::services::imports::StatuspageSource;

/// Reads the page at `base` (its `/api/v2/` base); `progress` hears of each document.
pub async fn read_statuspage(
    fetcher: &Fetcher,
    base: &url::Url,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<StatuspageSource, String> {
    let summary: SummaryDoc = document(fetcher, base, "summary.json", progress).await?;
    let incidents: IncidentsDoc = document(fetcher, base, "incidents.json", progress).await?;
    let maintenances: MaintenancesDoc =
        document(fetcher, base, "scheduled-maintenances.json", progress).await?;
    Ok(StatuspageSource {
        summary,
        incidents: incidents.incidents,
        maintenances: maintenances.scheduled_maintenances,
    })
}

async fn document<T: serde::de::DeserializeOwned + Send + 'static>(
    fetcher: &Fetcher,
    base: &url::Url,
    name: &'static str,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<T, String> {
    let url = base.join(name).map_err(|e| format!("{name}: {e}"))?;
    progress(&format!("reading {url}"));
    let fetched = fetcher
        .get(url.as_str(), None, statuspage::MAX_DOCUMENT_BYTES)
        .await
        .map_err(|e| format!("{url} cannot be read: {e}"))?;
    let Fetched::Document { body, .. } = fetched else {
        return Err(format!(
            "{url} answered 304 Not Modified to a plain request"
        ));
    };
    tokio::task::spawn_blocking(move || statuspage::parse::<T>(name, &body))
        .await
        .map_err(|e| e.to_string())?
}

/// The longest a webhook row's address may take to resolve.
const RESOLVE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);
/// Webhook rows checked at once.
const CHECKS_AT_ONCE: usize = 16;

/// Checks each webhook row's endpoint against the outbound rules (as a webhook subscribing on
/// the page is checked); a refused endpoint turns its row into a refusal with the reason.
pub async fn check_webhooks(rows: Vec<Row>, policy: &Policy) -> Vec<Row> {
    use futures_util::StreamExt;
    futures_util::stream::iter(rows)
        .map(|row| async move {
            let Entry::Webhook { url, .. } = &row.entry else {
                return row;
            };
            match refusal(url, policy).await {
                None => row,
                Some(reason) => Row {
                    line: row.line,
                    entry: Entry::Refused {
                        shown: url.chars().take(200).collect(),
                        reason,
                    },
                },
            }
        })
        .buffered(CHECKS_AT_ONCE)
        .collect()
        .await
}

async fn refusal(url: &str, policy: &Policy) -> Option<String> {
    let parsed = match outbound::check_url(url, policy) {
        Ok(parsed) => parsed,
        Err(e) => return Some(format!("endpoint: {e}")),
    };
    match tokio::time::timeout(RESOLVE_WITHIN, outbound::check_destination(&parsed, policy)).await {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("endpoint: {e}")),
        Err(_) => Some(format!(
            "endpoint: its host did not resolve within {} s",
            RESOLVE_WITHIN.as_secs()
        )),
    }
}
