//! A page's integrations (alerts in from monitoring): making, changing and removing them, their
//! secret tokens (made here, shown once, kept as a SHA-256), and finding the integration a
//! request's token opens. What an integration does with an alert is [`crate::services::alerts`].

use std::collections::BTreeMap;

use base64::Engine;
use chrono::Duration;
use rand::RngCore;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::db::models::integrations::{self as rows, Integration};
use crate::db::models::{components, pages, templates};
use crate::db::{DbConn, now, write_tx};
use crate::domain::alerts::{self, Mapping};
use crate::domain::{ComponentStatus, IncidentMode, IntegrationId, IntegrationKind, PageId};
use crate::error::{AppError, AppResult};
use crate::services::pages::{FieldCheck, MAX_NAME_LEN, found, nullable, required_line};

/// What an integration's token starts with (so that a leaked one is recognisable).
pub const TOKEN_PREFIX: &str = "hrd_int_";
/// The longest label name (Prometheus allows any length; a page's labels are short).
const MAX_LABEL_LEN: usize = 64;
/// The most entries of a component or severity map.
const MAX_MAP_ENTRIES: usize = 200;

/// A new integration: its kind and name ([`NewIntegration`]) and its settings, where absent
/// ones take their defaults (label `component`, severities critical → major outage, warning
/// → partial outage, a five-minute hold, no incident, no notification of subscribers).
#[derive(Debug, Clone)]
pub struct NewIntegrationInput {
    pub kind: IntegrationKind,
    pub name: String,
    pub settings: SettingsPatch,
}

/// The kind and name of a new integration (the settings are read as a [`SettingsPatch`]).
#[derive(Debug, Clone, Deserialize)]
pub struct NewIntegration {
    pub kind: IntegrationKind,
    pub name: String,
}

/// Changes to an integration's settings: absent fields stay; `null` resets one to its default
/// (`template_id`: none).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SettingsPatch {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub component_label: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub components: Option<Option<BTreeMap<String, String>>>,
    #[serde(default, deserialize_with = "nullable")]
    pub severity_label: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub severities: Option<Option<BTreeMap<String, ComponentStatus>>>,
    #[serde(default, deserialize_with = "nullable")]
    pub default_status: Option<Option<ComponentStatus>>,
    #[serde(default, deserialize_with = "nullable")]
    pub hold_seconds: Option<Option<i32>>,
    #[serde(default, deserialize_with = "nullable")]
    pub template_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub incident_mode: Option<Option<IncidentMode>>,
    #[serde(default, deserialize_with = "nullable")]
    pub notify_subscribers: Option<Option<bool>>,
}

/// An integration with its settings read back.
#[derive(Debug, Clone)]
pub struct IntegrationView {
    pub row: Integration,
    pub mapping: Mapping,
    pub components: BTreeMap<String, String>,
}

impl IntegrationView {
    /// Reads the stored maps.
    pub fn of(row: Integration) -> AppResult<Self> {
        let corrupt = |e: serde_json::Error| anyhow::anyhow!("corrupt integration maps: {e}");
        let components = serde_json::from_str(&row.component_map).map_err(corrupt)?;
        let severities = serde_json::from_str(&row.severity_map).map_err(corrupt)?;
        let mapping = Mapping {
            component_label: row.component_label.clone(),
            severity_label: row.severity_label.clone(),
            severities,
            default_status: row.default_status,
        };
        Ok(Self {
            row,
            mapping,
            components,
        })
    }

    /// How long a status set by one of its alerts holds.
    pub fn hold(&self) -> Duration {
        Duration::seconds(i64::from(self.row.hold_secs))
    }
}

/// A fresh token and its hash.
fn new_token() -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    let token = format!(
        "{TOKEN_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    );
    let hash = token_hash(&token);
    (token, hash)
}

/// The stored form of a token.
fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Makes an integration on a page; answers it with its token (shown once).
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn create_integration(
    conn: &mut DbConn,
    page_id: &PageId,
    input: &NewIntegrationInput,
) -> AppResult<(IntegrationView, String)> {
    write_tx(conn, |conn| {
        found(pages::find(conn, page_id), "page")?;
        let (token, hash) = new_token();
        let at = now();
        let defaults = Mapping::default();
        let mut row = Integration {
            id: IntegrationId::new(),
            page_id: page_id.clone(),
            kind: input.kind,
            name: String::new(),
            token_hash: hash,
            component_label: defaults.component_label,
            component_map: "{}".to_owned(),
            severity_label: defaults.severity_label,
            severity_map: String::new(),
            default_status: defaults.default_status,
            hold_secs: alerts::DEFAULT_HOLD_SECS,
            template_id: None,
            incident_mode: IncidentMode::Off,
            notify_subscribers: false,
            last_used_at: None,
            created_at: at,
            updated_at: at,
        };
        let settings = SettingsPatch {
            name: Some(input.name.clone()),
            ..input.settings.clone()
        };
        apply(conn, &mut row, &settings, true)?;
        rows::insert(conn, &row)?;
        Ok((IntegrationView::of(row)?, token))
    })
}

/// Changes an integration's settings.
#[tracing::instrument(skip_all, fields(integration_id = %id))]
pub fn update_integration(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &IntegrationId,
    patch: &SettingsPatch,
) -> AppResult<IntegrationView> {
    write_tx(conn, |conn| {
        let mut row = get_row(conn, page_id, id)?;
        apply(conn, &mut row, patch, false)?;
        row.updated_at = now();
        rows::replace(conn, &row)?;
        IntegrationView::of(row)
    })
}

/// Makes a new token for an integration; the old one stops working at once.
pub fn rotate_token(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &IntegrationId,
) -> AppResult<(IntegrationView, String)> {
    write_tx(conn, |conn| {
        let mut row = get_row(conn, page_id, id)?;
        let (token, hash) = new_token();
        row.token_hash = hash;
        row.updated_at = now();
        rows::replace(conn, &row)?;
        Ok((IntegrationView::of(row)?, token))
    })
}

/// Removes an integration: its token stops working, its alerts are forgotten. Statuses its
/// alerts set stay as they are, with the integration's name on them.
pub fn delete_integration(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &IntegrationId,
) -> AppResult<Integration> {
    write_tx(conn, |conn| {
        let row = get_row(conn, page_id, id)?;
        rows::remove(conn, id)?;
        Ok(row)
    })
}

/// The page's integrations.
pub fn list_integrations(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<IntegrationView>> {
    rows::list(conn, page_id)?
        .into_iter()
        .map(IntegrationView::of)
        .collect()
}

/// The integration of the page with this id (404 otherwise).
pub fn get_integration(
    conn: &mut DbConn,
    page_id: &PageId,
    id: &IntegrationId,
) -> AppResult<IntegrationView> {
    IntegrationView::of(get_row(conn, page_id, id)?)
}

fn get_row(conn: &mut DbConn, page_id: &PageId, id: &IntegrationId) -> AppResult<Integration> {
    match rows::find(conn, id) {
        Ok(row) if row.page_id == page_id => Ok(row),
        Ok(_) | Err(diesel::result::Error::NotFound) => {
            Err(AppError::NotFound("integration".into()))
        }
        Err(e) => Err(e.into()),
    }
}

/// The integration `token` opens: the one of the page at `slug` with this id, of this kind.
/// Any mismatch is the same 401, so that a caller learns nothing about what exists.
pub fn authenticate(
    conn: &mut DbConn,
    slug: &str,
    id: &IntegrationId,
    kind: IntegrationKind,
    token: Option<&str>,
) -> AppResult<IntegrationView> {
    let token = token.ok_or(AppError::Unauthorized)?;
    let row = match rows::find(conn, id) {
        Ok(row) => row,
        Err(diesel::result::Error::NotFound) => return Err(AppError::Unauthorized),
        Err(e) => return Err(e.into()),
    };
    let page = match pages::find(conn, &row.page_id) {
        Ok(page) => page,
        Err(diesel::result::Error::NotFound) => return Err(AppError::Unauthorized),
        Err(e) => return Err(e.into()),
    };
    if !crate::services::signing_key::same(&token_hash(token), &row.token_hash)
        || page.slug != slug
        || row.kind != kind
    {
        return Err(AppError::Unauthorized);
    }
    IntegrationView::of(row)
}

/// Validates `patch` into `row`; on creation, absent maps take their defaults.
fn apply(
    conn: &mut DbConn,
    row: &mut Integration,
    patch: &SettingsPatch,
    creating: bool,
) -> AppResult<()> {
    let mut check = FieldCheck::default();
    if let Some(name) = &patch.name
        && let Some(name) = check.check("name", required_line(name, MAX_NAME_LEN))
    {
        row.name = name;
    }
    let defaults = Mapping::default();
    if let Some(label) = &patch.component_label {
        let label = label.clone().unwrap_or(defaults.component_label.clone());
        if let Some(label) = check.check("component_label", label_name(&label)) {
            row.component_label = label;
        }
    }
    if let Some(label) = &patch.severity_label {
        let label = label.clone().unwrap_or(defaults.severity_label.clone());
        if let Some(label) = check.check("severity_label", label_name(&label)) {
            row.severity_label = label;
        }
    }
    if let Some(map) = &patch.components {
        let map = map.clone().unwrap_or_default();
        if let Some(map) = check.check("components", component_map(conn, &row.page_id, &map)?) {
            row.component_map = json_text(&map)?;
        }
    }
    match &patch.severities {
        Some(map) => {
            let map = map.clone().unwrap_or_else(alerts::default_severities);
            if let Some(map) = check.check("severities", severity_map(&map)) {
                row.severity_map = json_text(&map)?;
            }
        }
        None if creating => row.severity_map = json_text(&alerts::default_severities())?,
        None => {}
    }
    if let Some(status) = patch.default_status {
        let status = status.unwrap_or(alerts::DEFAULT_STATUS);
        if let Some(status) = check.check("default_status", alert_status(status)) {
            row.default_status = status;
        }
    }
    if let Some(hold) = patch.hold_seconds {
        let hold = hold.unwrap_or(alerts::DEFAULT_HOLD_SECS);
        if (0..=alerts::MAX_HOLD_SECS).contains(&hold) {
            row.hold_secs = hold;
        } else {
            check.add(
                "hold_seconds",
                format!("must be between 0 and {}", alerts::MAX_HOLD_SECS),
            );
        }
    }
    if let Some(template) = &patch.template_id {
        let template = template.as_deref().map(str::trim).filter(|t| !t.is_empty());
        match template {
            Some(id) => match templates::find(conn, id) {
                Ok(t) if t.page_id == row.page_id => row.template_id = Some(id.to_owned()),
                Ok(_) | Err(diesel::result::Error::NotFound) => {
                    check.add("template_id", "is not an incident template of this page")
                }
                Err(e) => return Err(e.into()),
            },
            None => row.template_id = None,
        }
    }
    if let Some(mode) = patch.incident_mode {
        row.incident_mode = mode.unwrap_or(IncidentMode::Off);
    }
    if let Some(notify) = patch.notify_subscribers {
        row.notify_subscribers = notify.unwrap_or(false);
    }
    if check.is_empty() && row.incident_mode != IncidentMode::Off && row.template_id.is_none() {
        check.add(
            "template_id",
            "is needed to open incidents (incident_mode draft or publish)",
        );
    }
    check.done(Some(()))
}

/// A Prometheus label name: a letter or `_`, then letters, digits or `_`.
fn label_name(value: &str) -> Result<String, String> {
    let value = value.trim();
    let mut chars = value.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        || value.len() > MAX_LABEL_LEN
    {
        return Err(format!(
            "{value:?} is not a label name (a letter or _, then letters, digits or _, at most {MAX_LABEL_LEN})"
        ));
    }
    Ok(value.to_owned())
}

/// A map of label values to components of the page.
fn component_map(
    conn: &mut DbConn,
    page_id: &PageId,
    map: &BTreeMap<String, String>,
) -> AppResult<Result<BTreeMap<String, String>, String>> {
    if map.len() > MAX_MAP_ENTRIES {
        return Ok(Err(format!("must have at most {MAX_MAP_ENTRIES} entries")));
    }
    let ids: Vec<&str> = map.values().map(String::as_str).collect();
    let on_page = components::find_on_page(conn, page_id, &ids)?;
    for (value, id) in map {
        if value.trim().is_empty() || value.chars().count() > MAX_NAME_LEN {
            return Ok(Err(format!(
                "{value:?} is not a label value (1 to {MAX_NAME_LEN} characters)"
            )));
        }
        if !on_page.iter().any(|c| c.id == id.as_str()) {
            return Ok(Err(format!(
                "{value:?} maps to {id:?}, which is not a component of this page"
            )));
        }
    }
    Ok(Ok(map
        .iter()
        .map(|(k, v)| (k.trim().to_owned(), v.clone()))
        .collect()))
}

/// A map of severities to the statuses they ask for.
fn severity_map(
    map: &BTreeMap<String, ComponentStatus>,
) -> Result<BTreeMap<String, ComponentStatus>, String> {
    if map.len() > MAX_MAP_ENTRIES {
        return Err(format!("must have at most {MAX_MAP_ENTRIES} entries"));
    }
    let mut out = BTreeMap::new();
    for (severity, status) in map {
        let severity = severity.trim();
        if severity.is_empty() || severity.chars().count() > MAX_LABEL_LEN {
            return Err(format!(
                "{severity:?} is not a severity (1 to {MAX_LABEL_LEN} characters)"
            ));
        }
        out.insert(severity.to_lowercase(), alert_status(*status)?);
    }
    Ok(out)
}

/// A status an alert may ask for: any but under maintenance (planned work is announced by
/// people, not alerts).
fn alert_status(status: ComponentStatus) -> Result<ComponentStatus, String> {
    match status {
        ComponentStatus::UnderMaintenance => {
            Err("an alert cannot ask for under_maintenance".to_owned())
        }
        other => Ok(other),
    }
}

fn json_text<T: serde::Serialize>(value: &T) -> AppResult<String> {
    Ok(serde_json::to_string(value).map_err(anyhow::Error::from)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_kept_only_as_their_hash() {
        let (a, hash) = new_token();
        let (b, _) = new_token();
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() > TOKEN_PREFIX.len() + 40);
        assert_ne!(a, b);
        assert_eq!(hash, token_hash(&a));
        assert!(!hash.contains(&a[TOKEN_PREFIX.len()..]));
        assert!(crate::services::signing_key::same(&hash, &token_hash(&a)));
        assert!(!crate::services::signing_key::same(&hash, &token_hash(&b)));
        assert!(!crate::services::signing_key::same("abc", "abcd"));
    }

    #[test]
    fn label_names_follow_prometheus() {
        assert_eq!(label_name(" service "), Ok("service".to_owned()));
        assert!(label_name("_x9").is_ok());
        for bad in ["", "9lives", "my-label", "a b", &"x".repeat(65)] {
            assert!(label_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn severities_are_kept_lowercase_and_may_not_ask_for_maintenance() {
        let map = BTreeMap::from([("Critical".to_owned(), ComponentStatus::MajorOutage)]);
        assert_eq!(
            severity_map(&map).unwrap().get("critical"),
            Some(&ComponentStatus::MajorOutage)
        );
        let map = BTreeMap::from([("x".to_owned(), ComponentStatus::UnderMaintenance)]);
        assert!(severity_map(&map).is_err());
        let map = BTreeMap::from([(" ".to_owned(), ComponentStatus::MajorOutage)]);
        assert!(severity_map(&map).is_err());
    }
}
