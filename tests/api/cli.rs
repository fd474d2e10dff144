//! The command line as an operator meets it: help, configuration errors, migrate, user add.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::helpers::TestDb;
use crate::process::herald;

fn run(cmd: &mut std::process::Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("herald runs");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into(),
        String::from_utf8_lossy(&stderr).into(),
    )
}

#[test]
fn every_subcommand_has_help() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = run(herald(dir.path()).arg("--help"));
    assert_eq!(code, 0);
    for sub in ["serve", "migrate", "user"] {
        assert!(out.contains(sub), "{out}");
    }
    let (code, out, _) = run(herald(dir.path()).args(["user", "add", "--help"]));
    assert_eq!(code, 0);
    assert!(
        out.contains("--password-stdin") && out.contains("--role"),
        "{out}"
    );
    for sub in ["serve", "migrate"] {
        assert_eq!(run(herald(dir.path()).args([sub, "--help"])).0, 0);
    }
}

#[test]
fn an_unsupported_database_scheme_exits_2_listing_the_accepted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(herald(dir.path())
        .arg("serve")
        .env("DATABASE_URL", "mysql://x"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("mysql") && err.contains("sqlite://") && err.contains("postgres://"),
        "{err}"
    );
}

#[test]
fn an_unwritable_sqlite_path_fails_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(herald(dir.path())
        .arg("migrate")
        .env("DATABASE_URL", "sqlite:///proc/herald/nope.db"));
    assert_eq!(code, 1, "the run failed: {err}");
    assert!(err.contains("/proc/herald/nope.db"), "{err}");
}

#[test]
fn a_malformed_bind_address_fails_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(herald(dir.path())
        .arg("serve")
        .env("HERALD_BIND", "localhost-8080"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("HERALD_BIND"), "{err}");
    assert!(
        !dir.path().join("herald.db").exists(),
        "nothing is created before the configuration is valid"
    );
}

#[test]
fn a_bind_address_in_use_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (code, _, err) = run(herald(dir.path()).arg("serve").env("HERALD_BIND", &addr));
    assert_eq!(code, 1, "the run failed: {err}");
    assert!(err.contains("HERALD_BIND") && err.contains(&addr), "{err}");
}

#[test]
fn an_unknown_config_key_fails_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.toml");
    std::fs::write(&path, "bind = \"127.0.0.1:0\"\ncolour = \"blue\"\n").unwrap();
    let (code, _, err) = run(herald(dir.path()).arg("--config").arg(&path).arg("migrate"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("colour"), "{err}");
    // The default file in the working directory is read too.
    std::fs::write(
        dir.path().join("herald.toml"),
        "shutdown_grace_secs = \"soon\"\n",
    )
    .unwrap();
    let (code, _, err) = run(herald(dir.path()).arg("migrate"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("shutdown_grace_secs") || err.contains("invalid type"),
        "{err}"
    );
}

#[test]
fn a_missing_config_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(herald(dir.path()).args(["--config", "absent.toml", "migrate"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("absent.toml"), "{err}");
}

#[test]
fn a_bare_migrate_creates_herald_db_in_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(herald(dir.path()).arg("migrate"));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("applied"), "{out}");
    assert!(dir.path().join("herald.db").is_file());
}

on_both_backends!(
    migrate_twice_is_harmless,
    user_add_creates_accounts_and_refuses_bad_input
);

async fn migrate_twice_is_harmless(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    let (code, out, err) = run(herald(dir.path()).arg("migrate").env("DATABASE_URL", &url));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("applied 20261130000001"), "{out}");
    let (code, out, err) = run(herald(dir.path()).arg("migrate").env("DATABASE_URL", &url));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "database is up to date");
}

async fn user_add_creates_accounts_and_refuses_bad_input(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    let add = |args: &[&str]| {
        let mut cmd = herald(dir.path());
        cmd.args(["user", "add"])
            .args(args)
            .env("DATABASE_URL", &url);
        cmd
    };
    let (code, out, err) = run(&mut add(&[
        "--email",
        "Alice@Example.com",
        "--role",
        "owner",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("created owner alice@example.com"), "{out}");
    let password = out
        .lines()
        .find_map(|l| l.strip_prefix("password: "))
        .expect("generated password printed");
    assert!(password.len() >= 20, "{password}");
    assert!(
        !err.contains(password),
        "the password never reaches the logs"
    );

    let mut child = add(&[
        "--email",
        "bob@example.com",
        "--role",
        "responder",
        "--password-stdin",
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"correct horse battery staple\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        out.contains("created responder bob@example.com") && !out.contains("password:"),
        "{out}"
    );

    let (code, _, err) = run(&mut add(&[
        "--email",
        "alice@example.com",
        "--role",
        "viewer",
    ]));
    assert_eq!(code, 2, "an operator's mistake is a usage error: {err}");
    assert!(err.contains("already exists"), "{err}");
    let (code, _, err) = run(&mut add(&[
        "--email",
        "carol@example.com",
        "--role",
        "admin",
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("--role") && err.contains("owner, responder, viewer"),
        "{err}"
    );
    let (code, _, err) = run(&mut add(&["--email", "not-an-email", "--role", "viewer"]));
    assert_eq!(code, 2);
    assert!(err.contains("--email"), "{err}");
    let mut short = add(&[
        "--email",
        "dave@example.com",
        "--role",
        "viewer",
        "--password-stdin",
    ]);
    short
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = short.spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"short\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("password"));
}
