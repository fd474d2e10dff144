//! The support contact form: works when sign-in does not.
//!
//! - Unauthenticated and independent of `crate::auth`: no session, JWT, user lookup or CSRF
//!   token; a signed stateless form token ([`token`]) with a key derived for this purpose only.
//! - Durable before the person sees success: stored in the database, or, when the database is
//!   unreachable or its pool exhausted, appended to a local spool file flushed with fsync
//!   ([`spool`]); a background task ([`replay`]) inserts spooled submissions exactly once (each
//!   has its id before it is spooled; insert-if-absent).
//! - The form page is rendered from the in-memory public page data ([`page`]), so it loads
//!   during a database outage; only the token is minted per request.
//! - Abuse: per-address rate limit, a honeypot field, a minimum fill time carried in the token,
//!   size limits on every field and on the body. Honeypot and token failures get one generic
//!   answer that does not say which check failed, and nothing is stored.
//! - Notices ([`notice`]): a mail to the page's support address, a copy to the sender who
//!   asked, a signed POST to the page's support webhook; jobs enqueued with the insert.
//! - Triage for responders ([`store`]): list, filter, mark handled, link to an incident.

pub mod batch;
pub mod form;
pub mod notice;
pub mod page;
pub mod reference;
pub mod replay;
pub mod spool;
pub mod store;
pub mod token;

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use governor::Quota;
use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::limits::ClientNet;
use crate::limits::bounded::{self as limiter, BoundedLimiter};
use form::Checked;
use spool::Spool;
use token::TokenKey;

/// How long a form may take to be filled in, at least (people are not that fast; robots are).
pub const MIN_FILL_SECS: i64 = 3;
/// How long a handed-out form stays valid.
pub const TOKEN_MAX_AGE_HOURS: i64 = 24;
/// Submissions per minute per client network, by default.
pub const DEFAULT_RATE_PER_MIN: u32 = crate::config::SUPPORT_RATE_DEFAULT;
/// The spool's bound by default, in MiB (about 40,000 submissions).
pub const DEFAULT_SPOOL_MAX_MB: u64 = crate::config::SUPPORT_SPOOL_DEFAULT_MB;
/// The 503 reason of a submission refused because the spool is full.
pub const SPOOL_FULL: &str = "support spool full";

/// Client networks the rate limit remembers at most (the least recently seen is forgotten).
const MAX_LIMITED_CLIENTS: usize = 100_000;

/// What a submission is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    SignIn,
    Billing,
    Outage,
    Other,
}

impl Topic {
    /// Every topic, in the order the form lists them.
    pub const ALL: [Topic; 4] = [Topic::SignIn, Topic::Outage, Topic::Billing, Topic::Other];

    /// The stored and posted value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SignIn => "sign_in",
            Self::Billing => "billing",
            Self::Outage => "outage",
            Self::Other => "other",
        }
    }

    /// What the form shows.
    pub fn label(self) -> &'static str {
        match self {
            Self::SignIn => "I can't sign in",
            Self::Outage => "Something is down or slow",
            Self::Billing => "Billing",
            Self::Other => "Something else",
        }
    }
}

impl std::str::FromStr for Topic {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|t| t.as_str() == s).ok_or(())
    }
}

/// One accepted submission: what is stored in the database or spooled. The id and reference
/// are made before anything is written, so a spooled submission is inserted exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    pub id: String,
    pub page_id: String,
    pub reference: String,
    pub name: String,
    pub email: String,
    pub topic: Topic,
    pub component_id: Option<String>,
    pub account: Option<String>,
    pub message: String,
    pub wants_copy: bool,
    pub client_ip: Option<String>,
    pub submitted_at: DateTime<Utc>,
    /// The language the form was read in: the sender's copy is written in it (spools
    /// written before it existed: the page's default).
    #[serde(default)]
    pub language: Option<crate::domain::lang::Lang>,
}

impl Submission {
    /// A new submission to page `page_id` from the checked fields: the id and reference its
    /// form token names (so sending the token again names the same submission), or fresh ones.
    pub fn new(page_id: &str, checked: Checked, client_ip: Option<IpAddr>) -> Self {
        let (id, reference) = match checked.identity {
            Some(i) => (i.id, i.reference),
            None => (crate::db::new_id(), reference::new_reference()),
        };
        Self {
            id,
            page_id: page_id.to_owned(),
            reference,
            name: checked.name,
            email: checked.email,
            topic: checked.topic,
            component_id: checked.component_id,
            account: checked.account,
            message: checked.message,
            wants_copy: checked.wants_copy,
            client_ip: client_ip.map(|ip| ip.to_string()),
            submitted_at: Utc::now(),
            language: None,
        }
    }
}

/// Where an accepted submission went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Database,
    Spool,
}

/// The support form's shared state: token key, spool, rate limiter, cached form pages.
pub struct Support {
    pub tokens: TokenKey,
    pub spool: Spool,
    limiter: BoundedLimiter<ClientNet>,
    /// Set after a failed database write: submissions go straight to the spool (so an outage
    /// does not make every sender wait for the pool's checkout timeout) until a replay reaches
    /// the database again.
    db_down: AtomicBool,
    pub pages: page::FormCache,
    batcher: Arc<batch::Batcher>,
}

impl Support {
    /// The state for a server with `secret`, spooling at most `spool_max_bytes` under
    /// `data_dir`, allowing `rate_per_min` submissions per minute per client network.
    pub fn new(
        secret: &[u8],
        data_dir: PathBuf,
        rate_per_min: u32,
        spool_max_bytes: u64,
    ) -> anyhow::Result<Arc<Self>> {
        let rate = NonZeroU32::new(rate_per_min.max(1)).unwrap_or(NonZeroU32::MIN);
        Ok(Arc::new(Self {
            tokens: TokenKey::derive(
                secret,
                chrono::Duration::seconds(MIN_FILL_SECS),
                chrono::Duration::hours(TOKEN_MAX_AGE_HOURS),
            ),
            spool: Spool::open(data_dir, spool_max_bytes)?,
            limiter: limiter::bounded(Quota::per_minute(rate), MAX_LIMITED_CLIENTS),
            db_down: AtomicBool::new(false),
            pages: page::FormCache::default(),
            batcher: Arc::default(),
        }))
    }

    /// `Ok` when `client` may submit now, else 429 with the seconds to wait.
    pub fn check_rate(&self, client: ClientNet) -> AppResult<()> {
        limiter::check(&self.limiter, &client)
    }

    /// Forgets addresses whose limit has fully recovered (keeps the limiter's memory small).
    pub fn forget_idle_addresses(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }

    /// Makes `submission` durable: in the database, or in the spool when the database cannot
    /// take it. Only when neither works is it an error (503).
    pub async fn accept(&self, db: &Db, submission: Submission) -> AppResult<Stored> {
        if !self.db_down.load(Ordering::Relaxed) {
            match self.batcher.insert(db, submission.clone()).await {
                Ok(_) => return Ok(Stored::Database),
                Err(e) => {
                    tracing::warn!(error = %e, reference = %submission.reference,
                        "support submission not stored in the database; spooling it");
                    self.db_down.store(true, Ordering::Relaxed);
                }
            }
        }
        self.spool.append(&submission).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::StorageFull {
                metrics::counter!("herald_support_spool_refused_total").increment(1);
                tracing::warn!(error = %e, "support submission refused: the spool is full");
                return AppError::Unavailable {
                    reason: SPOOL_FULL.into(),
                    retry_after_secs: 60,
                };
            }
            tracing::error!(error = %e, "support submission could not be spooled either");
            AppError::Unavailable {
                reason: "support spool not writable".into(),
                retry_after_secs: 5,
            }
        })?;
        metrics::counter!("herald_support_spooled_total").increment(1);
        Ok(Stored::Spool)
    }

    /// The database took a write again: stop skipping it.
    pub fn database_is_back(&self) {
        self.db_down.store(false, Ordering::Relaxed);
    }

    /// Whether submissions currently go straight to the spool.
    pub fn database_is_down(&self) -> bool {
        self.db_down.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_round_trip_through_their_names() {
        for topic in Topic::ALL {
            assert_eq!(topic.as_str().parse::<Topic>(), Ok(topic));
            assert_eq!(
                serde_json::to_value(topic).unwrap(),
                serde_json::json!(topic.as_str())
            );
        }
        assert!("refunds".parse::<Topic>().is_err());
    }

    #[test]
    fn the_rate_limit_answers_429_with_a_wait() {
        let dir = tempfile::tempdir().unwrap();
        let support = Support::new(
            b"0123456789abcdef0123456789abcdef",
            dir.path().into(),
            2,
            u64::MAX,
        )
        .unwrap();
        let net = |ip: &str| ClientNet::of(ip.parse::<IpAddr>().unwrap());
        assert!(support.check_rate(net("192.0.2.7")).is_ok());
        assert!(support.check_rate(net("192.0.2.7")).is_ok());
        match support.check_rate(net("192.0.2.7")) {
            Err(AppError::RateLimited { retry_after_secs }) => assert!(retry_after_secs >= 1),
            other => panic!("expected 429, got {other:?}"),
        }
        assert!(
            support.check_rate(net("192.0.2.8")).is_ok(),
            "limits are per address"
        );
        assert!(support.check_rate(net("2001:db8::1")).is_ok());
        assert!(support.check_rate(net("2001:db8::2")).is_ok());
        assert!(
            support.check_rate(net("2001:db8::ffff:3")).is_err(),
            "an IPv6 client's other addresses in its /64 share its limit"
        );
    }
}
