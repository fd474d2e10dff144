//! The only place that knows SQL: connections for both backends, the pool, migrations, the
//! schema and the row models. Every query runs through [`Db::run`], off the async threads.

pub mod connection;
pub mod migrations;
pub mod models;
pub mod schema;
pub mod states;

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::r2d2::Pool;
use tokio::sync::Semaphore;

pub use connection::{Backend, DbConn, read_snapshot, write_tx};

use crate::config::{DatabaseUrl, Settings};
use crate::error::{AppError, AppResult};

/// How many blocking tasks may wait for a connection at once, per pooled connection. Past that,
/// callers get 503 at once instead of piling up threads (load shedding during a traffic spike).
const WAITERS_PER_CONNECTION: usize = 8;

/// How long one [`Db::run`] may take in all (waiting for a connection, then the work) before
/// its caller is answered 503. A database that accepts connections but never answers (frozen,
/// failing over, partitioned) hangs the blocking thread, not the caller; the thread keeps its
/// place at the gate, so at most the gate's size of them can be stuck at once.
pub const RUN_LIMIT: Duration = Duration::from_secs(10);

/// Seconds a client is told to wait after a 503 for lack of a connection.
pub(crate) const RETRY_AFTER_SECS: u32 = 2;

/// A bounded pool of connections and the gate in front of it.
#[derive(Clone)]
pub struct Db {
    pool: Pool<connection::Manager>,
    backend: Backend,
    timeout: Duration,
    gate: Arc<Semaphore>,
}

impl Db {
    /// Opens the pool. One connection is made first, so a wrong path or an unreachable server
    /// is reported at once with its own message.
    pub fn connect(settings: &Settings) -> anyhow::Result<Self> {
        Self::connect_url(
            &settings.database_url,
            settings.db_pool_size,
            settings.db_timeout,
        )
    }

    /// [`Db::connect`] with explicit parameters (tests use small pools).
    pub fn connect_url(url: &DatabaseUrl, size: u32, timeout: Duration) -> anyhow::Result<Self> {
        let first = connection::establish(url)
            .map_err(|e| anyhow::anyhow!("cannot connect to {}: {e}", url.redacted()))?;
        drop(first);
        let pool = Pool::builder()
            .max_size(size)
            .min_idle(Some(1))
            .connection_timeout(timeout)
            .build(connection::Manager::new(url.clone()))
            .map_err(|e| {
                anyhow::anyhow!("cannot open a connection pool to {}: {e}", url.redacted())
            })?;
        Ok(Self {
            pool,
            backend: Backend::of(url),
            timeout,
            gate: Arc::new(Semaphore::new(size as usize * WAITERS_PER_CONNECTION)),
        })
    }

    /// The backend behind this pool.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Runs `f` with a pooled connection on the blocking thread pool. When no connection is free
    /// within the checkout timeout, or the whole run takes longer than [`RUN_LIMIT`], the caller
    /// gets [`AppError::Unavailable`] (503 + Retry-After).
    pub async fn run<T, F>(&self, f: F) -> AppResult<T>
    where
        F: FnOnce(&mut DbConn) -> AppResult<T> + Send + 'static,
        T: Send + 'static,
    {
        self.run_within(RUN_LIMIT.max(self.timeout), f).await
    }

    /// [`Db::run`] answering 503 after `limit` (readiness probes must answer fast).
    pub async fn run_within<T, F>(&self, limit: Duration, f: F) -> AppResult<T>
    where
        F: FnOnce(&mut DbConn) -> AppResult<T> + Send + 'static,
        T: Send + 'static,
    {
        match tokio::time::timeout(limit, self.run_unbounded(f)).await {
            Ok(answer) => answer,
            Err(_) => {
                metrics::counter!("herald_db_run_timeouts_total").increment(1);
                Err(self.unavailable("the database did not answer in time"))
            }
        }
    }

    async fn run_unbounded<T, F>(&self, f: F) -> AppResult<T>
    where
        F: FnOnce(&mut DbConn) -> AppResult<T> + Send + 'static,
        T: Send + 'static,
    {
        let started = Instant::now();
        let permit = tokio::time::timeout(self.timeout, self.gate.clone().acquire_owned())
            .await
            .map_err(|_| self.unavailable("too many requests waiting for the database"))?
            .map_err(|_| self.unavailable("database gate closed"))?;
        let pool = self.pool.clone();
        let remaining = self.timeout.saturating_sub(started.elapsed());
        let unavailable = self.unavailable("no database connection free in time");
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let checkout = Instant::now();
            let conn = pool.get_timeout(remaining.max(Duration::from_millis(1)));
            metrics::histogram!("herald_db_checkout_seconds")
                .record(checkout.elapsed().as_secs_f64());
            let mut conn = conn.map_err(|_| {
                metrics::counter!("herald_db_checkout_timeouts_total").increment(1);
                unavailable
            })?;
            f(&mut conn)
        })
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("database task failed: {e}")))?
    }

    /// Runs `f` on the calling thread: only for the CLI and start-up, never on an async worker.
    pub fn run_sync<T>(
        &self,
        f: impl FnOnce(&mut DbConn) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let mut conn = self.pool.get()?;
        f(&mut conn)
    }

    /// Callers waiting at the gate or for a connection, or running (for `/metrics`).
    pub fn in_use(&self) -> usize {
        self.gate_size() - self.gate.available_permits()
    }

    fn gate_size(&self) -> usize {
        self.pool.max_size() as usize * WAITERS_PER_CONNECTION
    }

    /// Pool figures for `/metrics`: (connections open, idle, maximum).
    pub fn pool_state(&self) -> (u32, u32, u32) {
        let state = self.pool.state();
        (
            state.connections,
            state.idle_connections,
            self.pool.max_size(),
        )
    }

    fn unavailable(&self, reason: &str) -> AppError {
        AppError::Unavailable {
            reason: reason.to_owned(),
            retry_after_secs: RETRY_AFTER_SECS,
        }
    }
}

/// A fresh UUIDv7 as a string: the id of every row.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The current UTC time as stored in the database (microsecond precision on both backends).
pub fn now() -> chrono::NaiveDateTime {
    use chrono::{SubsecRound, Utc};
    Utc::now().naive_utc().trunc_subsecs(6)
}
