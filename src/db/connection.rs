//! One connection type for both backends, chosen by the URL scheme, and its r2d2 manager.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{self, ManageConnection};

use crate::config::DatabaseUrl;

/// A connection to either backend. Queries written against it run on both.
#[derive(diesel::MultiConnection)]
pub enum DbConn {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

/// Which backend a connection or pool talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend a URL selects.
    pub fn of(url: &DatabaseUrl) -> Self {
        match url {
            DatabaseUrl::Sqlite(_) => Self::Sqlite,
            DatabaseUrl::Postgres(_) => Self::Postgres,
        }
    }
}

impl DbConn {
    /// The backend this connection talks to.
    pub fn backend(&self) -> Backend {
        match self {
            Self::Sqlite(_) => Backend::Sqlite,
            Self::Postgres(_) => Backend::Postgres,
        }
    }
}

/// How long SQLite waits on a locked database before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 5_000;

/// Opens one connection, dispatching on the scheme (diesel's own `establish` would let SQLite
/// accept any string as a path) and applying the per-connection settings.
pub fn establish(url: &DatabaseUrl) -> Result<DbConn, ConnectionError> {
    match url {
        DatabaseUrl::Sqlite(path) => {
            let path = path.to_str().ok_or_else(|| {
                ConnectionError::BadConnection(format!(
                    "SQLite path {} is not valid UTF-8",
                    path.display()
                ))
            })?;
            let mut conn = SqliteConnection::establish(path).map_err(|e| {
                ConnectionError::BadConnection(format!(
                    "cannot open SQLite database at '{path}': {e}"
                ))
            })?;
            conn.batch_execute(&format!(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
                 PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS};"
            ))
            .map_err(|e| {
                ConnectionError::BadConnection(format!(
                    "cannot use SQLite database at '{path}': {e}"
                ))
            })?;
            Ok(DbConn::Sqlite(conn))
        }
        DatabaseUrl::Postgres(raw) => {
            let mut conn = PgConnection::establish(raw)?;
            conn.batch_execute("SET TIME ZONE 'UTC'; SET statement_timeout = '60s';")
                .map_err(|e| ConnectionError::BadConnection(e.to_string()))?;
            Ok(DbConn::Postgres(conn))
        }
    }
}

/// r2d2 manager that opens connections with [`establish`].
#[derive(Debug)]
pub struct Manager {
    url: DatabaseUrl,
}

impl Manager {
    pub fn new(url: DatabaseUrl) -> Self {
        Self { url }
    }
}

impl ManageConnection for Manager {
    type Connection = DbConn;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<DbConn, r2d2::Error> {
        establish(&self.url).map_err(r2d2::Error::ConnectionError)
    }

    fn is_valid(&self, conn: &mut DbConn) -> Result<(), r2d2::Error> {
        conn.batch_execute("SELECT 1")
            .map_err(r2d2::Error::QueryError)
    }

    fn has_broken(&self, _conn: &mut DbConn) -> bool {
        std::thread::panicking()
    }
}

/// Runs `f` in a read-only transaction that sees one consistent snapshot, so that several
/// queries describe one moment and never half of a concurrent commit: on PostgreSQL
/// `REPEATABLE READ, READ ONLY`; on SQLite a deferred transaction, whose WAL snapshot is taken
/// at its first read. Inside an open transaction, `f` simply runs in it.
pub fn read_snapshot<T, E>(
    conn: &mut DbConn,
    f: impl FnOnce(&mut DbConn) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    if in_transaction(conn)? {
        return f(conn);
    }
    conn.transaction(|c| {
        if matches!(c, DbConn::Postgres(_)) {
            diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(c)?;
        }
        f(c)
    })
}

/// Runs `f` in a write transaction. On SQLite it is `BEGIN IMMEDIATE`, so a transaction that reads
/// before it writes waits for the write lock up front instead of failing with SQLITE_BUSY later.
/// Inside an open transaction it joins that one: a use case run by `services::write` does its
/// work in the transaction of the write, and an error of its ends the whole write. A part that
/// must be undone alone while the rest goes on is a [`savepoint`].
pub fn write_tx<T, E>(
    conn: &mut DbConn,
    f: impl FnOnce(&mut DbConn) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    fn inner(conn: &mut DbConn) -> Option<&mut SqliteConnection> {
        match conn {
            DbConn::Sqlite(c) => Some(c),
            DbConn::Postgres(_) => None,
        }
    }
    let outermost = !in_transaction(conn)?;
    // The outermost commit first asks whether anyone still waits for it (`db::may_commit`).
    let f = |conn: &mut DbConn| {
        let value = f(conn)?;
        if outermost {
            super::may_commit()?;
        }
        Ok(value)
    };
    if !outermost {
        return f(conn);
    }
    if inner(conn).is_none() {
        return conn.transaction(f);
    }
    let begin = |c: &mut DbConn| match inner(c) {
        Some(c) => AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE"),
        None => Ok(()),
    };
    let end = |c: &mut DbConn, commit: bool| match inner(c) {
        Some(c) if commit => AnsiTransactionManager::commit_transaction(c),
        Some(c) => AnsiTransactionManager::rollback_transaction(c),
        None => Ok(()),
    };
    begin(conn)?;
    match f(conn) {
        Ok(value) => match end(conn, true) {
            Ok(()) => Ok(value),
            Err(commit_err) => {
                let _ = end(conn, false);
                Err(commit_err.into())
            }
        },
        Err(e) => {
            end(conn, false)?;
            Err(e)
        }
    }
}

/// Runs `f` so that its failure undoes only its own writes: a savepoint inside an open
/// transaction (the transaction goes on, usable, after a refused insert), else a write
/// transaction of its own. For the parts of a use case that may fail and be reported while
/// the rest is kept (one record of an import, a reference taken by a concurrent opening).
pub fn savepoint<T, E>(
    conn: &mut DbConn,
    f: impl FnOnce(&mut DbConn) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    if in_transaction(conn)? {
        conn.transaction(f)
    } else {
        write_tx(conn, f)
    }
}

/// Whether `conn` is inside a transaction.
pub fn in_transaction(conn: &mut DbConn) -> diesel::QueryResult<bool> {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    Ok(match conn {
        DbConn::Sqlite(c) => AnsiTransactionManager::transaction_manager_status_mut(c)
            .transaction_depth()?
            .is_some(),
        DbConn::Postgres(c) => AnsiTransactionManager::transaction_manager_status_mut(c)
            .transaction_depth()?
            .is_some(),
    })
}
