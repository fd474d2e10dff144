//! Subscribing and unsubscribing: the one body shape of the public and the responder API,
//! double opt-in for email (nothing but the confirmation is sent until it is confirmed, and the
//! answer never says whether the address was known), webhooks with their signing secret,
//! confirmation and one-click unsubscribe through signed links, responders' list and removal.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::outbox::{self as events, kind};
use crate::domain::lang::Lang;
use crate::domain::{EmailAddress, PageId, SubscriberId};
pub mod token;

use crate::db::models::notify::{self as rows, Subscriber};
use crate::db::models::{components, pages};
use crate::db::states::{Channel, SubscriberState};
use crate::db::{DbConn, new_id, now, write_tx};
use crate::error::{AppError, AppResult};
use crate::services::pages::FieldCheck;
use token::{Claims, Purpose, TokenError};

/// How long a confirmation link stays valid.
pub const CONFIRM_VALID_FOR: chrono::Duration = chrono::Duration::hours(48);
/// The longest webhook URL accepted.
pub const MAX_URL_LEN: usize = 2000;
/// The most components one subscription may name.
pub const MAX_COMPONENTS: usize = 200;

/// The body of both subscribe APIs: `{"type":"email","email":...}` or
/// `{"type":"webhook","url":...,"contact_email":...}`, with optional `components` (absent: the
/// whole page) and `component_updates`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SubscribeInput {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub email: Option<String>,
    pub url: Option<String>,
    pub contact_email: Option<String>,
    pub components: Option<Vec<String>>,
    pub component_updates: Option<bool>,
    /// The language of its mails, one of the page's (its default when absent).
    pub language: Option<String>,
}

/// A checked subscription request (the webhook URL still needs the outbound policy's check).
#[derive(Debug, Clone)]
pub enum Target {
    Email(EmailAddress),
    Webhook {
        url: String,
        contact_email: Option<EmailAddress>,
    },
}

/// A checked [`SubscribeInput`].
#[derive(Debug, Clone)]
pub struct Subscription {
    pub target: Target,
    /// `None`: the whole page.
    pub components: Option<Vec<String>>,
    pub component_updates: bool,
    /// `None`: the page's default language.
    pub language: Option<Lang>,
}

impl SubscribeInput {
    /// Checks the fields that need no database, answering every error at once.
    pub fn check(&self) -> AppResult<Subscription> {
        let mut check = FieldCheck::default();
        let target = match self.kind.as_deref().map(str::trim) {
            Some("email") => {
                let email = self.email.as_deref().unwrap_or("");
                check
                    .check("email", EmailAddress::parse(email))
                    .map(Target::Email)
            }
            Some("webhook") => {
                let url = self.url.as_deref().map(str::trim).unwrap_or("");
                if url.is_empty() {
                    check.add("url", "enter the https:// address to send notifications to");
                } else if url.len() > MAX_URL_LEN {
                    check.add("url", format!("use at most {MAX_URL_LEN} characters"));
                }
                let contact = match self.contact_email.as_deref().map(str::trim) {
                    None | Some("") => Some(None),
                    Some(raw) => check
                        .check("contact_email", EmailAddress::parse(raw))
                        .map(Some),
                };
                match contact {
                    Some(contact_email) if !url.is_empty() && url.len() <= MAX_URL_LEN => {
                        Some(Target::Webhook {
                            url: url.to_owned(),
                            contact_email,
                        })
                    }
                    _ => None,
                }
            }
            _ => {
                check.add("type", "must be \"email\" or \"webhook\"");
                None
            }
        };
        let components = match &self.components {
            Some(list) if list.len() > MAX_COMPONENTS => {
                check.add(
                    "components",
                    format!("name at most {MAX_COMPONENTS} components"),
                );
                None
            }
            Some(list) if list.is_empty() => Some(None),
            Some(list) => {
                let mut ids: Vec<String> = list.iter().map(|c| c.trim().to_owned()).collect();
                ids.sort();
                ids.dedup();
                Some(Some(ids))
            }
            None => Some(None),
        };
        let language = match self.language.as_deref().map(str::trim) {
            None | Some("") => Some(None),
            Some(code) => check
                .check("language", code.parse::<Lang>().map_err(|e| e.to_string()))
                .map(Some),
        };
        let subscription = match (target, components, language) {
            (Some(target), Some(components), Some(language)) => Some(Subscription {
                target,
                components,
                component_updates: self.component_updates.unwrap_or(false),
                language,
            }),
            _ => None,
        };
        check.done(subscription)
    }
}

/// What subscribing answered.
#[derive(Debug, Clone)]
pub enum Subscribed {
    /// An email subscription: pending (a confirmation is on its way) or already in place; the
    /// public answer is the same either way.
    Email(Subscriber),
    /// A webhook: its secret is shown once, in this answer.
    Webhook(Subscriber),
}

/// Who subscribes: the public (email needs confirming) or a responder (confirmed at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Public,
    Responder,
}

/// Subscribes to a page. Public email subscriptions get a confirmation mail (a re-request
/// sends a new one, an unsubscribed address starts over); a responder's are confirmed at once.
#[tracing::instrument(skip_all, fields(page_id = %page_id))]
pub fn subscribe(
    conn: &mut DbConn,
    page_id: &PageId,
    subscription: &Subscription,
    origin: Origin,
    secret: impl FnOnce() -> String,
) -> AppResult<Subscribed> {
    write_tx(conn, |c| {
        check_components(c, page_id, subscription.components.as_deref())?;
        check_language(c, page_id, subscription.language)?;
        let at = now();
        let whole_page = subscription.components.is_none();
        let chosen = subscription.components.clone().unwrap_or_default();
        let confirmed_state = match origin {
            Origin::Public => SubscriberState::Pending,
            Origin::Responder => SubscriberState::Confirmed,
        };
        match &subscription.target {
            Target::Email(email) => {
                if let Some(existing) = rows::find_by_email(c, page_id, email.as_str())? {
                    let next = match (existing.state, origin) {
                        (SubscriberState::Confirmed, _) | (_, Origin::Responder) => {
                            SubscriberState::Confirmed
                        }
                        _ => SubscriberState::Pending,
                    };
                    if existing.state != SubscriberState::Confirmed || origin == Origin::Responder {
                        rows::set_options(
                            c,
                            &existing.id,
                            whole_page,
                            subscription.component_updates,
                            subscription.language,
                            at,
                        )?;
                        rows::set_components(c, &existing.id, &chosen)?;
                    }
                    if next != existing.state {
                        rows::set_state(c, &existing.id, next, at)?;
                    }
                    if existing.state == SubscriberState::Unsubscribed {
                        // A renewed subscription gets new links: the old mails' stay dead.
                        rows::rotate_manage_token(c, &existing.id, &new_id(), at)?;
                    }
                    if next == SubscriberState::Pending {
                        events::subscriber_notice(
                            c,
                            page_id,
                            &existing.id,
                            kind::SUBSCRIBER_CONFIRMATION,
                        )?;
                    }
                    let current = rows::find_subscriber(c, &existing.id)?.unwrap_or(existing);
                    return Ok(Subscribed::Email(current));
                }
                let subscriber = new_subscriber(
                    page_id,
                    Channel::Email,
                    confirmed_state,
                    whole_page,
                    subscription,
                    at,
                );
                let subscriber = Subscriber {
                    email: Some(email.as_str().to_owned()),
                    ..subscriber
                };
                rows::insert_subscriber(c, &subscriber, &chosen)?;
                if origin == Origin::Public {
                    events::subscriber_notice(
                        c,
                        page_id,
                        &subscriber.id,
                        kind::SUBSCRIBER_CONFIRMATION,
                    )?;
                }
                Ok(Subscribed::Email(subscriber))
            }
            Target::Webhook { url, contact_email } => {
                let subscriber = new_subscriber(
                    page_id,
                    Channel::Webhook,
                    SubscriberState::Confirmed,
                    whole_page,
                    subscription,
                    at,
                );
                let subscriber = Subscriber {
                    url: Some(url.clone()),
                    contact_email: contact_email.as_ref().map(|e| e.as_str().to_owned()),
                    secret: Some(secret()),
                    ..subscriber
                };
                rows::insert_subscriber(c, &subscriber, &chosen)?;
                Ok(Subscribed::Webhook(subscriber))
            }
        }
    })
}

fn new_subscriber(
    page_id: &PageId,
    kind: Channel,
    state: SubscriberState,
    whole_page: bool,
    subscription: &Subscription,
    at: chrono::NaiveDateTime,
) -> Subscriber {
    Subscriber {
        id: SubscriberId::new(),
        page_id: page_id.clone(),
        kind,
        email: None,
        url: None,
        contact_email: None,
        secret: None,
        whole_page,
        component_updates: subscription.component_updates,
        state,
        confirmed_at: (state == SubscriberState::Confirmed).then_some(at),
        consecutive_failures: 0,
        first_failure_at: None,
        manage_token_id: new_id(),
        created_at: at,
        updated_at: at,
        language: subscription.language,
    }
}

/// Refuses a language the page is not read in.
fn check_language(conn: &mut DbConn, page_id: &PageId, language: Option<Lang>) -> AppResult<()> {
    let Some(language) = language else {
        return Ok(());
    };
    let page = crate::services::pages::found(pages::find(conn, page_id), "page")?;
    let enabled = page.enabled_languages();
    match enabled.contains(&language) {
        true => Ok(()),
        false => {
            let codes: Vec<&str> = enabled.iter().map(|l| l.as_str()).collect();
            Err(AppError::field(
                "language",
                format!(
                    "'{language}' is not a language of this page; it is read in {}",
                    codes.join(", ")
                ),
            ))
        }
    }
}

/// Refuses component ids that are not the page's.
fn check_components(conn: &mut DbConn, page_id: &PageId, ids: Option<&[String]>) -> AppResult<()> {
    let Some(ids) = ids else { return Ok(()) };
    let wanted: Vec<&str> = ids.iter().map(String::as_str).collect();
    let found = components::find_on_page(conn, page_id, &wanted)?;
    if found.len() != ids.len() {
        let known: Vec<&str> = found.iter().map(|c| c.id.as_str()).collect();
        let unknown: Vec<&str> = wanted
            .into_iter()
            .filter(|id| !known.contains(id))
            .collect();
        return Err(AppError::field(
            "components",
            format!("not components of this page: {}", unknown.join(", ")),
        ));
    }
    Ok(())
}

/// A signed link token for a subscriber.
pub fn link_token(
    key: &[u8],
    subscriber_id: &SubscriberId,
    token_id: &str,
    purpose: Purpose,
    now: DateTime<Utc>,
) -> String {
    let expires = match purpose {
        Purpose::Confirm => (now + CONFIRM_VALID_FOR).timestamp(),
        Purpose::Manage => 0,
    };
    token::sign(
        key,
        purpose,
        &Claims {
            subscriber_id: subscriber_id.to_owned(),
            token_id: token_id.to_owned(),
            expires,
        },
    )
}

/// The subscriber a link token names, if the token is valid and still current.
pub fn subscriber_of_token(
    conn: &mut DbConn,
    key: &[u8],
    purpose: Purpose,
    token: &str,
    now: DateTime<Utc>,
) -> AppResult<Subscriber> {
    let refused = |e: TokenError| AppError::NotFound(format!("subscription ({e})"));
    let claims = token::verify(key, purpose, token, now).map_err(refused)?;
    let subscriber = rows::find_subscriber(conn, &claims.subscriber_id)?
        .filter(|s| s.manage_token_id == claims.token_id)
        .ok_or_else(|| refused(TokenError::Invalid))?;
    Ok(subscriber)
}

/// Confirms an email subscription from its link (a second click changes nothing).
pub fn confirm(
    conn: &mut DbConn,
    key: &[u8],
    token: &str,
    now: DateTime<Utc>,
) -> AppResult<Subscriber> {
    write_tx(conn, |c| {
        let subscriber = subscriber_of_token(c, key, Purpose::Confirm, token, now)?;
        if subscriber.state == SubscriberState::Pending {
            rows::set_state(
                c,
                &subscriber.id,
                SubscriberState::Confirmed,
                crate::db::now(),
            )?;
        } else if subscriber.state != SubscriberState::Confirmed {
            return Err(AppError::NotFound("subscription".into()));
        }
        Ok(rows::find_subscriber(c, &subscriber.id)?.unwrap_or(subscriber))
    })
}

/// Unsubscribes from a manage link; nothing more is sent to it.
pub fn unsubscribe(
    conn: &mut DbConn,
    key: &[u8],
    token: &str,
    now: DateTime<Utc>,
) -> AppResult<Subscriber> {
    write_tx(conn, |c| {
        let subscriber = subscriber_of_token(c, key, Purpose::Manage, token, now)?;
        let at = crate::db::now();
        rows::set_state(c, &subscriber.id, SubscriberState::Unsubscribed, at)?;
        rows::skip_pending_of(c, &subscriber.id, at)?;
        // The cancelled subscription's links die with it: a forwarded mail cannot manage
        // whatever subscription this address has next.
        rows::rotate_manage_token(c, &subscriber.id, &new_id(), at)?;
        Ok(subscriber)
    })
}

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
