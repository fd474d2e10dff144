//! `herald import statuspage` and `herald import subscribers`: progress on stderr, the summary
//! on stdout.

use super::{CliError, usage_of};
use crate::config::Settings;
use crate::services;
use crate::startup;

/// `herald import statuspage`: reads the source page, then writes it in one transaction;
/// progress on stderr, the summary on stdout.
pub(super) fn statuspage(settings: &Settings, from: &str, slug: &str) -> Result<(), CliError> {
    let base = crate::domain::imports::statuspage::api_base(from)
        .map_err(|e| CliError::Usage(format!("--from {e}")))?;
    crate::domain::Slug::parse(slug).map_err(|e| CliError::Usage(format!("--page: {e}")))?;
    let fetcher = crate::delivery::fetch::Fetcher::new(
        crate::delivery::outbound::Policy::from_settings(settings),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)?;
    let mut progress = |line: &str| eprintln!("{line}");
    let source = runtime
        .block_on(crate::services::imports::fetch::read_statuspage(
            &fetcher,
            &base,
            &mut progress,
        ))
        .map_err(|e| CliError::Failed(anyhow::anyhow!(e)))?;
    let (mut conn, _) = startup::open_connection(settings)?;
    let report = services::imports::import_statuspage(&mut conn, slug, &source, &mut progress)
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    for line in report.lines() {
        println!("{line}");
    }
    Ok(())
}

/// `herald import subscribers`: reads the file, checks its webhooks' endpoints, then writes
/// the subscribers a thousand rows per transaction (a serving Herald's writes go on between
/// them); progress on stderr, the summary on stdout.
pub(super) fn subscribers(
    settings: &Settings,
    slug: &str,
    file: &std::path::Path,
    confirmed: bool,
) -> Result<(), CliError> {
    crate::domain::Slug::parse(slug).map_err(|e| CliError::Usage(format!("--page: {e}")))?;
    let shown = file.display();
    let bytes = std::fs::read(file)
        .map_err(|e| CliError::Usage(format!("--csv: cannot read {shown}: {e}")))?;
    let rows = crate::domain::imports::subscriber_csv::read(&bytes)
        .map_err(|e| CliError::Usage(format!("--csv {shown}: {e}")))?;
    eprintln!("read {} rows from {shown}", rows.len());
    let policy = crate::delivery::outbound::Policy::from_settings(settings);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)?;
    let rows = runtime.block_on(crate::services::imports::fetch::check_webhooks(
        rows, &policy,
    ));
    let (mut conn, _) = startup::open_connection(settings)?;
    let mut progress = |line: &str| eprintln!("{line}");
    let report = services::imports::import_subscribers(
        &mut conn,
        slug,
        rows,
        confirmed,
        &mut crate::delivery::signature::new_secret,
        &mut progress,
    )
    .map_err(|e| match e {
        crate::error::AppError::Validation(fields) => usage_of(&fields),
        other => CliError::Failed(anyhow::anyhow!(other.to_string())),
    })?;
    for line in report.lines() {
        println!("{line}");
    }
    if !confirmed && report.created.contains_key("email subscribers") {
        println!("each new email subscriber gets one mail to confirm; until then, nothing else");
    }
    Ok(())
}
