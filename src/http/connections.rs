//! The drain's view of every open connection: whether a request is on it, and whether bytes
//! of one have arrived that have not been answered yet.
//!
//! actix-web's own graceful stop closes at once every connection that has no request in its
//! service, including one whose request head is still arriving, so a client that started
//! sending before SIGTERM got no answer at all. Herald drains first, on its own terms: a
//! connection is *idle* when no request is in service (its response body sent, too) and the
//! kernel has received no byte on it since its last answer (`TCP_INFO`'s
//! `tcpi_bytes_received`, read on a duplicate of the socket). Idle connections are shut down;
//! every other one is left to finish, and its answer carries `Connection: close`. Only when
//! none is left, or the grace period is over, is the server stopped.

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::Extensions;
use bytes::Bytes;

/// Every open connection of one server.
#[derive(Default)]
pub struct Connections {
    open: Mutex<HashMap<u64, Weak<Connection>>>,
    next: AtomicU64,
    /// Workers that have built their application (and so take the connections handed to them).
    workers: AtomicUsize,
}

/// One open connection: a duplicate of its socket and what the drain needs to know.
pub struct Connection {
    id: u64,
    socket: OwnedFd,
    registry: Weak<Connections>,
    /// Requests in service, until their response body is sent.
    busy: AtomicUsize,
    /// Bytes the kernel had received when the last answer was sent.
    answered: AtomicU64,
}

impl Connections {
    /// The `on_connect` hook: registers the connection and puts it in its extensions, where
    /// the request middleware finds it ([`Busy::begin`]). Its entry goes when actix drops the
    /// connection's extensions, which it does when the connection closes.
    pub fn on_connect(self: &Arc<Self>, io: &dyn std::any::Any, ext: &mut Extensions) {
        let Some(tcp) = io.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        let Ok(socket) = tcp.as_fd().try_clone_to_owned() else {
            return;
        };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            id,
            socket,
            registry: Arc::downgrade(self),
            busy: AtomicUsize::new(0),
            answered: AtomicU64::new(0),
        });
        self.lock().insert(id, Arc::downgrade(&connection));
        ext.insert(connection);
    }

    /// Connections still open.
    pub fn open(&self) -> usize {
        self.lock().len()
    }

    /// Shuts down every idle connection; returns how many are still open.
    pub fn close_idle(&self) -> usize {
        let open: Vec<Arc<Connection>> = self.lock().values().filter_map(Weak::upgrade).collect();
        let mut left = 0;
        for connection in open {
            if connection.is_idle() {
                // Both directions: actix reads the end of the stream and drops the connection.
                let _ =
                    socket2::SockRef::from(&connection.socket).shutdown(std::net::Shutdown::Both);
            } else {
                left += 1;
            }
        }
        left
    }

    /// Called by each worker as it builds its application.
    pub fn worker_started(&self) {
        self.workers.fetch_add(1, Ordering::AcqRel);
    }

    /// Waits, within `limit`, until all `workers` have started and have taken every connection
    /// that came before: the kernel's accept queue is empty, then one request through the
    /// listener per worker is answered (the accept loop hands connections to the workers in
    /// turn, and each takes its own in order, so a connection handed to a worker still
    /// starting is taken before its probe is answered). Answers how many were waiting in the
    /// accept queue at first.
    pub async fn accept_queued(&self, listener: &OwnedFd, workers: usize, limit: Duration) -> u32 {
        let deadline = Instant::now() + limit;
        let first = self.queue_emptied(listener, workers, deadline).await;
        let Some(addr) = local_addr(listener) else {
            return first;
        };
        for _ in 0..workers {
            let probe = tokio::time::timeout_at(deadline.into(), probe(addr)).await;
            if !matches!(probe, Ok(Ok(()))) {
                tracing::warn!("a worker did not answer before the drain; going on");
                break;
            }
        }
        first
    }

    async fn queue_emptied(&self, listener: &OwnedFd, workers: usize, deadline: Instant) -> u32 {
        let first = accept_queue(listener).unwrap_or(0);
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        while self.workers.load(Ordering::Acquire) < workers
            || accept_queue(listener).unwrap_or(0) > 0
        {
            if Instant::now() >= deadline {
                tracing::warn!("grace period over with connections still waiting to be accepted");
                break;
            }
            tick.tick().await;
        }
        first
    }

    /// Closes idle connections as they become idle until none is open or `grace` has passed;
    /// whether all closed in time.
    pub async fn drain(&self, grace: Duration) -> bool {
        let deadline = Instant::now() + grace;
        let mut tick = tokio::time::interval(Duration::from_millis(20));
        loop {
            tick.tick().await;
            let busy = self.close_idle();
            if self.open() == 0 {
                return true;
            }
            if Instant::now() >= deadline {
                tracing::warn!(
                    busy,
                    open = self.open(),
                    "grace period over with connections open"
                );
                return false;
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Weak<Connection>>> {
        // Inserts and removes only: a panic cannot leave the map half changed.
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Connection {
    fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
            && received(&self.socket)
                .is_some_and(|now| now == self.answered.load(Ordering::Acquire))
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(registry) = self.registry.upgrade() {
            registry.lock().remove(&self.id);
        }
    }
}

/// Bytes the kernel has received on `socket` (`None` where `TCP_INFO` cannot tell: then a
/// connection never looks idle, and only its keep-alive timeout closes it).
fn received(socket: &OwnedFd) -> Option<u64> {
    tcp_info(socket).map(|info| info.tcpi_bytes_received)
}

/// Where `listener` can be reached from this host (a wildcard address as its loopback).
fn local_addr(listener: &OwnedFd) -> Option<std::net::SocketAddr> {
    use std::os::fd::AsFd;
    let socket = std::net::TcpListener::from(listener.as_fd().try_clone_to_owned().ok()?);
    let mut addr = socket.local_addr().ok()?;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    Some(addr)
}

/// One `/healthz` request through the listener, answered.
async fn probe(addr: std::net::SocketAddr) -> std::io::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await?;
    Ok(())
}

/// Stops the kernel from taking connections on `listener` at once: new ones are refused.
/// actix-server's `pause` only asks its accept thread to stop (its answer comes before the
/// thread has done so), so a client arriving just after could still be taken, even after the
/// drain had begun closing idle connections. Called after [`Connections::accept_queued`], so
/// nothing that came before is lost.
pub fn stop_listening(listener: &OwnedFd) -> std::io::Result<()> {
    socket2::SockRef::from(listener).shutdown(std::net::Shutdown::Read)
}

/// Connections in a listening socket's accept queue: taken by the kernel (their bytes may have
/// arrived), not yet accepted (Linux reports it as `tcpi_unacked` for a socket in LISTEN).
pub fn accept_queue(listener: &OwnedFd) -> Option<u32> {
    tcp_info(listener).map(|info| info.tcpi_unacked)
}

#[cfg(target_os = "linux")]
fn tcp_info(socket: &OwnedFd) -> Option<libc::tcp_info> {
    use std::os::fd::AsRawFd;
    let mut info = std::mem::MaybeUninit::<libc::tcp_info>::zeroed();
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `info`, a buffer of that size, and
    // the descriptor is owned by `socket` for the duration of the call.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            info.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 || (len as usize) < std::mem::size_of::<libc::tcp_info>() {
        return None;
    }
    // SAFETY: the kernel filled the whole struct (checked above); it was zeroed before.
    Some(unsafe { info.assume_init() })
}

#[cfg(not(target_os = "linux"))]
fn tcp_info(_socket: &OwnedFd) -> Option<TcpInfo> {
    None
}

/// What is read of `TCP_INFO` where there is none.
#[cfg(not(target_os = "linux"))]
struct TcpInfo {
    tcpi_bytes_received: u64,
    tcpi_unacked: u32,
}

/// A request in service on its connection, until dropped with its response body.
pub struct Busy(Arc<Connection>);

impl Busy {
    /// Marks a request of `connection` in service.
    pub fn begin(connection: &Arc<Connection>) -> Self {
        connection.busy.fetch_add(1, Ordering::AcqRel);
        Self(connection.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(now) = received(&self.0.socket) {
            self.0.answered.store(now, Ordering::Release);
        }
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

pin_project_lite::pin_project! {
    /// A response body that keeps its request counted as in service until it is sent.
    pub struct Counted<B> {
        #[pin]
        body: B,
        busy: Option<Busy>,
    }
}

impl<B> Counted<B> {
    pub fn new(body: B, busy: Option<Busy>) -> Self {
        Self { body, busy }
    }
}

impl<B: MessageBody> MessageBody for Counted<B> {
    type Error = B::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.project();
        let next = this.body.poll_next(cx);
        if matches!(next, Poll::Ready(None)) {
            this.busy.take();
        }
        next
    }
}
