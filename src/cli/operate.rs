//! The operator's commands on the database: `backup`, `restore` and `copy` (progress on
//! stderr, the summary on stdout; a damaged archive, a wrong passphrase or a database that is
//! not empty exits 2), `migrate --status`, and a subscriber's data on request.

use std::path::Path;

use age::secrecy::SecretString;

use super::CliError;
use crate::backup::{self, BackupError, seal};
use crate::config::{DatabaseUrl, Settings};
use crate::db::DbConn;
use crate::services::subscribers::on_request;

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

pub(super) fn migration_status(settings: &Settings) -> Result<(), CliError> {
    let url = &settings.database_url;
    let mut conn = crate::db::connection::establish(url)
        .map_err(|e| anyhow::anyhow!("cannot connect to {}: {e}", url.redacted()))?;
    let all = crate::db::migrations::status(&mut conn)?;
    for (version, state) in &all {
        println!("{version} {}", state.as_str());
    }
    let pending = all
        .iter()
        .filter(|(_, s)| *s == crate::db::migrations::State::Pending);
    println!("{} pending", pending.count());
    Ok(())
}

/// `herald subscriber export --email E`: the JSON on stdout.
pub(super) fn subscriber_export(settings: &Settings, email: &str) -> Result<(), CliError> {
    let email = on_request::address(email).map_err(|e| CliError::Usage(format!("--email: {e}")))?;
    let (mut conn, _) = crate::startup::open_connection(settings)?;
    let held = on_request::export(&mut conn, &email)
        .map_err(|e| CliError::Failed(anyhow::anyhow!(e.to_string())))?;
    let json = serde_json::to_string_pretty(&held).map_err(anyhow::Error::from)?;
    println!("{json}");
    Ok(())
}

/// `herald subscriber forget --email E`: in one transaction with its audit row (which names no
/// address); the counts on stdout.
pub(super) fn subscriber_forget(settings: &Settings, email: &str) -> Result<(), CliError> {
    let email = on_request::address(email).map_err(|e| CliError::Usage(format!("--email: {e}")))?;
    let (mut conn, _) = crate::startup::open_connection(settings)?;
    let forgotten = crate::db::write_tx(&mut conn, |c| {
        let forgotten = on_request::forget(c, &email, chrono::Utc::now())?;
        let entry = crate::services::audit::Change {
            action: "subscriber.forget",
            entity_type: "subscriber",
            entity_id: None,
            page_id: None,
            changes: serde_json::json!({
                "subscriptions": forgotten.subscriptions,
                "support_submissions": forgotten.support_submissions,
            }),
        };
        // The operator at a terminal: the audit log names the command, as it names a vendor
        // or an alert source for their changes.
        let actor = crate::services::audit::Actor {
            user_id: String::new(),
            email: "cli:herald subscriber forget".to_owned(),
        };
        crate::services::audit::record(c, &actor, &entry)?;
        Ok::<_, crate::error::AppError>(forgotten)
    })
    .map_err(|e| CliError::Failed(anyhow::anyhow!(e.to_string())))?;
    println!("subscriptions deleted: {}", forgotten.subscriptions);
    println!(
        "support messages without their sender: {}",
        forgotten.support_submissions
    );
    let mentions: usize = forgotten.mentions.iter().map(|(_, n)| n).sum();
    println!("other rows that mentioned it: {mentions}");
    Ok(())
}

/// `herald retention`: deletes now what is past its time, as the serving process does every
/// ten minutes (batch after batch, a pause between, beside a serving Herald's writes); the
/// rows deleted per table on stdout.
pub(super) fn retention(settings: &Settings) -> Result<(), CliError> {
    use crate::services::retention::{self, Batch};
    let (mut conn, _) = crate::startup::open_connection(settings)?;
    let mut deleted: std::collections::BTreeMap<&str, usize> = Default::default();
    // A serving Herald's writes go first: a batch that found the database busy waits and tries
    // again, up to BUSY_TRIES times in a row.
    const BUSY_TRIES: u32 = 20;
    let mut busy = 0;
    loop {
        let batch =
            match retention::delete_batch(&mut conn, &settings.retention, chrono::Utc::now()) {
                Err(crate::error::AppError::Unavailable { .. }) if busy < BUSY_TRIES => {
                    busy += 1;
                    std::thread::sleep(crate::workers::retention::PAUSE * 10);
                    continue;
                }
                other => other.map_err(|e| CliError::Failed(anyhow::anyhow!(e.to_string())))?,
            };
        busy = 0;
        match &batch {
            Batch::Deleted(counts) => {
                for (table, n) in counts {
                    *deleted.entry(table).or_default() += n;
                }
            }
            Batch::NotOurTurn => {
                eprintln!("another process is deleting now; nothing was done");
                break;
            }
        }
        if !batch.more() {
            break;
        }
        std::thread::sleep(crate::workers::retention::PAUSE);
    }
    for (table, n) in &deleted {
        println!("{table}: {n} deleted");
    }
    Ok(())
}
