//! The worker loop: claim, run with bounded concurrency, record the outcome; on shutdown stop
//! claiming, let running jobs finish within the grace period, and hand back the rest.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::db::Db;
use crate::jobs::queue::{self, Backoff, JobRow};
use crate::jobs::{Job, Permanent};
use crate::runtime::passes::Passes;

/// What a job handler gets to work with.
#[derive(Clone)]
pub struct JobContext {
    pub db: Db,
}

type Handler = Arc<
    dyn Fn(JobContext, serde_json::Value) -> BoxFuture<'static, anyhow::Result<()>> + Send + Sync,
>;

/// What runs the jobs of type `J`: holds what they need (a mailer, templates) and runs one.
pub trait Handle<J: Job>: Send + Sync + 'static {
    fn run(
        &self,
        ctx: &JobContext,
        job: J,
    ) -> impl std::future::Future<Output = anyhow::Result<()>> + Send;
}

/// Job kinds and their handlers.
#[derive(Clone, Default)]
pub struct Registry {
    handlers: HashMap<String, Handler>,
}

impl Registry {
    /// The handlers Herald itself ships.
    pub fn standard() -> Self {
        Self::default()
    }

    /// Adds `handler` for the jobs of type `J`. A payload that does not read as a `J` is a
    /// [`Permanent`] failure: trying it again cannot mend it.
    pub fn add<J: Job, H: Handle<J>>(&mut self, handler: H) {
        let handler = Arc::new(handler);
        self.register(J::NAME, move |ctx, payload| {
            let handler = handler.clone();
            async move {
                let job: J = serde_json::from_value(payload)
                    .map_err(|e| Permanent(format!("a {} job's payload: {e}", J::NAME)))?;
                handler.run(&ctx, job).await
            }
        });
    }

    /// Adds a handler for `kind`, given its payload as JSON (for kinds with no type of their
    /// own: the tests' jobs).
    pub fn register<F, Fut>(&mut self, kind: &str, handler: F)
    where
        F: Fn(JobContext, serde_json::Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        self.handlers.insert(
            kind.to_owned(),
            Arc::new(move |ctx, payload| Box::pin(handler(ctx, payload))),
        );
    }
}

/// Tuning of the runner.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// Jobs run at once by this process.
    pub concurrency: usize,
    /// Sleep between polls when the queue is empty.
    pub poll_interval: Duration,
    /// How long a claim is held before another worker may take the job over.
    pub lease: Duration,
    /// How long running jobs get to finish once shutdown begins.
    pub grace: Duration,
    pub backoff: Backoff,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        Self {
            concurrency: 8,
            poll_interval: Duration::from_millis(500),
            lease: Duration::from_secs(120),
            grace: Duration::from_secs(30),
            backoff: Backoff::jobs(),
        }
    }
}

/// Runs jobs until `stop` is cancelled, then drains as described in the module docs. A wake-up
/// on `passes` claims at once; a pass is done when no job is due or running.
pub async fn run(
    db: Db,
    registry: Registry,
    config: RunnerConfig,
    passes: Arc<Passes>,
    stop: CancellationToken,
) {
    let worker = crate::runtime::worker_id();
    let ctx = JobContext { db: db.clone() };
    let mut running: JoinSet<()> = JoinSet::new();
    let mut held: HashMap<tokio::task::Id, String> = HashMap::new();
    tracing::info!(%worker, "job runner started");
    while !stop.is_cancelled() {
        while let Some(done) = running.try_join_next_with_id() {
            held.remove(&done.map(|(id, _)| id).unwrap_or_else(|e| e.id()));
        }
        let covers = passes.pass_covers();
        let free = config.concurrency.saturating_sub(running.len());
        let claimed = if free == 0 {
            Ok(Vec::new())
        } else {
            claim(&db, &worker, free, &config).await
        };
        let claimed = claimed.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "claiming jobs failed");
            Vec::new()
        });
        let idle = claimed.is_empty();
        for job in claimed {
            let id = job.id.clone();
            let handle = running.spawn(execute(
                ctx.clone(),
                registry.clone(),
                job,
                worker.clone(),
                config.backoff,
            ));
            held.insert(handle.id(), id);
        }
        if idle {
            if running.is_empty() {
                passes.pass_done(covers);
            }
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tokio::time::sleep(config.poll_interval) => {}
                _ = passes.woken() => {}
                Some(done) = running.join_next_with_id(), if !running.is_empty() => {
                    held.remove(&done.map(|(id, _)| id).unwrap_or_else(|e| e.id()));
                }
            }
        }
    }
    drain(&db, &worker, running, held, config.grace).await;
}

async fn claim(
    db: &Db,
    worker: &str,
    free: usize,
    config: &RunnerConfig,
) -> anyhow::Result<Vec<JobRow>> {
    let worker = worker.to_owned();
    let lease = chrono::Duration::from_std(config.lease)?;
    Ok(db
        .run(move |c| Ok(queue::claim(c, &worker, free as i64, lease)?))
        .await?)
}

async fn execute(
    ctx: JobContext,
    registry: Registry,
    job: JobRow,
    worker: String,
    backoff: Backoff,
) {
    let span = tracing::info_span!("job", id = %job.id, kind = %job.kind, attempt = job.attempts);
    let _guard = span.enter();
    let outcome = match registry.handlers.get(&job.kind) {
        None => Err(anyhow::anyhow!("no handler for job kind '{}'", job.kind)),
        Some(handler) => match serde_json::from_str(&job.payload) {
            Ok(payload) => handler(ctx.clone(), payload).await,
            Err(e) => Err(anyhow::anyhow!("payload is not JSON: {e}")),
        },
    };
    let recorded = match outcome {
        Ok(()) => {
            metrics::counter!("herald_jobs_total", "kind" => job.kind.clone(), "outcome" => "ok")
                .increment(1);
            let id = job.id.clone();
            ctx.db
                .run(move |c| Ok(queue::complete(c, &id, &worker)?))
                .await
        }
        Err(e) => {
            let dead = job.attempts >= job.max_attempts || e.downcast_ref::<Permanent>().is_some();
            tracing::warn!(error = %e, dead, "job failed");
            let outcome = if dead { "dead" } else { "retry" };
            metrics::counter!("herald_jobs_total", "kind" => job.kind.clone(), "outcome" => outcome).increment(1);
            let message = format!("{e:#}");
            ctx.db
                .run(move |c| Ok(queue::fail(c, &job, &worker, &message, &backoff, dead)?))
                .await
        }
    };
    if let Err(e) = recorded {
        // The lease runs out and the job is retried: at-least-once, never lost.
        tracing::warn!(error = %e, "could not record the job's outcome");
    }
}

/// Lets running jobs finish within `grace`; whatever is still running then is stopped and its
/// claim handed back so another process can take it at once instead of waiting for the lease.
async fn drain(
    db: &Db,
    worker: &str,
    mut running: JoinSet<()>,
    mut held: HashMap<tokio::task::Id, String>,
    grace: Duration,
) {
    let deadline = tokio::time::Instant::now() + grace;
    while !running.is_empty() {
        match tokio::time::timeout_at(deadline, running.join_next_with_id()).await {
            Ok(Some(done)) => {
                held.remove(&done.map(|(id, _)| id).unwrap_or_else(|e| e.id()));
            }
            Ok(None) => break,
            Err(_) => {
                running.abort_all();
                break;
            }
        }
    }
    let unfinished: Vec<String> = held.into_values().collect();
    if !unfinished.is_empty() {
        let count = unfinished.len();
        let worker = worker.to_owned();
        match db
            .run(move |c| Ok(queue::release(c, &unfinished, &worker)?))
            .await
        {
            Ok(_) => tracing::info!(count, "handed unfinished jobs back to the queue"),
            Err(e) => {
                tracing::warn!(error = %e, count, "could not hand jobs back; their leases will expire")
            }
        }
    }
    tracing::info!("job runner stopped");
}
