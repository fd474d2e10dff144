//! SMTP sessions for [`super::Mailer`]: where the server is (parsed once from the URL), opening
//! a session (TCP with `TCP_NODELAY`, implicit TLS or STARTTLS, EHLO, AUTH), a small pool of
//! idle sessions, and one mail transaction, over lettre's [`AsyncSmtpConnection`].
//!
//! Why not lettre's pooled transport: its sockets keep Nagle's algorithm on, and lettre writes
//! a message and its final `CRLF.CRLF` in two writes, so every message waited for the
//! server's delayed ACK (about 40 ms); its pool also sent a NOOP before reusing a session.
//! Here a session is reused without a probe: one the server closed while idle fails on its
//! first command, before any of the message was sent, and the message goes out on a fresh
//! session instead.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use lettre::address::Envelope;
#[allow(deprecated)] // the only way lettre offers to put TLS on a socket opened by Herald
use lettre::transport::smtp::client::AsyncNetworkStream;
use lettre::transport::smtp::client::{
    AsyncSmtpConnection, AsyncTokioStream, Certificate, TlsParameters,
};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use lettre::transport::smtp::{
    Error, SMTP_PORT, SUBMISSION_PORT, SUBMISSIONS_PORT,
    authentication::{Credentials, DEFAULT_MECHANISMS},
};

use crate::delivery::{Attempt, one_line};

/// How long opening a session, or one mail transaction, may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);
/// Idle sessions kept (the notification engine runs up to 16 at once).
const MAX_IDLE: usize = 16;
/// An idle session older than this is closed rather than reused (servers drop idle sessions
/// after a few minutes; one dropped earlier is replaced anyway).
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// How a session is secured.
#[derive(Clone)]
enum Security {
    Plain,
    /// STARTTLS, and no session without it.
    StartTls(TlsParameters),
    /// STARTTLS when the server offers it.
    Opportunistic(TlsParameters),
    /// TLS from the first byte (`smtps://`).
    Implicit(TlsParameters),
}

/// The server and how to talk to it, from an `smtp://` or `smtps://` URL with lettre's rules:
/// `?tls=required|opportunistic`, default ports 25, 587 (with `tls`) and 465, the path as the
/// EHLO name, `user:password@` for AUTH; and `?tls_ca_file=` for a private CA.
#[derive(Clone)]
pub(super) struct Endpoint {
    host: String,
    port: u16,
    security: Security,
    hello: ClientId,
    credentials: Option<Credentials>,
    /// `?plain_auth=allow`: the URL says credentials may cross an unencrypted connection (a
    /// relay on the same host). Without it they are sent only once TLS is up.
    plain_auth: bool,
}

impl Endpoint {
    /// The error says what is wrong, never the password.
    pub(super) fn parse(url: &url::Url) -> Result<Self, &'static str> {
        let host = match url.host() {
            Some(url::Host::Domain(d)) if !d.is_empty() => d.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err("has no host"),
        };
        let tls = url.query_pairs().find(|(k, _)| k == "tls").map(|(_, v)| v);
        // `?tls_ca_file=/path/ca.pem`: a private CA to trust besides the public ones (an
        // internal relay's certificate), like libpq's `sslrootcert`.
        let ca = match url.query_pairs().find(|(k, _)| k == "tls_ca_file") {
            Some((_, path)) => {
                let pem = std::fs::read(path.as_ref())
                    .map_err(|_| "has a tls_ca_file that cannot be read")?;
                Some(
                    Certificate::from_pem(&pem)
                        .map_err(|_| "has a tls_ca_file that is not PEM certificates")?,
                )
            }
            None => None,
        };
        let params = || {
            let builder = TlsParameters::builder(host.clone());
            let builder = match &ca {
                Some(ca) => builder.add_root_certificate(ca.clone()),
                None => builder,
            };
            builder.build().map_err(|_| "has no usable TLS setup")
        };
        let (security, default_port) = match (url.scheme(), tls.as_deref()) {
            ("smtp", None) => (Security::Plain, SMTP_PORT),
            ("smtp", Some("required")) => (Security::StartTls(params()?), SUBMISSION_PORT),
            ("smtp", Some("opportunistic")) => {
                (Security::Opportunistic(params()?), SUBMISSION_PORT)
            }
            ("smtps", _) => (Security::Implicit(params()?), SUBMISSIONS_PORT),
            _ => return Err("has an unknown tls= value"),
        };
        let hello = match url.path().trim_matches('/') {
            "" => ClientId::default(),
            name => ClientId::Domain(name.to_owned()),
        };
        let credentials = match url.password() {
            Some(password) => Some(Credentials::new(
                percent_decode(url.username()).ok_or("has a user name that is not UTF-8")?,
                percent_decode(password).ok_or("has a password that is not UTF-8")?,
            )),
            None => None,
        };
        let plain_auth = match url.query_pairs().find(|(k, _)| k == "plain_auth") {
            None => false,
            Some((_, v)) if v == "allow" => true,
            Some(_) => return Err("has a plain_auth value other than allow"),
        };
        if super::sends_password_in_clear(url) {
            return Err(super::PASSWORD_IN_CLEAR);
        }
        Ok(Self {
            plain_auth,
            port: url.port().unwrap_or(default_port),
            host,
            security,
            hello,
            credentials,
        })
    }

    /// Opens a session ready for MAIL FROM: connected, secured, greeted, logged in.
    async fn connect(&self) -> Result<AsyncSmtpConnection, SessionError> {
        let tcp = self.tcp().await?;
        let stream: Box<dyn AsyncTokioStream> = match &self.security {
            Security::Implicit(tls) => {
                #[allow(deprecated)]
                let mut stream = AsyncNetworkStream::use_existing_tokio1(Box::new(tcp));
                stream.upgrade_tls(tls.clone()).await?;
                Box::new(Compat(stream))
            }
            _ => Box::new(tcp),
        };
        let mut conn = AsyncSmtpConnection::connect_with_transport(stream, &self.hello).await?;
        let encrypted = match &self.security {
            Security::StartTls(tls) => {
                conn.starttls(tls.clone(), &self.hello).await?;
                true
            }
            Security::Opportunistic(tls) if conn.can_starttls() => {
                conn.starttls(tls.clone(), &self.hello).await?;
                true
            }
            Security::Implicit(_) => true,
            _ => false,
        };
        if let Some(credentials) = &self.credentials {
            if !encrypted && !self.plain_auth {
                // An opportunistic server that offered no STARTTLS (or a downgrade on the way)
                // does not get the password.
                let _ = conn.quit().await;
                return Err(SessionError::Connect(io::Error::other(
                    "the server offered no STARTTLS, and the password is not sent in clear text \
                     (add ?plain_auth=allow to the URL to allow it)",
                )));
            }
            conn.auth(DEFAULT_MECHANISMS, credentials).await?;
        }
        Ok(conn)
    }

    async fn tcp(&self) -> Result<tokio::net::TcpStream, io::Error> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "the host has no address");
        for addr in tokio::net::lookup_host((self.host.as_str(), self.port)).await? {
            match tokio::time::timeout(SMTP_TIMEOUT, tokio::net::TcpStream::connect(addr)).await {
                Ok(Ok(tcp)) => {
                    // Without it each message's last small write waits for the server's ACK.
                    tcp.set_nodelay(true)?;
                    return Ok(tcp);
                }
                Ok(Err(e)) => last = e,
                Err(_) => last = io::Error::new(io::ErrorKind::TimedOut, "connect timed out"),
            }
        }
        Err(last)
    }
}

/// A session that could not be opened.
#[derive(Debug, thiserror::Error)]
enum SessionError {
    #[error("connection error: {0}")]
    Connect(#[from] io::Error),
    #[error("{0}")]
    Smtp(#[from] Error),
}

/// Sends mail through one server, reusing idle sessions.
pub(super) struct Sessions {
    endpoint: Endpoint,
    idle: Mutex<VecDeque<Idle>>,
    max_idle: usize,
    idle_timeout: Duration,
}

struct Idle {
    conn: AsyncSmtpConnection,
    since: Instant,
}

/// Where a transaction failed.
enum Failure {
    /// At MAIL FROM, the first command: nothing of the message has been sent.
    First(Error),
    Later(Error),
    /// No answer within [`SMTP_TIMEOUT`].
    Unanswered,
    /// This message cannot go to this server.
    Unsendable(&'static str),
}

impl Sessions {
    pub(super) fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            idle: Mutex::new(VecDeque::new()),
            max_idle: MAX_IDLE,
            idle_timeout: IDLE_TIMEOUT,
        }
    }

    /// Sends one message; see [`super::Mailer::send`] for what the answer means.
    pub(super) async fn send(&self, envelope: &Envelope, email: &[u8]) -> Attempt {
        while let Some(mut conn) = self.checkout() {
            match self.attempt(&mut conn, envelope, email).await {
                // Closed by the server while idle: drop it and try the next one.
                Some(Failure::First(e)) if closed_while_idle(&e) => {
                    tracing::debug!(error = %e, "an idle SMTP session was closed; replacing it");
                }
                Some(failure) => return fail(conn, failure).await,
                None => return self.checkin(conn),
            }
        }
        let mut conn = match tokio::time::timeout(SMTP_TIMEOUT, self.endpoint.connect()).await {
            Ok(Ok(conn)) => conn,
            // Connecting, TLS, greeting, login: about the server or Herald's settings, not
            // this message, so retried; what waited goes out once the server is back or fixed.
            Ok(Err(e)) => return unreachable(&format!("SMTP: {e}")),
            Err(_) => return unreachable("SMTP: no session within 30 s"),
        };
        match self.attempt(&mut conn, envelope, email).await {
            Some(failure) => fail(conn, failure).await,
            None => self.checkin(conn),
        }
    }

    async fn attempt(
        &self,
        conn: &mut AsyncSmtpConnection,
        envelope: &Envelope,
        email: &[u8],
    ) -> Option<Failure> {
        match tokio::time::timeout(SMTP_TIMEOUT, transaction(conn, envelope, email)).await {
            Ok(Ok(())) => None,
            Ok(Err(failure)) => Some(failure),
            Err(_) => Some(Failure::Unanswered),
        }
    }

    /// The most recently used idle session that is not too old; older ones are closed.
    fn checkout(&self) -> Option<AsyncSmtpConnection> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let fresh = idle
            .iter()
            .position(|i| i.since.elapsed() < self.idle_timeout)
            .unwrap_or(idle.len());
        idle.drain(..fresh);
        idle.pop_back().map(|i| i.conn)
    }

    fn checkin(&self, conn: AsyncSmtpConnection) -> Attempt {
        if !conn.has_broken() {
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            idle.push_back(Idle {
                conn,
                since: Instant::now(),
            });
            if idle.len() > self.max_idle {
                idle.pop_front();
            }
        }
        Attempt::Delivered
    }
}

/// MAIL FROM, RCPT TO, DATA and the message, as lettre's `send` does it, but telling a failure
/// at the first command apart.
async fn transaction(
    conn: &mut AsyncSmtpConnection,
    envelope: &Envelope,
    email: &[u8],
) -> Result<(), Failure> {
    let info = conn.server_info();
    let mut params = Vec::new();
    let addresses = envelope.from().into_iter().chain(envelope.to());
    if addresses.map(AsRef::<str>::as_ref).any(|a| !a.is_ascii()) {
        if !info.supports_feature(Extension::SmtpUtfEight) {
            return Err(Failure::Unsendable(
                "the address is not ASCII and the server does not support SMTPUTF8",
            ));
        }
        params.push(MailParameter::SmtpUtfEight);
    }
    if !email.is_ascii() {
        if !info.supports_feature(Extension::EightBitMime) {
            return Err(Failure::Unsendable(
                "the message is not ASCII and the server does not support 8BITMIME",
            ));
        }
        params.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    conn.command(Mail::new(envelope.from().cloned(), params))
        .await
        .map_err(Failure::First)?;
    for to in envelope.to() {
        conn.command(Rcpt::new(to.clone(), vec![]))
            .await
            .map_err(Failure::Later)?;
    }
    conn.command(Data).await.map_err(Failure::Later)?;
    conn.message(email).await.map_err(Failure::Later)?;
    Ok(())
}

/// A session the server closed while it sat idle: its first command finds the connection gone,
/// or the server's parting 421 waiting.
fn closed_while_idle(e: &Error) -> bool {
    match e.status() {
        None => !e.is_client(),
        Some(code) => u16::from(code) == 421,
    }
}

/// The attempt a failure makes; the session is not reused after any failure (after a
/// rejection, with a polite QUIT).
async fn fail(mut conn: AsyncSmtpConnection, failure: Failure) -> Attempt {
    let attempt = match &failure {
        Failure::First(e) | Failure::Later(e) => classify(e),
        Failure::Unanswered => retry("SMTP: no answer within 30 s"),
        Failure::Unsendable(why) => Attempt::Failed {
            error: format!("SMTP: {why}"),
        },
    };
    if let Failure::First(e) | Failure::Later(e) = &failure
        && e.status().is_some()
    {
        let _ = tokio::time::timeout(Duration::from_secs(5), conn.abort()).await;
    }
    attempt
}

/// No session could be opened: the relay, not the message.
fn unreachable(error: &str) -> Attempt {
    Attempt::Unreachable {
        error: one_line(error, 300),
    }
}

fn retry(error: &str) -> Attempt {
    Attempt::Retry {
        retry_after: None,
        error: one_line(error, 300),
    }
}

/// A server's answer to the message: 5xx fails, 4xx and a lost connection are retried.
fn classify(e: &Error) -> Attempt {
    let error = one_line(&format!("SMTP: {e}"), 300);
    // "Authentication required" and the like (530, 534, 535, 538) are about Herald's SMTP
    // settings, not this message: retried, so that what waited goes out once they are fixed.
    let login_refused = matches!(e.status().map(u16::from), Some(530 | 534 | 535 | 538));
    if (e.is_permanent() || e.is_client()) && !login_refused {
        Attempt::Failed { error }
    } else {
        Attempt::Retry {
            retry_after: None,
            error,
        }
    }
}

/// lettre's TLS stream (futures I/O traits) as the tokio stream `connect_with_transport` takes.
#[allow(deprecated)]
#[derive(Debug)]
struct Compat(AsyncNetworkStream);

impl tokio::io::AsyncRead for Compat {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let read = futures_util::io::AsyncRead::poll_read(
            Pin::new(&mut self.0),
            cx,
            buf.initialize_unfilled(),
        );
        let n = ready!(read)?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncWrite for Compat {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        futures_util::io::AsyncWrite::poll_write(Pin::new(&mut self.0), cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        futures_util::io::AsyncWrite::poll_flush(Pin::new(&mut self.0), cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        futures_util::io::AsyncWrite::poll_close(Pin::new(&mut self.0), cx)
    }
}

impl AsyncTokioStream for Compat {
    fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.0.peer_addr()
    }
}

/// Decodes `%xx` escapes (lettre's rule for the user and password: a `%` not followed by two
/// hex digits stays as it is); `None` when the result is not UTF-8.
fn percent_decode(raw: &str) -> Option<String> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()
        .map(std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests;
