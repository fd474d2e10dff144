//! `TestApp`: a real Herald on port 0 with its own fresh database, and the waits that
//! synchronise a test with its background work (refresher, notification engine, job runner).

use std::time::Duration;

use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use herald::config::Settings;
use herald::db::Db;
use herald::startup::{Application, ShutdownHandle};
use herald::workers::{Registry, RunnerConfig};

use super::{TestDb, test_settings};

/// A running Herald.
pub struct TestApp {
    pub address: String,
    /// `http://127.0.0.1:PORT` of the metrics listener, when `HERALD_METRICS_BIND` was given.
    pub metrics_address: Option<String>,
    pub db: Db,
    pub site: std::sync::Arc<herald::render::site::PublicSite>,
    pub client: reqwest::Client,
    /// The notification engine's clock: tests move it forward.
    pub clock: herald::notify::EngineClock,
    /// The notification engine's wake-up and its settled passes.
    pub notify: herald::notify::NotifyHandle,
    /// The job runner's wake-up and its passes.
    pub jobs: std::sync::Arc<herald::runtime::passes::Passes>,
    /// The sign-ins' password checks.
    pub password_checks: std::sync::Arc<herald::runtime::cpu_pool::CpuPool>,
    shutdown: ShutdownHandle,
    server: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    // Declared last: dropped after the server is gone.
    pub test_db: TestDb,
}

impl TestApp {
    /// Herald with default settings on `db`.
    pub async fn spawn(db: TestDb) -> Self {
        Self::spawn_with(db, &[], Registry::standard()).await
    }

    /// Herald with extra environment settings and job handlers.
    pub async fn spawn_with(test_db: TestDb, extra: &[(&str, &str)], registry: Registry) -> Self {
        let settings = test_settings(&test_db, extra);
        Self::spawn_with_settings(test_db, settings, registry).await
    }

    /// Herald with `settings` (from [`test_settings`], then changed) and job handlers.
    pub async fn spawn_with_settings(
        test_db: TestDb,
        settings: Settings,
        registry: Registry,
    ) -> Self {
        let runner = RunnerConfig {
            poll_interval: Duration::from_millis(50),
            ..RunnerConfig::default()
        };
        let app = Application::build_with(settings, registry, runner)
            .await
            .expect("app builds");
        let address = format!("http://127.0.0.1:{}", app.port());
        let metrics_address = app
            .metrics_port()
            .map(|port| format!("http://127.0.0.1:{port}"));
        let db = app.state().db.clone();
        let site = app.state().site.clone();
        let clock = app.state().notify.clock.clone();
        let notify = app.state().notify.clone();
        let jobs = app.state().jobs.clone();
        let password_checks = app.state().password_checks.clone();
        let shutdown = app.shutdown_handle();
        let server = tokio::spawn(app.run_until_stopped());
        Self {
            address,
            metrics_address,
            db,
            site,
            client: reqwest::Client::new(),
            clock,
            notify,
            jobs,
            password_checks,
            shutdown,
            server: Some(server),
            test_db,
        }
    }

    /// GET a path.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("request sent")
    }

    /// A second Herald on the same database, as another process sharing it would be.
    pub async fn spawn_sibling(&self) -> TestApp {
        TestApp::spawn(self.test_db.shared()).await
    }

    /// Asks the public-site refresher to look at the database now.
    pub fn site_wake(&self) {
        self.site.passes.wake();
    }

    /// Has the refresher make a pass that reads everything committed so far, and waits for it
    /// to finish: afterwards the public pages show exactly what the database holds.
    pub async fn refreshed(&self) {
        assert!(
            self.site.passes.seen(Duration::from_secs(15)).await,
            "the refresher made no pass within 15 s"
        );
    }

    /// Has the notification engine make a pass that sees everything committed so far, and
    /// waits until it has nothing left to do now: every event expanded, every due delivery
    /// sent and its outcome recorded.
    pub async fn deliver_pending(&self) {
        assert!(
            self.notify.passes.seen(Duration::from_secs(15)).await,
            "the notification engine still had work after 15 s"
        );
    }

    /// Has the job runner claim now, and waits until no job is due or running: every job
    /// due before this call has run and its outcome is recorded (a retry scheduled for later
    /// stays queued).
    pub async fn run_pending_jobs(&self) {
        assert!(
            self.jobs.seen(Duration::from_secs(15)).await,
            "the job runner still had jobs due or running after 15 s"
        );
    }

    /// Waits (up to 15 s) until `path` answers 200.
    pub async fn wait_for_page(&self, path: &str) {
        self.wait_until(path, |status, _| status == 200).await;
    }

    /// Waits until the body at `path` contains `needle`; returns the body.
    pub async fn wait_for_text(&self, path: &str, needle: &str) -> String {
        self.wait_until(path, |status, body| status == 200 && body.contains(needle))
            .await
    }

    /// Waits until the body at `path` no longer contains `needle`; returns the body.
    pub async fn wait_for_text_gone(&self, path: &str, needle: &str) -> String {
        self.wait_until(path, |status, body| status == 200 && !body.contains(needle))
            .await
    }

    /// Waits until the body at `path` contains `needle`, without asking the refresher to look
    /// (so that only its own poll of the database can bring the change); returns the body.
    pub async fn watch_for_text(&self, path: &str, needle: &str) -> String {
        self.wait(path, false, |status, body| {
            status == 200 && body.contains(needle)
        })
        .await
    }

    async fn wait_until(&self, path: &str, done: impl Fn(u16, &str) -> bool) -> String {
        self.wait(path, true, done).await
    }

    /// Reads `path` every 50 ms until `done` (for at most 15 s), waking the refresher before
    /// each read when `wake` is set.
    async fn wait(&self, path: &str, wake: bool, done: impl Fn(u16, &str) -> bool) -> String {
        let started = std::time::Instant::now();
        loop {
            if wake {
                self.site_wake();
            }
            let res = self.get(path).await;
            let status = res.status().as_u16();
            let body = res.text().await.unwrap_or_default();
            if done(status, &body) {
                return body;
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "{path} did not reach the expected state: {status} {body}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Makes the database unreachable for this app: on PostgreSQL the database refuses
    /// connections and its sessions are terminated; on SQLite every pooled connection is held,
    /// so each checkout times out (the pool-exhaustion outage).
    pub async fn break_database(&self) -> Outage {
        if let Some((admin_url, name)) = self.test_db.postgres_admin() {
            let (admin, db_name) = (admin_url.clone(), name.clone());
            tokio::task::spawn_blocking(move || {
                let name = db_name;
                let mut conn = PgConnection::establish(&admin).unwrap();
                conn.batch_execute(&format!(
                    "ALTER DATABASE {name} ALLOW_CONNECTIONS false; \
                     SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}';"
                ))
                .unwrap();
            })
            .await
            .unwrap();
            return Outage::Postgres {
                admin_url,
                name: name.clone(),
            };
        }
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (held_tx, held_rx) = tokio::sync::oneshot::channel();
        let db = self.db.clone();
        let holder = tokio::spawn(async move {
            let _ = db
                .run(move |_conn| {
                    let _ = held_tx.send(());
                    let _ = wait.recv();
                    Ok(())
                })
                .await;
        });
        held_rx.await.expect("the only pooled connection is held");
        Outage::Sqlite { release, holder }
    }

    /// Begins the drain and waits for the server to stop; returns its result. The database
    /// stays until the `TestApp` is dropped.
    pub async fn stop(&mut self) -> anyhow::Result<()> {
        self.shutdown.begin();
        match self.server.take() {
            Some(server) => server.await.expect("server task"),
            None => Ok(()),
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.begin();
    }
}

/// A database outage started by [`TestApp::break_database`].
pub enum Outage {
    Postgres {
        admin_url: String,
        name: String,
    },
    Sqlite {
        release: std::sync::mpsc::Sender<()>,
        holder: tokio::task::JoinHandle<()>,
    },
}

impl Outage {
    /// Ends the outage.
    pub async fn restore(self) {
        match self {
            Self::Postgres { admin_url, name } => tokio::task::spawn_blocking(move || {
                let mut conn = PgConnection::establish(&admin_url).unwrap();
                conn.batch_execute(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
                    .unwrap();
            })
            .await
            .unwrap(),
            Self::Sqlite { release, holder } => {
                let _ = release.send(());
                holder.await.unwrap();
            }
        }
    }
}
