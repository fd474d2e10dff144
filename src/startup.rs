//! Building and running the application: pool, migrations, signing key, HTTP server, job runner,
//! and the drain on shutdown.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::{Server, ServerHandle};
use actix_web::middleware::{DefaultHeaders, from_fn};
use actix_web::{App, HttpServer, web};
use anyhow::Context;
use tracing_actix_web::TracingLogger;

use crate::config::Settings;
use crate::db::{Db, DbConn, migrations};
use crate::render::refresh::{self, Refresher};
use crate::render::site::{PublicSite, Renderer};
use crate::runtime::drain::Drain;
use crate::services::signing_key;
use crate::state::AppState;
use crate::workers::{self, Registry, RunnerConfig};
use crate::{http, telemetry};

/// A built, bound, not yet running Herald.
pub struct Application {
    port: u16,
    server: Server,
    /// Every open connection, for the drain.
    connections: Arc<http::connections::Connections>,
    /// The listening socket (a duplicate), to see what still waits in its accept queue.
    listening: std::os::fd::OwnedFd,
    /// `/metrics` on its own listener (`HERALD_METRICS_BIND`), and its port.
    metrics: Option<(Server, u16)>,
    state: AppState,
    registry: Registry,
    runner: RunnerConfig,
    refresher: Refresher,
}

/// Opens the database and applies pending migrations; returns the pool and what was applied.
/// Blocking: call it from the CLI thread or inside `spawn_blocking`.
pub fn open_database(settings: &Settings) -> anyhow::Result<(Db, Vec<String>)> {
    let db = Db::connect(settings)?;
    let applied = db
        .run_sync(migrations::run_pending)
        .with_context(|| format!("database {}", settings.database_url.redacted()))?;
    Ok((db, applied))
}

/// One connection with every migration applied, for the command line: no pool and so no pool
/// threads still busy with libpq while the process exits (which can crash it on PostgreSQL).
pub fn open_connection(settings: &Settings) -> anyhow::Result<(DbConn, Vec<String>)> {
    let url = &settings.database_url;
    let mut conn = crate::db::connection::establish(url)
        .map_err(|e| anyhow::anyhow!("cannot connect to {}: {e}", url.redacted()))?;
    let applied = migrations::run_pending(&mut conn)
        .with_context(|| format!("database {}", url.redacted()))?;
    Ok((conn, applied))
}

impl Application {
    /// Builds Herald with its standard job handlers.
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        Self::build_with(settings, Registry::standard(), RunnerConfig::default()).await
    }

    /// Builds Herald with the given job handlers (and the support notices') and runner tuning.
    pub async fn build_with(
        settings: Settings,
        mut registry: Registry,
        mut runner: RunnerConfig,
    ) -> anyhow::Result<Self> {
        let settings = Arc::new(settings);
        let for_db = settings.clone();
        let (db, secret) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
            let (db, applied) = open_database(&for_db)?;
            if !applied.is_empty() {
                tracing::info!(?applied, "applied migrations");
            }
            let key =
                db.run_sync(|c| signing_key::load_or_create(c, for_db.secret_key.as_deref()))?;
            Ok((db, key))
        })
        .await??;
        workers::add_jobs(&mut registry, &settings, &secret)?;
        let site = Arc::new(PublicSite::new(Renderer::load()?)?);
        // The pages are rendered by the refresher's first pass, while Herald already serves.
        let refresher = Refresher::new(site.clone(), db.clone(), settings.public_url.clone());
        let listener = TcpListener::bind(settings.bind)
            .with_context(|| format!("HERALD_BIND: cannot listen on {}", settings.bind))?;
        let port = listener.local_addr()?.port();
        let listening = std::os::fd::OwnedFd::from(listener.try_clone()?);
        runner.grace = settings.shutdown_grace;
        let support = crate::support::Support::new(
            secret.expose(),
            settings.data_dir.clone(),
            settings.support_rate_per_min,
            settings.support_spool_max_mb * 1024 * 1024,
        )?;
        let state = AppState {
            db,
            settings: settings.clone(),
            drain: Drain::new(),
            secret,
            metrics: telemetry::metrics_handle(),
            site: site.clone(),
            login_limiter: Arc::default(),
            reader_limiter: Arc::default(),
            password_checks: Arc::new(crate::runtime::cpu_pool::CpuPool::passwords()),
            image_checks: Arc::new(crate::runtime::cpu_pool::CpuPool::images()),
            notify: crate::notify::NotifyHandle::new(&settings),
            jobs: Arc::default(),
            support,
            fetcher: crate::delivery::fetch::Fetcher::new(
                crate::delivery::outbound::Policy::from_settings(&settings),
            ),
        };
        let app_state = state.clone();
        let connections = Arc::new(http::connections::Connections::default());
        let on_connect = connections.clone();
        let started = connections.clone();
        let server = HttpServer::new(move || {
            started.worker_started();
            App::new()
                .app_data(web::Data::new(app_state.clone()))
                .app_data(web::Data::new(app_state.site.clone()))
                // Every JSON body that cannot be read is Herald's JSON error (the token routes
                // outside the API scope too); a route may set its own.
                .app_data(http::api::body::json_config())
                // Innermost: a handler's error on an HTML route becomes a page.
                .wrap(from_fn(http::error_page::for_browsers))
                .wrap(
                    http::middleware::SECURITY_HEADERS
                        .into_iter()
                        .fold(DefaultHeaders::new(), |headers, header| headers.add(header)),
                )
                .wrap(from_fn(crate::http::auth::renew_session))
                .wrap(from_fn(http::middleware::observe))
                .wrap(TracingLogger::<http::request_span::RedactedRootSpan>::new())
                // Outermost: the public read path is answered before everything above.
                .wrap(from_fn(http::read_path::serve))
                .configure(http::routes)
                .default_service(web::to(http::public::fallback))
        })
        .on_connect(move |io, ext| on_connect.on_connect(io, ext))
        .listen(listener)?
        .workers(settings.workers)
        .shutdown_timeout(settings.shutdown_grace.as_secs())
        .disable_signals()
        .run();
        let metrics = match settings.metrics_bind {
            Some(addr) => Some(metrics_server(addr, state.clone())?),
            None => {
                tracing::info!(
                    "/metrics is not served: set HERALD_METRICS_BIND (e.g. 127.0.0.1:9100) to \
                     serve it on a listener of its own"
                );
                None
            }
        };
        tracing::info!(
            address = %settings.bind, port, database = %settings.database_url.redacted(),
            public_url = %settings.public_url,
            metrics_port = metrics.as_ref().map(|(_, p)| *p), "herald is listening"
        );
        Ok(Self {
            port,
            server,
            connections,
            listening,
            metrics,
            state,
            registry,
            runner,
            refresher,
        })
    }

    /// The port actually bound (useful with port 0).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port `/metrics` is served on, when `HERALD_METRICS_BIND` is set.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().map(|(_, port)| *port)
    }

    /// The shared state (tests reach the pool through it).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// A handle that starts the drain, the same way a signal does.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle {
            drain: self.state.drain.clone(),
        }
    }

    /// Serves until the drain begins and completes: readiness fails at once, the listener closes
    /// after `shutdown_delay`, in-flight requests get `shutdown_grace`, the job runner hands back
    /// what it holds. Returns when everything has stopped.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let metrics = self.metrics.map(|(server, _)| {
            let handle = server.handle();
            (tokio::spawn(server), handle)
        });
        let (state, server) = (self.state, self.server);
        let (connections, listening) = (self.connections, self.listening);
        let drain = state.drain.clone();
        let pages = tokio::spawn(refresh::run(self.refresher, drain.token()));
        tokio::spawn(workers::maintenance::run(
            state.db.clone(),
            state.site.clone(),
            drain.token(),
        ));
        tokio::spawn(workers::mirrors::run(
            state.db.clone(),
            state.fetcher.clone(),
            state.settings.mirror_poll,
            state.site.clone(),
            drain.token(),
        ));
        tokio::spawn(telemetry::upkeep(state.metrics.clone(), drain.token()));
        tokio::spawn(workers::retention::run(
            state.db.clone(),
            state.settings.retention,
            drain.token(),
        ));
        let support = tokio::spawn(crate::support::replay::run(
            state.support.clone(),
            state.db.clone(),
            drain.token(),
        ));
        let notifier = tokio::spawn(crate::notify::engine::run(
            state.db.clone(),
            state.settings.clone(),
            state.secret.clone(),
            state.notify.clone(),
            crate::notify::EngineConfig {
                grace: state.settings.shutdown_grace,
                poll: state.settings.notify_poll,
                clock: state.notify.clock.clone(),
                reminder_lead_minutes: state.settings.reminder_lead_minutes,
                ..Default::default()
            },
            drain.token(),
        ));
        let jobs = tokio::spawn(workers::runner::run(
            state.db.clone(),
            self.registry,
            self.runner,
            state.jobs.clone(),
            drain.token(),
        ));
        let handle: ServerHandle = server.handle();
        let delay = state.settings.shutdown_delay;
        let grace = state.settings.shutdown_grace;
        let workers = state.settings.workers;
        let stopper = tokio::spawn(async move {
            drain.token().cancelled().await;
            if !delay.is_zero() {
                tracing::info!(
                    ?delay,
                    "still accepting connections while load balancers notice"
                );
                tokio::time::sleep(delay).await;
            }
            // Connections the kernel has taken and the workers not yet (a burst, or workers
            // still starting) have sent their request before the signal: take them in first.
            let waiting = connections.accept_queued(&listening, workers, grace).await;
            tracing::info!(
                open = connections.open(),
                waiting,
                "closing the listener; answering what has arrived, closing idle connections"
            );
            handle.pause().await;
            if let Err(e) = http::connections::stop_listening(&listening) {
                tracing::warn!(error = %e, "the listener could not be shut; the accept loop is paused");
            }
            let drained = connections.drain(grace).await;
            tracing::info!(drained, "connections drained; stopping the server");
            handle.stop(true).await;
        });
        let served = server.await;
        state.drain.begin_drain();
        if let Some((task, handle)) = metrics {
            handle.stop(true).await;
            let _ = task.await;
        }
        let _ = stopper.await;
        let _ = jobs.await;
        let _ = notifier.await;
        let _ = pages.await;
        let _ = support.await;
        tracing::info!("herald stopped");
        served.context("HTTP server failed")
    }
}

/// The metrics listener: `/metrics` alone, one worker, its own port, so the public listener
/// never publishes Herald's internals.
fn metrics_server(addr: std::net::SocketAddr, state: AppState) -> anyhow::Result<(Server, u16)> {
    let listener = TcpListener::bind(addr)
        .with_context(|| format!("HERALD_METRICS_BIND: cannot listen on {addr}"))?;
    let port = listener.local_addr()?.port();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(state.clone()))
            .configure(http::health::metrics_routes)
    })
    .listen(listener)?
    .workers(1)
    .shutdown_timeout(5)
    .disable_signals()
    .run();
    Ok((server, port))
}

/// Starts the drain from outside the server (signal handler, tests).
#[derive(Clone)]
pub struct ShutdownHandle {
    drain: Drain,
}

impl ShutdownHandle {
    /// Begins the drain; returns at once.
    pub fn begin(&self) {
        self.drain.begin_drain();
    }
}
