//! Settings: built-in defaults, then an optional `herald.toml`, then environment variables.
//! Every value is checked here, once; a bad one is an error naming its key, never a silent default.

use std::collections::HashMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

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
    /// How often the notification engine polls the database for work written by other
    /// processes ([`NOTIFY_POLL`]). Not an environment setting: this process's own writes wake
    /// the engine at once, and tests lengthen the poll to show that they do.
    pub notify_poll: Duration,
}

/// The notification engine's default poll for work written by other processes.
pub const NOTIFY_POLL: Duration = Duration::from_millis(250);

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
            .finish()
    }
}

/// The keys a `herald.toml` may hold; anything else is refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    database_url: Option<String>,
    db_pool_size: Option<u32>,
    db_timeout_ms: Option<u64>,
    bind: Option<String>,
    public_url: Option<String>,
    secret_key: Option<String>,
    shutdown_grace_secs: Option<u64>,
    shutdown_delay_secs: Option<u64>,
    workers: Option<usize>,
    log_format: Option<String>,
    log: Option<String>,
    smtp_url: Option<String>,
    mail_from: Option<String>,
    allow_private_webhooks: Option<bool>,
    webhook_host_concurrency: Option<usize>,
    webhook_ca_file: Option<String>,
    trusted_proxies: Option<String>,
    metrics_bind: Option<String>,
    data_dir: Option<String>,
    support_rate_per_min: Option<u32>,
    support_spool_max_mb: Option<u64>,
    reminder_lead_minutes: Option<u32>,
}

/// Every setting as (file key, environment variable); the README documents each (a test checks).
pub const SETTINGS_KEYS: &[(&str, &str)] = &[
    ("database_url", "DATABASE_URL"),
    ("db_pool_size", "HERALD_DB_POOL_SIZE"),
    ("db_timeout_ms", "HERALD_DB_TIMEOUT_MS"),
    ("bind", "HERALD_BIND"),
    ("public_url", "HERALD_PUBLIC_URL"),
    ("secret_key", "HERALD_SECRET_KEY"),
    ("shutdown_grace_secs", "HERALD_SHUTDOWN_GRACE_SECS"),
    ("shutdown_delay_secs", "HERALD_SHUTDOWN_DELAY_SECS"),
    ("workers", "HERALD_WORKERS"),
    ("log_format", "HERALD_LOG_FORMAT"),
    ("log", "HERALD_LOG"),
    ("smtp_url", "HERALD_SMTP_URL"),
    ("mail_from", "HERALD_MAIL_FROM"),
    ("allow_private_webhooks", "HERALD_ALLOW_PRIVATE_WEBHOOKS"),
    (
        "webhook_host_concurrency",
        "HERALD_WEBHOOK_HOST_CONCURRENCY",
    ),
    ("webhook_ca_file", "HERALD_WEBHOOK_CA_FILE"),
    ("trusted_proxies", "HERALD_TRUSTED_PROXIES"),
    ("metrics_bind", "HERALD_METRICS_BIND"),
    ("data_dir", "HERALD_DATA_DIR"),
    ("support_rate_per_min", "HERALD_SUPPORT_RATE_PER_MIN"),
    ("support_spool_max_mb", "HERALD_SUPPORT_SPOOL_MAX_MB"),
    ("reminder_lead_minutes", "HERALD_REMINDER_LEAD_MINUTES"),
];

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
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
    }
}

impl Settings {
    /// Loads settings: defaults, then `config` (or `./herald.toml` when present), then `env`.
    pub fn load(config: Option<&Path>, env: &Env) -> Result<Self, ConfigError> {
        let file = match config {
            Some(path) => read_file(path)?,
            None if Path::new("herald.toml").exists() => read_file(Path::new("herald.toml"))?,
            None => FileSettings::default(),
        };
        Self::resolve(file, env)
    }

    /// Settings from `env` alone, ignoring any file (tests and embedding).
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::resolve(FileSettings::default(), env)
    }

    fn resolve(file: FileSettings, env: &Env) -> Result<Self, ConfigError> {
        let database_url = DatabaseUrl::parse(
            env.get("DATABASE_URL")
                .or(file.database_url.as_deref())
                .unwrap_or("sqlite://herald.db"),
        )?;
        let default_pool = match database_url {
            DatabaseUrl::Sqlite(_) => 8,
            DatabaseUrl::Postgres(_) => 16,
        };
        let db_pool_size = number(env, "HERALD_DB_POOL_SIZE", file.db_pool_size, default_pool)?;
        if !(1..=256).contains(&db_pool_size) {
            return Err(ConfigError::invalid(
                "HERALD_DB_POOL_SIZE",
                "must be between 1 and 256",
            ));
        }
        let db_timeout_ms = number(env, "HERALD_DB_TIMEOUT_MS", file.db_timeout_ms, 3000)?;
        if !(10..=120_000).contains(&db_timeout_ms) {
            return Err(ConfigError::invalid(
                "HERALD_DB_TIMEOUT_MS",
                "must be between 10 and 120000",
            ));
        }
        let bind_raw = env
            .get("HERALD_BIND")
            .or(file.bind.as_deref())
            .unwrap_or("127.0.0.1:8080");
        let bind = parse_bind(bind_raw)?;
        let public_url = match env.get("HERALD_PUBLIC_URL").or(file.public_url.as_deref()) {
            Some(raw) => parse_public_url(raw)?,
            None => derived_public_url(bind),
        };
        let secret_key = env
            .get("HERALD_SECRET_KEY")
            .or(file.secret_key.as_deref())
            .map(str::to_owned);
        if secret_key.as_ref().is_some_and(|key| key.len() < 32) {
            return Err(ConfigError::invalid(
                "HERALD_SECRET_KEY",
                "must be at least 32 characters",
            ));
        }
        let grace = number(
            env,
            "HERALD_SHUTDOWN_GRACE_SECS",
            file.shutdown_grace_secs,
            30,
        )?;
        let delay = number(
            env,
            "HERALD_SHUTDOWN_DELAY_SECS",
            file.shutdown_delay_secs,
            0,
        )?;
        if grace > 3600 || delay > 3600 {
            return Err(ConfigError::invalid(
                "HERALD_SHUTDOWN_GRACE_SECS",
                "shutdown times must be at most 3600 seconds",
            ));
        }
        let cpus = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        let workers = number(env, "HERALD_WORKERS", file.workers, cpus)?;
        if !(1..=256).contains(&workers) {
            return Err(ConfigError::invalid(
                "HERALD_WORKERS",
                "must be between 1 and 256",
            ));
        }
        let log_format = match env
            .get("HERALD_LOG_FORMAT")
            .or(file.log_format.as_deref())
            .unwrap_or("text")
        {
            "text" => LogFormat::Text,
            "json" => LogFormat::Json,
            other => {
                return Err(ConfigError::invalid(
                    "HERALD_LOG_FORMAT",
                    format!("'{other}' is not text or json"),
                ));
            }
        };
        let log_filter = env
            .get("HERALD_LOG")
            .or(file.log.as_deref())
            .unwrap_or("info")
            .to_owned();
        let metrics_bind = env
            .get("HERALD_METRICS_BIND")
            .or(file.metrics_bind.as_deref())
            .map(|raw| parse_address("HERALD_METRICS_BIND", raw, "127.0.0.1:9100"))
            .transpose()?;
        if metrics_bind.is_some_and(|m| m == bind && m.port() != 0) {
            return Err(ConfigError::invalid(
                "HERALD_METRICS_BIND",
                "must differ from HERALD_BIND: /metrics is never served on the public listener",
            ));
        }
        let trusted_proxies = parse_proxies(
            env.get("HERALD_TRUSTED_PROXIES")
                .or(file.trusted_proxies.as_deref())
                .unwrap_or(""),
        )?;
        let smtp_url = env
            .get("HERALD_SMTP_URL")
            .or(file.smtp_url.as_deref())
            .map(parse_smtp_url)
            .transpose()?;
        let mail_from = parse_mail_from(
            env.get("HERALD_MAIL_FROM")
                .or(file.mail_from.as_deref())
                .unwrap_or("Herald <herald@localhost>"),
        )?;
        let allow_private_webhooks = match env.get("HERALD_ALLOW_PRIVATE_WEBHOOKS") {
            Some(raw) => parse_bool("HERALD_ALLOW_PRIVATE_WEBHOOKS", raw)?,
            None => file.allow_private_webhooks.unwrap_or(false),
        };
        let data_dir = PathBuf::from(
            env.get("HERALD_DATA_DIR")
                .or(file.data_dir.as_deref())
                .unwrap_or("./data"),
        );
        let support_rate_per_min = number(
            env,
            "HERALD_SUPPORT_RATE_PER_MIN",
            file.support_rate_per_min,
            crate::support::DEFAULT_RATE_PER_MIN,
        )?;
        if !(1..=10_000_000).contains(&support_rate_per_min) {
            return Err(ConfigError::invalid(
                "HERALD_SUPPORT_RATE_PER_MIN",
                "must be between 1 and 10000000",
            ));
        }
        let support_spool_max_mb = number(
            env,
            "HERALD_SUPPORT_SPOOL_MAX_MB",
            file.support_spool_max_mb,
            crate::support::DEFAULT_SPOOL_MAX_MB,
        )?;
        if !(1..=1_048_576).contains(&support_spool_max_mb) {
            return Err(ConfigError::invalid(
                "HERALD_SUPPORT_SPOOL_MAX_MB",
                "must be between 1 and 1048576 (MiB)",
            ));
        }
        let reminder_lead_minutes = number(
            env,
            "HERALD_REMINDER_LEAD_MINUTES",
            file.reminder_lead_minutes,
            crate::notify::reminders::DEFAULT_LEAD_MINUTES,
        )?;
        if !(1..=1440).contains(&reminder_lead_minutes) {
            return Err(ConfigError::invalid(
                "HERALD_REMINDER_LEAD_MINUTES",
                format!("must be between 1 and 1440 minutes, got {reminder_lead_minutes}"),
            ));
        }
        let webhook_host_concurrency = number(
            env,
            "HERALD_WEBHOOK_HOST_CONCURRENCY",
            file.webhook_host_concurrency,
            8,
        )?;
        if !(1..=1024).contains(&webhook_host_concurrency) {
            return Err(ConfigError::invalid(
                "HERALD_WEBHOOK_HOST_CONCURRENCY",
                "must be between 1 and 1024",
            ));
        }
        let webhook_ca = match env
            .get("HERALD_WEBHOOK_CA_FILE")
            .or(file.webhook_ca_file.as_deref())
            .filter(|path| !path.trim().is_empty())
        {
            Some(path) => crate::delivery::outbound::read_ca_file(Path::new(path))
                .map_err(|e| ConfigError::invalid("HERALD_WEBHOOK_CA_FILE", e))?,
            None => Vec::new(),
        };
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
            notify_poll: NOTIFY_POLL,
        })
    }
}

/// A comma-separated list of addresses (`10.0.0.1`) and ranges (`10.0.0.0/8`).
fn parse_proxies(raw: &str) -> Result<Vec<ipnet::IpNet>, ConfigError> {
    raw.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    ConfigError::invalid(
                        "HERALD_TRUSTED_PROXIES",
                        format!("'{item}' is not an IP address or CIDR range"),
                    )
                })
        })
        .collect()
}

fn read_file(path: &Path) -> Result<FileSettings, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    toml::from_str(&text).map_err(|e| ConfigError::File {
        path: path.to_owned(),
        message: e.message().to_owned(),
    })
}

fn number<T>(env: &Env, key: &'static str, file: Option<T>, default: T) -> Result<T, ConfigError>
where
    T: std::str::FromStr,
{
    match env.get(key) {
        Some(raw) => raw.parse().map_err(|_| {
            ConfigError::invalid(key, format!("'{raw}' is not a whole non-negative number"))
        }),
        None => Ok(file.unwrap_or(default)),
    }
}

fn parse_bind(raw: &str) -> Result<SocketAddr, ConfigError> {
    parse_address("HERALD_BIND", raw, "127.0.0.1:8080")
}

fn parse_address(key: &'static str, raw: &str, example: &str) -> Result<SocketAddr, ConfigError> {
    if let Ok(addr) = raw.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let bad = || {
        ConfigError::invalid(
            key,
            format!("'{raw}' is not a HOST:PORT address, e.g. {example}"),
        )
    };
    if !raw.contains(':') {
        return Err(bad());
    }
    raw.to_socket_addrs()
        .map_err(|_| bad())?
        .next()
        .ok_or_else(bad)
}

fn parse_public_url(raw: &str) -> Result<String, ConfigError> {
    let url = url::Url::parse(raw).map_err(|e| {
        ConfigError::invalid("HERALD_PUBLIC_URL", format!("'{raw}' is not a URL: {e}"))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ConfigError::invalid(
            "HERALD_PUBLIC_URL",
            format!("'{raw}' must be an http:// or https:// URL"),
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// A URL with its password masked, for logs and error messages.
pub fn redact_url(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("****"));
            u.to_string()
        }
        Ok(u) => u.to_string(),
        Err(_) => "(unparseable URL)".to_owned(),
    }
}

fn parse_smtp_url(raw: &str) -> Result<String, ConfigError> {
    let bad = |why: &str| {
        ConfigError::invalid(
            "HERALD_SMTP_URL",
            format!(
                "'{}' {why}; e.g. smtp://127.0.0.1:2525, smtps://user:pass@mail.example.com or smtp+starttls://mail.example.com:587",
                redact_url(raw)
            ),
        )
    };
    let url = url::Url::parse(raw).map_err(|_| bad("is not a URL"))?;
    if !matches!(url.scheme(), "smtp" | "smtps" | "smtp+starttls") {
        return Err(bad("must use smtp://, smtps:// or smtp+starttls://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("has no host"));
    }
    if crate::delivery::mail::sends_password_in_clear(&url) {
        return Err(bad(crate::delivery::mail::PASSWORD_IN_CLEAR));
    }
    Ok(raw.to_owned())
}

fn parse_mail_from(raw: &str) -> Result<String, ConfigError> {
    raw.parse::<lettre::message::Mailbox>().map_err(|e| {
        ConfigError::invalid(
            "HERALD_MAIL_FROM",
            format!("'{raw}' is not a mailbox such as 'Herald <herald@example.com>': {e}"),
        )
    })?;
    Ok(raw.to_owned())
}

fn parse_bool(key: &'static str, raw: &str) -> Result<bool, ConfigError> {
    match raw.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(ConfigError::invalid(
            key,
            format!("'{raw}' is not true or false"),
        )),
    }
}

fn derived_public_url(bind: SocketAddr) -> String {
    if bind.ip().is_unspecified() {
        format!("http://localhost:{}", bind.port())
    } else {
        format!("http://{bind}")
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod readme {
    #[test]
    fn the_readme_documents_every_setting() {
        let readme = include_str!("../README.md");
        for (key, env) in super::SETTINGS_KEYS {
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
