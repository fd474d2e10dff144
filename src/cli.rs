//! The `herald` command line: serve (the default), migrate, user management.

// What the commands answer goes to stdout.
#![allow(clippy::print_stdout)]

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{ConfigError, Env, Settings};
use crate::domain::{EmailAddress, Role};
use crate::runtime::drain;
use crate::startup::{self, Application};
use crate::{services, telemetry};

mod import;
mod operate;

/// Exit status for configuration and usage errors.
const EXIT_CONFIG: u8 = 2;
/// Exit status for failures while running.
const EXIT_FAILURE: u8 = 1;

/// Herald: a self-hosted status page and incident communications platform.
#[derive(Debug, Parser)]
#[command(name = "herald", version, about, long_about = None)]
pub struct Cli {
    /// Configuration file (TOML); defaults to ./herald.toml when present. Environment variables
    /// override it.
    #[arg(long, global = true, env = "HERALD_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply pending migrations, then serve HTTP until SIGTERM or SIGINT (the default).
    Serve,
    /// Apply pending migrations and exit.
    Migrate {
        /// Only list each migration: applied, pending, or applied by a newer Herald.
        #[arg(long)]
        status: bool,
    },
    /// Seed a realistic demo page (slug `demo`); running it again changes nothing.
    Demo,
    /// Manage responder accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Move from another status page.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Write every row of the database to a file, in one consistent snapshot, while Herald
    /// serves. Progress goes to stderr, the rows per table to stdout.
    Backup {
        /// The file to write (mode 0600); an existing file is not overwritten.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Encrypt the file (age, scrypt) with the passphrase on this file's first line.
        #[arg(long, value_name = "FILE")]
        passphrase_file: Option<PathBuf>,
    },
    /// Write a backup into the configured database, which must hold no rows (either backend:
    /// this is also the move from SQLite to PostgreSQL). An archive of an older Herald is
    /// restored, then migrated. Nothing is written unless all of it is sound.
    Restore {
        /// The backup file.
        #[arg(long, value_name = "FILE")]
        from: PathBuf,
        /// The passphrase of an encrypted backup, on this file's first line.
        #[arg(long, value_name = "FILE")]
        passphrase_file: Option<PathBuf>,
        /// Only read the backup through and check it; no database is touched.
        #[arg(long)]
        verify: bool,
    },
    /// Delete now what is past its time (the retention_*_days settings), as a serving Herald
    /// does every ten minutes; the rows deleted per table on stdout.
    Retention,
    /// A subscriber's data on request: everything held about an address, or forgetting it.
    #[command(subcommand)]
    Subscriber(SubscriberCommand),
    /// Copy every row of the configured database into another, which must hold no rows: the
    /// move from SQLite to PostgreSQL in one step (a backup restored at once, with no file).
    Copy {
        /// The database to copy into (postgres://... or sqlite://...).
        #[arg(long, value_name = "URL")]
        to: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Copy a Statuspage-compatible page (components, groups, incidents with their updates,
    /// scheduled maintenance) into a Herald page, made when missing. Running it again adds only
    /// what is new.
    Statuspage {
        /// The source page: its address, or its /api/v2/ base (e.g.
        /// https://status.example.com/api/v2/).
        #[arg(long = "from")]
        from: String,
        /// The Herald page to import into (its slug).
        #[arg(long)]
        page: String,
    },
    /// Subscribe the people and webhooks of a subscriber file (Statuspage's export or import
    /// template) to a Herald page, with the components they chose. Email addresses get one
    /// mail to confirm, unless --confirmed; addresses the page already has are skipped.
    Subscribers {
        /// The Herald page (its slug); it must exist (import the page first).
        #[arg(long)]
        page: String,
        /// The CSV file.
        #[arg(long, value_name = "FILE")]
        csv: PathBuf,
        /// The addresses were confirmed where they come from: subscribe them without a mail.
        #[arg(long)]
        confirmed: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SubscriberCommand {
    /// Print, as JSON, everything Herald holds about an address on every page.
    Export {
        #[arg(long)]
        email: String,
    },
    /// Forget an address on every page: subscriptions and their deliveries deleted, support
    /// messages without their sender, every other mention replaced with [forgotten].
    Forget {
        #[arg(long)]
        email: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create an account. Without --password-stdin a password is generated and printed once.
    Add {
        /// The account's email address (its sign-in name).
        #[arg(long)]
        email: String,
        /// owner (everything), responder (incidents, maintenance, subscribers) or viewer (read only).
        #[arg(long)]
        role: String,
        /// Read the password from standard input instead of generating one.
        #[arg(long)]
        password_stdin: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Issue an API token for an account; prints the token alone on stdout.
    Create {
        /// The account the token acts as.
        #[arg(long)]
        email: String,
        /// A name to recognise the token by.
        #[arg(long, default_value = "cli")]
        name: String,
        /// Days until the token expires.
        #[arg(long, default_value_t = services::auth::DEFAULT_TOKEN_DAYS)]
        expires_days: i64,
    },
}

/// Parses the command line and runs it; the process exits with the returned code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match Settings::load(cli.config.as_deref(), &Env::process()) {
        Ok(s) => s,
        Err(e) => return fail_config(&e),
    };
    telemetry::init_tracing(settings.log_format, &settings.log_filter);
    let outcome = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(settings),
        Command::Migrate { status: false } => migrate(&settings),
        Command::Migrate { status: true } => operate::migration_status(&settings),
        Command::Demo => demo(&settings),
        Command::User(UserCommand::Add {
            email,
            role,
            password_stdin,
        }) => user_add(&settings, &email, &role, password_stdin),
        Command::Token(TokenCommand::Create {
            email,
            name,
            expires_days,
        }) => token_create(&settings, &email, &name, expires_days),
        Command::Import(ImportCommand::Statuspage { from, page }) => {
            import::statuspage(&settings, &from, &page)
        }
        Command::Import(ImportCommand::Subscribers {
            page,
            csv,
            confirmed,
        }) => import::subscribers(&settings, &page, &csv, confirmed),
        Command::Backup {
            out,
            passphrase_file,
        } => operate::backup(&settings, &out, passphrase_file.as_deref()),
        Command::Restore {
            from,
            passphrase_file,
            verify,
        } => operate::restore(&settings, &from, passphrase_file.as_deref(), verify),
        Command::Copy { to } => operate::copy(&settings, &to),
        Command::Retention => operate::retention(&settings),
        Command::Subscriber(SubscriberCommand::Export { email }) => {
            operate::subscriber_export(&settings, &email)
        }
        Command::Subscriber(SubscriberCommand::Forget { email }) => {
            operate::subscriber_forget(&settings, &email)
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Usage(message)) => {
            eprintln!("herald: {message}");
            ExitCode::from(EXIT_CONFIG)
        }
        Err(CliError::Failed(e)) => {
            eprintln!("herald: {e:#}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// How a command failed: the operator's input (exit 2) or the run itself (exit 1).
enum CliError {
    Usage(String),
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        Self::Failed(e)
    }
}

fn fail_config(e: &ConfigError) -> ExitCode {
    eprintln!("herald: configuration error: {e}");
    ExitCode::from(EXIT_CONFIG)
}

/// How much lower the CPU priority of background work is than serving's (a nice increment).
const BACKGROUND_NICE: i32 = 5;

/// The nice value of serving's threads, read once before the background runtime starts.
static SERVING_NICE: std::sync::OnceLock<i32> = std::sync::OnceLock::new();

/// The calling thread's nice value (Linux: nice is per thread).
fn nice_of_this_thread() -> i32 {
    // SAFETY: getpriority reads the calling thread's priority and touches no memory.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

/// Sets the calling thread's CPU priority to [`BACKGROUND_NICE`] below serving's. A thread
/// inherits its creator's nice value, and the runtime's blocking threads are made by its
/// workers, so the value is set, not added: incremented, a render on a blocking thread ran at
/// twice the step (nice 10, a tenth of a serving thread's share instead of a third) and an
/// alert storm's changes waited seconds behind the readers for the CPU.
fn lower_priority() {
    let serving = *SERVING_NICE.get_or_init(nice_of_this_thread);
    let background = (serving + BACKGROUND_NICE).min(19);
    if nice_of_this_thread() < background {
        // SAFETY: setpriority takes plain integers and touches no memory of ours; raising a
        // nice value needs no privilege, and a failure (errno) leaves the priority as it was,
        // which is harmless.
        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, background) };
    }
}

fn serve(settings: Settings) -> Result<(), CliError> {
    // This runtime runs the background work: the notification engine and its sends, reminders,
    // the support replay, the public site's refresh, the drain. The HTTP workers have runtimes
    // of their own at the normal priority. When an incident leaves the machine short of CPU,
    // pages and the API are served first, and a fan-out takes a little longer (measured in
    // bench/incident-day.sh).
    SERVING_NICE.get_or_init(nice_of_this_thread);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(lower_priority)
        .build()
        .map_err(|e| CliError::Failed(e.into()))?;
    runtime.block_on(async move {
        // Caught before the listener is bound: a signal during start-up begins the drain once
        // the application exists, instead of killing the process.
        let signals = drain::ShutdownSignals::install();
        let app = Application::build(settings).await?;
        let shutdown = app.shutdown_handle();
        tokio::spawn(async move {
            let Some(signals) = signals else { return };
            let signal = signals.recv().await;
            tracing::info!(signal, "received signal");
            shutdown.begin();
        });
        app.run_until_stopped().await?;
        Ok(())
    })
}

fn migrate(settings: &Settings) -> Result<(), CliError> {
    let (_conn, applied) = startup::open_connection(settings)?;
    if applied.is_empty() {
        println!("database is up to date");
    } else {
        for version in applied {
            println!("applied {version}");
        }
    }
    Ok(())
}

fn demo(settings: &Settings) -> Result<(), CliError> {
    let (mut conn, _) = startup::open_connection(settings)?;
    let seeded = services::demo::seed(&mut conn, chrono::Utc::now())
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    let url = format!(
        "{}/status/{}",
        settings.public_url,
        services::demo::DEMO_SLUG
    );
    match seeded {
        services::demo::Seeded::Created => println!("created the demo page: {url}"),
        services::demo::Seeded::AlreadyThere => println!("the demo page already exists: {url}"),
    }
    Ok(())
}

/// A usage error naming the flags of a service's field errors.
fn usage_of(fields: &crate::error::FieldErrors) -> CliError {
    CliError::Usage(
        fields
            .iter()
            .map(|(field, msgs)| format!("--{}: {}", field.replace('_', "-"), msgs.join("; ")))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

fn user_add(
    settings: &Settings,
    email: &str,
    role: &str,
    password_stdin: bool,
) -> Result<(), CliError> {
    let email = EmailAddress::parse(email).map_err(|e| CliError::Usage(format!("--email: {e}")))?;
    let role: Role = role
        .parse()
        .map_err(|e| CliError::Usage(format!("--role: {e}")))?;
    let (password, generated) = if password_stdin {
        let mut input = String::new();
        std::io::stdin().read_to_string(&mut input).map_err(|e| {
            CliError::Usage(format!("--password-stdin: cannot read standard input: {e}"))
        })?;
        (input.trim_end_matches(['\n', '\r']).to_owned(), false)
    } else {
        (services::users::generate_password(), true)
    };
    crate::domain::check_password(&password)
        .map_err(|e| CliError::Usage(format!("password: {e}")))?;
    let (mut conn, _) = startup::open_connection(settings)?;
    let user =
        services::users::create_user(&mut conn, &email, role, &password).map_err(|e| match e {
            crate::error::AppError::Conflict(_) => {
                CliError::Usage(format!("a user with email {email} already exists"))
            }
            other => CliError::Failed(anyhow::anyhow!(other.to_string())),
        })?;
    println!("created {} {}", user.role, user.email);
    if generated {
        println!("password: {password}");
        println!("(shown once; store it now)");
    }
    Ok(())
}

fn token_create(settings: &Settings, email: &str, name: &str, days: i64) -> Result<(), CliError> {
    let email = EmailAddress::parse(email).map_err(|e| CliError::Usage(format!("--email: {e}")))?;
    let (mut conn, _) = startup::open_connection(settings)?;
    let c = &mut conn;
    let key = crate::services::signing_key::load_or_create(c, settings.secret_key.as_deref())?;
    let issued = match crate::db::models::users::find_by_email(c, email.as_str()) {
        Ok(Some(user)) => services::auth::issue_token(c, key.expose(), &user, name, days),
        Ok(None) => Err(crate::error::AppError::NotFound(format!("account {email}"))),
        Err(e) => Err(e.into()),
    };
    match issued {
        Ok(issued) => {
            println!("{}", issued.secret);
            Ok(())
        }
        Err(crate::error::AppError::NotFound(_)) => {
            Err(CliError::Usage(format!("no account has the email {email}")))
        }
        Err(crate::error::AppError::Validation(fields)) => Err(usage_of(&fields)),
        Err(other) => Err(CliError::Failed(anyhow::anyhow!(other.to_string()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_threads_run_at_a_lower_priority_and_others_keep_theirs() {
        let before = nice_of_this_thread();
        let serving = *SERVING_NICE.get_or_init(nice_of_this_thread);
        let (lowered, made_by_lowered) = std::thread::spawn(|| {
            lower_priority();
            let own = nice_of_this_thread();
            // A thread a background thread makes (a runtime's blocking thread) is lowered once,
            // not again from its creator's value.
            let child = std::thread::spawn(|| {
                lower_priority();
                nice_of_this_thread()
            })
            .join()
            .unwrap();
            (own, child)
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (serving + BACKGROUND_NICE).min(19));
        assert_eq!(made_by_lowered, lowered);
        assert_eq!(nice_of_this_thread(), before, "only the calling thread");
    }
}
