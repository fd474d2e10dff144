//! The drain-safe life of a server: ready, then draining (readiness fails, workers stop
//! claiming, the listener closes after the configured delay, in-flight requests finish).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

/// Shared flag and token telling every part of the process that shutdown has begun.
#[derive(Clone, Default)]
pub struct Lifecycle {
    draining: Arc<AtomicBool>,
    token: CancellationToken,
}

impl Lifecycle {
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

/// Waits for SIGTERM or SIGINT and names the one received.
pub async fn shutdown_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("cannot install signal handlers; only a kill will stop this process");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}
