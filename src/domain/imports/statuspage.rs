//! A Statuspage-compatible page read through its public API (`summary.json`,
//! `incidents.json`, `scheduled-maintenances.json` below `/api/v2/`), for a move to Herald:
//! the wire types, and how their words map to Herald's. Reading is lenient about fields Herald
//! does not use; a record whose own words Herald cannot take (an unknown status, say) is
//! refused alone, with the reason, and the others are imported.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::domain::{ComponentStatus, Impact, IncidentKind, LifecycleStatus};

/// The longest document read, in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;

/// `summary.json`: the page and its components (groups included).
#[derive(Debug, Clone, Deserialize)]
pub struct SummaryDoc {
    pub page: SourcePage,
    pub components: Vec<SourceComponent>,
}

/// `incidents.json`: the most recent incidents, with their updates.
#[derive(Debug, Clone, Deserialize)]
pub struct IncidentsDoc {
    pub incidents: Vec<SourceIncident>,
}

/// `scheduled-maintenances.json`: the most recent maintenances, with their updates.
#[derive(Debug, Clone, Deserialize)]
pub struct MaintenancesDoc {
    pub scheduled_maintenances: Vec<SourceIncident>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SourcePage {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub time_zone: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SourceComponent {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub status: String,
    #[serde(default)]
    pub position: Option<i32>,
    #[serde(default)]
    pub showcase: Option<bool>,
    #[serde(default)]
    pub group: bool,
    #[serde(default)]
    pub group_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SourceIncident {
    pub id: String,
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub impact: Option<String>,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub monitoring_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub resolved_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub scheduled_for: Option<DateTime<Utc>>,
    #[serde(default)]
    pub scheduled_until: Option<DateTime<Utc>>,
    #[serde(default)]
    pub incident_updates: Vec<SourceUpdate>,
    #[serde(default)]
    pub components: Vec<ComponentRef>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SourceUpdate {
    pub id: String,
    pub status: String,
    #[serde(default)]
    pub body: Option<String>,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub display_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub affected_components: Option<Vec<Affected>>,
}

impl SourceUpdate {
    /// When the update was shown: its display time, else its creation.
    pub fn shown_at(&self) -> DateTime<Utc> {
        self.display_at.unwrap_or(self.created_at)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ComponentRef {
    pub id: String,
}

/// A component change an update made (`code` is the component's id).
#[derive(Debug, Clone, Deserialize)]
pub struct Affected {
    pub code: String,
    #[serde(default)]
    pub old_status: Option<String>,
    #[serde(default)]
    pub new_status: Option<String>,
}

/// Reads one document, or says which and why not.
pub fn parse<T: serde::de::DeserializeOwned>(name: &str, bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| {
        // The message may quote the document's text: cut on a character's boundary.
        let mut why = e.to_string();
        let cut = (0..=300.min(why.len()))
            .rev()
            .find(|&at| why.is_char_boundary(at))
            .unwrap_or(0);
        why.truncate(cut);
        format!("{name} is not a Statuspage document: {why}")
    })
}

/// The `/api/v2/` base of a page an operator names: its address, its `/api/v2/` base or any of
/// its v2 documents.
pub fn api_base(given: &str) -> Result<url::Url, &'static str> {
    let mut url = url::Url::parse(given.trim())
        .map_err(|_| "is not a valid URL (e.g. https://status.example.com/api/v2/)")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must start with http:// or https://");
    }
    url.set_fragment(None);
    url.set_query(None);
    let path = url.path().trim_end_matches('/').to_owned();
    let base = match path.find("/api/v2") {
        Some(at) => path[..at].to_owned(),
        None => path,
    };
    url.set_path(&format!("{base}/api/v2/"));
    Ok(url)
}

/// An incident's impact in Herald's words (a maintenance's "maintenance" is none).
pub fn impact(word: Option<&str>) -> Impact {
    word.and_then(|w| w.parse().ok()).unwrap_or(Impact::None)
}

/// A status of a record of `kind`, in Herald's words.
pub fn status(kind: IncidentKind, word: &str) -> Result<LifecycleStatus, String> {
    LifecycleStatus::parse(kind, word).map_err(|e| e.to_string())
}

/// A component's status in Herald's words.
pub fn component_status(word: &str) -> Result<ComponentStatus, String> {
    word.parse::<ComponentStatus>().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by bench/fuzz.sh (statuspage_documents): an error message quoting text with a
    /// character across byte 300 panicked when it was cut.
    #[test]
    fn a_message_quoting_wide_characters_is_cut_on_a_boundary() {
        for shift in 0..4 {
            let text = format!("\"{}{}\"", "a".repeat(shift), "é".repeat(400));
            let why = parse::<SummaryDoc>("summary.json", text.as_bytes()).unwrap_err();
            assert!(why.starts_with("summary.json is not a Statuspage document: invalid type"));
            assert!(why.len() <= "summary.json is not a Statuspage document: ".len() + 300);
        }
    }

    #[test]
    fn a_page_its_base_or_a_document_lead_to_the_api_base() {
        for given in [
            "https://status.example.com",
            "https://status.example.com/api/v2",
            "https://status.example.com/api/v2/",
            "https://status.example.com/api/v2/summary.json?x=1#y",
        ] {
            assert_eq!(
                api_base(given).unwrap().as_str(),
                "https://status.example.com/api/v2/",
                "{given}"
            );
        }
        assert_eq!(
            api_base("http://127.0.0.1:9/status/acme").unwrap().as_str(),
            "http://127.0.0.1:9/status/acme/api/v2/"
        );
        assert!(api_base("file:///etc/passwd").is_err());
        assert!(api_base("nonsense").is_err());
    }

    #[test]
    fn the_documents_read_as_statuspage_writes_them() {
        let summary: SummaryDoc = parse(
            "summary.json",
            include_bytes!("../../../tests/fixtures/mirror/atlassian_summary.json"),
        )
        .unwrap();
        assert_eq!(summary.page.name, "Example Cloud");
        assert_eq!(summary.page.time_zone.as_deref(), Some("America/Chicago"));
        let groups: Vec<&str> = summary
            .components
            .iter()
            .filter(|c| c.group)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(groups, ["Regions"]);
        let err = parse::<IncidentsDoc>("incidents.json", b"{\"page\":{}}").unwrap_err();
        assert!(
            err.starts_with("incidents.json is not a Statuspage document"),
            "{err}"
        );
    }

    #[test]
    fn words_map_to_herald_s_and_an_unknown_one_is_refused() {
        assert_eq!(impact(Some("critical")), Impact::Critical);
        assert_eq!(impact(Some("maintenance")), Impact::None);
        assert_eq!(impact(None), Impact::None);
        assert_eq!(
            status(IncidentKind::Maintenance, "in_progress")
                .unwrap()
                .as_str(),
            "in_progress"
        );
        assert!(status(IncidentKind::Incident, "in_progress").is_err());
        assert_eq!(
            component_status("under_maintenance").unwrap(),
            ComponentStatus::UnderMaintenance
        );
        assert!(component_status("exploded").is_err());
    }
}
