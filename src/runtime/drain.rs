//! The drain-safe life of a server: ready, then draining (readiness fails, workers stop
//! claiming, the listener closes after the configured delay, in-flight requests finish).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

/// Shared flag and token telling every part of the process that shutdown has begun.
#[derive(Clone, Default)]
pub struct Drain {
    draining: Arc<AtomicBool>,
    token: CancellationToken,
}

impl Drain {
    pub fn new() -> Self {
        Self::default()
    }

    /// True from the moment shutdown begins.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Starts the drain: readiness fails at once and background work stops claiming.
    pub fn begin_drain(&self) {
        if !self.draining.swap(true, Ordering::SeqCst) {
            tracing::info!("shutdown requested: readiness now fails, draining");
        }
        self.token.cancel();
    }

    /// A token cancelled when the drain begins.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

/// SIGTERM and SIGINT, caught from the moment [`ShutdownSignals::install`] returns: one that
/// comes while Herald is still starting is kept, and the drain begins as soon as it can (the
/// default action would kill the process with its listener already bound).
pub struct ShutdownSignals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl ShutdownSignals {
    /// Catches both signals (inside a Tokio runtime); `None` when they cannot be caught.
    pub fn install() -> Option<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(term), Ok(int)) => Some(Self { term, int }),
            _ => {
                tracing::error!(
                    "cannot install signal handlers; only a kill will stop this process"
                );
                None
            }
        }
    }

    /// Waits for either and names the one received.
    pub async fn recv(mut self) -> &'static str {
        tokio::select! {
            _ = self.term.recv() => "SIGTERM",
            _ = self.int.recv() => "SIGINT",
        }
    }
}
