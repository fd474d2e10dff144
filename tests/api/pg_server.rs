//! The PostgreSQL server the `::postgres` half of the suite runs against.
//!
//! - `HERALD_TEST_POSTGRES_URL` when it is set (CI sets it, for the machine's own server).
//! - Otherwise a throwaway cluster of the suite's own, when PostgreSQL's programs are installed:
//!   `initdb` in a temporary folder, `postgres` on a free port of 127.0.0.1. It is started once
//!   per test binary and stopped, and its folder removed, when the binary exits: a small shell
//!   keeps the server's pid and waits on a pipe that only the suite holds.
//! - Otherwise none. Each `::postgres` test then does nothing, and the number of them and why
//!   is printed when the suite ends, so that a green run never hides a half that did not run.

use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use diesel::Connection as _;
use diesel::pg::PgConnection;

/// The variable that names a server to use instead of starting one.
pub const URL_VAR: &str = "HERALD_TEST_POSTGRES_URL";

/// How long the throwaway server may take to accept connections.
const START_LIMIT: Duration = Duration::from_secs(60);

/// Where the suite's PostgreSQL is, or why there is none.
enum Server {
    At(String),
    None(String),
}

static SERVER: OnceLock<Server> = OnceLock::new();
static SKIPPED: AtomicUsize = AtomicUsize::new(0);
/// The write end of the pipe the cluster's keeper waits on; held until the binary exits.
static KEEPER: OnceLock<std::sync::Mutex<std::process::ChildStdin>> = OnceLock::new();

/// The admin URL of the suite's PostgreSQL (a database the suite may create others from), or
/// `None` after counting this test as skipped.
pub fn admin_url() -> Option<String> {
    let server = SERVER.get_or_init(|| match std::env::var(URL_VAR) {
        Ok(url) => Server::At(url),
        Err(_) => {
            assert!(
                !crate::helpers::tools::in_ci(),
                "{URL_VAR} must be set in CI: the PostgreSQL half of the suite may not skip there"
            );
            match start_cluster() {
                Ok(url) => Server::At(url),
                Err(why) => Server::None(why),
            }
        }
    });
    match server {
        Server::At(url) => Some(url.clone()),
        Server::None(why) => {
            if SKIPPED.fetch_add(1, Ordering::SeqCst) == 0 {
                // SAFETY: `report` is an `extern "C" fn()` that only reads statics and writes
                // to stderr; registering it once is all `atexit` asks.
                unsafe { libc::atexit(report) };
            }
            eprintln!("skipped: {why}");
            None
        }
    }
}

extern "C" fn report() {
    let skipped = SKIPPED.load(Ordering::SeqCst);
    if let Some(Server::None(why)) = SERVER.get() {
        let _ = writeln!(
            std::io::stderr(),
            "\n{skipped} PostgreSQL test(s) did nothing: {why}\n"
        );
    }
}

/// The folder of PostgreSQL's programs: where `initdb` is on the PATH, or Debian's folder.
fn programs() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("initdb"))
            .collect::<Vec<_>>()
    });
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|version| version.path().join("bin/initdb"));
    on_path
        .chain(debian)
        .find(|initdb| initdb.is_file())
        .and_then(|initdb| std::fs::canonicalize(initdb).ok())
        .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
        .filter(|bin| bin.join("postgres").is_file())
}

/// Runs `program args` as the user PostgreSQL runs as: this one, or `postgres` when this is
/// root (PostgreSQL refuses to run as root).
fn as_server_user(program: &Path, root: bool) -> Command {
    if root {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=postgres", "--regid=postgres", "--init-groups"])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn start_cluster() -> Result<String, String> {
    let unset = format!("{URL_VAR} is not set");
    let bin = programs().ok_or_else(|| {
        format!("{unset} and PostgreSQL's programs (initdb, postgres) are not installed")
    })?;
    let root = std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false);
    let dir = tempfile::Builder::new()
        .prefix("herald-test-pg-")
        .tempdir()
        .map_err(|e| format!("{unset}, and no temporary folder for a cluster: {e}"))?
        .keep();
    let data = dir.join("data");
    if root {
        let chown = Command::new("chown")
            .arg("postgres:postgres")
            .arg(&dir)
            .status()
            .map_err(|e| format!("{unset}; chown of the cluster folder: {e}"))?;
        if !chown.success() {
            return Err(format!(
                "{unset}; the cluster folder cannot be given to user postgres"
            ));
        }
    }
    let init = as_server_user(&bin.join("initdb"), root)
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ])
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("{unset}; initdb could not run: {e}"))?;
    if !init.status.success() {
        return Err(format!(
            "{unset}; initdb failed: {}",
            String::from_utf8_lossy(&init.stderr).trim()
        ));
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("{unset}; no free port: {e}"))?;
    // The keeper: starts the server, waits until the suite's end closes its stdin, then stops
    // the server at once and removes the cluster.
    let server = as_server_user(&bin.join("postgres"), root);
    let mut words: Vec<String> = std::iter::once(server.get_program())
        .chain(server.get_args())
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    words.extend(
        [
            "-D",
            &data.to_string_lossy(),
            "-p",
            &port.to_string(),
            "-k",
            &dir.to_string_lossy(),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
            "-c",
            "max_connections=300",
        ]
        .map(str::to_owned),
    );
    let script = r#"log="$1"; shift; "$@" >"$log" 2>&1 & pid=$!; read -r _; kill -QUIT "$pid"; wait "$pid"; rm -rf "$(dirname "$log")""#;
    let mut keeper = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("keeper")
        .arg(dir.join("server.log"))
        .args(&words)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{unset}; the cluster could not be started: {e}"))?;
    let stdin = keeper.stdin.take().expect("piped stdin");
    let _ = KEEPER.set(std::sync::Mutex::new(stdin));
    let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    let started = Instant::now();
    loop {
        match PgConnection::establish(&url) {
            Ok(_) => break,
            Err(e) if started.elapsed() > START_LIMIT => {
                let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
                return Err(format!("{unset}; the cluster did not start: {e}\n{log}"));
            }
            // Polling for the server to accept connections, with a bound.
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    eprintln!("{unset}: the PostgreSQL tests run against a cluster of their own at {url}");
    Ok(url)
}
