//! The one error type of the application and how it becomes an HTTP answer.
//!
//! JSON errors look like `{"error":"not_found","message":"...","fields":{...}}`. A 5xx is logged
//! once here, with its cause chain; a user's mistake is never a 5xx.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

/// Field name -> messages, for 422 answers.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

/// Seconds a client is told to wait after a 503 for lack of a database connection, or while
/// the database is busy.
pub(crate) const RETRY_AFTER_SECS: u32 = 2;

/// Result alias used throughout the crate.
pub type AppResult<T> = Result<T, AppError>;

/// Everything that can go wrong while serving a request or running a job.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Input failed validation; one message (or more) per field.
    #[error("validation failed")]
    Validation(FieldErrors),
    /// A malformed request that is not about a single field.
    #[error("{0}")]
    BadRequest(String),
    #[error("{0} not found")]
    NotFound(String),
    #[error("authentication required")]
    Unauthorized,
    #[error("forbidden")]
    Forbidden,
    #[error("{0}")]
    Conflict(String),
    /// A value that must be unique is already another record's (a page's slug or custom
    /// domain): 409, with one message per field.
    #[error("already taken")]
    Taken(FieldErrors),
    /// A dependency (the database pool, mostly) could not serve in time; retry after the delay.
    #[error("service temporarily unavailable: {reason}")]
    Unavailable {
        reason: String,
        retry_after_secs: u32,
    },
    #[error("too many requests")]
    RateLimited { retry_after_secs: u32 },
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    /// A validation error on a single field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        let mut fields = FieldErrors::new();
        fields.insert(field.to_owned(), vec![message.into()]);
        Self::Validation(fields)
    }

    /// The messages per field of a refusal (invalid or taken), if it is one.
    pub fn fields(&self) -> Option<&FieldErrors> {
        match self {
            Self::Validation(fields) | Self::Taken(fields) => Some(fields),
            _ => None,
        }
    }

    /// The stable machine-readable code used in JSON bodies.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) => "validation_failed",
            Self::BadRequest(_) => "bad_request",
            Self::NotFound(_) => "not_found",
            Self::Unauthorized => "unauthorized",
            Self::Forbidden => "forbidden",
            Self::Conflict(_) | Self::Taken(_) => "conflict",
            Self::Unavailable { .. } => "unavailable",
            Self::RateLimited { .. } => "rate_limited",
            Self::Internal(_) => "internal",
        }
    }
}

impl From<diesel::result::Error> for AppError {
    fn from(e: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind, Error};
        match e {
            Error::NotFound => Self::NotFound("record".into()),
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                tracing::debug!(message = info.message(), "unique violation");
                Self::Conflict(conflict_message(info.as_ref()))
            }
            // The connection went away under the query (the server restarted or ended the
            // session): the database is unavailable, not the request wrong; ask for a retry.
            Error::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            ) => {
                tracing::warn!(message = info.message(), "lost the database connection");
                Self::Unavailable {
                    reason: "the database connection was lost".into(),
                    retry_after_secs: RETRY_AFTER_SECS,
                }
            }
            // SQLite's writer lock stayed taken past its busy timeout, or PostgreSQL could not
            // serialise the transaction: the database is busy, and the same request may pass
            // in a moment.
            Error::DatabaseError(DatabaseErrorKind::SerializationFailure, info) => {
                tracing::warn!(message = info.message(), "the database could not serialise");
                Self::busy()
            }
            Error::DatabaseError(_, info) if is_busy(info.message()) => {
                tracing::warn!(message = info.message(), "the database is busy");
                Self::busy()
            }
            other => Self::Internal(anyhow::Error::new(other).context("database query failed")),
        }
    }
}

impl AppError {
    /// 503: the database is busy with another writer.
    fn busy() -> Self {
        Self::Unavailable {
            reason: "the database is busy with another write".into(),
            retry_after_secs: RETRY_AFTER_SECS,
        }
    }
}

/// Whether a database error's message says the database was busy (SQLite's `SQLITE_BUSY` and
/// `SQLITE_LOCKED`: "database is locked", "database table is locked", "database is busy";
/// PostgreSQL's lock timeout: "canceling statement due to lock timeout").
fn is_busy(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    message.starts_with("database is locked")
        || message.starts_with("database table is locked")
        || message.starts_with("database is busy")
        || message.contains("due to lock timeout")
}

impl From<validator::ValidationErrors> for AppError {
    fn from(errors: validator::ValidationErrors) -> Self {
        let mut fields = FieldErrors::new();
        for (field, errs) in errors.field_errors() {
            let messages = errs
                .iter()
                .map(|e| {
                    e.message
                        .as_ref()
                        .map(|m| m.to_string())
                        .unwrap_or_else(|| format!("is invalid ({})", e.code))
                })
                .collect();
            fields.insert(field.to_string(), messages);
        }
        Self::Validation(fields)
    }
}

/// What a unique violation is about, in words, without the database's own text (which names
/// its internals and, on PostgreSQL, repeats the value): "a user with this email already
/// exists". The table and columns come from SQLite's message (`UNIQUE constraint failed:
/// users.email`) or PostgreSQL's table name and detail (`Key (email)=(...)`).
fn conflict_message(info: &dyn diesel::result::DatabaseErrorInformation) -> String {
    let (table, columns) = match info.table_name() {
        Some(table) => {
            let columns = info
                .details()
                .and_then(|d| d.strip_prefix("Key ("))
                .and_then(|d| d.split_once(")=").map(|(cols, _)| cols.to_owned()));
            (Some(table.to_owned()), columns)
        }
        None => {
            let failed = info.message().strip_prefix("UNIQUE constraint failed: ");
            let pairs: Vec<(&str, &str)> = failed
                .map(|f| f.split(", ").filter_map(|p| p.split_once('.')).collect())
                .unwrap_or_default();
            let table = pairs.first().map(|(t, _)| (*t).to_owned());
            let columns = (!pairs.is_empty())
                .then(|| pairs.iter().map(|(_, c)| *c).collect::<Vec<_>>().join(", "));
            (table, columns)
        }
    };
    let plain = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ',' | ' '))
            .collect::<String>()
            .replace('_', " ")
    };
    match (table, columns) {
        (Some(table), Some(columns)) => {
            let thing = plain(&table);
            let thing = thing.strip_suffix('s').unwrap_or(&thing).to_owned();
            format!("a {thing} with this {} already exists", plain(&columns))
        }
        (Some(table), None) => format!("such a {} already exists", plain(&table)),
        _ => "a record like this already exists".to_owned(),
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<&'a FieldErrors>,
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::Conflict(_) | Self::Taken(_) => StatusCode::CONFLICT,
            Self::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let message = match self {
            Self::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                "internal error; it has been logged".to_owned()
            }
            Self::Unavailable { reason, .. } => {
                tracing::warn!(%reason, "answering 503");
                "temporarily unavailable, please retry shortly".to_owned()
            }
            other => other.to_string(),
        };
        let fields = self.fields();
        let mut res = HttpResponse::build(self.status_code());
        match self {
            Self::Unavailable {
                retry_after_secs, ..
            }
            | Self::RateLimited { retry_after_secs } => {
                res.insert_header((header::RETRY_AFTER, HeaderValue::from(*retry_after_secs)));
            }
            Self::Unauthorized => {
                res.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
            }
            _ => {}
        }
        res.insert_header((header::CACHE_CONTROL, HeaderValue::from_static("no-store")));
        res.json(ErrorBody {
            error: self.code(),
            message,
            fields,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;

    #[test]
    fn unavailable_answers_503_with_retry_after() {
        let res = AppError::Unavailable {
            reason: "pool".into(),
            retry_after_secs: 2,
        }
        .error_response();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(res.headers().get(header::RETRY_AFTER).unwrap(), "2");
    }

    #[test]
    fn validation_errors_list_each_field() {
        let res = AppError::field("email", "is not an email address").error_response();
        assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = res.into_body().try_into_bytes().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["error"], "validation_failed");
        assert_eq!(json["fields"]["email"][0], "is not an email address");
    }

    struct Info {
        message: &'static str,
        table: Option<&'static str>,
        details: Option<&'static str>,
    }

    impl diesel::result::DatabaseErrorInformation for Info {
        fn message(&self) -> &str {
            self.message
        }
        fn details(&self) -> Option<&str> {
            self.details
        }
        fn hint(&self) -> Option<&str> {
            None
        }
        fn table_name(&self) -> Option<&str> {
            self.table
        }
        fn column_name(&self) -> Option<&str> {
            None
        }
        fn constraint_name(&self) -> Option<&str> {
            None
        }
        fn statement_position(&self) -> Option<i32> {
            None
        }
    }

    #[test]
    fn a_busy_sqlite_database_asks_for_a_retry_not_a_500() {
        use diesel::connection::SimpleConnection;
        use diesel::{Connection, SqliteConnection};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("busy.db");
        let url = path.to_str().unwrap();
        let mut holder = SqliteConnection::establish(url).unwrap();
        holder
            .batch_execute("PRAGMA journal_mode=WAL; CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE;")
            .unwrap();
        let mut other = SqliteConnection::establish(url).unwrap();
        other.batch_execute("PRAGMA busy_timeout=0;").unwrap();
        let err = other
            .batch_execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (1);")
            .unwrap_err();
        let answer = AppError::from(err);
        assert_eq!(
            answer.status_code(),
            StatusCode::SERVICE_UNAVAILABLE,
            "{answer}"
        );
        let res = answer.error_response();
        assert_eq!(res.headers().get(header::RETRY_AFTER).unwrap(), "2");
        holder.batch_execute("ROLLBACK;").unwrap();
        assert!(is_busy("canceling statement due to lock timeout"));
        assert!(!is_busy("no such table: t"));
    }

    #[test]
    fn a_connection_lost_under_a_query_asks_for_a_retry() {
        let lost = AppError::from(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ClosedConnection,
            Box::new(Info {
                message: "terminating connection due to administrator command",
                table: None,
                details: None,
            }),
        ));
        assert_eq!(lost.status_code(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            matches!(lost, AppError::Unavailable { retry_after_secs, .. } if retry_after_secs > 0)
        );
    }

    fn conflict(info: Info) -> AppError {
        AppError::from(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            Box::new(info),
        ))
    }

    #[test]
    fn unique_violations_become_conflicts_that_name_what_without_the_databases_text() {
        let sqlite = conflict(Info {
            message: "UNIQUE constraint failed: users.email",
            table: None,
            details: None,
        });
        assert_eq!(sqlite.status_code(), StatusCode::CONFLICT);
        assert_eq!(sqlite.to_string(), "a user with this email already exists");
        let postgres = conflict(Info {
            message: "duplicate key value violates unique constraint \"status_pages_slug_key\"",
            table: Some("status_pages"),
            details: Some("Key (slug)=(acme) already exists."),
        });
        assert_eq!(
            postgres.to_string(),
            "a status page with this slug already exists"
        );
        let unknown = conflict(Info {
            message: "something else",
            table: None,
            details: None,
        });
        assert_eq!(unknown.to_string(), "a record like this already exists");
    }
}
