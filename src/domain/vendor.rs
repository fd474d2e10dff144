//! Vendors' status, mirrored: a component of another Statuspage-compatible page (Atlassian's,
//! another Herald, anything serving `.../api/v2/summary.json`) read from its summary, and the
//! rules of following it.
//!
//! Reading is lenient (a vendor's page adds fields Herald does not know, and every field it
//! does not need may be missing), but the parts a mirror uses are checked: a component's status
//! must be one of the five, or the answer is refused and the last known status kept. A vendor
//! is never assumed to be operational.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::ComponentStatus;

/// The longest summary read, in bytes (Atlassian's largest pages stay well under 1 MiB).
pub const MAX_SUMMARY_BYTES: usize = 4 * 1024 * 1024;
/// Vendor incidents kept per mirrored component.
pub const MAX_INCIDENTS: usize = 10;
/// The longest text kept of a vendor's names and titles, in characters.
pub const MAX_TEXT: usize = 200;

/// The parts of a vendor's `summary.json` a mirror reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Summary {
    #[serde(default)]
    pub page: VendorPage,
    pub components: Vec<VendorComponent>,
    #[serde(default)]
    pub incidents: Vec<VendorIncident>,
    #[serde(default)]
    pub scheduled_maintenances: Vec<VendorIncident>,
}

/// The vendor's page: its name and where people read it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct VendorPage {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub url: Option<String>,
}

/// One component (or group) of the vendor's page.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct VendorComponent {
    pub id: String,
    pub name: String,
    /// Kept as text: one unknown status must not make the whole page unreadable, only the
    /// components that have it.
    pub status: String,
    #[serde(default)]
    pub group_id: Option<String>,
    #[serde(default)]
    pub group: bool,
}

/// One of the vendor's incidents or maintenances, as its summary lists them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct VendorIncident {
    pub id: String,
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub impact: Option<String>,
    #[serde(default)]
    pub shortlink: Option<String>,
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub created_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub updated_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub components: Vec<ComponentRef>,
}

/// A component an incident names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ComponentRef {
    pub id: String,
}

/// What a mirror keeps of one vendor incident that names its component (stored as JSON and
/// shown on the page, labelled as the vendor's).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Named {
    pub id: String,
    pub name: String,
    /// The vendor's status word (investigating, identified, monitoring, in_progress, ...).
    pub status: String,
    pub impact: Option<String>,
    /// Where the vendor tells the story (its shortlink), when it is an http(s) link.
    pub url: Option<String>,
    pub maintenance: bool,
    pub started_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// Why a vendor's answer cannot be used; `Display` is shown to responders.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("the vendor's answer is not a Statuspage summary: {0}")]
    NotASummary(String),
    #[error("the vendor's page has no component \"{wanted}\"{}", listing(.names))]
    NoSuchComponent { wanted: String, names: Vec<String> },
    #[error("the vendor's component \"{name}\" has a status Herald does not know: \"{status}\"")]
    UnknownStatus { name: String, status: String },
}

fn listing(names: &[String]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("; it has: {}{more}", shown.join(", "))
}

/// Reads a summary from the vendor's bytes.
pub fn parse(bytes: &[u8]) -> Result<Summary, SummaryError> {
    let summary: Summary = serde_json::from_slice(bytes).map_err(|e| {
        // The message may quote the vendor's text: cut on a character's boundary.
        let mut message = e.to_string();
        let cut = (0..=MAX_TEXT.min(message.len()))
            .rev()
            .find(|&at| message.is_char_boundary(at))
            .unwrap_or(0);
        message.truncate(cut);
        SummaryError::NotASummary(message)
    })?;
    Ok(summary)
}

/// What a mirror reads for its component from one summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The vendor component's id (a mirror made by name keeps following it by id).
    pub component_id: String,
    /// "Group - Component" for a grouped one, as Statuspage names them.
    pub component_name: String,
    pub status: ComponentStatus,
    pub vendor_name: String,
    pub vendor_url: Option<String>,
    /// The vendor's open incidents and active maintenances that name the component, newest
    /// first.
    pub incidents: Vec<Named>,
}

impl Summary {
    /// The component `wanted` names: its id, its name, or "Group - Name" (letter case aside).
    pub fn find(&self, wanted: &str) -> Option<&VendorComponent> {
        let wanted = wanted.trim();
        self.components
            .iter()
            .find(|c| c.id == wanted)
            .or_else(|| {
                self.components
                    .iter()
                    .find(|c| c.name.trim().eq_ignore_ascii_case(wanted))
            })
            .or_else(|| {
                self.components
                    .iter()
                    .find(|c| self.full_name(c).eq_ignore_ascii_case(wanted))
            })
    }

    /// "Group - Component" for a grouped component, its name otherwise.
    pub fn full_name(&self, component: &VendorComponent) -> String {
        let group = component
            .group_id
            .as_deref()
            .and_then(|g| self.components.iter().find(|c| c.id == g));
        match group {
            Some(group) => format!("{} - {}", group.name.trim(), component.name.trim()),
            None => component.name.trim().to_owned(),
        }
    }

    /// Reads the component `wanted` names.
    pub fn read(&self, wanted: &str) -> Result<Reading, SummaryError> {
        let Some(component) = self.find(wanted) else {
            return Err(SummaryError::NoSuchComponent {
                wanted: clip(wanted),
                names: self.components.iter().map(|c| self.full_name(c)).collect(),
            });
        };
        let status = component.status.parse::<ComponentStatus>().map_err(|_| {
            SummaryError::UnknownStatus {
                name: clip(&component.name),
                status: clip(&component.status),
            }
        })?;
        Ok(Reading {
            component_id: clip(&component.id),
            component_name: clip(&self.full_name(component)),
            status,
            vendor_name: clip(self.page.name.trim()),
            vendor_url: self.page.url.as_deref().and_then(web_link),
            incidents: self.naming(&component.id),
        })
    }

    /// The open incidents and active maintenances that name the component `id`, newest first.
    fn naming(&self, id: &str) -> Vec<Named> {
        let incidents = self
            .incidents
            .iter()
            .filter(|i| !matches!(i.status.as_str(), "resolved" | "postmortem"))
            .map(|i| (i, false));
        let maintenances = self
            .scheduled_maintenances
            .iter()
            .filter(|m| matches!(m.status.as_str(), "in_progress" | "verifying"))
            .map(|m| (m, true));
        let mut named: Vec<Named> = incidents
            .chain(maintenances)
            .filter(|(i, _)| i.components.iter().any(|c| c.id == id))
            .map(|(i, maintenance)| Named {
                id: clip(&i.id),
                name: clip(&i.name),
                status: clip(&i.status),
                impact: i.impact.as_deref().map(clip),
                url: i.shortlink.as_deref().and_then(web_link),
                maintenance,
                started_at: i.started_at.or(i.created_at),
                updated_at: i.updated_at,
            })
            .collect();
        named.sort_by_key(|n| std::cmp::Reverse(n.started_at));
        named.truncate(MAX_INCIDENTS);
        named
    }
}

/// `link` when it is an absolute http(s) URL (a vendor's text is shown as a link only then).
pub fn web_link(link: &str) -> Option<String> {
    let parsed = url::Url::parse(link.trim()).ok()?;
    matches!(parsed.scheme(), "http" | "https").then(|| parsed.to_string())
}

pub fn clip(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(MAX_TEXT)
        .collect()
}

/// Whether a fresh reading changes the component: only a change of the vendor's status
/// moves it, so a responder's own status stays until the vendor's changes again.
pub fn moves(last_seen: Option<ComponentStatus>, now_seen: ComponentStatus) -> bool {
    last_seen != Some(now_seen)
}

/// The summary URL a responder gave, made canonical: a page's address, its `/api/v2/` base or
/// any of its v2 documents lead to its `summary.json`.
pub fn summary_url(given: &str) -> Result<url::Url, &'static str> {
    let mut url = url::Url::parse(given.trim())
        .map_err(|_| "is not a valid URL (e.g. https://status.example.com/api/v2/summary.json)")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must start with http:// or https://");
    }
    url.set_fragment(None);
    let path = url.path().trim_end_matches('/').to_owned();
    let base = match path.find("/api/v2") {
        Some(at) => path[..at].to_owned(),
        None if path.ends_with(".json") => return Err("must be a page's /api/v2/summary.json"),
        None => path,
    };
    url.set_path(&format!("{base}/api/v2/summary.json"));
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by bench/fuzz.sh (statuspage_documents): a document that is not a summary, whose
    /// error message quotes text with a character across byte 200, panicked cutting it.
    #[test]
    fn a_message_quoting_wide_characters_is_cut_on_a_boundary() {
        for shift in 0..4 {
            let text = format!("\"{}{}\"", "a".repeat(shift), "é".repeat(300));
            match parse(text.as_bytes()) {
                Err(SummaryError::NotASummary(message)) => {
                    assert!(message.len() <= MAX_TEXT, "{message}");
                    assert!(message.starts_with("invalid type: string"), "{message}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    /// A summary shaped as Atlassian's public API documents it (tests/fixtures/mirror holds the
    /// full document the integration tests serve).
    const ATLASSIAN: &str = include_str!("../../tests/fixtures/mirror/atlassian_summary.json");

    #[test]
    fn a_component_is_found_by_id_name_or_group_and_name() {
        let summary = parse(ATLASSIAN.as_bytes()).unwrap();
        let by_id = summary.read("b13yz5g2cw10").unwrap();
        assert_eq!(by_id.component_name, "API");
        assert_eq!(by_id.status, ComponentStatus::PartialOutage);
        assert_eq!(by_id.vendor_name, "Example Cloud");
        assert_eq!(
            by_id.vendor_url.as_deref(),
            Some("https://status.example-cloud.com/")
        );
        assert_eq!(summary.read("api").unwrap().component_id, "b13yz5g2cw10");
        let grouped = summary.read("Regions - EU West").unwrap();
        assert_eq!(grouped.component_id, "9rx1qgk3jc5l");
        assert_eq!(grouped.component_name, "Regions - EU West");
        assert_eq!(grouped.status, ComponentStatus::Operational);
    }

    #[test]
    fn only_open_incidents_and_active_maintenances_naming_the_component_are_kept() {
        let summary = parse(ATLASSIAN.as_bytes()).unwrap();
        let api = summary.read("API").unwrap();
        let names: Vec<(&str, bool)> = api
            .incidents
            .iter()
            .map(|i| (i.name.as_str(), i.maintenance))
            .collect();
        // The resolved incident and the scheduled (not started) maintenance are left out, and
        // the incident that names only the dashboard is not the API's.
        assert_eq!(
            names,
            [
                ("Database failover", true),
                ("Elevated API error rates", false)
            ]
        );
        assert_eq!(
            api.incidents[1].url.as_deref(),
            Some("https://stspg.io/abc123")
        );
        assert_eq!(summary.read("Dashboard").unwrap().incidents.len(), 1);
    }

    #[test]
    fn a_missing_component_names_those_there_are_and_an_unknown_status_is_refused() {
        let summary = parse(ATLASSIAN.as_bytes()).unwrap();
        let err = summary.read("Billing").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the vendor's page has no component \"Billing\"; it has: API, Dashboard, Regions, \
             Regions - EU West, Regions - US East"
        );
        let odd = r#"{"components":[{"id":"a","name":"A","status":"exploded"}]}"#;
        let err = parse(odd.as_bytes()).unwrap().read("A").unwrap_err();
        assert!(matches!(err, SummaryError::UnknownStatus { .. }), "{err}");
        // A component with a known status is still read beside one with an unknown status.
        let mixed = r#"{"components":[{"id":"a","name":"A","status":"exploded"},
            {"id":"b","name":"B","status":"major_outage"}]}"#;
        assert_eq!(
            parse(mixed.as_bytes()).unwrap().read("B").unwrap().status,
            ComponentStatus::MajorOutage
        );
    }

    #[test]
    fn what_is_not_a_summary_is_refused_with_the_reason() {
        for bad in [
            "",
            "<html>maintenance</html>",
            r#"{"page":{"name":"x"}}"#,
            "[]",
        ] {
            let err = parse(bad.as_bytes()).unwrap_err();
            assert!(matches!(err, SummaryError::NotASummary(_)), "{bad}: {err}");
        }
    }

    #[test]
    fn a_link_is_kept_only_when_it_is_http() {
        let doc = r#"{"page":{"name":"V","url":"javascript:alert(1)"},
            "components":[{"id":"a","name":"A","status":"operational"}],
            "incidents":[{"id":"i","name":"N","status":"investigating",
              "shortlink":"data:text/html,x","components":[{"id":"a"}]}]}"#;
        let reading = parse(doc.as_bytes()).unwrap().read("a").unwrap();
        assert_eq!(reading.vendor_url, None);
        assert_eq!(reading.incidents[0].url, None);
    }

    #[test]
    fn only_a_change_of_the_vendors_status_moves_the_component() {
        use ComponentStatus::*;
        assert!(moves(None, Operational));
        assert!(moves(Some(Operational), MajorOutage));
        assert!(!moves(Some(MajorOutage), MajorOutage));
    }

    #[test]
    fn a_page_its_api_base_or_any_v2_document_leads_to_its_summary() {
        for given in [
            "https://status.example.com",
            "https://status.example.com/",
            "https://status.example.com/api/v2/",
            "https://status.example.com/api/v2/summary.json",
            "https://status.example.com/api/v2/components.json#x",
        ] {
            assert_eq!(
                summary_url(given).unwrap().as_str(),
                "https://status.example.com/api/v2/summary.json",
                "{given}"
            );
        }
        assert_eq!(
            summary_url("http://127.0.0.1:8080/status/acme/api/v2/status.json")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8080/status/acme/api/v2/summary.json"
        );
        assert!(summary_url("ftp://x/api/v2/summary.json").is_err());
        assert!(summary_url("not a url").is_err());
        assert!(summary_url("https://x.example/feed.json").is_err());
    }
}
