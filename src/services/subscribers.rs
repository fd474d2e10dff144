//! Subscribing and unsubscribing: the one body shape of the public and the responder API,
//! double opt-in for email (nothing but the confirmation is sent until it is confirmed, and the
//! answer never says whether the address was known), webhooks with their signing secret,
//! confirmation and one-click unsubscribe through signed links, responders' list and removal.

use serde::Deserialize;

use super::outbox::{self as events, kind};
use crate::domain::lang::Lang;
use crate::domain::{EmailAddress, PageId, SubscriberId};
mod links;
mod list;
mod manage;
pub mod on_request;
pub mod token;

pub use links::{confirm, link_token, subscriber_of_token, unsubscribe};
pub use list::{SubscriberView, export_csv, list, remove, view};
pub use manage::{
    counts, of_page, reactivate, resend_confirmation, search, set_chosen_components,
    unsubscribe_by_id,
};

use crate::db::models::notify::{self as rows, Subscriber};
use crate::db::models::{components, pages};
use crate::db::states::{Channel, SubscriberState};
use crate::db::{DbConn, new_id, now, write_tx};
use crate::error::{AppError, AppResult};
use crate::services::pages::FieldCheck;

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
pub(crate) fn check_components(
    conn: &mut DbConn,
    page_id: &PageId,
    ids: Option<&[String]>,
) -> AppResult<()> {
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
