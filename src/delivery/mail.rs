//! Email over SMTP: sessions from Herald's own pool (see [`smtp`]), and the MIME message built
//! from an [`EmailMessage`] (text and HTML alternatives, threading and list headers) or a
//! [`DirectMessage`] (a notice to one person, without list headers). Every header
//! goes through lettre's encoder; values that would need more than that (ids, URLs) are
//! checked first, so no field can start a header of its own.

mod smtp;

use std::sync::Arc;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::{Address, Message};

use super::{Attempt, one_line};

/// Why an SMTP URL that would send its password in clear text is refused.
pub const PASSWORD_IN_CLEAR: &str = "has a user and password but no TLS, so they would cross the network in clear text: use smtps://, smtp+starttls://, or add ?plain_auth=allow for a relay on this host";

/// Whether an SMTP URL (`smtp://`, `smtp+starttls://`, `smtps://`, lettre's `?tls=`) has a
/// user and password but nothing that encrypts the session before they are sent, and does
/// not say `?plain_auth=allow`.
pub fn sends_password_in_clear(url: &url::Url) -> bool {
    let query = |key: &str| {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    let tls = url.scheme() != "smtp" || query("tls").is_some();
    url.password().is_some() && !tls && query("plain_auth").as_deref() != Some("allow")
}
use crate::config::{Settings, redact_url};

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
    builder
        .multipart(MultiPart::alternative_plain_html(
            msg.text.clone(),
            msg.html.clone(),
        ))
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
mod tests {
    use super::*;

    fn from() -> Mailbox {
        "Herald <herald@status.example.com>".parse().unwrap()
    }

    fn message() -> EmailMessage {
        EmailMessage {
            to: "jo@example.com".into(),
            subject: "[Acme] API errors: investigating".into(),
            text: "We are investigating.".into(),
            html: "<p>We are investigating.</p>".into(),
            message_id: "inc-1.d2@status.example.com".into(),
            in_reply_to: Some("inc-1.d1@status.example.com".into()),
            references: vec!["inc-1.d1@status.example.com".into()],
            list_id: "Acme status <acme.status.example.com>".into(),
            unsubscribe_url: "https://status.example.com/unsubscribe?t=abc".into(),
            manage_url: Some("https://status.example.com/manage?t=abc".into()),
        }
    }

    fn render(msg: &EmailMessage) -> Result<String, MessageError> {
        build_message(&from(), msg).map(|m| String::from_utf8(m.formatted()).unwrap())
    }

    /// The header block, unfolded: one entry per header.
    fn headers(raw: &str) -> Vec<String> {
        let head = raw.split("\r\n\r\n").next().unwrap();
        let mut out: Vec<String> = Vec::new();
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                out.last_mut().unwrap().push_str(line);
            } else {
                out.push(line.to_owned());
            }
        }
        out
    }

    #[test]
    fn the_message_carries_threading_and_list_headers() {
        let raw = render(&message()).unwrap();
        let h = headers(&raw);
        for expected in [
            "Message-ID: <inc-1.d2@status.example.com>",
            "In-Reply-To: <inc-1.d1@status.example.com>",
            "References: <inc-1.d1@status.example.com>",
            "List-Id: Acme status <acme.status.example.com>",
            "List-Unsubscribe: <https://status.example.com/unsubscribe?t=abc>",
            "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
            "List-Help: <https://status.example.com/manage?t=abc>",
            "To: jo@example.com",
        ] {
            assert!(
                h.iter().any(|l| l == expected),
                "missing {expected} in {h:#?}"
            );
        }
        assert!(raw.contains("multipart/alternative"));
        assert!(raw.contains("text/plain") && raw.contains("text/html"));
    }

    #[test]
    fn line_breaks_in_the_subject_cannot_add_a_header() {
        let mut msg = message();
        msg.subject = "Down\r\nBcc: victim@example.com\nX-Evil: 1".into();
        let raw = render(&msg).unwrap();
        let h = headers(&raw);
        assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
        assert!(!h.iter().any(|l| l.starts_with("X-Evil:")), "{h:#?}");
        let subject = h.iter().find(|l| l.starts_with("Subject:")).unwrap();
        assert!(
            subject.contains("Bcc"),
            "the text stays in the subject: {subject}"
        );
    }

    #[test]
    fn non_ascii_subjects_are_encoded_and_stay_one_header() {
        let mut msg = message();
        msg.subject = "Störung — API\r\nBcc: victim@example.com".into();
        let raw = render(&msg).unwrap();
        let h = headers(&raw);
        assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
        let subject = h.iter().find(|l| l.starts_with("Subject:")).unwrap();
        assert!(subject.contains("=?utf-8?"), "{subject}");
        assert!(raw.is_ascii());
    }

    #[test]
    fn line_breaks_in_ids_and_addresses_are_refused() {
        let cases: [fn(&mut EmailMessage); 7] = [
            |m| m.message_id = "a@b\r\nBcc: x@y".into(),
            |m| m.in_reply_to = Some("a@b\nX-Evil: 1".into()),
            |m| m.references = vec!["ok@host".into(), "a@b>\r\nBcc: <x@y".into()],
            |m| m.to = "jo@example.com\r\nBcc: x@y".into(),
            |m| m.list_id = "x <a.b>\r\nBcc: x@y".into(),
            |m| m.message_id = "no-at-sign".into(),
            |m| m.unsubscribe_url = "javascript:alert(1)".into(),
        ];
        for (i, change) in cases.iter().enumerate() {
            let mut msg = message();
            change(&mut msg);
            assert!(render(&msg).is_err(), "case {i} was accepted");
        }
    }

    #[test]
    fn urls_are_serialised_without_breaks_or_brackets() {
        let mut msg = message();
        msg.unsubscribe_url = "https://status.example.com/u?t=a b>\r\nBcc: x@y".into();
        if let Ok(raw) = render(&msg) {
            let h = headers(&raw);
            assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
        }
    }

    #[test]
    fn a_bare_list_id_and_a_long_thread_are_fine() {
        let mut msg = message();
        msg.list_id = "acme.status.example.com".into();
        msg.references = (0..40)
            .map(|i| format!("inc-1.d{i}@status.example.com"))
            .collect();
        let raw = render(&msg).unwrap();
        let h = headers(&raw);
        assert!(h.iter().any(|l| l == "List-Id: <acme.status.example.com>"));
        let refs = h.iter().find(|l| l.starts_with("References:")).unwrap();
        assert_eq!(refs.matches('<').count(), 40);
        assert!(raw.split("\r\n").all(|l| l.len() <= 998));
    }

    fn direct() -> DirectMessage {
        DirectMessage {
            to: "support@example.com".into(),
            reply_to: Some((Some("Jo Doe".into()), "jo@example.com".into())),
            subject: "[Acme] Support request SUP-7K3Q9: I can't sign in".into(),
            text: "Jo cannot sign in.".into(),
            html: "<p>Jo cannot sign in.</p>".into(),
            message_id: "support.1.notice@status.example.com".into(),
        }
    }

    #[test]
    fn a_direct_message_carries_reply_to_and_no_list_headers() {
        let raw = String::from_utf8(
            build_direct_message(&from(), &direct())
                .unwrap()
                .formatted(),
        )
        .unwrap();
        let h = headers(&raw);
        for expected in [
            "To: support@example.com",
            "Message-ID: <support.1.notice@status.example.com>",
            "Auto-Submitted: auto-generated",
        ] {
            assert!(
                h.iter().any(|l| l == expected),
                "missing {expected} in {h:#?}"
            );
        }
        let reply_to = h.iter().find(|l| l.starts_with("Reply-To:")).unwrap();
        assert!(reply_to.contains("<jo@example.com>"), "{reply_to}");
        assert!(!h.iter().any(|l| l.starts_with("List-")), "{h:#?}");
        assert!(raw.contains("text/plain") && raw.contains("text/html"));
    }

    #[test]
    fn line_breaks_in_a_direct_message_cannot_add_a_header() {
        let mut msg = direct();
        msg.reply_to = Some((
            Some("Jo\r\nBcc: victim@example.com".into()),
            "jo@example.com".into(),
        ));
        msg.subject = "Help\r\nBcc: victim@example.com".into();
        let raw =
            String::from_utf8(build_direct_message(&from(), &msg).unwrap().formatted()).unwrap();
        let h = headers(&raw);
        assert!(!h.iter().any(|l| l.starts_with("Bcc:")), "{h:#?}");
        for bad in [
            "jo@example.com\r\nBcc: x@y",
            "jo@example.com>\nX-Evil: 1",
            "not an address",
        ] {
            let mut msg = direct();
            msg.reply_to = Some((None, bad.into()));
            assert!(build_direct_message(&from(), &msg).is_err(), "{bad}");
            let mut msg = direct();
            msg.to = bad.into();
            assert!(build_direct_message(&from(), &msg).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_smtp_url_is_checked_and_its_password_never_shown() {
        let err = Mailer::new("smtps://me:hunter2@mail.example.com", "Herald <h@x.y>").unwrap_err();
        assert_eq!(err, MailConfigError::NoRuntime);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            for url in ["http://me:hunter2@x", "nonsense", "smtp://"] {
                let err = Mailer::new(url, "Herald <h@x.y>").unwrap_err().to_string();
                assert!(err.starts_with("HERALD_SMTP_URL"), "{err}");
                assert!(!err.contains("hunter2"), "{err}");
            }
            let m = Mailer::new("smtps://me:hunter2@mail.example.com", "Herald <h@x.y>").unwrap();
            assert!(!format!("{m:?}").contains("hunter2"));
            assert!(Mailer::new("smtp+starttls://mail.example.com:587", "Herald <h@x.y>").is_ok());
            assert!(Mailer::new("smtp://127.0.0.1:2525", "nobody").is_err());
            let settings = |pairs: &[(&str, &str)]| {
                Settings::from_env(&crate::config::Env::from_pairs(pairs.iter().copied())).unwrap()
            };
            assert!(Mailer::from_settings(&settings(&[])).unwrap().is_none());
            let m = Mailer::from_settings(&settings(&[
                ("HERALD_SMTP_URL", "smtp://127.0.0.1:2525"),
                ("HERALD_MAIL_FROM", "Acme status <status@acme.test>"),
            ]))
            .unwrap()
            .unwrap();
            assert_eq!(m.server(), "smtp://127.0.0.1:2525");
        });
    }
}
