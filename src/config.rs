//! Settings: built-in defaults, then an optional `herald.toml`, then environment variables.
//! Every value is checked here, once; a bad one is an error naming its key, never a silent default.
//! The settings are one table ([`keys`]: file key and variable), read through one reader with
//! each one's default and range in [`Settings::resolve`]; the values that are more than a
//! number are read by [`parse`]. This module imports nothing of the application's: the
//! defaults other modules share live here.

pub mod keys;
mod parse;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use parse::{PASSWORD_IN_CLEAR, read_ca_file, redact_url, sends_password_in_clear};

/// A configuration problem, always naming the key (or file) at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `DATABASE_URL` names a backend Herald does not speak.
    #[error(
        "DATABASE_URL: unsupported database '{0}'; accepted: sqlite://PATH (e.g. sqlite://herald.db) or postgres://USER@HOST:PORT/DB"
    )]
    UnsupportedDatabase(String),
    /// A value that does not parse or is out of range.
    #[error("{key}: {message}")]
    Invalid { key: &'static str, message: String },
    /// The configuration file could not be read or parsed.
    #[error("config file {path}: {message}")]
    File { path: PathBuf, message: String },
}

impl ConfigError {
    fn invalid(key: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            key,
            message: message.into(),
        }
    }
}

/// Which database Herald talks to, decided by the URL scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// `sqlite://PATH`: a file (created when missing).
    Sqlite(PathBuf),
    /// `postgres://...` or `postgresql://...`, passed to libpq as is.
    Postgres(String),
}

impl DatabaseUrl {
    /// Parses a `DATABASE_URL`, refusing any scheme but `sqlite` and `postgres(ql)`.
    pub fn parse(raw: &str) -> Result<Self, ConfigError> {
        let raw = raw.trim();
        if let Some(path) = raw
            .strip_prefix("sqlite://")
            .or_else(|| raw.strip_prefix("sqlite:"))
        {
            if path.is_empty() {
                return Err(ConfigError::invalid(
                    "DATABASE_URL",
                    "sqlite:// needs a file path, e.g. sqlite://herald.db",
                ));
            }
            return Ok(Self::Sqlite(PathBuf::from(path)));
        }
        if raw.starts_with("postgres://") || raw.starts_with("postgresql://") {
            return Ok(Self::Postgres(raw.to_owned()));
        }
        let scheme = raw.split("://").next().unwrap_or(raw);
        Err(ConfigError::UnsupportedDatabase(scheme.to_owned()))
    }

    /// A loggable form: the PostgreSQL password is masked.
    pub fn redacted(&self) -> String {
        match self {
            Self::Sqlite(path) => format!("sqlite://{}", path.display()),
            Self::Postgres(url) => match url::Url::parse(url) {
                Ok(mut u) if u.password().is_some() => {
                    let _ = u.set_password(Some("****"));
                    u.to_string()
                }
                _ => url.clone(),
            },
        }
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Everything Herald needs to start, validated.
#[derive(Clone)]
pub struct Settings {
    pub database_url: DatabaseUrl,
    /// Connections in the pool.
    pub db_pool_size: u32,
    /// How long a request waits for a pooled connection before it gets 503.
    pub db_timeout: Duration,
    pub bind: SocketAddr,
    /// Where `/metrics` is served: a listener of its own, never the public one; `None` serves
    /// it nowhere.
    pub metrics_bind: Option<SocketAddr>,
    /// Base URL used in links, without a trailing slash.
    pub public_url: String,
    /// Signing key; `None` means "use the one stored in the database, generating it once".
    pub secret_key: Option<String>,
    /// How long in-flight requests may take to finish after SIGTERM.
    pub shutdown_grace: Duration,
    /// How long readiness fails before the listener closes (time for a load balancer to notice).
    pub shutdown_delay: Duration,
    /// HTTP worker threads.
    pub workers: usize,
    pub log_format: LogFormat,
    /// Log filter in `tracing_subscriber::EnvFilter` syntax.
    pub log_filter: String,
    /// Outgoing mail server (`smtp://host:port`, `smtps://user:pass@host`, `smtp+starttls://...`);
    /// `None` means no mail is sent. May hold a password: log it only through [`redact_url`].
    pub smtp_url: Option<String>,
    /// The `From` of every message, e.g. `Herald <herald@example.com>`.
    pub mail_from: String,
    /// Lets webhooks reach loopback, private and link-local addresses (on-premises use, tests).
    pub allow_private_webhooks: bool,
    /// Webhook requests in flight to one destination host at a time.
    pub webhook_host_concurrency: usize,
    /// CA certificates https webhook receivers may also be signed by (an on-premises CA),
    /// besides the public roots; read from `HERALD_WEBHOOK_CA_FILE` (PEM) at start.
    pub webhook_ca: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// Reverse proxies whose `X-Forwarded-For` is believed (addresses or CIDR ranges).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Local data (the support form's spool), default `./data`.
    pub data_dir: PathBuf,
    /// Support form submissions per minute per client address.
    pub support_rate_per_min: u32,
    /// The most the support spool may hold on disk, in MiB; past it, submissions during a
    /// database outage answer 503 (nothing already accepted is dropped).
    pub support_spool_max_mb: u64,
    /// Minutes before an incident's promised next update that responders are reminded.
    pub reminder_lead_minutes: u32,
    /// How often each vendor's summary a component mirrors is fetched.
    pub mirror_poll: Duration,
    /// How long what is only history is kept.
    pub retention: Retention,
    /// How often the notification engine polls the database for work written by other
    /// processes ([`NOTIFY_POLL`]). Not an environment setting: this process's own writes wake
    /// the engine at once, and tests lengthen the poll to show that they do.
    pub notify_poll: Duration,
}

/// The notification engine's default poll for work written by other processes.
pub const NOTIFY_POLL: Duration = Duration::from_millis(250);
/// Support form submissions per minute per client address, by default.
pub const SUPPORT_RATE_DEFAULT: u32 = 5;
/// The most the support spool holds on disk by default, in MiB.
pub const SUPPORT_SPOOL_DEFAULT_MB: u64 = 64;
/// Minutes before a promised update that responders are reminded, by default.
pub const REMINDER_LEAD_DEFAULT: u32 = 10;
/// Seconds between two fetches of a vendor's summary, by default: every minute.
pub const MIRROR_POLL_DEFAULT_SECS: u64 = 60;

/// How long each kind of history is kept before it is deleted; `None` keeps it for ever (a
/// setting of 0 days). What pages and the audit log show is not history: it stays until an
/// owner deletes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Deliveries in a final state (delivered, failed, dead, skipped), and then the events left
    /// with none.
    pub deliveries: Option<Duration>,
    /// Jobs that ran out of attempts.
    pub jobs: Option<Duration>,
    /// Support submissions marked handled.
    pub support: Option<Duration>,
    /// Alerts that stopped firing.
    pub alerts: Option<Duration>,
}

/// Days each kind of history is kept by default: deliveries 90 (a quarter's questions about
/// who was told what), dead jobs 30, handled support submissions 365, resolved alerts 30.
pub const RETENTION_DEFAULT_DAYS: [u64; 4] = [90, 30, 365, 30];

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("database_url", &self.database_url.redacted())
            .field("db_pool_size", &self.db_pool_size)
            .field("db_timeout", &self.db_timeout)
            .field("bind", &self.bind)
            .field("public_url", &self.public_url)
            .field("secret_key", &self.secret_key.as_ref().map(|_| "****"))
            .field("shutdown_grace", &self.shutdown_grace)
            .field("shutdown_delay", &self.shutdown_delay)
            .field("workers", &self.workers)
            .field("smtp_url", &self.smtp_url.as_deref().map(redact_url))
            .field("mail_from", &self.mail_from)
            .field("allow_private_webhooks", &self.allow_private_webhooks)
            .field("webhook_host_concurrency", &self.webhook_host_concurrency)
            .field(
                "webhook_ca",
                &format!("{} certificate(s)", self.webhook_ca.len()),
            )
            .field("trusted_proxies", &self.trusted_proxies)
            .field("metrics_bind", &self.metrics_bind)
            .field("data_dir", &self.data_dir)
            .field("support_rate_per_min", &self.support_rate_per_min)
            .field("support_spool_max_mb", &self.support_spool_max_mb)
            .field("reminder_lead_minutes", &self.reminder_lead_minutes)
            .field("mirror_poll", &self.mirror_poll)
            .field("retention", &self.retention)
            .finish()
    }
}

/// Where values come from; the real process uses [`Env::process`], tests pass a map.
pub struct Env(HashMap<String, String>);

impl Env {
    /// The process environment.
    pub fn process() -> Self {
        Self(std::env::vars().collect())
    }
    /// A fixed set of variables (tests).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self(
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        )
    }
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
    }
}

impl Settings {
    /// Loads settings: defaults, then `config` (or `./herald.toml` when present), then `env`.
    pub fn load(config: Option<&Path>, env: &Env) -> Result<Self, ConfigError> {
        let file = match config {
            Some(path) => read_file(path)?,
            None if Path::new("herald.toml").exists() => read_file(Path::new("herald.toml"))?,
            None => toml::Table::new(),
        };
        Self::resolve(&file, env)
    }

    /// Settings from `env` alone, ignoring any file (tests and embedding).
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::resolve(&toml::Table::new(), env)
    }

    fn resolve(file: &toml::Table, env: &Env) -> Result<Self, ConfigError> {
        use keys::*;
        let src = Source { env, file };
        let database_url = DatabaseUrl::parse(&src.text_or(DATABASE_URL, "sqlite://herald.db"))?;
        let default_pool = match database_url {
            DatabaseUrl::Sqlite(_) => 8,
            DatabaseUrl::Postgres(_) => 16,
        };
        let db_pool_size = src.number(DB_POOL_SIZE, default_pool, 1..=256, "")?;
        let db_timeout_ms = src.number(DB_TIMEOUT_MS, 3000, 10..=120_000, "ms")?;
        let (bind_raw, bind_name) = src
            .value(BIND)
            .unwrap_or_else(|| ("127.0.0.1:8080".to_owned(), BIND.env));
        let bind = parse::address(&bind_raw, bind_name, "127.0.0.1:8080")?;
        let public_url = src
            .parsed(PUBLIC_URL, parse::public_url)?
            .unwrap_or_else(|| parse::derived_public_url(bind));
        let secret_key = src.parsed(SECRET_KEY, |raw, name| {
            if raw.len() < 32 {
                return Err(ConfigError::invalid(name, "must be at least 32 characters"));
            }
            Ok(raw.to_owned())
        })?;
        let grace = src.number(SHUTDOWN_GRACE_SECS, 30, 0..=3600, "seconds")?;
        let delay = src.number(SHUTDOWN_DELAY_SECS, 0, 0..=3600, "seconds")?;
        let cpus = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        let workers = src.number(WORKERS, cpus.min(256), 1..=256, "")?;
        let log_format = src
            .parsed(LOG_FORMAT, |raw, name| match raw {
                "text" => Ok(LogFormat::Text),
                "json" => Ok(LogFormat::Json),
                other => Err(ConfigError::invalid(
                    name,
                    format!("'{other}' is not text or json"),
                )),
            })?
            .unwrap_or(LogFormat::Text);
        let log_filter = src.text_or(LOG, "info");
        let metrics_bind = src.parsed(METRICS_BIND, |raw, name| {
            parse::address(raw, name, "127.0.0.1:9100")
        })?;
        if metrics_bind.is_some_and(|m| m == bind && m.port() != 0) {
            return Err(ConfigError::invalid(
                METRICS_BIND.env,
                "must differ from HERALD_BIND: /metrics is never served on the public listener",
            ));
        }
        let trusted_proxies = src
            .parsed(TRUSTED_PROXIES, parse::proxies)?
            .unwrap_or_default();
        let smtp_url = src.parsed(SMTP_URL, parse::smtp_url)?;
        let mail_from = src
            .parsed(MAIL_FROM, parse::mailbox)?
            .unwrap_or_else(|| "Herald <herald@localhost>".to_owned());
        let allow_private_webhooks = src.flag(ALLOW_PRIVATE_WEBHOOKS, false)?;
        let data_dir = PathBuf::from(src.text_or(DATA_DIR, "./data"));
        let support_rate_per_min = src.number(
            SUPPORT_RATE_PER_MIN,
            SUPPORT_RATE_DEFAULT,
            1..=10_000_000,
            "",
        )?;
        let support_spool_max_mb = src.number(
            SUPPORT_SPOOL_MAX_MB,
            SUPPORT_SPOOL_DEFAULT_MB,
            1..=1_048_576,
            "MiB",
        )?;
        let reminder_lead_minutes = src.number(
            REMINDER_LEAD_MINUTES,
            REMINDER_LEAD_DEFAULT,
            1..=1440,
            "minutes",
        )?;
        let mirror_poll_secs = src.number(
            MIRROR_POLL_SECS,
            MIRROR_POLL_DEFAULT_SECS,
            1..=3600,
            "seconds",
        )?;
        let mut kept = [None; 4];
        let retention_keys = [
            RETENTION_DELIVERIES_DAYS,
            RETENTION_JOBS_DAYS,
            RETENTION_SUPPORT_DAYS,
            RETENTION_ALERTS_DAYS,
        ];
        for ((key, default), kept) in retention_keys
            .into_iter()
            .zip(RETENTION_DEFAULT_DAYS)
            .zip(&mut kept)
        {
            let days: u64 = src.number(key, default, 0..=36_500, "days")?;
            *kept = (days > 0).then(|| Duration::from_secs(days * 86_400));
        }
        let [deliveries, jobs, support, alerts] = kept;
        let retention = Retention {
            deliveries,
            jobs,
            support,
            alerts,
        };
        let webhook_host_concurrency = src.number(WEBHOOK_HOST_CONCURRENCY, 8, 1..=1024, "")?;
        let webhook_ca = src
            .parsed(WEBHOOK_CA_FILE, |raw, name| {
                parse::read_ca_file(Path::new(raw)).map_err(|e| ConfigError::invalid(name, e))
            })?
            .unwrap_or_default();
        Ok(Self {
            database_url,
            db_pool_size,
            db_timeout: Duration::from_millis(db_timeout_ms),
            bind,
            public_url,
            secret_key,
            shutdown_grace: Duration::from_secs(grace),
            shutdown_delay: Duration::from_secs(delay),
            workers,
            log_format,
            log_filter,
            smtp_url,
            mail_from,
            allow_private_webhooks,
            webhook_host_concurrency,
            webhook_ca,
            trusted_proxies,
            metrics_bind,
            data_dir,
            support_rate_per_min,
            support_spool_max_mb,
            reminder_lead_minutes,
            mirror_poll: Duration::from_secs(mirror_poll_secs),
            retention,
            notify_poll: NOTIFY_POLL,
        })
    }
}

/// The table of the `herald.toml` at `path`.
fn read_file(path: &Path) -> Result<toml::Table, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    file_table(&text, path)
}

/// The table of a `herald.toml` holding `text`, refused when it holds a key that is no setting.
fn file_table(text: &str, path: &Path) -> Result<toml::Table, ConfigError> {
    let fail = |message: String| ConfigError::File {
        path: path.to_owned(),
        message,
    };
    let table: toml::Table = toml::from_str(text).map_err(|e| fail(e.message().to_owned()))?;
    keys::check_file_keys(&table).map_err(fail)?;
    Ok(table)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod readme {
    #[test]
    fn the_readme_documents_every_setting() {
        let readme = include_str!("../README.md");
        for super::keys::Key { file: key, env } in super::keys::ALL {
            assert!(
                readme.contains(&format!("`{key}`")),
                "README misses the file key {key}"
            );
            assert!(
                readme.contains(&format!("`{env}`")),
                "README misses the variable {env}"
            );
        }
    }
}
