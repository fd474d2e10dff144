//! Reading a Statuspage-compatible page for an import (`herald import statuspage`, and
//! `POST /api/v1/imports/statuspage`): its three public documents below `/api/v2/`, fetched
//! under the outbound rules (`delivery::fetch`), parsed off the executor. Writing them is
//! `services::imports`.

use crate::delivery::fetch::{Fetched, Fetcher};
use crate::domain::statuspage::{self, IncidentsDoc, MaintenancesDoc, SummaryDoc};
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
