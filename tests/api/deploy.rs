//! The systemd units in `deploy/` are units systemd takes: `systemd-analyze verify` reads each
//! (with the unit's binary pointed at the one this build made) and finds nothing to say.

use std::path::Path;
use std::process::Command;

use crate::helpers::tools;

#[test]
fn the_systemd_units_verify() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        tools::missing("systemd-analyze", "apt-get install systemd");
        return;
    }
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let units = tempfile::tempdir().unwrap();
    let names = [
        "herald.service",
        "herald-backup.service",
        "herald-backup.timer",
    ];
    for name in names {
        let text = std::fs::read_to_string(deploy.join(name)).unwrap();
        assert!(
            text.contains("/usr/local/bin/herald") || name.ends_with(".timer"),
            "{name}"
        );
        let text = text.replace("/usr/local/bin/herald", env!("CARGO_BIN_EXE_herald"));
        std::fs::write(units.path().join(name), text).unwrap();
    }
    for name in names {
        let out = Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(units.path().join(name))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {said}");
        assert!(said.trim().is_empty(), "{name}: {said}");
    }
    // The service's hardening: its own user, a read-only system, only its state writable.
    let service = std::fs::read_to_string(deploy.join("herald.service")).unwrap();
    for line in [
        "DynamicUser=yes",
        "StateDirectory=herald",
        "ProtectSystem=strict",
        "PrivateTmp=yes",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=\n",
    ] {
        assert!(service.contains(line), "{line:?} missing");
    }
}
