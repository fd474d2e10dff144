//! The `reader.link` job: mails a reader the sign-in link they asked for. The link's token is
//! made here, when the mail is written, from the stored link's id and expiry, so no usable
//! token is ever stored. A link that expired before its mail could go is not sent.

use anyhow::{Context as _, anyhow};
use chrono::Utc;
use serde_json::json;

use crate::config::Settings;
use crate::db::Db;
use crate::delivery::Attempt;
use crate::delivery::mail::{DirectMessage, Mailer, mail_domain, mailer_or_log};
use crate::domain::lang::Lang;
use crate::jobs::Permanent;
use crate::render::mail::Mailbook;
use crate::services::access::{ReaderLinkMail, find_link};
use crate::services::signing_key::SigningKey;

use super::runner::{Handle, JobContext};

/// Mails sign-in links.
pub struct LinkMailer {
    mailer: Option<Mailer>,
    book: Mailbook,
    key: SigningKey,
    base_url: String,
    domain: String,
}

impl LinkMailer {
    /// A mailer for `settings`. Must be called inside a Tokio runtime (the mail pool).
    pub fn new(settings: &Settings, key: SigningKey) -> anyhow::Result<Self> {
        Ok(Self {
            mailer: mailer_or_log(settings, "sign-in links for readers"),
            book: Mailbook::load().context("email templates")?,
            key,
            base_url: settings.public_url.trim_end_matches('/').to_owned(),
            domain: mail_domain(&settings.public_url),
        })
    }

    #[tracing::instrument(skip_all, fields(link))]
    async fn mail(&self, db: &Db, payload: ReaderLinkMail) -> anyhow::Result<()> {
        tracing::Span::current().record("link", payload.link_id.as_str());
        let Some(mailer) = &self.mailer else {
            return Err(Permanent(
                "HERALD_SMTP_URL is not set: no sign-in link can be mailed".into(),
            )
            .into());
        };
        let id = payload.link_id.clone();
        let Some((link, page)) = db.run(move |c| find_link(c, &id)).await? else {
            tracing::info!("the link or its page is gone; nothing to mail");
            return Ok(());
        };
        let expires = link.expires_at.and_utc();
        if expires <= Utc::now() || link.used_at.is_some() {
            tracing::info!("the link expired before its mail could go; not sent");
            return Ok(());
        }
        let token = crate::services::access::pass::sign_link(&link.id, expires, self.key.expose());
        let lang = payload
            .language
            .as_deref()
            .and_then(|code| code.parse::<Lang>().ok())
            .unwrap_or(Lang::En);
        // The link's page answers in the same language (for a page read in it).
        let url = format!(
            "{}/status/{}/access/link/{token}?lang={}",
            self.base_url,
            page.slug,
            lang.as_str()
        );
        let view = json!({
            "page": {"name": page.name},
            "url": url,
            "minutes": crate::services::access::pass::LINK_LIFETIME.num_minutes(),
            "email": link.email,
        });
        let (subject, text, html) = self.book.render("reader_link", lang, &view)?;
        let message = DirectMessage {
            to: link.email.clone(),
            reply_to: page
                .support_email
                .clone()
                .map(|a| (Some(page.name.clone()), a)),
            subject,
            text,
            html,
            message_id: format!("reader.{}@{}", link.id, self.domain),
        };
        match mailer.send_direct(&message).await {
            Attempt::Delivered => Ok(()),
            Attempt::Failed { error } => Err(Permanent(error).into()),
            Attempt::Deferred { .. } => Err(anyhow!("deferred")),
            Attempt::Retry { error, .. } | Attempt::Unreachable { error } => Err(anyhow!(error)),
        }
    }
}

impl Handle<ReaderLinkMail> for LinkMailer {
    async fn run(&self, ctx: &JobContext, job: ReaderLinkMail) -> anyhow::Result<()> {
        self.mail(&ctx.db, job).await
    }
}
