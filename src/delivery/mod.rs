//! Outbound delivery: one attempt at sending one email or one webhook, and the rules around it
//! (signing, SSRF policy, backoff, per-host circuit breakers, chat formats).
//!
//! No database here: `notify` decides who gets what and when, stores the outcome, and calls
//! [`mail::Mailer::send`] / [`webhook::WebhookClient::send`], which answer an [`Attempt`].

pub use crate::domain::backoff;
pub mod body;
pub mod breaker;
pub mod chat;
pub mod connections;
pub mod fetch;
pub mod mail;
pub mod outbound;
pub mod signature;
pub mod webhook;

use std::time::Duration;

/// The result of one delivery attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    Delivered,
    /// Try again later; `retry_after` is the receiver's Retry-After (429/503) when it gave one.
    Retry {
        retry_after: Option<Duration>,
        error: String,
    },
    /// Not retried (permanent SMTP 5xx, HTTP 4xx other than 408/429, refused destination).
    Failed {
        error: String,
    },
    /// The destination as a whole could not be reached (no connection, or no SMTP session:
    /// connecting, TLS, greeting, login): says nothing about this message, and is not counted
    /// against it while the destination is down.
    Unreachable {
        error: String,
    },
    /// Not attempted now: try again after `after`, not counted as an attempt; `waiting` says
    /// what it waits for (shown with the delivery).
    Deferred {
        after: Duration,
        waiting: Waiting,
    },
}

/// What a deferred delivery waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Waiting {
    /// No mail server is set (`HERALD_SMTP_URL`).
    MailServer,
    /// Its host failed repeatedly; its circuit is open until a probe succeeds.
    HostCircuitOpen,
    /// Its host has many deliveries queued already; other hosts go first.
    HostQueue,
    /// The process is shutting down; another process (or the next start) sends it.
    ShuttingDown,
    /// The mail server cannot be reached; it is probed every few seconds.
    MailServerDown,
    /// The receiver's host cannot be reached; it is probed every few seconds.
    HostDown,
}

impl Waiting {
    /// The stored name (`deliveries.waiting_for`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MailServer => "mail_server",
            Self::HostCircuitOpen => "host_circuit_open",
            Self::HostQueue => "host_queue",
            Self::ShuttingDown => "shutting_down",
            Self::MailServerDown => "mail_server_down",
            Self::HostDown => "host_down",
        }
    }

    /// Every reason, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::MailServer,
        Self::HostCircuitOpen,
        Self::HostQueue,
        Self::ShuttingDown,
        Self::MailServerDown,
        Self::HostDown,
    ];

    /// The reason stored as `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.as_str() == name)
    }

    /// What it means, for the console and the log.
    pub fn describe(self) -> &'static str {
        match self {
            Self::MailServer => "waiting for a mail server: HERALD_SMTP_URL is not set",
            Self::HostCircuitOpen => {
                "waiting: the receiver's host failed repeatedly and is tried again shortly"
            }
            Self::HostQueue => "waiting behind other deliveries to the same host",
            Self::ShuttingDown => "waiting: this Herald is shutting down",
            Self::MailServerDown => {
                "waiting: the mail server cannot be reached; Herald tries it every few seconds"
            }
            Self::HostDown => {
                "waiting: the receiver's host cannot be reached; Herald tries it every few seconds"
            }
        }
    }

    /// Logs `self` the first time this process meets it for `host` (the log says each cause
    /// once, not once per delivery).
    pub fn log_once(self, host: &str) {
        use std::collections::HashSet;
        use std::sync::{Mutex, OnceLock};
        static SEEN: OnceLock<Mutex<HashSet<(Waiting, String)>>> = OnceLock::new();
        let seen = SEEN.get_or_init(Mutex::default);
        let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() < 10_000 && seen.insert((self, host.to_owned())) {
            tracing::warn!(
                host,
                waiting = self.as_str(),
                "deliveries are {}",
                self.describe()
            );
        }
    }
}

impl Attempt {
    /// The error text of a `Retry` or `Failed` attempt.
    pub fn error(&self) -> Option<&str> {
        match self {
            Self::Retry { error, .. } | Self::Failed { error } | Self::Unreachable { error } => {
                Some(error)
            }
            Self::Delivered | Self::Deferred { .. } => None,
        }
    }

    /// Whether this attempt counts towards the attempt limit (everything but `Deferred`).
    pub fn counts_as_attempt(&self) -> bool {
        !matches!(self, Self::Deferred { .. })
    }
}

/// Cuts a receiver-provided text to `max` characters on one line, for error messages.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out.trim().to_owned()
}
