//! The archive inside a backup file: lines of JSON. The first is the manifest (format, Herald's
//! version, the schema's, each table's columns and row count); then each table's rows, one
//! JSON array a line, table after table in the manifest's order; last, the trailer, with the
//! number of rows and the SHA-256 of every byte before it. A reader checks all of it: a row of
//! the wrong shape, a table short of rows, a byte changed or a file cut short is refused.

use std::io::{BufRead, Read, Write};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::db::archive::{Kind, Table};

/// What the first line says it is.
pub const FORMAT: &str = "herald-backup";
/// The version of the format this Herald writes and reads.
pub const VERSION: u32 = 1;
/// The longest line a reader takes (a row holding an uploaded image, in hex, is the longest
/// Herald writes: images are limited to a few megabytes).
const MAX_LINE: u64 = 64 * 1024 * 1024;

/// The archive's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    /// The Herald that wrote it.
    pub herald: String,
    /// The newest migration applied to the database it was taken from.
    pub schema: String,
    /// The backend it was taken from (`sqlite` or `postgres`).
    pub backend: String,
    pub taken_at: DateTime<Utc>,
    pub tables: Vec<Listed>,
}

/// A table in the manifest: its columns and how many rows follow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listed {
    #[serde(flatten)]
    pub table: Table,
    pub rows: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Trailer {
    end: End,
}

#[derive(Debug, Serialize, Deserialize)]
struct End {
    rows: u64,
    sha256: String,
}

/// Why an archive was refused while read.
#[derive(Debug, thiserror::Error)]
pub enum Damaged {
    #[error("the file is not a Herald backup ({0})")]
    NotAnArchive(String),
    #[error("the archive is of format version {0}; this Herald reads version {VERSION}")]
    Version(u32),
    #[error("the archive is damaged: {0}")]
    Damaged(String),
    #[error("the archive is cut short: {0}")]
    Truncated(String),
    #[error("reading the archive failed: {0}")]
    Io(std::io::Error),
}

impl Damaged {
    fn io(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof => Self::Truncated(e.to_string()),
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => {
                Self::Damaged(e.to_string())
            }
            _ => Self::Io(e),
        }
    }
}

/// Writes an archive: the manifest at once, then [`Writer::row`] for each row in the order the
/// manifest lists, then [`Writer::finish`].
pub struct Writer<W: Write> {
    out: W,
    hash: Sha256,
    rows: u64,
}

impl<W: Write> Writer<W> {
    pub fn new(mut out: W, manifest: &Manifest) -> std::io::Result<Self> {
        let mut hash = Sha256::new();
        let mut line = serde_json::to_vec(manifest).map_err(std::io::Error::other)?;
        line.push(b'\n');
        hash.update(&line);
        out.write_all(&line)?;
        Ok(Self { out, hash, rows: 0 })
    }

    /// One row: a JSON array on one line, as the database made it.
    pub fn row(&mut self, line: &str) -> std::io::Result<()> {
        self.hash.update(line.as_bytes());
        self.hash.update(b"\n");
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.rows += 1;
        Ok(())
    }

    /// Writes the trailer and hands back what was written to.
    pub fn finish(mut self) -> std::io::Result<W> {
        let trailer = Trailer {
            end: End {
                rows: self.rows,
                sha256: hex::encode(self.hash.finalize()),
            },
        };
        let mut line = serde_json::to_vec(&trailer).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads an archive through, checking it as it goes.
pub struct Reader<R: BufRead> {
    input: R,
    hash: Sha256,
    line: String,
    manifest: Manifest,
    rows: u64,
}

impl<R: BufRead> Reader<R> {
    /// Reads and checks the manifest.
    pub fn open(mut input: R) -> Result<Self, Damaged> {
        let mut line = String::new();
        let mut hash = Sha256::new();
        if !read_line(&mut input, &mut line)? {
            return Err(Damaged::NotAnArchive("it is empty".to_owned()));
        }
        hash.update(line.as_bytes());
        let head: Value = match serde_json::from_str(&line) {
            Ok(head) => head,
            // What a manifest begins with, then something unreadable: a damaged one.
            Err(_) if line.starts_with(&format!("{{\"format\":\"{FORMAT}\"")) => {
                return Err(Damaged::Damaged("its manifest cannot be read".to_owned()));
            }
            Err(_) => {
                return Err(Damaged::NotAnArchive(
                    "its first line is not a manifest".to_owned(),
                ));
            }
        };
        if head["format"] != FORMAT {
            return Err(Damaged::NotAnArchive(
                "its first line is not a manifest".to_owned(),
            ));
        }
        let version = head["version"].as_u64().unwrap_or(0);
        if version != u64::from(VERSION) {
            return Err(Damaged::Version(u32::try_from(version).unwrap_or(u32::MAX)));
        }
        let manifest: Manifest = serde_json::from_value(head)
            .map_err(|e| Damaged::Damaged(format!("the manifest: {e}")))?;
        Ok(Self {
            input,
            hash,
            line,
            manifest,
            rows: 0,
        })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The next row of `table`, checked against its columns: a JSON array of as many values,
    /// each of its column's kind (or null).
    pub fn row(&mut self, table: &Table) -> Result<&str, Damaged> {
        if !read_line(&mut self.input, &mut self.line)? {
            return Err(Damaged::Truncated(format!(
                "it ends inside table {}",
                table.name
            )));
        }
        self.hash.update(self.line.as_bytes());
        self.rows += 1;
        let row = self.line.trim_end_matches('\n');
        check_row(table, row).map_err(|why| {
            Damaged::Damaged(format!("row {} ({}): {why}", self.rows, table.name))
        })?;
        Ok(row)
    }

    /// Reads the trailer: the rows counted and the checksum must be the ones read, and nothing
    /// may follow. Answers how many rows there were.
    pub fn finish(mut self) -> Result<u64, Damaged> {
        if !read_line(&mut self.input, &mut self.line)? {
            return Err(Damaged::Truncated("its trailer is missing".to_owned()));
        }
        let trailer: Trailer = serde_json::from_str(&self.line)
            .map_err(|_| Damaged::Damaged("more rows than the manifest lists".to_owned()))?;
        let sha256 = hex::encode(self.hash.finalize());
        if trailer.end.sha256 != sha256 || trailer.end.rows != self.rows {
            return Err(Damaged::Damaged(
                "its checksum does not match its contents".to_owned(),
            ));
        }
        let mut rest = [0u8; 1];
        match self.input.read(&mut rest).map_err(Damaged::io)? {
            0 => Ok(self.rows),
            _ => Err(Damaged::Damaged("something follows its trailer".to_owned())),
        }
    }
}

/// Reads one line (its newline kept) into `line`; `false` at the end of the input. A line
/// without its newline is the end of a file cut short.
fn read_line(input: &mut impl BufRead, line: &mut String) -> Result<bool, Damaged> {
    line.clear();
    let read = input.take(MAX_LINE).read_line(line).map_err(Damaged::io)?;
    match read {
        0 => Ok(false),
        _ if line.ends_with('\n') => Ok(true),
        _ if read as u64 == MAX_LINE => Err(Damaged::Damaged("a line is too long".to_owned())),
        _ => Err(Damaged::Truncated("its last line is cut short".to_owned())),
    }
}

/// Whether `row` is a row of `table`: a JSON array with a value of each column's kind.
fn check_row(table: &Table, row: &str) -> Result<(), String> {
    let values: Vec<Value> = serde_json::from_str(row).map_err(|e| e.to_string())?;
    if values.len() != table.columns.len() {
        return Err(format!(
            "{} values for {} columns",
            values.len(),
            table.columns.len()
        ));
    }
    for (value, column) in values.iter().zip(&table.columns) {
        let fits = match (column.kind, value) {
            (_, Value::Null) => true,
            (Kind::Integer, Value::Number(n)) => n.is_i64(),
            (Kind::Boolean, Value::Bool(_)) => true,
            (Kind::Text, Value::String(_)) => true,
            (Kind::Timestamp, Value::String(s)) => is_timestamp(s),
            (Kind::Binary, Value::String(s)) => {
                s.len() % 2 == 0 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            }
            _ => false,
        };
        if !fits {
            return Err(format!("{} is not {:?}: {value}", column.name, column.kind));
        }
    }
    Ok(())
}

/// `YYYY-MM-DD HH:MM:SS.ffffff`, the one form timestamps take in an archive.
fn is_timestamp(s: &str) -> bool {
    s.len() == 26 && chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.6f").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::archive::Column;

    fn table() -> Table {
        let column = |name: &str, kind| Column {
            name: name.to_owned(),
            kind,
        };
        Table {
            name: "things".to_owned(),
            columns: vec![
                column("id", Kind::Text),
                column("n", Kind::Integer),
                column("on", Kind::Boolean),
                column("at", Kind::Timestamp),
                column("data", Kind::Binary),
            ],
        }
    }

    fn manifest(rows: u64) -> Manifest {
        Manifest {
            format: FORMAT.to_owned(),
            version: VERSION,
            herald: "0.1.0".to_owned(),
            schema: "20261207000004".to_owned(),
            backend: "sqlite".to_owned(),
            taken_at: Utc::now(),
            tables: vec![Listed {
                table: table(),
                rows,
            }],
        }
    }

    const ROWS: [&str; 2] = [
        r#"["a",1,true,"2026-12-07 10:00:00.000000","00ff"]"#,
        r#"["b",null,false,"2026-12-07 10:00:01.123456",null]"#,
    ];

    fn written() -> Vec<u8> {
        let mut w = Writer::new(Vec::new(), &manifest(2)).unwrap();
        for row in ROWS {
            w.row(row).unwrap();
        }
        w.finish().unwrap()
    }

    fn read_all(bytes: &[u8]) -> Result<(Manifest, Vec<String>, u64), Damaged> {
        let mut r = Reader::open(bytes)?;
        let m = r.manifest().clone();
        let mut rows = Vec::new();
        for listed in &m.tables {
            for _ in 0..listed.rows {
                rows.push(r.row(&listed.table)?.to_owned());
            }
        }
        let n = r.finish()?;
        Ok((m, rows, n))
    }

    #[test]
    fn what_is_written_reads_back() {
        let (m, rows, n) = read_all(&written()).unwrap();
        assert_eq!(m.tables, manifest(2).tables);
        assert_eq!(rows, ROWS);
        assert_eq!(n, 2);
    }

    #[test]
    fn a_changed_byte_a_cut_and_an_addition_are_refused() {
        let bytes = written();
        let row = String::from_utf8(bytes.clone())
            .unwrap()
            .find("\"a\"")
            .unwrap();
        let mut flipped = bytes.clone();
        flipped[row + 1] = b'c';
        let err = read_all(&flipped).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");

        for cut in [bytes.len() - 1, bytes.len() - 20, row + 10] {
            let err = read_all(&bytes[..cut]).unwrap_err();
            assert!(matches!(err, Damaged::Truncated(_)), "cut at {cut}: {err}");
        }

        let mut longer = bytes.clone();
        longer.extend_from_slice(b"[]\n");
        let err = read_all(&longer).unwrap_err();
        assert!(err.to_string().contains("follows its trailer"), "{err}");
    }

    #[test]
    fn rows_of_the_wrong_shape_are_refused() {
        let t = table();
        let bad = [
            r#"["a",1,true,"2026-12-07 10:00:00.000000"]"#,
            r#"["a","1",true,"2026-12-07 10:00:00.000000","00"]"#,
            r#"["a",1,1,"2026-12-07 10:00:00.000000","00"]"#,
            r#"["a",1,true,"2026-12-07T10:00:00Z","00"]"#,
            r#"["a",1,true,"2026-12-07 10:00:00.000000","0g"]"#,
            r#"["a",1.5,true,"2026-12-07 10:00:00.000000","00"]"#,
            r#"{"id":"a"}"#,
        ];
        for row in bad {
            assert!(check_row(&t, row).is_err(), "{row}");
        }
        for row in ROWS {
            assert_eq!(check_row(&t, row), Ok(()), "{row}");
        }
    }

    #[test]
    fn other_files_and_other_versions_are_named_as_such() {
        let err = read_all(b"").unwrap_err();
        assert!(matches!(err, Damaged::NotAnArchive(_)), "{err}");
        let err = read_all(b"id,email\n1,a@example.com\n").unwrap_err();
        assert!(matches!(err, Damaged::NotAnArchive(_)), "{err}");
        let err = read_all(b"{\"format\":\"herald-backup\",\"vers\x01ion\n").unwrap_err();
        assert!(matches!(err, Damaged::Damaged(_)), "{err}");
        let err = read_all(b"{\"format\":\"herald-backup\",\"version\":2}\n").unwrap_err();
        assert!(matches!(err, Damaged::Version(2)), "{err}");
    }
}
