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

on_both_backends!(migrating_twice_is_harmless);

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
