//! The outside tools some tests drive. The Python and npm ones are installed on first use
//! under `target/`, so that `cargo test` alone sets up what it needs: a virtual environment
//! (`target/test-tools/venv`) with schemathesis, standardwebhooks, openapi-spec-validator and
//! atlassian-python-api (its Statuspage client) and pyotp,
//! and axe-core (`target/axe`). Each is installed once, under a file lock that other tests and
//! other test processes wait on, and marked done only when its install succeeded.
//!
//! A tool that is not installed here (Chromium, the one system package) goes through
//! [`missing`]: outside CI the test says so and ends early; under `CI=true` it fails.

use std::os::fd::AsRawFd as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What the virtual environment holds. A change here installs it afresh.
const PYTHON_PACKAGES: &[&str] = &[
    "schemathesis==4.32.5",
    "standardwebhooks==1.3.0",
    "openapi-spec-validator==0.9.0",
    "atlassian-python-api==5.0.5",
    "pyotp==2.9.0",
];

/// The npm package the accessibility checks run in the browser.
const AXE_PACKAGE: &str = "axe-core@4";

/// Whether this is a CI run (`CI` set, and not to `false` or `0`), where no test may end
/// early for want of a tool.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// A test cannot run because `tool` is not installed: under CI it fails, naming `install`;
/// elsewhere it notes that it is skipped, and the caller returns.
pub fn missing(tool: &str, install: &str) {
    assert!(
        !in_ci(),
        "{tool} is not installed, and no test may skip in CI: {install}"
    );
    eprintln!("skipped: {tool} is not installed ({install})");
}

/// The target folder (`CARGO_TARGET_DIR`, or `target/` of the checkout).
fn target_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_owned()
}

/// The folder of the virtual environment's programs (`python`, `st`,
/// `openapi-spec-validator`), installed first if they are not yet. Blocking.
pub fn python_bin() -> PathBuf {
    let venv = target_dir().join("test-tools/venv");
    let wanted = PYTHON_PACKAGES.join("\n");
    install_once(&venv.join(".installed"), &wanted, || install_venv(&venv));
    venv.join("bin")
}

/// axe-core's `axe.min.js` (`HERALD_AXE`, else installed first under `target/axe` if it is
/// not yet). Blocking.
pub fn axe_core() -> PathBuf {
    if let Some(path) = std::env::var_os("HERALD_AXE") {
        return path.into();
    }
    let prefix = target_dir().join("axe");
    install_once(&prefix.join(".installed"), AXE_PACKAGE, || {
        run(Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(&prefix)
            .args(["--no-audit", "--no-fund", "--silent", AXE_PACKAGE]))
    });
    prefix.join("node_modules/axe-core/axe.min.js")
}

/// Runs `install` unless `stamp` already holds `wanted`, under the tools' lock; then writes
/// `wanted` to `stamp`. Panics with the installer's output when it fails.
fn install_once(stamp: &Path, wanted: &str, install: impl FnOnce() -> Result<(), String>) {
    let done = || std::fs::read_to_string(stamp).is_ok_and(|s| s == wanted);
    if done() {
        return;
    }
    let _lock = Lock::take(&target_dir().join("test-tools/.lock"));
    if done() {
        return;
    }
    eprintln!(
        "installing test tools into {}",
        stamp.parent().unwrap().display()
    );
    if let Err(why) = install() {
        panic!("the test tools could not be installed: {why}");
    }
    let partial = stamp.with_extension("tmp");
    std::fs::write(&partial, wanted).unwrap();
    std::fs::rename(&partial, stamp).unwrap();
}

/// Makes the virtual environment afresh and installs [`PYTHON_PACKAGES`] into it. Where
/// `python3 -m venv` cannot add pip (Debian without `python3-venv`'s ensurepip), the
/// environment is made without it and the outer pip installs into it.
fn install_venv(venv: &Path) -> Result<(), String> {
    if venv.exists() {
        std::fs::remove_dir_all(venv).map_err(|e| format!("{}: {e}", venv.display()))?;
    }
    let python = venv.join("bin/python");
    let with_pip = run(Command::new("python3").arg("-m").arg("venv").arg(venv));
    let mut pip = Command::new(&python);
    if let Err(why) = with_pip {
        let _ = std::fs::remove_dir_all(venv);
        run(Command::new("python3")
            .args(["-m", "venv", "--without-pip"])
            .arg(venv))
        .map_err(|again| {
            format!("{why}\n{again}\n(python3 with its venv module is needed: apt-get install python3-venv)")
        })?;
        pip = Command::new("python3");
        pip.args(["-m", "pip", "--python"]).arg(&python);
    } else {
        pip.args(["-m", "pip"]);
    }
    run(pip
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(PYTHON_PACKAGES))
}

/// Runs `command`; its output when it cannot start or fails.
fn run(command: &mut Command) -> Result<(), String> {
    match command.output() {
        Ok(Output { status, .. }) if status.success() => Ok(()),
        Ok(Output {
            status,
            stdout,
            stderr,
        }) => Err(format!(
            "{command:?} failed ({status}):\n{}\n{}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        )),
        Err(e) => Err(format!("{command:?} could not be started: {e}")),
    }
}

/// An exclusive `flock` on a file, held until dropped (or the process ends, however it ends:
/// a killed install leaves no stale lock, and no stamp, so the next run installs again).
struct Lock(std::fs::File);

impl Lock {
    fn take(path: &Path) -> Self {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .unwrap();
        // SAFETY: `flock` on a descriptor this function owns; it blocks until the lock is ours.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(
            locked,
            0,
            "{}: {}",
            path.display(),
            std::io::Error::last_os_error()
        );
        Self(file)
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: as above; closing the file would release it too.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
