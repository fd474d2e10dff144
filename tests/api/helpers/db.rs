//! `TestDb`: a fresh database for one test, SQLite or PostgreSQL.

use std::path::PathBuf;

use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;

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
    /// Another app's database (a second Herald process on the same data); dropped by its owner.
    Shared {
        url: String,
        postgres: Option<(String, String)>,
    },
}

impl TestDb {
    /// A new SQLite file in a temporary folder.
    pub fn sqlite() -> Self {
        Self::Sqlite {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A new PostgreSQL database on the suite's server ([`crate::pg_server`]), or `None` (the
    /// test is counted as skipped) when there is none.
    pub fn postgres() -> Option<Self> {
        let admin_url = crate::pg_server::admin_url()?;
        let name = format!("herald_t_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::establish(&admin_url)
            .unwrap_or_else(|e| panic!("PostgreSQL at {admin_url} is unreachable: {e}"));
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create test database");
        let mut url = url::Url::parse(&admin_url).expect("the PostgreSQL URL is a URL");
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
            Self::Postgres { url, .. } | Self::Shared { url, .. } => url.clone(),
        }
    }

    /// The admin URL and database name, for PostgreSQL.
    pub fn postgres_admin(&self) -> Option<(String, String)> {
        match self {
            Self::Postgres {
                admin_url, name, ..
            } => Some((admin_url.clone(), name.clone())),
            Self::Shared { postgres, .. } => postgres.clone(),
            Self::Sqlite { .. } => None,
        }
    }

    /// A handle on the same database that does not own it.
    pub fn shared(&self) -> Self {
        Self::Shared {
            url: self.url(),
            postgres: self.postgres_admin(),
        }
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
