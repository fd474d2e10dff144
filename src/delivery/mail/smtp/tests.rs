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
