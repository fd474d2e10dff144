//! Embedded migrations, one folder per backend with the same names, applied at start and by
//! `herald migrate`.

use diesel::connection::SimpleConnection;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use super::DbConn;

const SQLITE: EmbeddedMigrations = embed_migrations!("migrations/sqlite");
const POSTGRES: EmbeddedMigrations = embed_migrations!("migrations/postgres");

/// Arbitrary key for the PostgreSQL advisory lock that keeps two starting processes from
/// migrating at once.
const MIGRATION_LOCK_KEY: i64 = 0x4845_5241_4c44; // "HERALD"

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Applies every pending migration; returns the versions applied (empty when up to date).
pub fn run_pending(conn: &mut DbConn) -> anyhow::Result<Vec<String>> {
    let applied = match conn {
        DbConn::Sqlite(c) => c.run_pending_migrations(SQLITE).map(versions),
        DbConn::Postgres(c) => {
            c.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK_KEY})"))?;
            let result = c.run_pending_migrations(POSTGRES).map(versions);
            c.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK_KEY})"))?;
            result
        }
    };
    applied.map_err(|e: BoxError| anyhow::anyhow!("applying migrations failed: {e}"))
}

/// How many migrations are not yet applied (readiness requires zero).
pub fn pending_count(conn: &mut DbConn) -> anyhow::Result<usize> {
    let pending = match conn {
        DbConn::Sqlite(c) => c.pending_migrations(SQLITE).map(|p| p.len()),
        DbConn::Postgres(c) => c.pending_migrations(POSTGRES).map(|p| p.len()),
    };
    pending.map_err(|e: BoxError| anyhow::anyhow!("reading migration state failed: {e}"))
}

fn versions(applied: Vec<diesel::migration::MigrationVersion<'_>>) -> Vec<String> {
    applied.into_iter().map(|v| v.to_string()).collect()
}
