//! `TestApp`: a real Herald on port 0 with its own fresh database.

use std::path::PathBuf;
use std::time::Duration;

use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use herald::config::{Env, Settings};
use herald::db::Db;
use herald::jobs::{Registry, RunnerConfig};
use herald::startup::{Application, ShutdownHandle};

/// Declares an async test body once and runs it on each backend: `NAME::sqlite` always, and
/// `NAME::postgres` against a fresh database when `HERALD_TEST_POSTGRES_URL` is set (in CI an
/// unset URL fails the test instead of skipping it).
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(crate::helpers::TestDb::sqlite()).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(db) = crate::helpers::TestDb::postgres() {
                    super::$name(db).await
                }
            }
        }
    )*};
}

/// A fresh database for one test; dropped (PostgreSQL) or deleted (SQLite) afterwards.
pub enum TestDb {
    Sqlite {
        dir: tempfile::TempDir,
    },
    Postgres {
        admin_url: String,
        name: String,
        url: String,
    },
}

impl TestDb {
    /// A new SQLite file in a temporary folder.
    pub fn sqlite() -> Self {
        Self::Sqlite {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A new PostgreSQL database, or `None` (skip) when no server is configured outside CI.
    pub fn postgres() -> Option<Self> {
        let Ok(admin_url) = std::env::var("HERALD_TEST_POSTGRES_URL") else {
            assert!(
                std::env::var("CI").is_err(),
                "HERALD_TEST_POSTGRES_URL must be set in CI: the PostgreSQL half of the suite may not skip there"
            );
            eprintln!("skipped: HERALD_TEST_POSTGRES_URL is not set");
            return None;
        };
        let name = format!("herald_t_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::establish(&admin_url)
            .unwrap_or_else(|e| panic!("HERALD_TEST_POSTGRES_URL={admin_url} is unreachable: {e}"));
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create test database");
        let mut url = url::Url::parse(&admin_url).expect("HERALD_TEST_POSTGRES_URL is a URL");
        url.set_path(&format!("/{name}"));
        Some(Self::Postgres {
            admin_url,
            name,
            url: url.to_string(),
        })
    }

    /// The `DATABASE_URL` of this database.
    pub fn url(&self) -> String {
        match self {
            Self::Sqlite { dir } => format!("sqlite://{}", self.sqlite_path(dir).display()),
            Self::Postgres { url, .. } => url.clone(),
        }
    }

    /// True for PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self, Self::Postgres { .. })
    }

    fn sqlite_path(&self, dir: &tempfile::TempDir) -> PathBuf {
        dir.path().join("herald.db")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Self::Postgres {
            admin_url, name, ..
        } = self
        {
            let (admin_url, name) = (admin_url.clone(), name.clone());
            // Off the async runtime: this is a blocking connection.
            let _ = std::thread::spawn(move || {
                if let Ok(mut admin) = PgConnection::establish(&admin_url) {
                    let _ = admin
                        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
                }
            })
            .join();
        }
    }
}

/// Settings for a test app on `db`: port 0, a small pool, quiet logs.
pub fn test_settings(db: &TestDb, extra: &[(&str, &str)]) -> Settings {
    let url = db.url();
    let mut pairs = vec![
        ("DATABASE_URL", url.as_str()),
        ("HERALD_BIND", "127.0.0.1:0"),
        ("HERALD_WORKERS", "2"),
        ("HERALD_DB_POOL_SIZE", "4"),
        ("HERALD_SHUTDOWN_GRACE_SECS", "5"),
    ];
    pairs.extend_from_slice(extra);
    Settings::from_env(&Env::from_pairs(pairs)).expect("test settings are valid")
}

/// A running Herald.
pub struct TestApp {
    pub address: String,
    pub db: Db,
    pub client: reqwest::Client,
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
        let runner = RunnerConfig {
            poll_interval: Duration::from_millis(50),
            ..RunnerConfig::default()
        };
        let app = Application::build_with(settings, registry, runner)
            .await
            .expect("app builds");
        let address = format!("http://127.0.0.1:{}", app.port());
        let db = app.state().db.clone();
        let shutdown = app.shutdown_handle();
        let server = tokio::spawn(app.run_until_stopped());
        Self {
            address,
            db,
            client: reqwest::Client::new(),
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
