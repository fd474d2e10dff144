//! One delivery's message: the event's content completed with the recipient's links (manage,
//! one-click unsubscribe, confirmation), as an email or a signed webhook request. The delivery
//! row's id is the webhook-id and the seed of the mail's Message-ID, so a resend after a crash
//! carries the same id.

use chrono::Utc;
use serde_json::json;

use super::content::EventContent;
use super::lanes::Dest;
use crate::db::models::notify::{Addressee, ClaimedDelivery};
use crate::db::states::{Channel, SubscriberState};
use crate::delivery::body::WebhookBody;
use crate::delivery::mail::EmailMessage;
use crate::delivery::webhook::WebhookRequest;
use crate::render::mail::Mailbook;
use crate::services::outbox::kind;
use crate::services::signing_key::SigningKey;
use crate::services::subscribers::link_token;
use crate::services::subscribers::token::Purpose;

/// What links are made with: Herald's public base URL and the signing key.
pub struct Links {
    pub base_url: String,
    pub key: SigningKey,
}

impl Links {
    /// The manage page, whose button (and a one-click POST) unsubscribes.
    pub fn manage_url(&self, slug: &str, subscriber: &Addressee) -> String {
        let token = self.token(subscriber, Purpose::Manage);
        let lang = in_language(subscriber);
        format!("{}/status/{slug}/unsubscribe/{token}{lang}", self.base_url)
    }

    /// The double opt-in link (expires).
    pub fn confirm_url(&self, slug: &str, subscriber: &Addressee) -> String {
        let token = self.token(subscriber, Purpose::Confirm);
        let lang = in_language(subscriber);
        format!("{}/status/{slug}/confirm/{token}{lang}", self.base_url)
    }

    fn token(&self, subscriber: &Addressee, purpose: Purpose) -> String {
        let (id, token_id) = (&subscriber.id, &subscriber.manage_token_id);
        link_token(self.key.expose(), id, token_id, purpose, Utc::now())
    }

    /// The host of the base URL, for Message-IDs and List-Id.
    pub fn mail_domain(&self) -> String {
        crate::delivery::mail::mail_domain(&self.base_url)
    }
}

/// The query that opens a link's page in the subscriber's language (`?lang=de`), when they
/// chose one; the page answers in its default language otherwise.
fn in_language(subscriber: &Addressee) -> String {
    subscriber
        .language
        .map(|lang| format!("?lang={}", lang.as_str()))
        .unwrap_or_default()
}

/// Where a delivery goes.
#[derive(Debug, Clone)]
pub enum Recipient {
    Email(String),
    Webhook { url: String, secret: String },
}

impl Recipient {
    /// The destination: the mail relay, or the webhook's `host:port` (its lane in the engine).
    pub fn dest(&self) -> Dest {
        match self {
            Self::Email(_) => Dest::Relay,
            Self::Webhook { url, .. } => Dest::Host(
                url::Url::parse(url)
                    .ok()
                    .map(|u| {
                        format!(
                            "{}:{}",
                            u.host_str().unwrap_or(""),
                            u.port_or_known_default().unwrap_or(0)
                        )
                    })
                    .unwrap_or_default(),
            ),
        }
    }
}

/// The recipient of an event's delivery to `subscriber`, or `None` when it should no longer
/// be sent (unsubscribed or quarantined since, or already confirmed).
pub fn recipient(content: &EventContent, subscriber: &Addressee) -> Option<Recipient> {
    match content.event.kind.as_str() {
        kind::SUBSCRIBER_CONFIRMATION | kind::SUBSCRIBER_MOVED => (subscriber.state
            == SubscriberState::Pending)
            .then(|| subscriber.email.clone().map(Recipient::Email))
            .flatten(),
        kind::SUBSCRIBER_QUARANTINED => subscriber.contact_email.clone().map(Recipient::Email),
        _ if subscriber.state != SubscriberState::Confirmed => None,
        _ => match subscriber.kind {
            Channel::Email => subscriber.email.clone().map(Recipient::Email),
            Channel::Webhook => match (&subscriber.url, &subscriber.secret) {
                (Some(url), Some(secret)) => Some(Recipient::Webhook {
                    url: url.clone(),
                    secret: secret.clone(),
                }),
                _ => None,
            },
        },
    }
}

/// A message ready to send.
#[derive(Debug, Clone)]
pub enum Outgoing {
    Email(EmailMessage),
    Webhook(WebhookRequest),
}

/// Builds the message of `delivery` for `recipient`.
pub fn build(
    book: &Mailbook,
    links: &Links,
    content: &EventContent,
    subscriber: &Addressee,
    delivery: &ClaimedDelivery,
    recipient: Recipient,
) -> anyhow::Result<Outgoing> {
    let slug = &content.page_slug;
    let manage_url = links.manage_url(slug, subscriber);
    match recipient {
        Recipient::Webhook { url, secret } => {
            let body = WebhookBody::with_unsubscribe(content.webhook.clone(), manage_url);
            Ok(Outgoing::Webhook(WebhookRequest {
                id: delivery.id.clone(),
                url,
                secret,
                body,
                summary: content.chat.clone(),
            }))
        }
        Recipient::Email(to) => {
            let (lang, view) = content.view_for(subscriber.language);
            let mut view = view.clone();
            view["manage_url"] = json!(manage_url);
            view["unsubscribe_url"] = json!(manage_url);
            match content.event.kind.as_str() {
                kind::SUBSCRIBER_CONFIRMATION | kind::SUBSCRIBER_MOVED => {
                    view["confirm_url"] = json!(links.confirm_url(slug, subscriber));
                }
                kind::SUBSCRIBER_QUARANTINED => {
                    view["url"] = json!(subscriber.url.clone().unwrap_or_default());
                    view["failures"] = json!(subscriber.consecutive_failures);
                }
                _ => {}
            }
            let (subject, text, html) = book.render(content.template, lang, &view)?;
            let domain = links.mail_domain();
            let root = content
                .thread_root
                .as_deref()
                .filter(|root| *root != content.event.id)
                .map(|root| format!("{root}.{}.email@{domain}", subscriber.id));
            Ok(Outgoing::Email(EmailMessage {
                to,
                subject,
                text,
                html,
                message_id: format!("{}@{domain}", delivery.id),
                in_reply_to: root.clone(),
                references: root.into_iter().collect(),
                list_id: format!("{slug}.{domain}"),
                unsubscribe_url: manage_url.clone(),
                manage_url: Some(manage_url),
                inline: content.logo.clone(),
            }))
        }
    }
}
