//! The table of settings: each one's `herald.toml` key and environment variable, declared once,
//! and the reader that takes a value from the environment, else the file, else its default,
//! and checks it. The README documents every key of the table (a test checks), the file may
//! hold no other key, and every error names the variable or file key the value came from.

use std::ops::RangeInclusive;
use std::str::FromStr;

use super::ConfigError;

/// One setting: where it is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// Its key in `herald.toml`.
    pub file: &'static str,
    /// Its environment variable (named in every error about it).
    pub env: &'static str,
}

macro_rules! keys {
    ($($name:ident = ($file:literal, $env:literal),)+) => {
        $(pub const $name: Key = Key { file: $file, env: $env };)+
        /// Every setting.
        pub const ALL: &[Key] = &[$($name,)+];
    };
}

keys! {
    DATABASE_URL = ("database_url", "DATABASE_URL"),
    DB_POOL_SIZE = ("db_pool_size", "HERALD_DB_POOL_SIZE"),
    DB_TIMEOUT_MS = ("db_timeout_ms", "HERALD_DB_TIMEOUT_MS"),
    BIND = ("bind", "HERALD_BIND"),
    PUBLIC_URL = ("public_url", "HERALD_PUBLIC_URL"),
    SECRET_KEY = ("secret_key", "HERALD_SECRET_KEY"),
    SHUTDOWN_GRACE_SECS = ("shutdown_grace_secs", "HERALD_SHUTDOWN_GRACE_SECS"),
    SHUTDOWN_DELAY_SECS = ("shutdown_delay_secs", "HERALD_SHUTDOWN_DELAY_SECS"),
    WORKERS = ("workers", "HERALD_WORKERS"),
    LOG_FORMAT = ("log_format", "HERALD_LOG_FORMAT"),
    LOG = ("log", "HERALD_LOG"),
    SMTP_URL = ("smtp_url", "HERALD_SMTP_URL"),
    MAIL_FROM = ("mail_from", "HERALD_MAIL_FROM"),
    ALLOW_PRIVATE_WEBHOOKS = ("allow_private_webhooks", "HERALD_ALLOW_PRIVATE_WEBHOOKS"),
    WEBHOOK_HOST_CONCURRENCY = ("webhook_host_concurrency", "HERALD_WEBHOOK_HOST_CONCURRENCY"),
    WEBHOOK_CA_FILE = ("webhook_ca_file", "HERALD_WEBHOOK_CA_FILE"),
    TRUSTED_PROXIES = ("trusted_proxies", "HERALD_TRUSTED_PROXIES"),
    METRICS_BIND = ("metrics_bind", "HERALD_METRICS_BIND"),
    DATA_DIR = ("data_dir", "HERALD_DATA_DIR"),
    SUPPORT_RATE_PER_MIN = ("support_rate_per_min", "HERALD_SUPPORT_RATE_PER_MIN"),
    SUPPORT_SPOOL_MAX_MB = ("support_spool_max_mb", "HERALD_SUPPORT_SPOOL_MAX_MB"),
    REMINDER_LEAD_MINUTES = ("reminder_lead_minutes", "HERALD_REMINDER_LEAD_MINUTES"),
    MIRROR_POLL_SECS = ("mirror_poll_secs", "HERALD_MIRROR_POLL_SECS"),
    RETENTION_DELIVERIES_DAYS = ("retention_deliveries_days", "HERALD_RETENTION_DELIVERIES_DAYS"),
    RETENTION_JOBS_DAYS = ("retention_jobs_days", "HERALD_RETENTION_JOBS_DAYS"),
    RETENTION_SUPPORT_DAYS = ("retention_support_days", "HERALD_RETENTION_SUPPORT_DAYS"),
    RETENTION_ALERTS_DAYS = ("retention_alerts_days", "HERALD_RETENTION_ALERTS_DAYS"),
}

/// Where values come from: the environment first, then the file's table.
pub struct Source<'a> {
    pub env: &'a super::Env,
    pub file: &'a toml::Table,
}

impl Source<'_> {
    /// The value of `key` as text when it is set (a blank one is unset), and the name to
    /// blame for it: the variable, or the file's key.
    pub fn value(&self, key: Key) -> Option<(String, &'static str)> {
        if let Some(raw) = self.env.get(key.env) {
            return Some((raw.to_owned(), key.env));
        }
        let text = match self.file.get(key.file)? {
            toml::Value::String(s) => s.trim().to_owned(),
            other => other.to_string(),
        };
        (!text.is_empty()).then_some((text, key.file))
    }

    /// The value of `key` as text, when it is set.
    pub fn text(&self, key: Key) -> Option<String> {
        self.value(key).map(|(text, _)| text)
    }

    /// The value of `key`, or `default`.
    pub fn text_or(&self, key: Key, default: &str) -> String {
        self.text(key).unwrap_or_else(|| default.to_owned())
    }

    /// A whole number within `range` (`unit` names it in the message), or `default`.
    pub fn number<T>(
        &self,
        key: Key,
        default: T,
        range: RangeInclusive<T>,
        unit: &str,
    ) -> Result<T, ConfigError>
    where
        T: FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        let Some((raw, name)) = self.value(key) else {
            return Ok(default);
        };
        let value: T = raw.parse().map_err(|_| {
            ConfigError::invalid(name, format!("'{raw}' is not a whole non-negative number"))
        })?;
        if !range.contains(&value) {
            let unit = if unit.is_empty() {
                String::new()
            } else {
                format!(" {unit}")
            };
            return Err(ConfigError::invalid(
                name,
                format!(
                    "must be between {} and {}{unit}, got {value}",
                    range.start(),
                    range.end()
                ),
            ));
        }
        Ok(value)
    }

    /// A value read by `parse` (given the text and the name to blame), or `None` when unset.
    pub fn parsed<T>(
        &self,
        key: Key,
        parse: impl FnOnce(&str, &'static str) -> Result<T, ConfigError>,
    ) -> Result<Option<T>, ConfigError> {
        self.value(key)
            .map(|(raw, name)| parse(&raw, name))
            .transpose()
    }

    /// `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`), or `default`.
    pub fn flag(&self, key: Key, default: bool) -> Result<bool, ConfigError> {
        let Some((raw, name)) = self.value(key) else {
            return Ok(default);
        };
        match raw.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(ConfigError::invalid(
                name,
                format!("'{raw}' is not true or false"),
            )),
        }
    }
}

/// Refuses a file key that is no setting's, naming the keys there are.
pub fn check_file_keys(file: &toml::Table) -> Result<(), String> {
    let unknown: Vec<&str> = file
        .keys()
        .map(String::as_str)
        .filter(|k| !ALL.iter().any(|key| key.file == *k))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let known: Vec<&str> = ALL.iter().map(|k| k.file).collect();
    Err(format!(
        "unknown key{} {}; the keys are {}",
        if unknown.len() == 1 { "" } else { "s" },
        unknown
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", "),
        known.join(", ")
    ))
}
