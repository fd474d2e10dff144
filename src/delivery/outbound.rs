//! Outbound requests are not a way in: webhook URLs must be plain http(s) URLs, and their host
//! must not resolve to loopback, private, link-local (cloud metadata), or otherwise non-public
//! addresses, unless the operator allows it (`HERALD_ALLOW_PRIVATE_WEBHOOKS`).
//!
//! [`check_url`] and [`check_destination`] run when a subscription is made; [`GuardedResolver`]
//! applies the same rule to every connection the webhook client opens, so a DNS answer that
//! changed since does not get through either.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use super::breaker::BreakerConfig;

/// How webhooks may be sent.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Lets webhooks reach non-public addresses (`HERALD_ALLOW_PRIVATE_WEBHOOKS`).
    pub allow_private: bool,
    /// Requests in flight to one host (host and port) at a time: the engine's lanes hold each
    /// host to it, and the connection pool keeps that many idle connections per host.
    pub per_host_concurrency: usize,
    /// Whole-request timeout (connect, send, answer).
    pub timeout: Duration,
    /// When a host's circuit opens.
    pub breaker: BreakerConfig,
    /// CA certificates trusted for https receivers besides the public roots
    /// (`HERALD_WEBHOOK_CA_FILE`).
    pub extra_roots: Arc<[rustls::pki_types::CertificateDer<'static>]>,
}

impl Default for Policy {
    /// Public destinations only, 8 requests per host, 10 s timeout, 5 failures open a circuit
    /// for 30 s.
    fn default() -> Self {
        Self {
            allow_private: false,
            per_host_concurrency: 8,
            timeout: Duration::from_secs(10),
            breaker: BreakerConfig::default(),
            extra_roots: Arc::from(Vec::new()),
        }
    }
}

impl Policy {
    /// The default policy with the operator's settings applied.
    pub fn from_settings(settings: &crate::config::Settings) -> Self {
        Self {
            allow_private: settings.allow_private_webhooks,
            per_host_concurrency: settings.webhook_host_concurrency,
            extra_roots: Arc::from(settings.webhook_ca.clone()),
            ..Self::default()
        }
    }
}

pub use crate::config::read_ca_file;

/// Why a webhook URL is refused; `Display` is a message for the person who entered it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    #[error("the webhook URL is not a valid URL")]
    Malformed,
    #[error("the webhook URL must start with http:// or https:// (not {0}://)")]
    Scheme(String),
    #[error("the webhook URL must not contain a user name or password")]
    Userinfo,
    #[error("the webhook URL has no host")]
    NoHost,
    #[error("the webhook host {host} could not be resolved")]
    Unresolvable { host: String },
    #[error(
        "the webhook host {host} is refused: it resolves to {addr}, a {kind} address; webhooks go to public addresses only"
    )]
    NotPublic {
        host: String,
        addr: IpAddr,
        kind: &'static str,
    },
}

/// Checks a webhook URL's syntax: http or https, no user info, a host. A literal IP address
/// host is classified at once; names are left to [`check_destination`].
pub fn check_url(url: &str, policy: &Policy) -> Result<url::Url, UrlRefusal> {
    let parsed = url::Url::parse(url.trim()).map_err(|_| UrlRefusal::Malformed)?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(UrlRefusal::Scheme(
            parsed.scheme().chars().take(20).collect(),
        ));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlRefusal::Userinfo);
    }
    let host = match parsed.host() {
        None => return Err(UrlRefusal::NoHost),
        Some(url::Host::Domain("")) => return Err(UrlRefusal::NoHost),
        Some(host) => host,
    };
    if !policy.allow_private {
        let literal = match host {
            url::Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
            url::Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
            url::Host::Domain(_) => None,
        };
        if let Some(addr) = literal {
            refuse_if_not_public(&host.to_string(), addr)?;
        }
    }
    Ok(parsed)
}

/// Resolves the URL's host and refuses it when any of its addresses is not public (unless the
/// policy allows private destinations).
pub async fn check_destination(url: &url::Url, policy: &Policy) -> Result<(), UrlRefusal> {
    if policy.allow_private {
        return Ok(());
    }
    let host = url.host_str().ok_or(UrlRefusal::NoHost)?;
    let port = url.port_or_known_default().unwrap_or(443);
    resolve_public(host, port).await.map(|_| ())
}

/// Resolves `host` and returns its addresses, refusing the host when any is not public.
pub async fn resolve_public(host: &str, port: u16) -> Result<Vec<SocketAddr>, UrlRefusal> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(addr) = bare.parse::<IpAddr>() {
        refuse_if_not_public(host, addr)?;
        return Ok(vec![SocketAddr::new(addr, port)]);
    }
    let unresolvable = || UrlRefusal::Unresolvable {
        host: host.to_owned(),
    };
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
        .await
        .map_err(|_| unresolvable())?
        .collect();
    if addrs.is_empty() {
        return Err(unresolvable());
    }
    for addr in &addrs {
        refuse_if_not_public(host, addr.ip())?;
    }
    Ok(addrs)
}

fn refuse_if_not_public(host: &str, addr: IpAddr) -> Result<(), UrlRefusal> {
    match non_public_kind(addr) {
        None => Ok(()),
        Some(kind) => Err(UrlRefusal::NotPublic {
            host: host.to_owned(),
            addr,
            kind,
        }),
    }
}

/// What kind of non-public address `addr` is, or `None` when it is a public unicast address.
pub fn non_public_kind(addr: IpAddr) -> Option<&'static str> {
    match addr {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, d] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() || a == 0 => "unspecified",
        // Azure's WireServer: a public-looking address that answers every VM's metadata and
        // agent requests. (The other clouds' metadata services sit in ranges refused below:
        // 169.254.169.254, Alibaba's 100.100.100.200, Oracle's 192.0.0.192, AWS's fd00:ec2::.)
        (168, 63, 129) if d == 16 => "cloud metadata (Azure WireServer)",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private-network",
        _ if ip.is_link_local() => "link-local (cloud metadata)",
        (100, 64..=127, _) => "carrier-grade NAT",
        _ if ip.is_broadcast() => "broadcast",
        _ if ip.is_multicast() => "multicast",
        _ if ip.is_documentation() => "documentation",
        (192, 0, 0) => "IETF protocol",
        (198, 18..=19, _) => "benchmarking",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_kind(v4);
    }
    let seg = ip.segments();
    let embedded_v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    Some(match seg {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        // ::a.b.c.d, the deprecated IPv4-compatible form.
        [0, 0, 0, 0, 0, 0, _, _] => "reserved",
        // ::ffff:0:a.b.c.d, IPv4-translated (SIIT, RFC 6052's ancestor): reaches its IPv4.
        [0, 0, 0, 0, 0xffff, 0, hi, lo] => return v4_kind(embedded_v4(hi, lo)),
        // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return v4_kind(embedded_v4(hi, lo)),
        [0x64, 0xff9b, 1, ..] => "private-network",
        // 6to4 (2002::/16) embeds an IPv4 address in bits 16..48.
        [0x2002, hi, lo, ..] => return v4_kind(embedded_v4(hi, lo)),
        [0x2001, 0, ..] => "Teredo tunnel",
        [0x2001, 2, 0, ..] => "benchmarking",
        [0x2001, s, ..] if s & 0xfff0 == 0x10 => "ORCHID",
        [0x2001, 0xdb8, ..] => "documentation",
        [0x100, 0, 0, 0, ..] => "discard",
        _ if ip.is_unique_local() => "private-network (unique local)",
        _ if ip.is_unicast_link_local() => "link-local",
        [s, ..] if s & 0xffc0 == 0xfec0 => "site-local",
        _ if ip.is_multicast() => "multicast",
        _ => return None,
    })
}

/// The DNS resolver of the webhook client: resolves like the system does (or from its pinned
/// names), then refuses hosts with a non-public address (unless allowed), at every connection.
#[derive(Debug, Clone, Default)]
pub struct GuardedResolver {
    allow_private: bool,
    pins: Arc<HashMap<String, Vec<IpAddr>>>,
}

impl GuardedResolver {
    /// A resolver refusing non-public addresses unless `allow_private`.
    pub fn new(allow_private: bool) -> Self {
        Self {
            allow_private,
            pins: Arc::default(),
        }
    }

    /// Answers `host` with `addrs` instead of asking DNS (tests, or an on-premises name);
    /// the addresses are still checked like resolved ones.
    pub fn pin(mut self, host: &str, addrs: Vec<IpAddr>) -> Self {
        Arc::make_mut(&mut self.pins).insert(host.to_ascii_lowercase(), addrs);
        self
    }

    async fn lookup(&self, host: &str) -> Result<Vec<SocketAddr>, UrlRefusal> {
        let pinned = self.pins.get(&host.to_ascii_lowercase());
        match (pinned, self.allow_private) {
            (Some(addrs), allow_private) => {
                if !allow_private {
                    for addr in addrs {
                        refuse_if_not_public(host, *addr)?;
                    }
                }
                Ok(addrs.iter().map(|ip| SocketAddr::new(*ip, 0)).collect())
            }
            (None, true) => Ok(tokio::net::lookup_host((host, 0))
                .await
                .map_err(|_| UrlRefusal::Unresolvable {
                    host: host.to_owned(),
                })?
                .collect()),
            (None, false) => resolve_public(host, 0).await,
        }
    }
}

/// hyper's connector asks this for each new connection's addresses.
impl tower_service::Service<hyper_util::client::legacy::connect::dns::Name> for GuardedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = UrlRefusal;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, UrlRefusal>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), UrlRefusal>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: hyper_util::client::legacy::connect::dns::Name) -> Self::Future {
        let resolver = self.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move { Ok(resolver.lookup(&host).await?.into_iter()) })
    }
}

#[cfg(test)]
mod tests;
