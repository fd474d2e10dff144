//! Forgetting an address: every mention of it in the text columns of every table of data,
//! replaced in any ASCII case (the rows found by one read per table, changed by rowid or ctid).

use diesel::prelude::*;
use diesel::sql_types::Text;

use super::{ArchiveError, Column, DbConn, Kind, quoted, tables};

/// What stands where a forgotten address was.
pub const FORGOTTEN: &str = "[forgotten]";

/// Replaces every mention of `needle` (in any ASCII case) in the text columns of every table
/// of data with [`FORGOTTEN`], but in the columns `keep` names (table, column); answers the
/// rows changed per table. Each table is read once, for the rows that mention it.
pub fn scrub(
    conn: &mut DbConn,
    needle: &str,
    keep: &[(&str, &str)],
) -> Result<Vec<(String, usize)>, ArchiveError> {
    let needle = needle.to_ascii_lowercase();
    let escaped: String = needle
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let pattern = format!("%{escaped}%");
    let postgres = matches!(conn, DbConn::Postgres(_));
    let mut changed = Vec::new();
    for table in tables(conn)? {
        let columns: Vec<&Column> = table
            .columns
            .iter()
            .filter(|c| c.kind == Kind::Text && !keep.contains(&(&table.name, &c.name)))
            .collect();
        if columns.is_empty() {
            continue;
        }
        let name = quoted(&table.name);
        let names: Vec<String> = columns.iter().map(|c| quoted(&c.name)).collect();
        let param = if postgres { "$1" } else { "?1" };
        let matches: Vec<String> = names
            .iter()
            .map(|c| format!("lower({c}) LIKE {param} ESCAPE '\\'"))
            .collect();
        let sql = match postgres {
            true => format!(
                "SELECT ctid::text AS id, json_build_array({})::text AS line FROM {name} WHERE {}",
                names.join(", "),
                matches.join(" OR ")
            ),
            false => format!(
                "SELECT CAST(rowid AS TEXT) AS id, json_array({}) AS line FROM {name} WHERE {}",
                names.join(", "),
                matches.join(" OR ")
            ),
        };
        let rows: Vec<Mention> = diesel::sql_query(sql)
            .bind::<Text, _>(&pattern)
            .load(conn)?;
        for row in &rows {
            let values: Vec<Option<String>> = serde_json::from_str(&row.line).unwrap_or_default();
            let mut sets = Vec::new();
            let mut binds = Vec::new();
            for (value, column) in values.iter().zip(&names) {
                let Some(text) = value else { continue };
                let scrubbed = replace_ignoring_case(text, &needle, FORGOTTEN);
                if scrubbed != *text {
                    let n = binds.len() + 1;
                    sets.push(match postgres {
                        true => format!("{column} = ${n}"),
                        false => format!("{column} = ?"),
                    });
                    binds.push(scrubbed);
                }
            }
            if sets.is_empty() {
                continue;
            }
            let n = binds.len() + 1;
            let sql = match postgres {
                true => format!(
                    "UPDATE {name} SET {} WHERE ctid = ${n}::tid",
                    sets.join(", ")
                ),
                false => format!("UPDATE {name} SET {} WHERE rowid = ?", sets.join(", ")),
            };
            let mut update =
                diesel::sql_query(sql).into_boxed::<crate::db::connection::MultiBackend>();
            for value in binds {
                update = update.bind::<Text, _>(value);
            }
            update.bind::<Text, _>(row.id.clone()).execute(conn)?;
        }
        if !rows.is_empty() {
            changed.push((table.name.clone(), rows.len()));
        }
    }
    Ok(changed)
}

#[derive(QueryableByName)]
struct Mention {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    line: String,
}

/// `text` with every mention of `needle` (lower case) replaced, in any ASCII case.
fn replace_ignoring_case(text: &str, needle: &str, with: &str) -> String {
    if needle.is_empty() {
        return text.to_owned();
    }
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    while let Some(at) = lower[from..].find(needle) {
        out.push_str(&text[from..from + at]);
        out.push_str(with);
        from += at + needle.len();
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_replaced_in_any_case() {
        let text = "Write to Ada@Example.com or ada@example.com; not ada@example.org.";
        assert_eq!(
            replace_ignoring_case(text, "ada@example.com", FORGOTTEN),
            "Write to [forgotten] or [forgotten]; not ada@example.org."
        );
        assert_eq!(
            replace_ignoring_case("none", "ada@example.com", "x"),
            "none"
        );
    }
}
