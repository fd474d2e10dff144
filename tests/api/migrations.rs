//! Migrations: the same names for both backends, applied once, harmless to repeat.

use std::collections::BTreeSet;

use crate::helpers::TestDb;

fn names(backend: &str) -> BTreeSet<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(backend);
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn both_backends_have_the_same_migration_names() {
    let sqlite = names("sqlite");
    let postgres = names("postgres");
    assert!(!sqlite.is_empty());
    assert_eq!(
        sqlite, postgres,
        "migrations/sqlite and migrations/postgres must hold the same names"
    );
    for name in &sqlite {
        for backend in ["sqlite", "postgres"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("migrations")
                .join(backend)
                .join(name);
            assert!(
                dir.join("up.sql").is_file() && dir.join("down.sql").is_file(),
                "{backend}/{name}"
            );
        }
    }
}

on_both_backends!(
    migrating_twice_is_harmless,
    a_database_a_newer_herald_migrated_is_refused_and_the_status_says_why,
);

async fn migrating_twice_is_harmless(db: TestDb) {
    let settings = crate::helpers::test_settings(&db, &[]);
    tokio::task::spawn_blocking(move || {
        let (_, first) = herald::startup::open_database(&settings).unwrap();
        assert!(!first.is_empty(), "a fresh database gets every migration");
        let (pool, second) = herald::startup::open_database(&settings).unwrap();
        assert!(second.is_empty(), "nothing left to apply: {second:?}");
        let pending = pool
            .run_sync(herald::db::migrations::pending_count)
            .unwrap();
        assert_eq!(pending, 0);
    })
    .await
    .unwrap();
}

async fn a_database_a_newer_herald_migrated_is_refused_and_the_status_says_why(db: TestDb) {
    let url = db.url();
    let run = |args: &[&str]| crate::process::run_on(&url, args);
    let count = names("sqlite").len();
    let (code, out, err) = run(&["migrate", "--status"]);
    assert_eq!(code, Some(0), "{err}");
    let listed = |out: &str, state: &str| {
        out.lines()
            .filter(|l| l.starts_with("20") && l.ends_with(state))
            .count()
    };
    assert_eq!(listed(&out, " pending"), count, "{out}");
    assert!(out.ends_with(&format!("{count} pending\n")), "{out}");
    let (code, _, err) = run(&["migrate"]);
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = run(&["migrate", "--status"]);
    assert_eq!(listed(&out, " applied"), count, "{out}");
    assert!(out.ends_with("0 pending\n"), "{out}");

    // A newer Herald's migration, applied.
    let parsed = herald::config::DatabaseUrl::parse(&url).unwrap();
    let mut conn = herald::db::connection::establish(&parsed).unwrap();
    diesel::RunQueryDsl::execute(
        diesel::sql_query(
            "INSERT INTO __diesel_schema_migrations (version) VALUES ('29991231000001')",
        ),
        &mut conn,
    )
    .unwrap();
    let (_, out, _) = run(&["migrate", "--status"]);
    assert!(
        out.contains("29991231000001 applied by a newer Herald"),
        "{out}"
    );
    for command in ["serve", "migrate"] {
        let (code, _, err) = run(&[command]);
        assert_eq!(code, Some(1), "{command}: {err}");
        assert!(
            err.contains("migrated by a newer Herald (migration 29991231000001)"),
            "{command}: {err}"
        );
    }
}
