//! What a backup reads and a restore writes, on either backend: the tables and their columns as
//! the database has them, each row as one line of JSON (an array of portable values, made by the
//! database itself), and rows written back in batches. The file around them is `backup`'s.
//!
//! Portable values, the same whichever backend wrote them: integers and booleans as JSON, text
//! as strings, timestamps as `YYYY-MM-DD HH:MM:SS.ffffff` (UTC, microseconds, which is all
//! PostgreSQL keeps), binary as lower-case hex.

use diesel::connection::{DefaultLoadingMode, SimpleConnection};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use serde::{Deserialize, Serialize};

use super::DbConn;

mod scrub;
pub use scrub::{FORGOTTEN, scrub};

/// Tables the database keeps itself (its triggers count the changes of pages, incidents and
/// components): never copied, they are made again as the rows they count arrive.
pub const DERIVED: &[&str] = &[
    "site_changes",
    "page_changes",
    "incident_changes",
    "component_changes",
];

/// Diesel's own record of applied migrations: the schema's, not the data's.
const MIGRATIONS_TABLE: &str = "__diesel_schema_migrations";

/// How many rows a read fetches at once from PostgreSQL's cursor.
const FETCH_ROWS: usize = 2_000;

/// The kind of a column's values, as the archive writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Integer,
    Boolean,
    Text,
    Timestamp,
    Binary,
}

impl Kind {
    /// The kind of a declared column type (SQLite's as written in the migration, PostgreSQL's
    /// `data_type`); `None` for a type Herald does not use.
    fn of(declared: &str) -> Option<Self> {
        let t = declared.to_ascii_lowercase();
        Some(if t.starts_with("bool") {
            Self::Boolean
        } else if t.contains("int") {
            Self::Integer
        } else if t.starts_with("timestamp") || t.starts_with("datetime") {
            Self::Timestamp
        } else if t == "blob" || t == "bytea" || t == "binary" {
            Self::Binary
        } else if t == "text" || t.starts_with("varchar") || t.starts_with("character") {
            Self::Text
        } else {
            return None;
        })
    }
}

/// One column: its name and the kind of its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
}

/// One table of data: its name and columns, in the database's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct Declared {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    declared: String,
}

#[derive(QueryableByName)]
struct Edge {
    #[diesel(sql_type = Text)]
    child: String,
    #[diesel(sql_type = Text)]
    parent: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    line: String,
}

/// Why the tables could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error(transparent)]
    Database(#[from] diesel::result::Error),
    #[error("column {table}.{column} has type {declared}, which a backup does not know")]
    UnknownType {
        table: String,
        column: String,
        declared: String,
    },
}

/// Every table of data (not the derived ones, nor the migrations' record), each after the
/// tables it references, so that rows written in this order meet their foreign keys.
pub fn tables(conn: &mut DbConn) -> Result<Vec<Table>, ArchiveError> {
    let (names, edges) = match conn {
        DbConn::Sqlite(_) => {
            let names: Vec<Name> = diesel::sql_query(
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .load(conn)?;
            let edges: Vec<Edge> = diesel::sql_query(
                "SELECT m.name AS child, f.\"table\" AS parent FROM sqlite_master m, \
                 pragma_foreign_key_list(m.name) f WHERE m.type = 'table'",
            )
            .load(conn)?;
            (names, edges)
        }
        DbConn::Postgres(_) => {
            let names: Vec<Name> = diesel::sql_query(
                "SELECT table_name::text AS name FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
                 ORDER BY table_name",
            )
            .load(conn)?;
            let edges: Vec<Edge> = diesel::sql_query(
                "SELECT c.relname::text AS child, p.relname::text AS parent \
                 FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid \
                 JOIN pg_class p ON p.oid = k.confrelid \
                 WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace",
            )
            .load(conn)?;
            (names, edges)
        }
    };
    let names: Vec<String> = names
        .into_iter()
        .map(|n| n.name)
        .filter(|n| n != MIGRATIONS_TABLE && !DERIVED.contains(&n.as_str()))
        .collect();
    let edges: Vec<(String, String)> = edges.into_iter().map(|e| (e.child, e.parent)).collect();
    order_by_references(names, &edges)
        .into_iter()
        .map(|name| {
            let columns = columns(conn, &name)?;
            Ok(Table { name, columns })
        })
        .collect()
}

/// `names` with every table after the ones it references (`edges`: child, parent); among
/// tables free to go, by name. A reference to itself or a cycle (Herald has none) does not
/// hold a table back forever: what is left goes last, by name.
fn order_by_references(mut left: Vec<String>, edges: &[(String, String)]) -> Vec<String> {
    let mut ordered: Vec<String> = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let free = left.iter().position(|t| {
            !edges
                .iter()
                .any(|(child, parent)| child == t && parent != t && left.contains(parent))
        });
        ordered.push(left.remove(free.unwrap_or(0)));
    }
    ordered
}

fn columns(conn: &mut DbConn, table: &str) -> Result<Vec<Column>, ArchiveError> {
    let declared: Vec<Declared> = match conn {
        DbConn::Sqlite(_) => diesel::sql_query(
            "SELECT name, type AS declared FROM pragma_table_info(?) ORDER BY cid",
        )
        .bind::<Text, _>(table)
        .load(conn)?,
        DbConn::Postgres(_) => diesel::sql_query(
            "SELECT column_name::text AS name, data_type::text AS declared \
             FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        )
        .bind::<Text, _>(table)
        .load(conn)?,
    };
    declared
        .into_iter()
        .map(|d| match Kind::of(&d.declared) {
            Some(kind) => Ok(Column { name: d.name, kind }),
            None => Err(ArchiveError::UnknownType {
                table: table.to_owned(),
                column: d.name,
                declared: d.declared,
            }),
        })
        .collect()
}

#[derive(QueryableByName)]
struct Version {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    version: Option<String>,
}

/// The newest migration applied, read without touching the schema (a backup's snapshot is
/// read-only); `None` where Herald never migrated.
pub fn schema_version(conn: &mut DbConn) -> QueryResult<Option<String>> {
    let sql = format!("SELECT MAX(version) AS version FROM {MIGRATIONS_TABLE}");
    Ok(diesel::sql_query(sql).get_result::<Version>(conn)?.version)
}

/// How many rows `table` holds.
pub fn count(conn: &mut DbConn, table: &str) -> QueryResult<i64> {
    let sql = format!("SELECT COUNT(*) AS n FROM {}", quoted(table));
    Ok(diesel::sql_query(sql).get_result::<Count>(conn)?.n)
}

/// The tables of data that hold rows, with how many: what makes a database not empty.
/// Tables that do not exist yet hold nothing.
pub fn holdings(conn: &mut DbConn) -> Result<Vec<(String, i64)>, ArchiveError> {
    let mut held = Vec::new();
    for table in tables(conn)? {
        let n = count(conn, &table.name)?;
        if n > 0 {
            held.push((table.name, n));
        }
    }
    Ok(held)
}

/// Hands each row of `table` to `each`, as one line of JSON, without holding the table in
/// memory: SQLite steps its statement; PostgreSQL reads a cursor [`FETCH_ROWS`] at a time (so
/// this runs inside a transaction, the snapshot's).
pub fn read_rows<E>(
    conn: &mut DbConn,
    table: &Table,
    mut each: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), E>
where
    E: From<diesel::result::Error>,
{
    let name = quoted(&table.name);
    match conn {
        DbConn::Sqlite(c) => {
            let values: Vec<String> = table.columns.iter().map(sqlite_value).collect();
            let sql = format!(
                "SELECT json_array({}) AS line FROM {name}",
                values.join(", ")
            );
            let rows = diesel::sql_query(sql).load_iter::<Line, DefaultLoadingMode>(c)?;
            for row in rows {
                each(&row?.line)?;
            }
        }
        DbConn::Postgres(c) => {
            let values: Vec<String> = table.columns.iter().map(postgres_value).collect();
            c.batch_execute(&format!(
                "DECLARE herald_backup NO SCROLL CURSOR FOR \
                 SELECT json_build_array({})::text AS line FROM {name}",
                values.join(", ")
            ))?;
            loop {
                let fetch = format!("FETCH FORWARD {FETCH_ROWS} FROM herald_backup");
                let lines: Vec<Line> = diesel::sql_query(fetch).load(c)?;
                for row in &lines {
                    each(&row.line)?;
                }
                if lines.len() < FETCH_ROWS {
                    break;
                }
            }
            c.batch_execute("CLOSE herald_backup")?;
        }
    }
    Ok(())
}

/// A column's portable value, read on SQLite.
fn sqlite_value(column: &Column) -> String {
    let c = quoted(&column.name);
    match column.kind {
        Kind::Integer | Kind::Text => c,
        Kind::Boolean => {
            format!(
                "CASE WHEN {c} IS NULL THEN NULL WHEN {c} THEN json('true') ELSE json('false') END"
            )
        }
        // Diesel writes `%F %T%.f`: no fraction when it is zero, else 3, 6 or 9 digits.
        Kind::Timestamp => format!(
            "CASE WHEN {c} IS NULL THEN NULL ELSE substr(replace({c}, 'T', ' '), 1, 19) || '.' \
             || substr(substr({c}, 21) || '000000', 1, 6) END"
        ),
        Kind::Binary => format!("lower(hex({c}))"),
    }
}

/// A column's portable value, read on PostgreSQL.
fn postgres_value(column: &Column) -> String {
    let c = quoted(&column.name);
    match column.kind {
        Kind::Integer | Kind::Text | Kind::Boolean => c,
        Kind::Timestamp => format!("to_char({c}, 'YYYY-MM-DD HH24:MI:SS.US')"),
        Kind::Binary => format!("encode({c}, 'hex')"),
    }
}

/// Writes `rows` (each a JSON array of portable values, as [`read_rows`] gives them) into
/// `table`, in one statement.
pub fn write_rows(conn: &mut DbConn, table: &Table, rows: &[String]) -> QueryResult<usize> {
    if rows.is_empty() {
        return Ok(0);
    }
    let names: Vec<String> = table.columns.iter().map(|c| quoted(&c.name)).collect();
    let batch = format!("[{}]", rows.join(","));
    let (name, names) = (quoted(&table.name), names.join(", "));
    let sql = match conn {
        DbConn::Sqlite(_) => {
            let values: Vec<String> = (0..table.columns.len())
                .map(|i| format!("json_extract(value, '$[{i}]') AS v{i}"))
                .collect();
            let stored: Vec<String> = table
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| sqlite_stored(c.kind, &format!("v{i}")))
                .collect();
            format!(
                "INSERT INTO {name} ({names}) SELECT {} FROM (SELECT {} FROM json_each(?))",
                stored.join(", "),
                values.join(", ")
            )
        }
        DbConn::Postgres(_) => {
            let values: Vec<String> = table
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| postgres_stored(c.kind, &format!("r->>{i}")))
                .collect();
            format!(
                "INSERT INTO {name} ({names}) SELECT {} FROM jsonb_array_elements($1::jsonb) AS r",
                values.join(", ")
            )
        }
    };
    diesel::sql_query(sql).bind::<Text, _>(batch).execute(conn)
}

/// A portable value `v` as SQLite stores it: a timestamp as Diesel writes it (`%F %T%.f`, so
/// that it compares as text with the values queries bind), binary as bytes.
fn sqlite_stored(kind: Kind, v: &str) -> String {
    match kind {
        Kind::Integer | Kind::Text | Kind::Boolean => v.to_owned(),
        Kind::Timestamp => format!(
            "CASE WHEN {v} IS NULL THEN NULL WHEN substr({v}, 21) = '000000' THEN substr({v}, 1, 19) \
             WHEN substr({v}, 24) = '000' THEN substr({v}, 1, 23) ELSE {v} END"
        ),
        Kind::Binary => format!("unhex({v})"),
    }
}

/// A portable value `v` (text) as PostgreSQL stores it.
fn postgres_stored(kind: Kind, v: &str) -> String {
    match kind {
        Kind::Text => v.to_owned(),
        Kind::Integer => format!("({v})::bigint"),
        Kind::Boolean => format!("({v})::boolean"),
        Kind::Timestamp => format!("({v})::timestamp"),
        Kind::Binary => format!("decode({v}, 'hex')"),
    }
}

/// A name as an SQL identifier, quoted (the names come from the database's own catalog).
pub(super) fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_to_kinds_and_unknown_ones_do_not() {
        let cases = [
            ("TEXT", Some(Kind::Text)),
            ("text", Some(Kind::Text)),
            ("character varying", Some(Kind::Text)),
            ("INTEGER", Some(Kind::Integer)),
            ("bigint", Some(Kind::Integer)),
            ("BOOLEAN", Some(Kind::Boolean)),
            ("boolean", Some(Kind::Boolean)),
            ("TIMESTAMP", Some(Kind::Timestamp)),
            ("timestamp without time zone", Some(Kind::Timestamp)),
            ("BLOB", Some(Kind::Binary)),
            ("bytea", Some(Kind::Binary)),
            ("double precision", None),
            ("jsonb", None),
        ];
        for (declared, kind) in cases {
            assert_eq!(Kind::of(declared), kind, "{declared}");
        }
    }

    #[test]
    fn tables_come_after_the_tables_they_reference() {
        let names = ["deliveries", "pages", "subscribers", "users"].map(String::from);
        let edges = [
            ("deliveries", "subscribers"),
            ("subscribers", "pages"),
            ("deliveries", "pages"),
            ("pages", "pages"),
        ]
        .map(|(c, p)| (c.to_owned(), p.to_owned()));
        let ordered = order_by_references(names.to_vec(), &edges);
        assert_eq!(ordered, ["pages", "subscribers", "deliveries", "users"]);
    }

    #[test]
    fn names_are_quoted_as_identifiers() {
        assert_eq!(quoted("users"), "\"users\"");
        assert_eq!(quoted("we\"ird"), "\"we\"\"ird\"");
    }
}
