//! Running the real `herald` binary as a child process, as an operator would.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A `herald` command with a clean environment, run in `dir` (so no stray herald.toml is read).
pub fn herald(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    cmd.env_clear().current_dir(dir).env("HERALD_LOG", "warn");
    cmd
}

/// Runs `herald <args>` on the database at `database_url`, as an operator would, in a folder of
/// its own (and, for `serve`, on a free port): its exit code, stdout and stderr.
pub fn run_on(database_url: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = herald(dir.path())
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("HERALD_BIND", "127.0.0.1:0")
        .output()
        .expect("herald runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// Adds the owner `email` as an operator does: `herald user add`, the password on stdin.
pub fn add_owner(dir: &Path, database_url: &str, email: &str) {
    use std::io::Write;
    let mut add = herald(dir)
        .args(["user", "add", "--email", email, "--role", "owner"])
        .arg("--password-stdin")
        .env("DATABASE_URL", database_url)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("herald user add starts");
    add.stdin
        .take()
        .expect("piped stdin")
        .write_all(b"correct horse battery staple\n")
        .expect("password written");
    assert!(add.wait().expect("user add ends").success());
}

/// Issues `email` an API token as an operator does (`herald token create`); answers it.
pub fn create_token(dir: &Path, database_url: &str, email: &str) -> String {
    let out = herald(dir)
        .args(["token", "create", "--email", email])
        .env("DATABASE_URL", database_url)
        .output()
        .expect("herald token create runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

/// A `herald serve` child with its stderr collected.
pub struct Serving {
    pub child: Child,
    pub port: u16,
    pub logs: Arc<Mutex<Vec<String>>>,
}

impl Serving {
    /// Starts `herald serve` on a free port with `envs`; waits until it answers.
    pub fn start(dir: &Path, database_url: &str, envs: &[(&str, &str)]) -> Self {
        let serving = Self::listening(dir, database_url, envs);
        let port = serving.port;
        // "listening" is logged when the socket is bound; the workers start a moment later.
        // Wait until one answers, so a test's first connection is served, not queued.
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port))
            .and_then(|mut s| {
                use std::io::{Read, Write};
                s.set_read_timeout(Some(Duration::from_secs(5)))?;
                s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?;
                let mut answer = String::new();
                s.read_to_string(&mut answer)?;
                Ok(answer.starts_with("HTTP/1.1 200"))
            })
            .map_or(true, |ok| !ok)
        {
            assert!(Instant::now() < deadline, "herald never answered /healthz");
            std::thread::sleep(Duration::from_millis(20));
        }
        serving
    }

    /// Starts `herald serve` on a free port with `envs`; returns as soon as its socket is bound
    /// (its workers may not have started yet).
    pub fn listening(dir: &Path, database_url: &str, envs: &[(&str, &str)]) -> Self {
        let mut cmd = herald(dir);
        cmd.arg("serve")
            .env("DATABASE_URL", database_url)
            .env("HERALD_BIND", "127.0.0.1:0")
            .env("HERALD_LOG", "info")
            .env("HERALD_LOG_FORMAT", "json")
            .envs(envs.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("herald starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let logs = Arc::new(Mutex::new(Vec::new()));
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let sink = logs.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(json) = serde_json::from_str::<serde_json::Value>(&line)
                    && json["message"] == "herald is listening"
                {
                    let _ = port_tx.send(json["port"].as_u64().unwrap_or(0) as u16);
                }
                sink.lock().unwrap().push(line);
            }
        });
        let port = port_rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| {
                let _ = child.kill();
                panic!(
                    "herald did not start listening; logs: {:?}",
                    logs.lock().unwrap()
                )
            });
        Self { child, port, logs }
    }

    /// Sends a signal to the child.
    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.child.id() as i32), signal)
            .expect("signal sent");
    }

    /// Waits up to `limit` for the child to exit; returns its status code.
    pub fn wait_exit(&mut self, limit: Duration) -> i32 {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                panic!(
                    "herald did not exit within {limit:?}; logs: {:?}",
                    self.logs.lock().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The log lines so far.
    pub fn log_text(&self) -> String {
        self.logs.lock().unwrap().join("\n")
    }

    /// Waits up to `limit` until a log line contains `needle`.
    pub fn wait_for_log(&self, needle: &str, limit: Duration) {
        let started = Instant::now();
        while !self.logs.lock().unwrap().iter().any(|l| l.contains(needle)) {
            assert!(
                started.elapsed() < limit,
                "no log line with {needle:?} within {limit:?}: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
