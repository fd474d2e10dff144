//! A PostgreSQL that accepts connections but never answers: a server of the test's own, frozen
//! with SIGSTOP (as a failover or a partition looks from the client). Herald must not hang:
//! pages answer from memory, support submissions go to the spool, `/readyz` says 503 in
//! time, and after the thaw everything recovers by itself, each spooled submission stored once.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::helpers::{TestApp, TestDb};
use crate::support::Support;

/// A PostgreSQL server of this test's own (initdb in a temporary folder, run as `postgres`).
struct OwnPostgres {
    dir: tempfile::TempDir,
    port: u16,
    pid: i32,
}

fn as_postgres(args: &[&str]) -> Command {
    let mut cmd = Command::new("runuser");
    cmd.args(["-u", "postgres", "--"]).args(args);
    cmd
}

impl OwnPostgres {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap().to_owned();
        Command::new("chown")
            .args(["postgres", &path])
            .status()
            .unwrap();
        let data = format!("{path}/data");
        let status = as_postgres(&["initdb", "-D", &data, "-A", "trust", "-U", "postgres"])
            .stdout(std::process::Stdio::null())
            .status()
            .expect("initdb runs");
        assert!(status.success(), "initdb");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options = format!("-p {port} -k {path} -c listen_addresses=127.0.0.1");
        let log = format!("{path}/log");
        let status = as_postgres(&[
            "pg_ctl", "-D", &data, "-o", &options, "-l", &log, "-w", "start",
        ])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("pg_ctl runs");
        assert!(status.success(), "pg_ctl start");
        let pid_file =
            std::fs::read_to_string(PathBuf::from(&data).join("postmaster.pid")).unwrap();
        let pid = pid_file.lines().next().unwrap().trim().parse().unwrap();
        Self { dir, port, pid }
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The postmaster and every process it started (the backends serving Herald).
    fn processes(&self) -> Vec<i32> {
        let mut pids = vec![self.pid];
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // The parent id is the field after the parenthesised command name.
            let parent = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<i32>().ok());
            if parent == Some(self.pid) {
                pids.push(pid);
            }
        }
        pids
    }

    fn signal(&self, signal: Signal) {
        for pid in self.processes() {
            let _ = kill(Pid::from_raw(pid), signal);
        }
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        self.signal(Signal::SIGCONT);
        let data = format!("{}/data", self.dir.path().display());
        let _ = as_postgres(&["pg_ctl", "-D", &data, "-m", "immediate", "stop"])
            .stdout(std::process::Stdio::null())
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_database_hangs_nothing_and_everything_recovers_after_the_thaw() {
    // The PostgreSQL half of the suite: it needs the server's binaries and its user.
    if TestDb::postgres().is_none() {
        return;
    }
    let server = tokio::task::spawn_blocking(OwnPostgres::start)
        .await
        .unwrap();
    let db = TestDb::Shared {
        url: server.url(),
        postgres: None,
    };
    let s = Support::spawn(db, &[("HERALD_SUPPORT_RATE_PER_MIN", "1000")]).await;
    let app: &TestApp = &s.app;
    let (status, before, _) = s.post_json(&s.body("Before the freeze.")).await;
    assert_eq!(status, 201, "{before}");

    server.signal(Signal::SIGSTOP);
    let timed = |limit: Duration| {
        move |started: Instant| {
            let took = started.elapsed();
            assert!(took < limit, "took {took:?}, more than {limit:?}");
        }
    };
    for path in ["/status/acme", "/status/acme/api/v2/summary.json"] {
        let started = Instant::now();
        assert_eq!(app.get(path).await.status(), 200, "{path} from memory");
        timed(Duration::from_secs(1))(started);
    }
    let mut references = vec![before["reference"].as_str().unwrap().to_owned()];
    for n in 0..3 {
        let started = Instant::now();
        let (status, body, _) = s
            .post_json(&s.body(&format!("During the freeze, {n}.")))
            .await;
        assert_eq!(status, 201, "spooled: {body}");
        timed(Duration::from_secs(5))(started);
        references.push(body["reference"].as_str().unwrap().to_owned());
    }
    let started = Instant::now();
    assert_eq!(app.get("/readyz").await.status(), 503);
    timed(Duration::from_secs(5))(started);

    server.signal(Signal::SIGCONT);
    let thawed = Instant::now();
    let deadline = thawed + Duration::from_secs(60);
    while app.get("/readyz").await.status() != 200 {
        assert!(Instant::now() < deadline, "ready again after the thaw");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut stored = s.try_stored().await.unwrap_or_default();
    while stored.len() < references.len() {
        assert!(
            Instant::now() < deadline,
            "replayed after the thaw: {}",
            stored.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        stored = s.try_stored().await.unwrap_or_default();
    }
    for reference in &references {
        let copies = stored.iter().filter(|r| &r.reference == reference).count();
        assert_eq!(copies, 1, "{reference} stored once");
    }
    let (status, body, _) = s.post_json(&s.body("After the thaw.")).await;
    assert_eq!(status, 201, "{body}");
}
