//! `herald backup`, `herald restore` and `herald copy`: progress on stderr, the summary on stdout; a damaged
//! archive, a wrong passphrase or a database that is not empty exits 2.

use std::path::Path;

use age::secrecy::SecretString;

use super::CliError;
use crate::backup::{self, BackupError, seal};
use crate::config::{DatabaseUrl, Settings};
use crate::db::DbConn;

/// `herald backup --out FILE [--passphrase-file FILE]`.
pub(super) fn backup(
    settings: &Settings,
    out: &Path,
    passphrase_file: Option<&Path>,
) -> Result<(), CliError> {
    let passphrase = passphrase(passphrase_file)?;
    let mut conn = connect(&settings.database_url)?;
    let output = seal::Output::create(out, passphrase)
        .map_err(|e| CliError::Usage(format!("--out {}: {e}", out.display())))?;
    let partial = output.partial().to_owned();
    let mut progress = |line: &str| eprintln!("{line}");
    // A failed backup leaves no file behind, not even a partial one.
    let summary = backup::backup(&mut conn, output, &mut progress)
        .map_err(failed)
        .and_then(|(summary, output)| {
            output.finish().map_err(|e| {
                CliError::Failed(anyhow::anyhow!("finishing {}: {e}", out.display()))
            })?;
            Ok(summary)
        })
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&partial);
        })?;
    for line in summary.lines() {
        println!("{line}");
    }
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    println!("wrote {} ({size} bytes)", out.display());
    Ok(())
}

/// `herald restore --from FILE [--passphrase-file FILE] [--verify]`.
pub(super) fn restore(
    settings: &Settings,
    from: &Path,
    passphrase_file: Option<&Path>,
    verify: bool,
) -> Result<(), CliError> {
    let passphrase = passphrase(passphrase_file)?;
    let input = seal::open(from, passphrase).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut progress = |line: &str| eprintln!("{line}");
    let summary = if verify {
        backup::verify(input, &mut progress)
    } else {
        let mut conn = connect(&settings.database_url)?;
        backup::restore(&mut conn, input, &mut progress)
    }
    .map_err(failed)?;
    for line in summary.lines() {
        println!("{line}");
    }
    match verify {
        true => println!("{} is a sound backup", from.display()),
        false => println!(
            "restored {} into {}",
            from.display(),
            settings.database_url.redacted()
        ),
    }
    Ok(())
}

/// `herald copy --to URL`.
pub(super) fn copy(settings: &Settings, to: &str) -> Result<(), CliError> {
    let target = DatabaseUrl::parse(to).map_err(|e| CliError::Usage(format!("--to: {e}")))?;
    if target == settings.database_url {
        return Err(CliError::Usage(
            "--to names the database Herald is configured with; copy into another one".to_owned(),
        ));
    }
    let mut from = connect(&settings.database_url)?;
    let mut into = connect(&target)?;
    let mut progress = |line: &str| eprintln!("{line}");
    let summary = backup::copy(&mut from, &mut into, &mut progress).map_err(failed)?;
    for line in summary.lines() {
        println!("{line}");
    }
    println!(
        "copied {} into {}",
        settings.database_url.redacted(),
        target.redacted()
    );
    Ok(())
}

/// The passphrase in `file` (its first line; a trailing newline is not part of it).
fn passphrase(file: Option<&Path>) -> Result<Option<SecretString>, CliError> {
    let Some(file) = file else { return Ok(None) };
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::Usage(format!("--passphrase-file {}: {e}", file.display())))?;
    let line = text.lines().next().unwrap_or_default();
    if line.is_empty() {
        return Err(CliError::Usage(format!(
            "--passphrase-file {}: the file holds no passphrase",
            file.display()
        )));
    }
    Ok(Some(SecretString::from(line.to_owned())))
}

/// A connection to the database at `url`, as it is: a backup reads the schema it finds, and a
/// restore brings it to the archive's itself.
fn connect(url: &DatabaseUrl) -> Result<DbConn, CliError> {
    crate::db::connection::establish(url)
        .map_err(|e| CliError::Failed(anyhow::anyhow!("cannot open {}: {e}", url.redacted())))
}

fn failed(e: BackupError) -> CliError {
    match e {
        BackupError::Damaged(d) => CliError::Usage(d.to_string()),
        BackupError::Refused(why) => CliError::Usage(why),
        BackupError::Failed(e) => CliError::Failed(e),
    }
}
