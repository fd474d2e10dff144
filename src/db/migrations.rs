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

/// Applies every pending migration; returns the versions applied (empty when up to date). A
/// database a newer Herald migrated is refused: this one would run against a schema it does not
/// know.
pub fn run_pending(conn: &mut DbConn) -> anyhow::Result<Vec<String>> {
    if let Some(newer) = status(conn)?.into_iter().find_map(|(v, s)| match s {
        State::Newer => Some(v),
        _ => None,
    }) {
        let known = known(conn.backend())?;
        anyhow::bail!(
            "the database was migrated by a newer Herald (migration {newer}); this one knows \
             migrations up to {}. Run the newer Herald, or restore a backup into an empty \
             database",
            known.last().map_or("none", String::as_str)
        );
    }
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

/// The version of every migration this Herald carries for `backend`, oldest first.
pub fn known(backend: super::Backend) -> anyhow::Result<Vec<String>> {
    use diesel::migration::MigrationSource;
    let migrations = match backend {
        super::Backend::Sqlite => MigrationSource::<diesel::sqlite::Sqlite>::migrations(&SQLITE)
            .map(|all| all.iter().map(|m| m.name().version().to_string()).collect()),
        super::Backend::Postgres => MigrationSource::<diesel::pg::Pg>::migrations(&POSTGRES)
            .map(|all| all.iter().map(|m| m.name().version().to_string()).collect()),
    };
    let mut versions: Vec<String> =
        migrations.map_err(|e: BoxError| anyhow::anyhow!("reading migrations failed: {e}"))?;
    versions.sort();
    Ok(versions)
}

/// The versions applied to the database, newest first (none on a database never migrated).
pub fn applied(conn: &mut DbConn) -> anyhow::Result<Vec<String>> {
    let applied = match conn {
        DbConn::Sqlite(c) => c.applied_migrations(),
        DbConn::Postgres(c) => c.applied_migrations(),
    };
    applied
        .map(|versions| versions.iter().map(ToString::to_string).collect())
        .map_err(|e: BoxError| anyhow::anyhow!("reading migration state failed: {e}"))
}

/// Moves the schema to exactly `version`: reverts what is newer (a restore does this only to a
/// database that holds no rows), then applies what is pending up to it.
pub fn migrate_to(conn: &mut DbConn, version: &str) -> anyhow::Result<()> {
    let moved = match conn {
        DbConn::Sqlite(c) => to_version(c, || SQLITE, version),
        DbConn::Postgres(c) => to_version(c, || POSTGRES, version),
    };
    moved.map_err(|e: BoxError| anyhow::anyhow!("migrating to {version} failed: {e}"))
}

fn to_version<DB, C>(
    conn: &mut C,
    source: impl Fn() -> EmbeddedMigrations,
    version: &str,
) -> Result<(), BoxError>
where
    DB: diesel::backend::Backend,
    C: MigrationHarness<DB>,
    EmbeddedMigrations: diesel::migration::MigrationSource<DB>,
{
    while let Some(newest) = conn.applied_migrations()?.first() {
        if newest.to_string().as_str() <= version {
            break;
        }
        conn.revert_last_migration(source())?;
    }
    for migration in conn.pending_migrations(source())? {
        if migration.name().version().to_string().as_str() > version {
            break;
        }
        conn.run_migration(&*migration)?;
    }
    Ok(())
}

/// Where a migration stands in a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Applied,
    Pending,
    /// Applied by a Herald newer than this one.
    Newer,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::Pending => "pending",
            Self::Newer => "applied by a newer Herald",
        }
    }
}

/// Every migration this Herald has and every one the database has applied, oldest first, with
/// where each stands.
pub fn status(conn: &mut DbConn) -> anyhow::Result<Vec<(String, State)>> {
    let known = known(conn.backend())?;
    let applied = applied(conn)?;
    let mut all: Vec<(String, State)> = known
        .iter()
        .map(|v| match applied.contains(v) {
            true => (v.clone(), State::Applied),
            false => (v.clone(), State::Pending),
        })
        .collect();
    all.extend(
        applied
            .into_iter()
            .filter(|v| !known.contains(v))
            .map(|v| (v, State::Newer)),
    );
    all.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(all)
}
