//! The `support.notify` job: one notice of a stored submission (a mail to the page's support
//! address, the sender's copy, or the signed POST to the page's support webhook), as
//! `support::notice` describes.

use std::time::Duration;

use anyhow::{Context as _, anyhow};
use serde_json::{Value, json};

use super::runner::{Handle, JobContext};
use crate::config::Settings;
use crate::db::Db;
use crate::delivery::Attempt;
use crate::delivery::chat::{Author, ChatMessage};
use crate::delivery::mail::{DirectMessage, Mailer, mail_domain, mailer_or_log};
use crate::delivery::outbound::Policy;
use crate::delivery::webhook::{WebhookClient, WebhookRequest};
use crate::domain::lang::Lang;
use crate::jobs::Permanent;
use crate::render::mail::Mailbook;
use crate::support::Topic;
use crate::support::notice::{Found, Notice, Target, load};

/// Tries within one job run while the webhook host is busy or its circuit open.
const DEFERRALS: u32 = 5;

/// Sends support notices: the mailer (if any), templates and webhook client.
pub struct Notifier {
    mailer: Option<Mailer>,
    book: Mailbook,
    webhooks: WebhookClient,
    base_url: String,
    domain: String,
}

impl Notifier {
    /// A notifier for `settings`. Must be called inside a Tokio runtime (the mail pool).
    pub fn new(settings: &Settings) -> anyhow::Result<Self> {
        Ok(Self {
            mailer: mailer_or_log(settings, "support notices (held until then)"),
            book: Mailbook::load().context("email templates")?,
            webhooks: WebhookClient::new(Policy::from_settings(settings)),
            base_url: settings.public_url.clone(),
            domain: mail_domain(&settings.public_url),
        })
    }

    #[tracing::instrument(skip_all, fields(submission, target))]
    async fn send(&self, db: &Db, payload: Notice) -> anyhow::Result<()> {
        let span = tracing::Span::current();
        span.record("submission", payload.submission_id.as_str());
        span.record("target", tracing::field::debug(payload.target));
        let mail = matches!(payload.target, Target::SupportEmail | Target::SenderCopy);
        if mail && self.mailer.is_none() {
            // Checked before the database is asked: a job waiting for a mail server costs
            // nothing but its retries.
            tracing::warn!(
                "HERALD_SMTP_URL is not set: the support notice waits for a mail server"
            );
            return Err(anyhow!(
                "HERALD_SMTP_URL is not set: no mail server to send the support notice through; retried with backoff"
            ));
        }
        let id = payload.submission_id.clone();
        let Some(found) = db.run(move |c| load(c, &id)).await? else {
            tracing::info!("the submission or its page is gone; no notice");
            return Ok(());
        };
        match payload.target {
            Target::SupportEmail => self.mail(&found, None).await,
            Target::SenderCopy => {
                let lang = payload.language.unwrap_or(found.page.default_language);
                self.mail(&found, Some(lang)).await
            }
            Target::SupportWebhook => self.webhook(&found).await,
        }
    }

    /// The notice to the support address (`copy` `None`, in English: the team's language is
    /// not known), or the sender's copy in the language of their form.
    async fn mail(&self, found: &Found, copy: Option<Lang>) -> anyhow::Result<()> {
        let s = &found.submission;
        let lang = copy.unwrap_or(Lang::En);
        let (to, reply_to, template, kind) = if copy.is_some() {
            let support = found.page.support_email.clone();
            let reply_to = support.map(|a| (Some(found.page.name.clone()), a));
            (s.email.clone(), reply_to, "support_copy", "copy")
        } else {
            let Some(to) = found.page.support_email.clone() else {
                tracing::info!("the page has no support address any more; no notice");
                return Ok(());
            };
            let reply_to = Some((Some(s.name.clone()), s.email.clone()));
            (to, reply_to, "support_notice", "notice")
        };
        let mut view = self.view(found);
        if let Some(lang) = copy {
            let key = format!("support-topic-{}", s.topic);
            view["topic"] = json!(crate::render::i18n::text(lang, &key));
        }
        let (subject, text, html) = self.book.render(template, lang, &view)?;
        let message = DirectMessage {
            to,
            reply_to,
            subject,
            text,
            html,
            message_id: format!("support.{}.{kind}@{}", s.id, self.domain),
        };
        let Some(mailer) = &self.mailer else {
            return Err(anyhow!("HERALD_SMTP_URL is not set"));
        };
        outcome(mailer.send_direct(&message).await)
    }

    async fn webhook(&self, found: &Found) -> anyhow::Result<()> {
        let Some(hook) = &found.webhook else {
            tracing::info!("the page has no support webhook any more; no notice");
            return Ok(());
        };
        let s = &found.submission;
        let view = self.view(found);
        let request = WebhookRequest {
            id: format!("support_{}", s.id),
            url: hook.url.clone(),
            secret: hook.secret.clone(),
            body: json!({
                "type": "support.submission",
                "reference": s.reference,
                "page": {
                    "id": found.page.id, "slug": found.page.slug,
                    "name": found.page.name, "url": view["page"]["url"],
                },
                "submission": {
                    "id": s.id, "reference": s.reference, "name": s.name, "email": s.email,
                    "topic": s.topic, "topic_label": view["topic"],
                    "component": found.component.as_ref().map(|(id, name, _)| json!({"id": id, "name": name})),
                    "account": s.account, "message": s.message, "wants_copy": s.wants_copy,
                    "spooled": s.spooled, "submitted_at": view["submitted_at"],
                },
                "console_url": view["console_url"],
                "generated_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            })
            .into(),
            summary: ChatMessage {
                title: format!("{}: support request {}", found.page.name, s.reference),
                text: format!(
                    "{} — {} <{}>: {}",
                    view["topic"].as_str().unwrap_or(&s.topic),
                    s.name,
                    s.email,
                    s.message.chars().take(500).collect::<String>()
                ),
                url: view["console_url"].as_str().unwrap_or_default().to_owned(),
                status: s.topic.clone(),
                author: Author::Anyone,
            }.into(),
        };
        for _ in 0..DEFERRALS {
            match self.webhooks.send(&request).await {
                Attempt::Deferred { after, .. } => {
                    tokio::time::sleep(after.min(Duration::from_secs(30))).await
                }
                other => return outcome(other),
            }
        }
        Err(anyhow!(
            "the support webhook's host stayed busy or its circuit open"
        ))
    }

    /// What the templates see; every value is escaped in HTML by the template engine.
    fn view(&self, found: &Found) -> Value {
        let s = &found.submission;
        let topic = s
            .topic
            .parse::<Topic>()
            .map(Topic::label)
            .unwrap_or("Other");
        let page_url = format!("{}/status/{}", self.base_url, found.page.slug);
        json!({
            "page": {"name": found.page.name, "url": page_url},
            "reference": s.reference,
            "topic": topic,
            "name": s.name,
            "email": s.email,
            "account": s.account,
            "component": found.component.as_ref().map(|(_, _, label)| label),
            "message": s.message,
            "spooled": s.spooled,
            "submitted_at": s.submitted_at.and_utc().format("%Y-%m-%d %H:%M UTC").to_string(),
            "console_url": format!("{}/admin/support/{}", self.base_url, s.id),
            "support_email": found.page.support_email,
        })
    }
}

/// A send's outcome as a job result: a permanent failure (a 4xx other than 408 and 429, a 5xx
/// from the mail server, a refused address) is dead-lettered at once, as for subscribers;
/// anything else not delivered is retried by the job runner.
fn outcome(attempt: Attempt) -> anyhow::Result<()> {
    match attempt {
        Attempt::Delivered => Ok(()),
        Attempt::Deferred { .. } => Err(anyhow!("deferred")),
        Attempt::Retry { error, .. } | Attempt::Unreachable { error } => Err(anyhow!(error)),
        Attempt::Failed { error } => Err(Permanent(error).into()),
    }
}

impl Handle<Notice> for Notifier {
    async fn run(&self, ctx: &JobContext, job: Notice) -> anyhow::Result<()> {
        self.send(&ctx.db, job).await
    }
}
