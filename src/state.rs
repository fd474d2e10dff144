//! What every handler can reach: the application's shared state, built once by
//! [`crate::startup`] and handed to each HTTP worker.

use std::sync::Arc;

use metrics_exporter_prometheus::PrometheusHandle;

use crate::config::Settings;
use crate::db::Db;
use crate::render::site::PublicSite;
use crate::runtime::drain::Drain;
use crate::services::signing_key::SigningKey;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub settings: Arc<Settings>,
    pub drain: Drain,
    pub secret: SigningKey,
    pub metrics: PrometheusHandle,
    /// The public pages, rendered and held in memory.
    pub site: Arc<PublicSite>,
    /// Sign-in attempts per account and network, shared by this application's workers.
    pub login_limiter: Arc<crate::limits::sign_in::LoginLimiter>,
    /// Readers' attempts at a restricted page (its password, sign-in links by mail), per page
    /// or address and network.
    pub reader_limiter: Arc<crate::limits::sign_in::LoginLimiter>,
    /// Where sign-in passwords are verified, off the database pool.
    pub password_checks: Arc<crate::runtime::cpu_pool::CpuPool>,
    /// Where uploaded images are checked: apart from the passwords' pool, so an upload never
    /// makes a sign-in wait.
    pub image_checks: Arc<crate::runtime::cpu_pool::CpuPool>,
    /// Subscriber notifications: the engine's wake-up, the webhook policy, subscribe limits.
    pub notify: crate::notify::NotifyHandle,
    /// The job runner's wake-up and its passes (a job enqueued by a write runs at once).
    pub jobs: Arc<crate::runtime::passes::Passes>,
    /// The support contact form: its token key, spool and rate limiter.
    pub support: Arc<crate::support::Support>,
    /// Reads vendors' pages (mirrors, imports) under the outbound rules.
    pub fetcher: crate::delivery::fetch::Fetcher,
}
