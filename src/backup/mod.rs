//! `herald backup`, `herald restore` and `herald copy`: every row of a Herald database in one
//! consistent snapshot, written to a file of Herald's own format (`archive`, inside `seal`'s
//! gzip and optional encryption) and read back into an empty database of either backend. The
//! rows are streamed both ways, so memory does not grow with the database.

pub mod archive;
pub mod seal;

use std::io::{BufRead, Write};

use crate::db::archive::{self as tables, ArchiveError, Table};
use crate::db::{DbConn, migrations, read_snapshot, write_tx};

use archive::{Damaged, Listed, Manifest, Reader, Writer};

/// Rows written back in one statement, at most.
const BATCH_ROWS: usize = 1_000;
/// Bytes of rows written back in one statement, at most.
const BATCH_BYTES: usize = 4 * 1024 * 1024;
/// A table this long is reported every this many rows as it goes.
const PROGRESS_EVERY: u64 = 100_000;

/// Why a backup, restore or check did not complete.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The archive is not one, or is damaged or cut short.
    #[error(transparent)]
    Damaged(#[from] Damaged),
    /// The archive is sound, but cannot go into this database (not empty, a newer schema).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl From<diesel::result::Error> for BackupError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Failed(e.into())
    }
}

impl From<ArchiveError> for BackupError {
    fn from(e: ArchiveError) -> Self {
        Self::Failed(e.into())
    }
}

impl From<std::io::Error> for BackupError {
    fn from(e: std::io::Error) -> Self {
        Self::Failed(anyhow::anyhow!("writing the backup failed: {e}"))
    }
}

/// What a backup or restore held: rows per table, in the archive's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub schema: String,
    pub tables: Vec<(String, u64)>,
}

impl Summary {
    fn of(manifest: &Manifest) -> Self {
        Self {
            schema: manifest.schema.clone(),
            tables: manifest
                .tables
                .iter()
                .map(|l| (l.table.name.clone(), l.rows))
                .collect(),
        }
    }

    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|(_, n)| n).sum()
    }

    /// The summary as lines: each table's rows, then the total.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .tables
            .iter()
            .map(|(name, n)| format!("{name}: {n}"))
            .collect();
        lines.push(format!(
            "{} rows in {} tables (schema {})",
            self.rows(),
            self.tables.len(),
            self.schema
        ));
        lines
    }
}

/// Writes every table's rows to `out`, read in one snapshot (PostgreSQL: REPEATABLE READ; SQLite:
/// one read transaction of its WAL), while others go on writing. Answers what it wrote and `out`.
pub fn backup<W: Write>(
    conn: &mut DbConn,
    out: W,
    progress: &mut dyn FnMut(&str),
) -> Result<(Summary, W), BackupError> {
    let backend = match conn.backend() {
        crate::db::Backend::Sqlite => "sqlite",
        crate::db::Backend::Postgres => "postgres",
    };
    read_snapshot(conn, |c| {
        let schema = tables::schema_version(c)?
            .ok_or_else(|| BackupError::Refused("the database has no Herald schema".to_owned()))?;
        let mut listed = Vec::new();
        for table in tables::tables(c)? {
            let rows = tables::count(c, &table.name)?;
            listed.push(Listed {
                table,
                rows: u64::try_from(rows).unwrap_or(0),
            });
        }
        let manifest = Manifest {
            format: archive::FORMAT.to_owned(),
            version: archive::VERSION,
            herald: env!("CARGO_PKG_VERSION").to_owned(),
            schema,
            backend: backend.to_owned(),
            taken_at: chrono::Utc::now(),
            tables: listed,
        };
        let mut writer = Writer::new(out, &manifest)?;
        for listed in &manifest.tables {
            let mut written = 0u64;
            tables::read_rows(c, &listed.table, |line| -> Result<(), BackupError> {
                writer.row(line)?;
                written += 1;
                if written.is_multiple_of(PROGRESS_EVERY) {
                    progress(&format!(
                        "{}: {written} of {} rows",
                        listed.table.name, listed.rows
                    ));
                }
                Ok(())
            })?;
            // Counted and read in the same snapshot: a difference is a fault, not a race.
            if written != listed.rows {
                return Err(BackupError::Failed(anyhow::anyhow!(
                    "{}: counted {} rows but read {written}",
                    listed.table.name,
                    listed.rows
                )));
            }
            progress(&format!("{}: {written} rows", listed.table.name));
        }
        let out = writer.finish()?;
        Ok((Summary::of(&manifest), out))
    })
}

/// Reads an archive through and checks it (shape of every row, counts, checksum) without a
/// database.
pub fn verify(input: impl BufRead, progress: &mut dyn FnMut(&str)) -> Result<Summary, BackupError> {
    let mut reader = Reader::open(input)?;
    let manifest = reader.manifest().clone();
    for listed in &manifest.tables {
        for _ in 0..listed.rows {
            reader.row(&listed.table)?;
        }
        progress(&format!("{}: {} rows", listed.table.name, listed.rows));
    }
    reader.finish()?;
    Ok(Summary::of(&manifest))
}

/// Writes an archive into `conn`'s database, which must hold no rows: in one transaction, the
/// schema is brought to the archive's, the rows are written, the archive's checksum is checked,
/// and the migrations this Herald has beyond the archive's are applied. Anything wrong
/// (a damaged archive included) leaves the database as it was.
pub fn restore(
    conn: &mut DbConn,
    input: impl BufRead,
    progress: &mut dyn FnMut(&str),
) -> Result<Summary, BackupError> {
    let mut reader = Reader::open(input)?;
    let manifest = reader.manifest().clone();
    let known = migrations::known(conn.backend())?;
    if !known.contains(&manifest.schema) {
        let newest = known.last().map_or("none", String::as_str);
        return Err(BackupError::Refused(if manifest.schema.as_str() > newest {
            format!(
                "the archive is from a newer Herald ({}, schema {}); this one knows schemas up to {newest}: restore it with that version or later",
                manifest.herald, manifest.schema
            )
        } else {
            format!(
                "the archive's schema {} is not one this Herald knows",
                manifest.schema
            )
        }));
    }
    let held = tables::holdings(conn)?;
    if !held.is_empty() {
        let what: Vec<String> = held.iter().map(|(t, n)| format!("{n} in {t}")).collect();
        return Err(BackupError::Refused(format!(
            "the database is not empty: it holds rows ({}); restore into an empty database",
            what.join(", ")
        )));
    }
    write_tx(conn, |c| -> Result<(), BackupError> {
        migrations::migrate_to(c, &manifest.schema)?;
        let here = tables::tables(c)?;
        for listed in &manifest.tables {
            let Some(table) = here.iter().find(|t| t.name == listed.table.name) else {
                return Err(Damaged::Damaged(format!(
                    "table {} is not in schema {}",
                    listed.table.name, manifest.schema
                ))
                .into());
            };
            same_columns(table, &listed.table, &manifest.schema)?;
            write_table(c, &mut reader, listed, progress)?;
        }
        let rows = reader.finish()?;
        progress(&format!("{rows} rows read; the checksum matches"));
        for version in migrations::run_pending(c)? {
            progress(&format!("applied migration {version}"));
        }
        Ok(())
    })?;
    Ok(Summary::of(&manifest))
}

/// The archive's table has the columns, of the same kinds, that the database's has.
fn same_columns(here: &Table, archived: &Table, schema: &str) -> Result<(), BackupError> {
    let mut a: Vec<_> = here.columns.iter().map(|c| (&c.name, c.kind)).collect();
    let mut b: Vec<_> = archived.columns.iter().map(|c| (&c.name, c.kind)).collect();
    a.sort();
    b.sort();
    if a != b {
        return Err(Damaged::Damaged(format!(
            "the columns of {} are not those of schema {schema}",
            here.name
        ))
        .into());
    }
    Ok(())
}

/// Reads `listed`'s rows from the archive and writes them in batches.
fn write_table<R: BufRead>(
    conn: &mut DbConn,
    reader: &mut Reader<R>,
    listed: &Listed,
    progress: &mut dyn FnMut(&str),
) -> Result<(), BackupError> {
    let mut batch: Vec<String> = Vec::with_capacity(BATCH_ROWS);
    let mut bytes = 0;
    for n in 1..=listed.rows {
        let row = reader.row(&listed.table)?;
        bytes += row.len();
        batch.push(row.to_owned());
        if batch.len() == BATCH_ROWS || bytes >= BATCH_BYTES {
            tables::write_rows(conn, &listed.table, &batch)?;
            batch.clear();
            bytes = 0;
        }
        if n.is_multiple_of(PROGRESS_EVERY) {
            progress(&format!(
                "{}: {n} of {} rows",
                listed.table.name, listed.rows
            ));
        }
    }
    tables::write_rows(conn, &listed.table, &batch)?;
    progress(&format!("{}: {} rows", listed.table.name, listed.rows));
    Ok(())
}

/// Copies every row of `from` into `to` (which must hold no rows, of either backend): a backup
/// restored as it is written, through a pipe, with no file between and memory bounded the same
/// way. A restore that stops early closes the pipe, and the backup stops with it.
pub fn copy(
    from: &mut DbConn,
    to: &mut DbConn,
    progress: &mut dyn FnMut(&str),
) -> Result<Summary, BackupError> {
    let (reader, writer) = std::io::pipe()?;
    std::thread::scope(|scope| {
        let backing_up = scope.spawn(move || {
            let out = std::io::BufWriter::with_capacity(256 * 1024, writer);
            backup(from, out, &mut |_| {}).map(|(summary, _)| summary)
        });
        let restored = restore(
            to,
            std::io::BufReader::with_capacity(256 * 1024, reader),
            progress,
        );
        let backed_up = backing_up
            .join()
            .map_err(|_| BackupError::Failed(anyhow::anyhow!("the backup side panicked")))?;
        // The restore's error says why; the backup's is then only the closed pipe.
        let summary = restored?;
        backed_up?;
        Ok(summary)
    })
}
