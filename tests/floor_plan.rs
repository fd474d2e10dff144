//! The floor plan: every `crate::` path in `src/` (a `use`, a re-export or a path in code) may
//! name only a module on a lower layer of ARCHITECTURE.md's layer table than its own. Modules
//! on one layer do not import each other. A module missing from the table fails too, so a new
//! module is placed before it is used.

#![allow(clippy::expect_used)] // A test: a panic is a failed assertion.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Imports allowed to go up the table, each with its reason: (file, module it imports, why).
/// None today: each cycle found was mended by moving the file to its layer.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

#[test]
fn no_module_imports_one_on_its_own_layer_or_above() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let layers = layer_table(&map);
    assert!(
        layers.len() > 10,
        "ARCHITECTURE.md's layer table was not found (rows `| n | `module` | ... |`): {layers:?}"
    );
    let mut sources = Vec::new();
    rust_files(&root.join("src"), &mut sources);
    assert!(!sources.is_empty(), "no sources under src/");
    let mut problems = Vec::new();
    for top in top_level_modules(&root.join("src/lib.rs")) {
        if !layers.contains_key(&top) {
            problems.push(format!(
                "src/lib.rs: module `{top}` is not in the layer table"
            ));
        }
    }
    for path in &sources {
        let file = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = fs::read_to_string(path).unwrap();
        problems.extend(upward_imports(&file, &text, &layers, EXCEPTIONS));
    }
    assert!(
        problems.is_empty(),
        "{} import(s) go against the floor plan in ARCHITECTURE.md:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_exception_is_still_needed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let layers = layer_table(&map);
    for (file, module, why) in EXCEPTIONS {
        let text = fs::read_to_string(root.join(file)).unwrap();
        let found = upward_imports(file, &text, &layers, &[]);
        assert!(
            found.iter().any(|p| p.contains(&format!("`{module}`"))),
            "the exception for {file} importing `{module}` ({why}) is no longer needed"
        );
    }
}

#[test]
fn a_planted_upward_import_is_named_with_its_file_and_line() {
    let layers = layer_table(
        "| 1 | `domain` | rules | nothing |\n| 2 | `db` | SQL | `domain` |\n\
         | 3 | `services` | use cases | below |\n| 3 | `render` | pages | below |\n| 4 | `http` | handlers | below |",
    );
    let source = "//! docs name crate::http freely\nuse crate::db::DbConn;\n\
                  fn f() {\n    let s = \"crate::http in a string\";\n    crate::http::serve(s); // crate::http\n}\n";
    let found = upward_imports("src/services/x.rs", source, &layers, &[]);
    assert_eq!(
        found,
        ["src/services/x.rs:5: `services` (layer 3) imports `http` (layer 4)"]
    );
    // A sibling on the same layer is refused too, and `super::` is followed out of the module.
    let found = upward_imports(
        "src/services/y/mod.rs",
        "use super::super::render::Page;\n",
        &layers,
        &[],
    );
    assert_eq!(
        found,
        ["src/services/y/mod.rs:1: `services` (layer 3) imports `render` (layer 3)"]
    );
    let found = upward_imports(
        "src/db/z.rs",
        "use crate::{domain::Slug,\n  http::X};\n",
        &layers,
        &[],
    );
    assert_eq!(
        found,
        ["src/db/z.rs:2: `db` (layer 2) imports `http` (layer 4)"]
    );
    // `super::` in an inline module names the file's module, not the one above it.
    let tests = "mod tests {\n    use super::keys;\n}\nuse super::http;\n";
    let found = upward_imports("src/db/mod.rs", tests, &layers, &[]);
    assert_eq!(
        found,
        ["src/db/mod.rs:4: `db` (layer 2) imports `http` (layer 4)"]
    );
    // Downward imports and the module's own paths pass; an exception silences its pair.
    let fine = "use crate::domain::Slug;\nuse crate::services::x;\nuse super::y;\n";
    assert!(upward_imports("src/services/x.rs", fine, &layers, &[]).is_empty());
    let excused = [("src/services/x.rs", "http", "planted")];
    assert!(upward_imports("src/services/x.rs", source, &layers, &excused).is_empty());
}

/// Module name -> layer, from the rows `| <layer> | `module` | holds | may import |`.
fn layer_table(map: &str) -> BTreeMap<String, u32> {
    map.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let layer = cells.get(1)?.parse::<u32>().ok()?;
            let module = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((module.to_owned(), layer))
        })
        .collect()
}

fn top_level_modules(lib: &Path) -> Vec<String> {
    fs::read_to_string(lib)
        .expect("src/lib.rs")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("a folder of src/")
        .map(|e| e.expect("an entry of src/").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src/` (`src/http/auth/mod.rs` is `["http", "auth"]`).
fn module_of(file: &str) -> Vec<String> {
    let rel = file
        .strip_prefix("src/")
        .unwrap_or(file)
        .trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// Every `crate::`/`super::` path of `text` that reaches a module on `file`'s layer or above,
/// as `file:line: ...`.
fn upward_imports(
    file: &str,
    text: &str,
    layers: &BTreeMap<String, u32>,
    exceptions: &[(&str, &str, &str)],
) -> Vec<String> {
    let file_module = module_of(file);
    let Some(top) = file_module.first() else {
        return Vec::new();
    };
    // Inline modules (`mod tests {`) deepen the module `super::` starts from: each is kept
    // with the brace depth it opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let Some(&own) = layers.get(top) else {
        return vec![format!("{file}: module `{top}` is not in the layer table")];
    };
    let mut found = Vec::new();
    // A `use crate::{a, b::c}` may span lines: its braces are followed to their end.
    let mut open_braces: Option<(usize, String)> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = code_of(raw);
        let trimmed = line.trim_start();
        let declared = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed)
            .strip_prefix("mod ")
            .and_then(|rest| rest.trim_end().strip_suffix('{'));
        if let Some(name) = declared {
            inline.push((name.trim().to_owned(), depth));
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if inline.last().is_some_and(|(_, opened)| *opened == depth) {
                        inline.pop();
                    }
                }
                _ => {}
            }
        }
        let mut here = file_module.clone();
        here.extend(inline.iter().map(|(name, _)| name.clone()));
        let mut targets: Vec<(String, usize)> = Vec::new();
        if let Some((depth, prefix)) = open_braces.take() {
            let (names, still_open) = brace_names(&line, depth);
            targets.extend(names.into_iter().map(|name| (format!("{prefix}{name}"), n)));
            if let Some(depth) = still_open {
                open_braces = Some((depth, prefix));
            }
        }
        for (start, _) in line
            .match_indices("crate::")
            .chain(line.match_indices("super::"))
        {
            if line[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = line[start..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let after = &line[start + path.len()..];
            if let Some(group) = after.strip_prefix('{') {
                let (names, still_open) = brace_names(group, 1);
                targets.extend(names.into_iter().map(|name| (format!("{path}{name}"), n)));
                if let Some(depth) = still_open {
                    open_braces = Some((depth, path.clone()));
                }
            } else {
                targets.push((path, n));
            }
        }
        for (path, n) in targets {
            let Some(target) = top_module(&here, &path) else {
                continue;
            };
            if &target == top
                || exceptions
                    .iter()
                    .any(|(f, m, _)| *f == file && *m == target)
            {
                continue;
            }
            match layers.get(&target) {
                Some(&theirs) if theirs < own => {}
                Some(&theirs) => found.push(format!(
                    "{file}:{}: `{top}` (layer {own}) imports `{target}` (layer {theirs})",
                    n + 1
                )),
                None => found.push(format!(
                    "{file}:{}: `{target}` is not in the layer table",
                    n + 1
                )),
            }
        }
    }
    found.dedup();
    found
}

/// The top-level module a path names, seen from the module `here`; `None` for a path that
/// stays at the crate root (a `crate::main`-like item) or names nothing.
fn top_module(here: &[String], path: &str) -> Option<String> {
    let mut at: Vec<String> = here.to_vec();
    let mut rest = path;
    if let Some(r) = rest.strip_prefix("crate::") {
        at.clear();
        rest = r;
    } else {
        while let Some(r) = rest.strip_prefix("super::") {
            at.pop()?;
            rest = r;
        }
    }
    if let Some(first) = at.first() {
        return Some(first.clone());
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && name != "self").then_some(name)
}

/// The names listed at brace depth `depth` in `text` (`a`, `b::c` of `a, b::c}`), and the depth
/// still open at the end of the line, if any.
fn brace_names(text: &str, mut depth: usize) -> (Vec<String>, Option<usize>) {
    let mut names = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    names.push(std::mem::take(&mut current));
                    break;
                }
            }
            ',' if depth == 1 => names.push(std::mem::take(&mut current)),
            c if depth == 1 && (c.is_alphanumeric() || c == '_' || c == ':') => current.push(c),
            _ => {}
        }
    }
    if depth > 0 {
        names.push(current);
    }
    let names = names.into_iter().filter(|n| !n.is_empty()).collect();
    (names, (depth > 0).then_some(depth))
}

/// A line without its string literals and comments.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == '\'' {
            // A character literal ('"', '\\'), not a lifetime: skipped whole.
            let ahead: String = chars.clone().take(3).collect();
            if let Some(escaped) = ahead.strip_prefix('\\') {
                let skip = escaped.find('\'').map_or(0, |i| i + 2);
                for _ in 0..skip {
                    chars.next();
                }
            } else if ahead.chars().nth(1) == Some('\'') {
                chars.next();
                chars.next();
            } else {
                out.push(c);
            }
        } else if c == '/' && chars.peek() == Some(&'/') {
            break;
        } else {
            out.push(c);
        }
    }
    out
}
