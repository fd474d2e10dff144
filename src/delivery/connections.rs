//! Kept-alive HTTP/1 connections to webhook receivers, kept per destination (`host:port`) on
//! hyper's own connection API: a request takes an idle connection of its destination or opens
//! one (through the SSRF-guarded resolver, with TLS for https), and gives it back once the
//! answer has been read to its end. Cheaper per request than hyper-util's pooled client, which
//! spawns a task per request to hand its connection back (`bench/fanout.sh` prints both).
//!
//! How many connections a destination gets is the caller's cap (the engine's lanes send at
//! most `per_host_concurrency` requests to one host at once); this keeps that many idle at
//! most, for at most the idle timeout.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HOST, HeaderMap, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use tower_service::Service;

use super::outbound::GuardedResolver;

/// Opens connections: TCP through the guarded resolver, TLS for https.
pub type Connector = HttpsConnector<HttpConnector<GuardedResolver>>;

/// Why an exchange failed.
#[derive(Debug)]
pub enum ExchangeError {
    /// No connection could be opened (refused destination, DNS, TCP, TLS).
    Connect(Box<dyn std::error::Error + Send + Sync>),
    /// The connection broke, or the answer was not HTTP.
    Http(hyper::Error),
}

impl ExchangeError {
    /// The error and its causes.
    pub fn source_chain(&self) -> Vec<&(dyn std::error::Error + 'static)> {
        let mut chain: Vec<&(dyn std::error::Error + 'static)> = Vec::new();
        let mut next: Option<&(dyn std::error::Error + 'static)> = match self {
            Self::Connect(e) => Some(e.as_ref()),
            Self::Http(e) => Some(e),
        };
        while let Some(e) = next {
            chain.push(e);
            next = e.source();
        }
        chain
    }
}

/// An answer, with the start of its body.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// Up to the limit asked for.
    pub body: Vec<u8>,
}

/// An idle connection and since when.
struct Idle {
    send: SendRequest<Full<Bytes>>,
    since: Instant,
}

impl Idle {
    /// Still open, and idle for less than `timeout`.
    fn usable(&self, timeout: Duration) -> bool {
        self.since.elapsed() < timeout && !self.send.is_closed()
    }
}

/// The connections of every destination.
pub struct Connections {
    connector: Connector,
    idle: Mutex<HashMap<String, Vec<Idle>>>,
    max_idle_per_host: usize,
    idle_timeout: Duration,
    /// When idle connections of every destination were last swept.
    swept: Mutex<Instant>,
}

impl Connections {
    pub fn new(connector: Connector, max_idle_per_host: usize, idle_timeout: Duration) -> Self {
        Self {
            connector,
            idle: Mutex::new(HashMap::new()),
            max_idle_per_host: max_idle_per_host.max(1),
            idle_timeout,
            swept: Mutex::new(Instant::now()),
        }
    }

    /// Sends `request` (its URI in origin form: path and query) to `url`'s destination, `key`
    /// (`host:port`), and reads up to `max_body` bytes of the answer. The connection is kept
    /// for the next request when the answer was read to its end.
    pub async fn exchange(
        &self,
        key: &str,
        url: &url::Url,
        mut request: Request<Full<Bytes>>,
        max_body: usize,
    ) -> Result<Reply, ExchangeError> {
        if let Some(host) = host_header(url) {
            request.headers_mut().insert(HOST, host);
        }
        let idle = match self.take_idle(key) {
            // A kept connection is ready once its driver has seen the last answer through,
            // which may be a moment after its body was read; one that closed meanwhile is not.
            Some(mut send) => send.ready().await.is_ok().then_some(send),
            None => None,
        };
        let answer = match idle {
            Some(mut send) => match send.try_send_request(request).await {
                Ok(answer) => Ok((answer, send)),
                // The kept connection closed before the request went out (the receiver closed
                // it while idle): nothing was sent, so the request goes on a new connection.
                Err(mut e) => match e.take_message() {
                    Some(request) => self.send_new(url, request).await,
                    None => Err(ExchangeError::Http(e.into_error())),
                },
            },
            None => self.send_new(url, request).await,
        };
        let (answer, send) = answer?;
        let (parts, mut body) = answer.into_parts();
        let mut read = Vec::new();
        let mut ended = false;
        while read.len() < max_body {
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Some(chunk) = frame.data_ref() {
                        read.extend_from_slice(chunk);
                    }
                }
                Some(Err(_)) => break,
                None => {
                    ended = true;
                    break;
                }
            }
        }
        read.truncate(max_body);
        if ended {
            self.give_back(key, send);
        }
        Ok(Reply {
            status: parts.status,
            headers: parts.headers,
            body: read,
        })
    }

    /// Opens a connection to `url`'s destination and sends `request` on it.
    async fn send_new(
        &self,
        url: &url::Url,
        request: Request<Full<Bytes>>,
    ) -> Result<
        (
            hyper::Response<hyper::body::Incoming>,
            SendRequest<Full<Bytes>>,
        ),
        ExchangeError,
    > {
        let mut send = self.connect(url).await?;
        let answer = send
            .send_request(request)
            .await
            .map_err(ExchangeError::Http)?;
        Ok((answer, send))
    }

    /// A new connection to `url`'s destination, its driver running on its own task (it ends
    /// when the connection closes or its last sender is dropped).
    async fn connect(&self, url: &url::Url) -> Result<SendRequest<Full<Bytes>>, ExchangeError> {
        let destination = destination_uri(url).map_err(|e| ExchangeError::Connect(e.into()))?;
        let mut connector = self.connector.clone();
        let io = connector
            .call(destination)
            .await
            .map_err(ExchangeError::Connect)?;
        let (send, connection) = http1::Builder::new()
            .handshake(io)
            .await
            .map_err(ExchangeError::Http)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "a webhook connection ended with an error");
            }
        });
        Ok(send)
    }

    /// The most recently used idle connection of `key` still open and within the idle
    /// timeout; the others of `key` past it are dropped (closing them).
    fn take_idle(&self, key: &str) -> Option<SendRequest<Full<Bytes>>> {
        self.sweep();
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = idle.get_mut(key)?;
        let timeout = self.idle_timeout;
        list.retain(|c| c.usable(timeout));
        let found = list.pop().map(|c| c.send);
        if list.is_empty() {
            idle.remove(key);
        }
        found
    }

    /// Keeps a connection whose answer was read to its end for the next request to `key`
    /// (its driver may not have marked it ready yet: [`Connections::exchange`] waits for that).
    fn give_back(&self, key: &str, send: SendRequest<Full<Bytes>>) {
        if send.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = idle.entry(key.to_owned()).or_default();
        if list.len() < self.max_idle_per_host {
            list.push(Idle {
                send,
                since: Instant::now(),
            });
        }
    }

    /// Drops the connections idle past the timeout, of every destination (at most every few
    /// seconds, so destinations no longer written to do not keep theirs open).
    fn sweep(&self) {
        {
            let mut swept = self.swept.lock().unwrap_or_else(|e| e.into_inner());
            if swept.elapsed() < SWEEP_EVERY {
                return;
            }
            *swept = Instant::now();
        }
        let timeout = self.idle_timeout;
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.retain(|_, list| {
            list.retain(|c| c.usable(timeout));
            !list.is_empty()
        });
    }
}

/// How often idle connections of every destination are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// `scheme://host:port` of `url`: what the connector resolves, connects to and (for https)
/// names in TLS.
fn destination_uri(url: &url::Url) -> Result<Uri, hyper::http::uri::InvalidUri> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(0);
    format!("{}://{host}:{port}", url.scheme()).parse()
}

/// The `Host` header of a request to `url`: its host, and its port when not the scheme's own.
fn host_header(url: &url::Url) -> Option<HeaderValue> {
    let host = url.host_str()?;
    let value = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    HeaderValue::from_str(&value).ok()
}

/// A request's target in origin form: its path and query.
pub fn origin_form(url: &url::Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_name_their_host_and_carry_only_path_and_query() {
        let url = url::Url::parse("https://hooks.example.com/a/b?x=1&y=2").unwrap();
        assert_eq!(host_header(&url).unwrap(), "hooks.example.com");
        assert_eq!(origin_form(&url), "/a/b?x=1&y=2");
        assert_eq!(
            destination_uri(&url).unwrap().to_string(),
            "https://hooks.example.com:443/"
        );
        let url = url::Url::parse("http://[::1]:8080/hook").unwrap();
        assert_eq!(host_header(&url).unwrap(), "[::1]:8080");
        assert_eq!(origin_form(&url), "/hook");
        assert_eq!(
            destination_uri(&url).unwrap().to_string(),
            "http://[::1]:8080/"
        );
        // The scheme's own port is not named, as browsers and curl do.
        let url = url::Url::parse("http://127.0.0.1:80/").unwrap();
        assert_eq!(host_header(&url).unwrap(), "127.0.0.1");
    }
}
