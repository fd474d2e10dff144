//! Webhooks over HTTP: one signed POST per attempt over kept-alive connections, following no
//! redirects and resolving through the SSRF guard; a circuit breaker per destination host
//! sheds the load of a receiver that keeps failing. How many requests go to one host at once
//! is the caller's to bound, in one place: the engine's lanes hold each host to
//! `Policy::per_host_concurrency`, and the job runner's concurrency bounds support notices.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::Full;
use hyper::StatusCode;
use hyper::header::{
    CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION, RETRY_AFTER, USER_AGENT as UA,
};
use hyper_util::client::legacy::connect::HttpConnector;

use super::backoff::parse_retry_after;
use super::body::WebhookBody;
use super::breaker::{Breaker, Clock, Permit, SystemClock};
use super::chat::{self, ChatMessage};
use super::connections::{Connections, Connector, ExchangeError, Reply};
use super::outbound::{self, GuardedResolver, Policy, UrlRefusal};
use super::{Attempt, one_line, signature};
use crate::domain::waiting::Waiting;

/// The `user-agent` of every webhook.
pub const USER_AGENT: &str = concat!("Herald-Webhooks/", env!("CARGO_PKG_VERSION"));

/// One webhook message to one subscriber.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookRequest {
    /// `webhook-id`: the same on every retry of this message, so receivers can deduplicate.
    pub id: String,
    pub url: String,
    /// The subscriber's `whsec_...` signing secret.
    pub secret: String,
    /// The Statuspage-shaped body (built by `notify`).
    pub body: WebhookBody,
    /// The same news for chat products (Slack, Discord, Teams), shared by an event's recipients.
    pub summary: Arc<ChatMessage>,
}

/// Sends webhooks. Cheap to clone: clones share the connection pool and the circuits.
#[derive(Clone)]
pub struct WebhookClient {
    inner: Arc<Inner>,
}

struct Inner {
    /// Kept-alive connections per destination, opened through the guarded resolver.
    http: Result<Connections, String>,
    policy: Policy,
    clock: Arc<dyn Clock>,
    /// Each destination host's circuit.
    hosts: Mutex<HashMap<String, Breaker>>,
}

/// Hosts remembered before idle ones are forgotten.
const MAX_HOSTS: usize = 10_000;
/// Bytes of an answer read (for the error message and to keep the connection reusable).
const MAX_ANSWER: usize = 16 * 1024;

impl WebhookClient {
    /// A client applying `policy`, with the real clock.
    pub fn new(policy: Policy) -> Self {
        Self::with_clock(policy, Arc::new(SystemClock))
    }

    /// A client whose circuit breakers read time from `clock` (tests).
    pub fn with_clock(policy: Policy, clock: Arc<dyn Clock>) -> Self {
        let resolver = GuardedResolver::new(policy.allow_private);
        Self::with_resolver(policy, clock, resolver)
    }

    /// A client resolving some names to fixed addresses (still subject to the policy): tests
    /// reach "hooks.slack.com" on loopback this way.
    pub fn with_pinned_hosts(
        policy: Policy,
        clock: Arc<dyn Clock>,
        pins: &[(&str, std::net::IpAddr)],
    ) -> Self {
        let resolver = pins.iter().fold(
            GuardedResolver::new(policy.allow_private),
            |resolver, (host, addr)| resolver.pin(host, vec![*addr]),
        );
        Self::with_resolver(policy, clock, resolver)
    }

    fn with_resolver(policy: Policy, clock: Arc<dyn Clock>, resolver: GuardedResolver) -> Self {
        let http = connections(&policy, resolver).map_err(|e| {
            tracing::error!(error = %e, "the webhook HTTP client could not be built");
            format!("the webhook HTTP client could not be built: {e}")
        });
        Self {
            inner: Arc::new(Inner {
                http,
                policy,
                clock,
                hosts: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The policy this client applies.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// One attempt at delivering `req`. Never follows a redirect; never logs the URL's path
    /// or query (chat webhook URLs are secrets themselves).
    #[tracing::instrument(skip_all, fields(webhook_id = %req.id))]
    pub async fn send(&self, req: &WebhookRequest) -> Attempt {
        let policy = &self.inner.policy;
        let url = match outbound::check_url(&req.url, policy) {
            Ok(url) => url,
            Err(refusal) => return refused(&refusal),
        };
        let http = match &self.inner.http {
            Ok(http) => http,
            Err(e) => {
                return Attempt::Retry {
                    retry_after: None,
                    error: e.clone(),
                };
            }
        };
        let host = host_key(&url);
        if let Err(retry_in) = self.circuit(&host) {
            return Attempt::Deferred {
                after: retry_in,
                waiting: Waiting::HostCircuitOpen,
            };
        }
        let bytes = match chat::flavor(&url) {
            chat::Flavor::Standard => req.body.to_bytes(),
            flavor => serde_json::to_vec(&chat::body(flavor, req)),
        };
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => {
                return Attempt::Failed {
                    error: format!("the body could not be serialised: {e}"),
                };
            }
        };
        let headers = match signed_headers(req, &bytes) {
            Ok(headers) => headers,
            Err(error) => return Attempt::Failed { error },
        };
        let mut request = hyper::Request::post(super::connections::origin_form(&url));
        if let Some(h) = request.headers_mut() {
            *h = headers;
        }
        let request = match request.body(Full::new(Bytes::from(bytes))) {
            Ok(request) => request,
            Err(_) => return refused(&UrlRefusal::Malformed),
        };
        // The whole exchange (connect, send, answer and its body) within the timeout.
        let exchange = async {
            match http.exchange(&host, &url, request, MAX_ANSWER).await {
                Ok(answer) => judge(answer),
                Err(e) => judge_error(&e),
            }
        };
        let (attempt, host_failed) = match tokio::time::timeout(policy.timeout, exchange).await {
            Ok(judged) => judged,
            Err(_) => (
                Attempt::Retry {
                    retry_after: None,
                    error: format!("no answer within {} s", policy.timeout.as_secs_f32()),
                },
                Some(true),
            ),
        };
        if let Some(failed) = host_failed {
            self.report(&host, failed);
        }
        attempt
    }

    /// Whether `host`'s circuit lets a request through, or how long until it may.
    fn circuit(&self, host: &str) -> Result<(), Duration> {
        let now = self.inner.clock.now();
        let mut hosts = self.inner.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if hosts.len() >= MAX_HOSTS && !hosts.contains_key(host) {
            hosts.retain(|_, breaker| !breaker.is_idle());
        }
        let breaker = hosts
            .entry(host.to_owned())
            .or_insert_with(|| Breaker::new(self.inner.policy.breaker));
        match breaker.check(now) {
            Permit::Rejected { retry_in } => Err(retry_in.max(Duration::from_millis(100))),
            Permit::Allowed | Permit::Probe => Ok(()),
        }
    }

    /// Tells the host's breaker how the request went.
    fn report(&self, host: &str, failed: bool) {
        let now = self.inner.clock.now();
        let mut hosts = self.inner.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(breaker) = hosts.get_mut(host) {
            if failed {
                breaker.record_failure(now);
            } else {
                breaker.record_success();
            }
        }
    }
}

/// `host:port`, the unit of circuits (and of the engine's lanes).
pub(super) fn host_key(url: &url::Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

fn refused(refusal: &UrlRefusal) -> Attempt {
    Attempt::Failed {
        error: refusal.to_string(),
    }
}

/// Standard Webhooks headers and the content type, signed over exactly `body`.
fn signed_headers(req: &WebhookRequest, body: &[u8]) -> Result<HeaderMap, String> {
    let timestamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let timestamp = i64::try_from(timestamp).unwrap_or(i64::MAX);
    let signature = signature::sign(&req.secret, &req.id, timestamp, body)
        .map_err(|e| format!("the subscription's signing secret is unusable: {e}"))?;
    let id = HeaderValue::from_str(&req.id)
        .map_err(|_| "the webhook id is not a valid header value".to_owned())?;
    let mut headers = HeaderMap::new();
    headers.insert("webhook-id", id);
    headers.insert("webhook-timestamp", HeaderValue::from(timestamp));
    headers.insert(
        "webhook-signature",
        HeaderValue::from_str(&signature).map_err(|_| "unusable signature".to_owned())?,
    );
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(UA, HeaderValue::from_static(USER_AGENT));
    Ok(headers)
}

/// The connections: no proxy, no redirects (hyper follows none), TCP_NODELAY, a connect
/// timeout, idle connections kept a minute, as many per host as the host's cap; names
/// resolved through `resolver` (the SSRF guard) at every connection; https receivers trusted
/// by the public (webpki) roots and the policy's extra CAs.
pub(super) fn connections(
    policy: &Policy,
    resolver: GuardedResolver,
) -> Result<Connections, rustls::Error> {
    let mut http = HttpConnector::new_with_resolver(resolver);
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(policy.timeout.min(Duration::from_secs(5))));
    let provider = rustls::crypto::ring::default_provider();
    let tls = hyper_rustls::HttpsConnectorBuilder::new();
    let tls = if policy.extra_roots.is_empty() {
        tls.with_provider_and_webpki_roots(provider)?
    } else {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        for ca in policy.extra_roots.iter() {
            roots.add(ca.clone())?;
        }
        tls.with_tls_config(
            rustls::ClientConfig::builder_with_provider(Arc::new(provider))
                .with_safe_default_protocol_versions()?
                .with_root_certificates(roots)
                .with_no_client_auth(),
        )
    };
    let https: Connector = tls.https_or_http().enable_http1().wrap_connector(http);
    Ok(Connections::new(
        https,
        policy.per_host_concurrency.max(1),
        Duration::from_secs(60),
    ))
}

/// The attempt an answer makes, and whether it counts against the host's circuit.
fn judge(answer: Reply) -> (Attempt, Option<bool>) {
    let status = answer.status;
    let retry_after = answer
        .headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()));
    let location = answer
        .headers
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(|v| one_line(v, 200));
    if status.is_success() {
        return (Attempt::Delivered, Some(false));
    }
    if status.is_redirection() {
        let to = location.map(|l| format!(" to {l}")).unwrap_or_default();
        let error = format!(
            "the receiver answered {status} (a redirect{to}); redirects are not followed: subscribe with the final URL"
        );
        return (Attempt::Failed { error }, Some(false));
    }
    let text = one_line(&String::from_utf8_lossy(&answer.body), 200);
    let error = if text.is_empty() {
        format!("the receiver answered {status}")
    } else {
        format!("the receiver answered {status}: {text}")
    };
    match status {
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
            (Attempt::Retry { retry_after, error }, Some(true))
        }
        StatusCode::REQUEST_TIMEOUT => (
            Attempt::Retry {
                retry_after: None,
                error,
            },
            Some(true),
        ),
        s if s.is_server_error() => (
            Attempt::Retry {
                retry_after: None,
                error,
            },
            Some(true),
        ),
        _ => (Attempt::Failed { error }, Some(false)),
    }
}

/// The attempt a transport error makes. A refused destination is final and says nothing about
/// the host's health; no connection makes the host unreachable; a request that failed on a
/// connection is retried.
fn judge_error(e: &ExchangeError) -> (Attempt, Option<bool>) {
    let causes = e.source_chain();
    if let Some(refusal) = causes.iter().find_map(|c| c.downcast_ref::<UrlRefusal>()) {
        return (refused(refusal), None);
    }
    match e {
        // The host, not this message: the engine holds the host's deliveries and probes it,
        // so this does not feed the breaker (which sheds load from hosts that answer badly).
        ExchangeError::Connect(_) => (
            Attempt::Unreachable {
                error: one_line(&format!("could not connect: {}", chain(&causes)), 300),
            },
            None,
        ),
        ExchangeError::Http(_) => (
            Attempt::Retry {
                retry_after: None,
                error: one_line(&format!("the request failed: {}", chain(&causes)), 300),
            },
            Some(true),
        ),
    }
}

/// An error and its causes on one line, without the URL (it may carry a token): each cause
/// once, where a wrapper repeats its source's text.
fn chain(causes: &[&(dyn std::error::Error + 'static)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in causes {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    if parts.is_empty() {
        parts.push("error".to_owned());
    }
    parts.join(": ")
}
