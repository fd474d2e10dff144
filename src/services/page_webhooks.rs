//! A page's own webhooks, set with its settings: `support_webhook_url` gets a notice of every
//! support form submission, `responder_webhook_url` the responders' reminders. Each has its
//! own Standard Webhooks secret (`whsec_...`), made when the URL is set or changed and shown
//! once; saving the same URL again keeps it. URLs pass the outbound policy (no private or
//! metadata destinations unless allowed) when they are saved, and again at every delivery.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::db::models::page_webhooks::{self as rows, PageWebhook};
use crate::db::{DbConn, now};
use crate::delivery::outbound::{self, Policy};
use crate::delivery::signature;
use crate::domain::PageId;
use crate::error::AppResult;
use crate::services::pages::{FieldCheck, nullable};

/// The longest webhook URL, in characters.
const MAX_URL_LEN: usize = 2000;

/// What a page webhook is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Support,
    Responder,
}

impl Purpose {
    /// Both purposes.
    pub const ALL: [Purpose; 2] = [Purpose::Support, Purpose::Responder];

    /// The stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Support => "support",
            Self::Responder => "responder",
        }
    }

    /// The setting's field name (API, console form).
    pub fn url_field(self) -> &'static str {
        match self {
            Self::Support => "support_webhook_url",
            Self::Responder => "responder_webhook_url",
        }
    }

    /// The field the new secret is answered under.
    pub fn secret_field(self) -> &'static str {
        match self {
            Self::Support => "support_webhook_secret",
            Self::Responder => "responder_webhook_secret",
        }
    }
}

/// The webhook part of a page patch: an absent field stays, `null` or blank clears.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct WebhookPatch {
    #[serde(default, deserialize_with = "nullable")]
    pub support_webhook_url: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub responder_webhook_url: Option<Option<String>>,
}

impl WebhookPatch {
    fn get(&self, purpose: Purpose) -> Option<&Option<String>> {
        match purpose {
            Purpose::Support => self.support_webhook_url.as_ref(),
            Purpose::Responder => self.responder_webhook_url.as_ref(),
        }
    }
}

/// A patch whose URLs passed the outbound policy: `(purpose, None)` clears.
#[derive(Debug, Clone, Default)]
pub struct CheckedWebhooks(Vec<(Purpose, Option<String>)>);

/// Checks the patch's URLs (syntax, scheme, and where the host resolves to), with a message
/// per field.
pub async fn check(patch: &WebhookPatch, policy: &Policy) -> AppResult<CheckedWebhooks> {
    let mut check = FieldCheck::default();
    let mut out = Vec::new();
    for purpose in Purpose::ALL {
        let Some(value) = patch.get(purpose) else {
            continue;
        };
        let value = value.as_deref().map(str::trim).filter(|v| !v.is_empty());
        let Some(value) = value else {
            out.push((purpose, None));
            continue;
        };
        if value.chars().count() > MAX_URL_LEN {
            let message = format!("must be at most {MAX_URL_LEN} characters long");
            check.add(purpose.url_field(), message);
            continue;
        }
        let checked = match outbound::check_url(value, policy) {
            Ok(url) => outbound::check_destination(&url, policy)
                .await
                .map(|()| url),
            Err(refusal) => Err(refusal),
        };
        if let Some(url) = check.check(purpose.url_field(), checked) {
            out.push((purpose, Some(url.to_string())));
        }
    }
    check.done(Some(CheckedWebhooks(out)))
}

/// Saves checked URLs for the page; answers `(purpose, secret)` for each URL newly set or
/// changed (the only time its secret is shown).
pub fn apply(
    conn: &mut DbConn,
    page_id: &PageId,
    checked: &CheckedWebhooks,
) -> AppResult<Vec<(Purpose, String)>> {
    let mut secrets = Vec::new();
    for (purpose, url) in &checked.0 {
        let Some(url) = url else {
            rows::remove(conn, page_id, purpose.as_str())?;
            continue;
        };
        let stored = rows::find(conn, page_id, purpose.as_str())?;
        if stored.as_ref().is_some_and(|s| &s.url == url) {
            continue;
        }
        let at = now();
        let secret = signature::new_secret();
        rows::put(
            conn,
            &PageWebhook {
                page_id: page_id.to_owned(),
                purpose: purpose.as_str().to_owned(),
                url: url.clone(),
                secret: secret.clone(),
                created_at: stored.map_or(at, |s| s.created_at),
                updated_at: at,
            },
        )?;
        secrets.push((*purpose, secret));
    }
    Ok(secrets)
}

/// The page's webhook for `purpose`, if set.
pub fn find(
    conn: &mut DbConn,
    page_id: &PageId,
    purpose: Purpose,
) -> AppResult<Option<PageWebhook>> {
    Ok(rows::find(conn, page_id, purpose.as_str())?)
}

/// The page's webhook URLs by field name (`null` when unset); never the secrets.
pub fn urls(conn: &mut DbConn, page_id: &PageId) -> AppResult<Map<String, Value>> {
    let stored = rows::list(conn, page_id)?;
    Ok(Purpose::ALL
        .iter()
        .map(|p| {
            let url = stored.iter().find(|w| w.purpose == p.as_str());
            (p.url_field().to_owned(), json!(url.map(|w| &w.url)))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(url: &str) -> WebhookPatch {
        WebhookPatch {
            support_webhook_url: Some(Some(url.to_owned())),
            responder_webhook_url: Some(None),
        }
    }

    #[tokio::test]
    async fn private_and_malformed_urls_get_a_message_on_their_field() {
        let policy = Policy::default();
        for bad in [
            "http://127.0.0.1/hook",
            "http://169.254.169.254/latest",
            "ftp://example.com/x",
            "not a url",
        ] {
            let err = check(&patch(bad), &policy).await.unwrap_err();
            match err {
                crate::error::AppError::Validation(fields) => {
                    assert!(
                        fields.contains_key("support_webhook_url"),
                        "{bad}: {fields:?}"
                    );
                    assert!(!fields.contains_key("responder_webhook_url"));
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        let allowed = Policy {
            allow_private: true,
            ..Policy::default()
        };
        let checked = check(&patch("http://127.0.0.1:9/hook"), &allowed)
            .await
            .unwrap();
        assert_eq!(
            checked.0,
            vec![
                (Purpose::Support, Some("http://127.0.0.1:9/hook".to_owned())),
                (Purpose::Responder, None)
            ]
        );
    }
}
