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
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use lettre::Address;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::sync::watch;

    use super::*;

    /// A loopback SMTP server that counts sessions and messages, rejects `reject@` (550), and
    /// drops its idle sessions on demand, silently or after a 421 as Postfix does.
    struct Server {
        addr: SocketAddr,
        opened: Arc<AtomicUsize>,
        open: Arc<AtomicUsize>,
        messages: Arc<Mutex<Vec<String>>>,
        drop_idle: watch::Sender<Option<&'static str>>,
    }

    impl Server {
        async fn start() -> Self {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let (drop_idle, _) = watch::channel(None);
            let server = Self {
                addr: listener.local_addr().unwrap(),
                opened: Arc::default(),
                open: Arc::default(),
                messages: Arc::default(),
                drop_idle,
            };
            let (opened, open) = (server.opened.clone(), server.open.clone());
            let (messages, drop_idle) = (server.messages.clone(), server.drop_idle.clone());
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    opened.fetch_add(1, Ordering::SeqCst);
                    open.fetch_add(1, Ordering::SeqCst);
                    let (open, messages) = (open.clone(), messages.clone());
                    let drop_idle = drop_idle.subscribe();
                    tokio::spawn(async move {
                        let _ = session(stream, messages, drop_idle).await;
                        open.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            });
            server
        }

        fn sessions(&self) -> Sessions {
            let url = url::Url::parse(&format!("smtp://{}", self.addr)).unwrap();
            Sessions::new(Endpoint::parse(&url).unwrap())
        }

        /// Closes every idle session (after `parting`, if any) and waits until they are gone.
        async fn drop_idle_sessions(&self, parting: Option<&'static str>) {
            self.drop_idle.send_replace(parting);
            for _ in 0..200 {
                if self.open.load(Ordering::SeqCst) == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("the server's sessions did not close");
        }

        fn opened(&self) -> usize {
            self.opened.load(Ordering::SeqCst)
        }

        fn messages(&self) -> Vec<String> {
            self.messages.lock().unwrap().clone()
        }
    }

    async fn session(
        stream: tokio::net::TcpStream,
        messages: Arc<Mutex<Vec<String>>>,
        mut drop_idle: watch::Receiver<Option<&'static str>>,
    ) -> io::Result<()> {
        let (read, mut write) = stream.into_split();
        let mut read = BufReader::new(read);
        write.write_all(b"220 test ESMTP\r\n").await?;
        let mut line = String::new();
        loop {
            line.clear();
            tokio::select! {
                           n = read.read_line(&mut line) => if n? == 0 { return Ok(()) },
                           _ = drop_idle.changed() => {
                               let parting = *drop_idle.borrow();
            if let Some(parting) = parting {
                                   write.write_all(parting.as_bytes()).await?;
                               }
                               return Ok(());
                           }
                       }
            let command = line.to_ascii_uppercase();
            let reply = if command.starts_with("EHLO") {
                "250-test\r\n250 8BITMIME\r\n"
            } else if command.starts_with("RCPT TO:<REJECT@") {
                "550 5.1.1 no such mailbox\r\n"
            } else if command.starts_with("DATA") {
                write.write_all(b"354 go ahead\r\n").await?;
                let mut data = String::new();
                while !data.ends_with("\r\n.\r\n") {
                    if read.read_line(&mut data).await? == 0 {
                        return Ok(());
                    }
                }
                messages.lock().unwrap().push(data);
                "250 2.0.0 queued\r\n"
            } else if command.starts_with("QUIT") {
                write.write_all(b"221 bye\r\n").await?;
                return Ok(());
            } else {
                "250 ok\r\n"
            };
            write.write_all(reply.as_bytes()).await?;
        }
    }

    fn envelope(to: &str) -> Envelope {
        let from: Address = "herald@status.test".parse().unwrap();
        Envelope::new(Some(from), vec![to.parse().unwrap()]).unwrap()
    }

    const EMAIL: &[u8] = b"Subject: test\r\n\r\nHello.\r\n";

    #[tokio::test]
    async fn one_session_carries_message_after_message() {
        let server = Server::start().await;
        let sessions = server.sessions();
        for _ in 0..3 {
            let sent = sessions.send(&envelope("jo@example.com"), EMAIL).await;
            assert_eq!(sent, Attempt::Delivered);
        }
        assert_eq!(server.messages().len(), 3);
        assert_eq!(server.opened(), 1, "the session was not reused");
    }

    #[tokio::test]
    async fn a_session_the_server_closed_while_idle_is_replaced_and_the_message_still_goes_out() {
        let server = Server::start().await;
        let sessions = server.sessions();
        let to = envelope("jo@example.com");
        assert_eq!(sessions.send(&to, EMAIL).await, Attempt::Delivered);
        for (i, parting) in [None, Some("421 4.4.2 idle too long\r\n")]
            .into_iter()
            .enumerate()
        {
            server.drop_idle_sessions(parting).await;
            assert_eq!(
                sessions.send(&to, EMAIL).await,
                Attempt::Delivered,
                "{parting:?}"
            );
            assert_eq!(server.messages().len(), i + 2, "{parting:?}");
            assert_eq!(server.opened(), i + 2, "{parting:?}");
        }
    }

    #[tokio::test]
    async fn sessions_idle_too_long_are_closed_instead_of_reused() {
        let server = Server::start().await;
        let mut sessions = server.sessions();
        sessions.idle_timeout = Duration::ZERO;
        let to = envelope("jo@example.com");
        assert_eq!(sessions.send(&to, EMAIL).await, Attempt::Delivered);
        assert_eq!(sessions.send(&to, EMAIL).await, Attempt::Delivered);
        assert_eq!(server.opened(), 2);
    }

    #[tokio::test]
    async fn a_rejected_message_fails_and_its_session_is_not_reused() {
        let server = Server::start().await;
        let sessions = server.sessions();
        match sessions.send(&envelope("reject@example.com"), EMAIL).await {
            Attempt::Failed { error } => assert!(error.contains("550"), "{error}"),
            other => panic!("550 should fail: {other:?}"),
        }
        let sent = sessions.send(&envelope("jo@example.com"), EMAIL).await;
        assert_eq!(sent, Attempt::Delivered);
        assert_eq!(server.opened(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_pool_keeps_no_more_idle_sessions_than_its_bound() {
        let server = Server::start().await;
        let mut sessions = server.sessions();
        sessions.max_idle = 2;
        let sessions = Arc::new(sessions);
        let sends = (0..6).map(|_| {
            let sessions = sessions.clone();
            tokio::spawn(async move { sessions.send(&envelope("jo@example.com"), EMAIL).await })
        });
        for send in sends.collect::<Vec<_>>() {
            assert_eq!(send.await.unwrap(), Attempt::Delivered);
        }
        assert_eq!(sessions.idle.lock().unwrap().len(), 2);
        assert_eq!(server.messages().len(), 6);
    }

    #[tokio::test]
    async fn an_unreachable_server_is_unreachable_not_a_failure_of_the_message() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = url::Url::parse(&format!("smtp://127.0.0.1:{port}")).unwrap();
        let sessions = Sessions::new(Endpoint::parse(&url).unwrap());
        match sessions.send(&envelope("jo@example.com"), EMAIL).await {
            Attempt::Unreachable { error } => assert!(error.starts_with("SMTP: "), "{error}"),
            other => panic!("should be unreachable: {other:?}"),
        }
    }

    #[test]
    fn urls_follow_lettres_rules_for_ports_tls_hello_and_login() {
        let parse = |u: &str| Endpoint::parse(&url::Url::parse(u).unwrap());
        let plain = parse("smtp://mail.example.com").unwrap();
        assert_eq!(plain.port, 25);
        assert!(matches!(plain.security, Security::Plain));
        assert!(plain.credentials.is_none());
        let starttls = parse("smtp://mail.example.com?tls=required").unwrap();
        assert_eq!(starttls.port, 587);
        assert!(matches!(starttls.security, Security::StartTls(_)));
        let maybe = parse("smtp://mail.example.com:2525?tls=opportunistic").unwrap();
        assert_eq!(maybe.port, 2525);
        assert!(matches!(maybe.security, Security::Opportunistic(_)));
        let tls = parse("smtps://me%40corp:p%25ss%2Fword@mail.example.com/herald.example").unwrap();
        assert_eq!(tls.port, 465);
        assert!(matches!(tls.security, Security::Implicit(_)));
        let login = Credentials::new("me@corp".into(), "p%ss/word".into());
        assert!(tls.credentials == Some(login));
        assert!(tls.hello == ClientId::Domain("herald.example".into()));
        let v6 = parse("smtp://[::1]:2525").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 2525));
        assert!(parse("smtp://mail.example.com?tls=maybe").is_err());
        let clear = parse("smtp://me:secret@mail.example.com").err().unwrap();
        assert!(
            clear.starts_with("has a user and password but no TLS"),
            "{clear}"
        );
        assert!(!clear.contains("secret"));
        let allowed = parse("smtp://me:secret@127.0.0.1:25?plain_auth=allow").unwrap();
        assert!(allowed.credentials.is_some() && allowed.plain_auth);
        assert!(parse("smtp://me:s@mail.example.com?tls=required").is_ok());
        assert!(parse("smtp://mail.example.com?plain_auth=yes").is_err());
        assert!(parse("smtp://").is_err());
        assert_eq!(
            parse("smtps://mail.example.com?tls_ca_file=/nonexistent/ca.pem").err(),
            Some("has a tls_ca_file that cannot be read")
        );
        assert_eq!(percent_decode("a%2x%41%+1"), Some("a%2xA%+1".into()));
        assert_eq!(percent_decode("p%C3%A4ss%40"), Some("päss@".into()));
        assert_eq!(percent_decode("%ff"), None, "not UTF-8");
    }
}
