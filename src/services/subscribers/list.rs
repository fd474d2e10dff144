//! Responders' view of a page's subscribers: the list, one subscriber, removal, and the CSV
//! export.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::{PageId, SubscriberId};

use crate::db::DbConn;
use crate::db::models::notify::{self as rows, Subscriber};
use crate::db::states::{Channel, SubscriberState};
use crate::error::{AppError, AppResult};

/// A subscriber as the responder API shows it (never its secret).
#[derive(Debug, Clone, Serialize)]
pub struct SubscriberView {
    pub id: SubscriberId,
    #[serde(rename = "type")]
    pub kind: Channel,
    pub email: Option<String>,
    pub url: Option<String>,
    pub contact_email: Option<String>,
    /// `null`: the whole page.
    pub components: Option<Vec<String>>,
    pub component_updates: bool,
    pub state: SubscriberState,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub consecutive_failures: i32,
    pub created_at: DateTime<Utc>,
}

impl SubscriberView {
    /// The view of `s` with its chosen components.
    pub fn new(s: &Subscriber, components: Vec<String>) -> Self {
        Self {
            id: s.id.clone(),
            kind: s.kind,
            email: s.email.clone(),
            url: s.url.clone(),
            contact_email: s.contact_email.clone(),
            components: (!s.whole_page).then_some(components),
            component_updates: s.component_updates,
            state: s.state,
            confirmed_at: s.confirmed_at.map(|t| t.and_utc()),
            consecutive_failures: s.consecutive_failures,
            created_at: s.created_at.and_utc(),
        }
    }
}

/// A page's subscribers (not the unsubscribed), oldest first.
pub fn list(conn: &mut DbConn, page_id: &PageId) -> AppResult<Vec<SubscriberView>> {
    let subscribers = rows::list_subscribers(conn, page_id)?;
    let mut chosen: std::collections::HashMap<String, Vec<String>> = Default::default();
    for (subscriber, component) in rows::page_subscriber_components(conn, page_id)? {
        chosen.entry(subscriber).or_default().push(component);
    }
    Ok(subscribers
        .iter()
        .map(|s| SubscriberView::new(s, chosen.remove(s.id.as_str()).unwrap_or_default()))
        .collect())
}

/// One subscriber's view.
pub fn view(conn: &mut DbConn, subscriber: &Subscriber) -> AppResult<SubscriberView> {
    let components = rows::components_of(conn, &subscriber.id)?;
    Ok(SubscriberView::new(subscriber, components))
}

/// Removes a subscriber of a page (404 when it is not the page's).
pub fn remove(conn: &mut DbConn, page_id: &PageId, id: &SubscriberId) -> AppResult<()> {
    if !rows::delete_subscriber(conn, page_id, id)? {
        return Err(AppError::NotFound("subscriber".into()));
    }
    Ok(())
}

/// A page's subscribers as CSV (RFC 4180 quoting; cells that a spreadsheet would run as a
/// formula are prefixed with `'`).
pub fn export_csv(conn: &mut DbConn, page_id: &PageId) -> AppResult<String> {
    let mut out = String::from(
        "id,type,email,url,contact_email,components,component_updates,state,confirmed_at,created_at\r\n",
    );
    for s in list(conn, page_id)? {
        let cells = [
            s.id.into(),
            s.kind.as_str().to_owned(),
            s.email.unwrap_or_default(),
            s.url.unwrap_or_default(),
            s.contact_email.unwrap_or_default(),
            s.components.map(|c| c.join(" ")).unwrap_or_default(),
            s.component_updates.to_string(),
            s.state.as_str().to_owned(),
            s.confirmed_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            s.created_at.to_rfc3339(),
        ];
        let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    Ok(out)
}

fn csv_cell(value: &str) -> String {
    let value = if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value.to_owned()
    };
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::csv_cell;

    #[test]
    fn cells_a_spreadsheet_would_run_start_with_a_quote() {
        for (given, written) in [
            ("=1+2@example.com", "'=1+2@example.com"),
            ("+sum@example.com", "'+sum@example.com"),
            ("-neg@example.com", "'-neg@example.com"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tcmd", "'\tcmd"),
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
        ] {
            assert_eq!(csv_cell(given), written, "{given:?}");
        }
    }

    #[test]
    fn a_leading_carriage_return_is_defused_and_quoted() {
        assert_eq!(csv_cell("\r=cmd"), "\"'\r=cmd\"");
    }

    #[test]
    fn a_defused_cell_is_still_quoted_as_rfc_4180_says() {
        assert_eq!(csv_cell("=SUM(1,2)"), "\"'=SUM(1,2)\"");
        assert_eq!(csv_cell("-\"x\""), "\"'-\"\"x\"\"\"");
        assert_eq!(csv_cell("+a\nb"), "\"'+a\nb\"");
    }

    #[test]
    fn other_cells_are_left_as_they_are() {
        for plain in [
            "ann@example.com",
            "https://hooks.example.com/x?a=1",
            "2026-01-02T03:04:05+00:00",
            "a=b",
            "x-y",
            "",
        ] {
            assert_eq!(csv_cell(plain), plain, "{plain:?}");
        }
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
    }
}
