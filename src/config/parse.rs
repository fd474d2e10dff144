//! Reading the values of settings that are more than a number: addresses, URLs, mailboxes,
//! proxy lists, a CA file. Each parser takes the text and the name to blame (the variable or
//! the file key it came from) and answers a [`ConfigError`] naming it.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;

use super::ConfigError;

/// Why an SMTP URL that would send its password in clear text is refused.
pub const PASSWORD_IN_CLEAR: &str = "has a user and password but no TLS, so they would cross the network in clear text: use smtps://, smtp+starttls://, or add ?plain_auth=allow for a relay on this host";

/// A comma-separated list of addresses (`10.0.0.1`) and ranges (`10.0.0.0/8`).
pub fn proxies(raw: &str, name: &'static str) -> Result<Vec<ipnet::IpNet>, ConfigError> {
    raw.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    ConfigError::invalid(
                        name,
                        format!("'{item}' is not an IP address or CIDR range"),
                    )
                })
        })
        .collect()
}

/// A `HOST:PORT` address (a name is resolved), `example` shown when it is not one.
pub fn address(raw: &str, name: &'static str, example: &str) -> Result<SocketAddr, ConfigError> {
    if let Ok(addr) = raw.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let bad = || {
        ConfigError::invalid(
            name,
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

/// An `http://` or `https://` URL with a host, without its trailing slash.
pub fn public_url(raw: &str, name: &'static str) -> Result<String, ConfigError> {
    let url = url::Url::parse(raw)
        .map_err(|e| ConfigError::invalid(name, format!("'{raw}' is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ConfigError::invalid(
            name,
            format!("'{raw}' must be an http:// or https:// URL"),
        ));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// The public URL of a listener on `bind` when none is set.
pub fn derived_public_url(bind: SocketAddr) -> String {
    if bind.ip().is_unspecified() {
        format!("http://localhost:{}", bind.port())
    } else {
        format!("http://{bind}")
    }
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

/// An SMTP relay's URL (`smtp://`, `smtps://`, `smtp+starttls://`) that does not send a
/// password in clear text.
pub fn smtp_url(raw: &str, name: &'static str) -> Result<String, ConfigError> {
    let bad = |why: &str| {
        ConfigError::invalid(
            name,
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
    if sends_password_in_clear(&url) {
        return Err(bad(PASSWORD_IN_CLEAR));
    }
    Ok(raw.to_owned())
}

/// A mailbox such as `Herald <herald@example.com>`.
pub fn mailbox(raw: &str, name: &'static str) -> Result<String, ConfigError> {
    raw.parse::<lettre::message::Mailbox>().map_err(|e| {
        ConfigError::invalid(
            name,
            format!("'{raw}' is not a mailbox such as 'Herald <herald@example.com>': {e}"),
        )
    })?;
    Ok(raw.to_owned())
}

/// The PEM certificates of a CA file, each usable as a trust anchor (checked here, so a bad
/// file stops the start).
pub fn read_ca_file(
    path: &Path,
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, String> {
    use rustls::pki_types::pem::PemObject;
    let pem = std::fs::read(path)
        .map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?;
    let certs = rustls::pki_types::CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{} is not PEM certificates: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    let mut store = rustls::RootCertStore::empty();
    for cert in &certs {
        store
            .add(cert.clone())
            .map_err(|e| format!("{} holds an unusable certificate: {e}", path.display()))?;
    }
    Ok(certs)
}
