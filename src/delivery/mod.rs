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

use crate::domain::waiting::Waiting;
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
