//! Outbound reads: one GET of a public document (a vendor's `summary.json`, a Statuspage page
//! being imported) under the same rules as webhooks: http(s) only, no user info, every
//! connection resolved through the SSRF guard (`HERALD_ALLOW_PRIVATE_WEBHOOKS` lifts it), a
//! whole-request time limit, a size limit, and redirects followed only a few times, each
//! checked again.

use bytes::Bytes;
use http_body_util::Full;
use hyper::StatusCode;
use hyper::header::{ACCEPT, ETAG, HeaderValue, IF_NONE_MATCH, LOCATION, USER_AGENT};

use super::connections::{Connections, origin_form};
use super::outbound::{self, GuardedResolver, Policy, UrlRefusal};

/// The `user-agent` of Herald's reads.
pub const FETCH_AGENT: &str = concat!("Herald/", env!("CARGO_PKG_VERSION"), " (status mirror)");
/// Redirects followed at most.
const MAX_REDIRECTS: usize = 3;

/// What a GET brought.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// 304: the document is the one of the ETag given.
    NotModified,
    /// 200: the document and its ETag, when it has one.
    Document { body: Vec<u8>, etag: Option<String> },
}

/// Why a GET brought nothing usable; `Display` is for the responder who set the URL up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("{}", refusal_text(.0))]
    Refused(UrlRefusal),
    #[error("could not connect: {0}")]
    Unreachable(String),
    #[error("no answer within {0} s")]
    Timeout(u64),
    #[error("the answer was HTTP {0}")]
    Status(u16),
    #[error("the answer is larger than {} MiB", .0 / (1024 * 1024))]
    TooLarge(usize),
    #[error("more than {MAX_REDIRECTS} redirects")]
    Redirects,
}

/// A refusal in words that fit any outbound URL (the webhook wording names webhooks).
fn refusal_text(refusal: &UrlRefusal) -> String {
    match refusal {
        UrlRefusal::NotPublic { host, addr, kind } => format!(
            "{host} is refused: it resolves to {addr}, a {kind} address; Herald reaches public \
             addresses only (HERALD_ALLOW_PRIVATE_WEBHOOKS=true allows private ones)"
        ),
        other => other.to_string().replacen("the webhook ", "the ", 1),
    }
}

/// Reads public documents. Cheap to clone.
#[derive(Clone)]
pub struct Fetcher {
    http: std::sync::Arc<Result<Connections, String>>,
    policy: Policy,
}

impl Fetcher {
    /// A fetcher applying `policy` (its timeout, its private-address rule, its extra CAs).
    pub fn new(policy: Policy) -> Self {
        let resolver = GuardedResolver::new(policy.allow_private);
        let http = super::webhook::connections(&policy, resolver).map_err(|e| {
            tracing::error!(error = %e, "the outbound HTTP client could not be built");
            format!("the outbound HTTP client could not be built: {e}")
        });
        Self {
            http: std::sync::Arc::new(http),
            policy,
        }
    }

    /// GETs `url` (with `If-None-Match: etag` when given), reading at most `max_body` bytes,
    /// all within the policy's timeout.
    pub async fn get(
        &self,
        url: &str,
        etag: Option<&str>,
        max_body: usize,
    ) -> Result<Fetched, FetchError> {
        let limit = self.policy.timeout;
        match tokio::time::timeout(limit, self.follow(url, etag, max_body)).await {
            Ok(fetched) => fetched,
            Err(_) => Err(FetchError::Timeout(limit.as_secs().max(1))),
        }
    }

    async fn follow(
        &self,
        url: &str,
        etag: Option<&str>,
        max_body: usize,
    ) -> Result<Fetched, FetchError> {
        let http = match self.http.as_ref() {
            Ok(http) => http,
            Err(e) => return Err(FetchError::Unreachable(e.clone())),
        };
        let mut url = outbound::check_url(url, &self.policy).map_err(FetchError::Refused)?;
        for _ in 0..=MAX_REDIRECTS {
            let mut request = hyper::Request::get(origin_form(&url))
                .header(USER_AGENT, FETCH_AGENT)
                .header(ACCEPT, "application/json");
            if let Some(tag) = etag.and_then(|t| HeaderValue::from_str(t).ok()) {
                request = request.header(IF_NONE_MATCH, tag);
            }
            let request = request
                .body(Full::new(Bytes::new()))
                .map_err(|_| FetchError::Refused(UrlRefusal::Malformed))?;
            let key = super::webhook::host_key(&url);
            let reply = http
                .exchange(&key, &url, request, max_body.saturating_add(1))
                .await
                .map_err(|e| classify(&e))?;
            match reply.status {
                StatusCode::NOT_MODIFIED => return Ok(Fetched::NotModified),
                status if status.is_success() => {
                    if reply.body.len() > max_body {
                        return Err(FetchError::TooLarge(max_body));
                    }
                    let etag = reply
                        .headers
                        .get(ETAG)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    return Ok(Fetched::Document {
                        body: reply.body,
                        etag,
                    });
                }
                status if status.is_redirection() => {
                    let next = reply
                        .headers
                        .get(LOCATION)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|to| url.join(to).ok())
                        .ok_or(FetchError::Status(status.as_u16()))?;
                    url = outbound::check_url(next.as_str(), &self.policy)
                        .map_err(FetchError::Refused)?;
                }
                status => return Err(FetchError::Status(status.as_u16())),
            }
        }
        Err(FetchError::Redirects)
    }
}

/// A failed exchange: a refused address as such, anything else by its innermost cause.
fn classify(e: &super::connections::ExchangeError) -> FetchError {
    let chain = e.source_chain();
    if let Some(refusal) = chain
        .iter()
        .find_map(|err| err.downcast_ref::<UrlRefusal>())
    {
        return FetchError::Refused(refusal.clone());
    }
    FetchError::Unreachable(
        chain
            .last()
            .map(|e| super::one_line(&e.to_string(), 300))
            .unwrap_or_else(|| "the connection failed".to_owned()),
    )
}
