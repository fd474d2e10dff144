//! The only place that knows SQL: connections for both backends, the pool, migrations, the
//! schema and the row models. Every query runs through [`Db::run`], off the async threads.

pub mod archive;
pub mod connection;
pub mod migrations;
pub mod models;
pub mod pending;
pub mod schema;
pub mod states;

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use diesel::r2d2::Pool;
use tokio::sync::Semaphore;

pub use connection::{Backend, DbConn, in_transaction, read_snapshot, savepoint, write_tx};

use crate::config::{DatabaseUrl, Settings};
use crate::error::{AppError, AppResult, RETRY_AFTER_SECS};

/// How many blocking tasks may wait for a connection at once, per pooled connection. Past that,
/// callers get 503 at once instead of piling up threads (load shedding during a traffic spike).
const WAITERS_PER_CONNECTION: usize = 8;

/// How long one [`Db::run`] may take in all (waiting for a connection, then the work) before
/// its caller is answered 503. A database that accepts connections but never answers (frozen,
/// failing over, partitioned) hangs the blocking thread, not the caller; the thread keeps its
/// place at the gate, so at most the gate's size of them can be stuck at once.
pub const RUN_LIMIT: Duration = Duration::from_secs(10);

/// How long a caller whose [`RUN_LIMIT`] passed while its write was committing waits for the
/// commit's outcome, which is then its answer (a 503 would say nothing was written).
pub const COMMIT_WAIT: Duration = Duration::from_secs(5);

/// The longest [`Db::let_others_write`] waits: longer than SQLite's busy handler sleeps between
/// two tries, so a writer waiting there tries while the lock is free.
pub const WRITERS_TURN: Duration = Duration::from_millis(150);

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
    ///
    /// A 503 never hides a write that still commits: the work goes on on its blocking thread,
    /// but a transaction ([`write_tx`]) that reaches its commit after its caller was answered
    /// rolls back instead; and a caller whose limit passes while a commit is under way waits
    /// for it (up to [`COMMIT_WAIT`]) and answers what it did.
    pub async fn run_within<T, F>(&self, limit: Duration, f: F) -> AppResult<T>
    where
        F: FnOnce(&mut DbConn) -> AppResult<T> + Send + 'static,
        T: Send + 'static,
    {
        let caller = Caller::new();
        let run = self.run_unbounded(caller.clone(), f);
        tokio::pin!(run);
        match tokio::time::timeout(limit, &mut run).await {
            Ok(answer) => answer,
            Err(_) => {
                metrics::counter!("herald_db_run_timeouts_total").increment(1);
                if caller.give_up() {
                    return Err(self.unavailable("the database did not answer in time"));
                }
                match tokio::time::timeout(COMMIT_WAIT, &mut run).await {
                    Ok(answer) => answer,
                    Err(_) => Err(self.unavailable(
                        "the database did not confirm a write in time: it may have been stored",
                    )),
                }
            }
        }
    }

    async fn run_unbounded<T, F>(&self, caller: Caller, f: F) -> AppResult<T>
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
            let _waiting = caller.waiting_on_this_thread();
            f(&mut conn)
        })
        .await
        .map_err(|e| AppError::Internal(anyhow::anyhow!("database task failed: {e}")))?
    }

    /// Lets other writers in between the transactions of a long loop of them (an import). On
    /// SQLite one transaction writes at a time and waiting ones sleep in its busy handler (up
    /// to 100 ms between tries), so a loop that begins its next transaction at once would keep
    /// them out until it ends: this waits while other callers hold a connection, at most
    /// [`WRITERS_TURN`]. PostgreSQL writers do not queue behind one another; it returns at once.
    pub async fn let_others_write(&self) {
        if self.backend != Backend::Sqlite {
            return;
        }
        let until = Instant::now() + WRITERS_TURN;
        while self.in_use() > 0 && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
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

/// Whether the caller of a [`Db::run`] still waits for its answer: shared by the caller and
/// the blocking thread doing its work, which [`write_tx`] asks before it commits.
#[derive(Clone)]
struct Caller(Arc<AtomicU8>);

const WAITING: u8 = 0;
const COMMITTING: u8 = 1;
const GONE: u8 = 2;

thread_local! {
    /// The caller of the [`Db::run`] this blocking thread is working for, if any (none for the
    /// CLI's and start-up's [`Db::run_sync`]).
    static CALLER: RefCell<Option<Caller>> = const { RefCell::new(None) };
}

/// Forgets this thread's caller when the work is done.
struct Working;

impl Drop for Working {
    fn drop(&mut self) {
        CALLER.with(|c| c.borrow_mut().take());
    }
}

impl Caller {
    fn new() -> Self {
        Self(Arc::new(AtomicU8::new(WAITING)))
    }

    /// Makes this the caller of the work the current thread does until the guard drops.
    fn waiting_on_this_thread(&self) -> Working {
        CALLER.with(|c| *c.borrow_mut() = Some(self.clone()));
        Working
    }

    /// The caller stops waiting; false when a commit is under way already (its outcome must
    /// be waited for).
    fn give_up(&self) -> bool {
        self.0
            .compare_exchange(WAITING, GONE, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// Called by [`write_tx`] just before an outermost commit: `Err` when the caller of the
/// [`Db::run`] doing this work was answered already (the transaction then rolls back, so its
/// 503 stays true); otherwise the caller now waits for the commit's outcome.
pub(crate) fn may_commit() -> Result<(), diesel::result::Error> {
    let gone = CALLER.with(|c| {
        c.borrow().as_ref().is_some_and(|caller| {
            caller
                .0
                .compare_exchange(WAITING, COMMITTING, Ordering::AcqRel, Ordering::Acquire)
                .is_err_and(|now| now == GONE)
        })
    });
    if gone {
        metrics::counter!("herald_db_abandoned_writes_total").increment(1);
        tracing::warn!("a write finished after its caller was answered 503: rolled back");
        return Err(diesel::result::Error::RollbackTransaction);
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use diesel::RunQueryDsl;
    use diesel::sql_types::BigInt;

    use super::*;

    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    async fn sqlite() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("run.db").display());
        let db = Db::connect_url(
            &DatabaseUrl::parse(&url).unwrap(),
            2,
            Duration::from_secs(5),
        )
        .unwrap();
        db.run(|c| {
            diesel::sql_query("CREATE TABLE t (x INTEGER)").execute(c)?;
            Ok(())
        })
        .await
        .unwrap();
        (dir, db)
    }

    async fn rows(db: &Db) -> i64 {
        db.run(|c| {
            let count: Count = diesel::sql_query("SELECT COUNT(*) AS n FROM t").get_result(c)?;
            Ok(count.n)
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_write_still_running_when_its_caller_is_answered_503_rolls_back() {
        let (_dir, db) = sqlite().await;
        let (release, held) = mpsc::channel::<()>();
        let (finished, done) = mpsc::channel::<bool>();
        let answer = db
            .run_within(Duration::from_millis(50), move |c| {
                let stored = write_tx(c, |c| {
                    diesel::sql_query("INSERT INTO t VALUES (1)").execute(c)?;
                    // Slow work after the insert, before the commit: the caller's limit passes.
                    held.recv().ok();
                    Ok::<_, AppError>(())
                });
                finished.send(stored.is_ok()).unwrap();
                stored
            })
            .await;
        assert!(
            matches!(answer, Err(AppError::Unavailable { .. })),
            "{answer:?}"
        );
        release.send(()).unwrap();
        let stored = tokio::task::spawn_blocking(move || done.recv().unwrap())
            .await
            .unwrap();
        assert!(!stored, "the transaction was refused its commit");
        assert_eq!(rows(&db).await, 0, "a 503 means nothing was written");
    }

    #[tokio::test]
    async fn a_caller_whose_limit_passes_after_a_commit_gets_its_outcome() {
        let (_dir, db) = sqlite().await;
        let limit = Duration::from_millis(200);
        let started = Instant::now();
        let answer = db
            .run_within(limit, move |c| {
                write_tx(c, |c| {
                    diesel::sql_query("INSERT INTO t VALUES (1)").execute(c)?;
                    Ok::<_, AppError>(())
                })?;
                // Committed; slow work follows in the same run, past the caller's limit.
                std::thread::sleep(Duration::from_secs(1));
                Ok(7)
            })
            .await;
        assert!(
            started.elapsed() > limit,
            "the limit passed before the answer"
        );
        assert_eq!(
            answer.unwrap(),
            7,
            "the committed run's own answer, not a 503"
        );
        assert_eq!(rows(&db).await, 1);
    }
}
