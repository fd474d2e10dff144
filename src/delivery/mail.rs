//! Email over SMTP: sessions from Herald's own pool (see [`smtp`]), and the MIME message built
//! from an [`EmailMessage`] (text and HTML alternatives, threading and list headers) or a
//! [`DirectMessage`] (a notice to one person, without list headers). Every header
//! goes through lettre's encoder; values that would need more than that (ids, URLs) are
//! checked first, so no field can start a header of its own.

mod smtp;

use std::sync::Arc;

use lettre::message::header::ContentType;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::{Address, Message};

use super::{Attempt, one_line};

pub use crate::config::{PASSWORD_IN_CLEAR, sends_password_in_clear};
use crate::config::{Settings, redact_url};

/// The domain of Herald's Message-IDs and List-Ids: the host of its public URL.
pub fn mail_domain(public_url: &str) -> String {
    url::Url::parse(public_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| "herald.invalid".to_owned())
}

/// The mailer the settings describe, if any; a setting Herald cannot use is logged, saying
/// `what` cannot be mailed, and no mailer is made (the rest of Herald runs).
pub fn mailer_or_log(settings: &Settings, what: &str) -> Option<Mailer> {
    Mailer::from_settings(settings).unwrap_or_else(|e| {
        tracing::error!(error = %e, "{what} cannot be mailed");
        None
    })
}

/// One message to one recipient, rendered by `notify`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EmailMessage {
    /// A bare address, e.g. `jo@example.com`.
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// Without angle brackets, e.g. `inc-<id>.<delivery>@host`.
    pub message_id: String,
    /// The message this one answers (the incident's first message), without brackets.
    pub in_reply_to: Option<String>,
    /// The thread so far, oldest first, without brackets.
    pub references: Vec<String>,
    /// `List-Id` (RFC 2919): `acme.status.example.com`, or `Acme status <acme.status.example.com>`.
    pub list_id: String,
    /// The one-click unsubscribe URL (RFC 8058): a POST to it unsubscribes.
    pub unsubscribe_url: String,
    /// Where to manage the subscription (sent as `List-Help`).
    pub manage_url: Option<String>,
    /// An image the HTML shows (`cid:` its id): the page's logo, sent inside the message so
    /// that no mail client has to fetch it (and none can tell the sender it was read).
    pub inline: Option<InlineImage>,
}

/// An image sent inside a message, beside its HTML (`multipart/related`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineImage {
    /// Its Content-ID, without brackets (`logo.3f9a1c2b@herald`); the HTML says `cid:` it.
    pub cid: String,
    pub content_type: &'static str,
    pub bytes: bytes::Bytes,
}

/// A message to one person that is not list mail (a support notice, a copy for the sender, a
/// reminder to responders): no `List-*` headers, optionally a `Reply-To`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DirectMessage {
    /// A bare address, e.g. `support@example.com`.
    pub to: String,
    /// Where answers go: a bare address and an optional display name (kept on one line).
    pub reply_to: Option<(Option<String>, String)>,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// Without angle brackets, e.g. `support.<id>.notice@host`.
    pub message_id: String,
}

/// An SMTP setting Herald cannot use; never shows the password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailConfigError {
    #[error("HERALD_SMTP_URL: {0}")]
    Url(String),
    #[error("HERALD_MAIL_FROM: '{0}' is not a mailbox such as 'Herald <herald@example.com>'")]
    From(String),
    #[error("the mailer must be created inside a Tokio runtime (its connection pool runs there)")]
    NoRuntime,
}

/// A message that cannot be built from its fields (not worth retrying).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MessageError(String);

/// Sends mail through one SMTP server with a connection pool. Cheap to clone.
#[derive(Clone)]
pub struct Mailer {
    sessions: Arc<smtp::Sessions>,
    from: Mailbox,
    server: String,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("server", &self.server)
            .field("from", &self.from.to_string())
            .finish()
    }
}

impl Mailer {
    /// A mailer for `smtp://host:port` (plain), `smtp+starttls://[user:pass@]host[:587]`
    /// (STARTTLS required) or `smtps://[user:pass@]host[:465]` (TLS from the start).
    /// A user and password in the URL log in (AUTH PLAIN or LOGIN); `smtp://` also takes
    /// lettre's `?tls=required|opportunistic`. Must be called inside a Tokio runtime.
    pub fn new(smtp_url: &str, from: &str) -> Result<Self, MailConfigError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(MailConfigError::NoRuntime);
        }
        let server = redact_url(smtp_url);
        let bad = |why: &str| MailConfigError::Url(format!("'{server}' {why}"));
        let mut url = url::Url::parse(smtp_url.trim()).map_err(|_| bad("is not a URL"))?;
        match url.scheme() {
            "smtp" | "smtps" => {}
            "smtp+starttls" => {
                url.set_scheme("smtp")
                    .map_err(|()| bad("could not be converted"))?;
                url.query_pairs_mut().append_pair("tls", "required");
            }
            _ => return Err(bad("must use smtp://, smtps:// or smtp+starttls://")),
        }
        let endpoint = smtp::Endpoint::parse(&url).map_err(bad)?;
        let from = from
            .parse::<Mailbox>()
            .map_err(|_| MailConfigError::From(from.to_owned()))?;
        Ok(Self {
            sessions: Arc::new(smtp::Sessions::new(endpoint)),
            from,
            server,
        })
    }

    /// The mailer the settings ask for, or `None` when `HERALD_SMTP_URL` is unset. Either way
    /// the log says so once, so an operator who expected mail sees why none goes out.
    pub fn from_settings(settings: &Settings) -> Result<Option<Self>, MailConfigError> {
        let Some(url) = &settings.smtp_url else {
            // Asked for by the engine and the support notices alike: said once per process.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                tracing::warn!(
                    "HERALD_SMTP_URL is not set: Herald sends no email (subscription confirmations, notifications, reminders)"
                )
            });
            return Ok(None);
        };
        let mailer = Self::new(url, &settings.mail_from)?;
        tracing::info!(server = %mailer.server, from = %mailer.from, "email goes out through SMTP");
        Ok(Some(mailer))
    }

    /// The server, password masked (for logs).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Sends one message: `Delivered`; `Failed` for a permanent rejection (SMTP 5xx) or a
    /// message that cannot be built; `Retry` for a temporary rejection (4xx), a connection
    /// problem, or a session that cannot be opened (connecting, TLS, greeting, login: about
    /// the server or Herald's settings, not the message).
    pub async fn send(&self, msg: &EmailMessage) -> Attempt {
        self.deliver(self.build(msg)).await
    }

    /// Sends one [`DirectMessage`]; answers as [`Mailer::send`].
    pub async fn send_direct(&self, msg: &DirectMessage) -> Attempt {
        self.deliver(build_direct_message(&self.from, msg)).await
    }

    async fn deliver(&self, message: Result<Message, MessageError>) -> Attempt {
        match message {
            Ok(message) => {
                let bytes = message.formatted();
                self.sessions.send(message.envelope(), &bytes).await
            }
            Err(e) => Attempt::Failed {
                error: e.to_string(),
            },
        }
    }

    /// The complete message as it goes on the wire (tests, previews).
    pub fn render(&self, msg: &EmailMessage) -> Result<Vec<u8>, MessageError> {
        Ok(self.build(msg)?.formatted())
    }

    fn build(&self, msg: &EmailMessage) -> Result<Message, MessageError> {
        build_message(&self.from, msg)
    }
}

/// A bare address; anything with a line break, space or bracket is refused by the parser.
fn address(raw: &str, what: &str) -> Result<Address, MessageError> {
    raw.trim()
        .parse()
        .map_err(|_| MessageError(format!("{what} is not an email address")))
}

/// Builds the MIME message of a [`DirectMessage`]: no list headers.
pub fn build_direct_message(from: &Mailbox, msg: &DirectMessage) -> Result<Message, MessageError> {
    let to = address(&msg.to, "the recipient")?;
    let mut builder = Message::builder()
        .from(from.clone())
        .to(Mailbox::new(None, to))
        .subject(single_line(&msg.subject))
        .message_id(Some(msg_id(&msg.message_id, "Message-ID")?))
        .date_now()
        .raw_header(header("Auto-Submitted", "auto-generated".into())?);
    if let Some((name, reply_to)) = &msg.reply_to {
        let reply_to = address(reply_to, "the Reply-To address")?;
        let name = name
            .as_deref()
            .map(single_line)
            .filter(|n| !n.is_empty())
            .map(|n| n.chars().take(100).collect::<String>());
        builder = builder.reply_to(Mailbox::new(name, reply_to));
    }
    builder
        .multipart(MultiPart::alternative_plain_html(
            msg.text.clone(),
            msg.html.clone(),
        ))
        .map_err(|e| MessageError(format!("the message could not be built: {e}")))
}

/// Builds the MIME message.
pub fn build_message(from: &Mailbox, msg: &EmailMessage) -> Result<Message, MessageError> {
    let to = address(&msg.to, "the recipient")?;
    let message_id = msg_id(&msg.message_id, "Message-ID")?;
    let references = msg
        .references
        .iter()
        .map(|id| msg_id(id, "References"))
        .collect::<Result<Vec<_>, _>>()?;
    let unsubscribe = http_url(&msg.unsubscribe_url, "the unsubscribe URL")?;
    let mut builder = Message::builder()
        .from(from.clone())
        .to(Mailbox::new(None, to))
        .subject(single_line(&msg.subject))
        .message_id(Some(message_id))
        .date_now()
        .raw_header(header("List-Id", list_id(&msg.list_id)?)?)
        .raw_header(header("List-Unsubscribe", format!("<{unsubscribe}>"))?)
        .raw_header(header(
            "List-Unsubscribe-Post",
            "List-Unsubscribe=One-Click".into(),
        )?)
        .raw_header(header("Auto-Submitted", "auto-generated".into())?);
    if let Some(parent) = &msg.in_reply_to {
        builder = builder.in_reply_to(msg_id(parent, "In-Reply-To")?);
    }
    if !references.is_empty() {
        builder = builder.references(references.join(" "));
    }
    if let Some(manage) = &msg.manage_url {
        let manage = http_url(manage, "the manage URL")?;
        builder = builder.raw_header(header("List-Help", format!("<{manage}>"))?);
    }
    let body = match &msg.inline {
        None => MultiPart::alternative_plain_html(msg.text.clone(), msg.html.clone()),
        Some(image) => {
            let cid = msg_id(&image.cid, "the inline image's Content-ID")?;
            let content_type = ContentType::parse(image.content_type)
                .map_err(|e| MessageError(format!("the inline image's type: {e}")))?;
            let image = Attachment::new_inline(cid.trim_matches(['<', '>']).to_owned())
                .body(image.bytes.to_vec(), content_type);
            MultiPart::alternative()
                .singlepart(SinglePart::plain(msg.text.clone()))
                .multipart(
                    MultiPart::related()
                        .singlepart(SinglePart::html(msg.html.clone()))
                        .singlepart(image),
                )
        }
    };
    builder
        .multipart(body)
        .map_err(|e| MessageError(format!("the message could not be built: {e}")))
}

fn header(name: &'static str, value: String) -> Result<HeaderValue, MessageError> {
    let name = HeaderName::new_from_ascii_str(name);
    Ok(HeaderValue::new(name, value))
}

/// A subject on one line: line breaks and other control characters become spaces.
fn single_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// A message id (`left@right`, printable ASCII without brackets, spaces or specials) in
/// angle brackets; anything else is refused rather than repaired.
fn msg_id(raw: &str, field: &str) -> Result<String, MessageError> {
    let id = raw.trim();
    let id = id
        .strip_prefix('<')
        .and_then(|i| i.strip_suffix('>'))
        .unwrap_or(id);
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c);
    let valid = match id.split_once('@') {
        Some((left, right)) => {
            !left.is_empty()
                && !right.is_empty()
                && id.len() <= 250
                && left.chars().all(atext)
                && right.chars().all(atext)
        }
        None => false,
    };
    if valid {
        Ok(format!("<{id}>"))
    } else {
        Err(MessageError(format!(
            "{field}: '{}' is not a message id (left@right)",
            one_line(raw, 80)
        )))
    }
}

/// `List-Id`: `label <list.id>` or a bare `list.id`; the id is a dot-atom, the label is kept
/// only when it is plain printable ASCII without specials.
fn list_id(raw: &str) -> Result<String, MessageError> {
    let raw = raw.trim();
    let (label, id) = match raw.rsplit_once('<') {
        Some((label, rest)) => (label.trim(), rest.strip_suffix('>').unwrap_or("")),
        None => ("", raw),
    };
    let id_ok = !id.is_empty()
        && id.len() <= 200
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c));
    if !id_ok {
        return Err(MessageError(format!(
            "List-Id: '{}' is not a list id such as acme.status.example.com",
            one_line(raw, 80)
        )));
    }
    let label_ok = !label.is_empty()
        && label
            .chars()
            .all(|c| (c.is_ascii_graphic() || c == ' ') && !"<>\"()\\,;:@[]".contains(c));
    Ok(if label_ok {
        format!("{label} <{id}>")
    } else {
        format!("<{id}>")
    })
}

/// An http(s) URL in its serialized form, in which spaces, `<`, `>` and line breaks cannot
/// appear.
fn http_url(raw: &str, what: &str) -> Result<String, MessageError> {
    match url::Url::parse(raw.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => {
            let s = u.to_string();
            if s.chars()
                .all(|c| c.is_ascii_graphic() && c != '<' && c != '>')
            {
                Ok(s)
            } else {
                Err(MessageError(format!("{what} is not usable in a header")))
            }
        }
        _ => Err(MessageError(format!("{what} is not an http(s) URL"))),
    }
}

#[cfg(test)]
mod tests;
