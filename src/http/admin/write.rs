//! How a console write runs: the permission check, then the use case and its audit row in one
//! transaction (`services::write`) on the blocking pool, then what must follow it
//! ([`crate::http::committed`]): the same path the JSON API takes.

use serde_json::{Map, Value};

use super::form::Submitted;
use crate::db::DbConn;
use crate::db::models::pages::StatusPage;
use crate::domain::PageId;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission, csrf};
use crate::services;
use crate::services::audit::{Actor, Change};
use crate::state::AppState;

/// Runs `write` needing `permission` through `services::write`; `write` returns its result
/// and the audit change, which commit together. The public pages show the change before this
/// returns (within a bound).
pub async fn audited<T, F>(
    state: &AppState,
    auth: &Authenticated,
    permission: Permission,
    write: F,
) -> AppResult<T>
where
    F: FnOnce(&mut DbConn) -> AppResult<(T, Change)> + Send + 'static,
    T: Send + 'static,
{
    auth.require(permission)?;
    let actor = actor(auth);
    let written = state
        .db
        .run(move |conn| services::write::audited(conn, &actor, write))
        .await?;
    crate::http::committed::follow(state, written.after).await;
    Ok(written.value)
}

/// [`audited`], on the page `slug`: the page is read in the write's transaction (404 when
/// there is none) and handed to `write`.
pub async fn on_page<T, F>(
    state: &AppState,
    auth: &Authenticated,
    permission: Permission,
    slug: &str,
    write: F,
) -> AppResult<T>
where
    F: FnOnce(&mut DbConn, &StatusPage) -> AppResult<(T, Change)> + Send + 'static,
    T: Send + 'static,
{
    let slug = slug.to_owned();
    audited(state, auth, permission, move |conn| {
        let page = services::pages::get_page_by_slug(conn, &slug)?;
        write(conn, &page)
    })
    .await
}

/// Who an audit row names: the signed-in account.
pub fn actor(auth: &Authenticated) -> Actor {
    Actor {
        user_id: auth.user_id.clone(),
        email: auth.email.clone(),
    }
}

/// A console form's submission: `checked` is what the form read (or why it was refused), and
/// `write` the audited write of it. Answers what the write answered once saved, or the field
/// messages to show the form again with (the form's own, or the service's refusal); any other
/// error is the request's.
pub async fn submit<I, T, Fut>(
    checked: Result<I, FieldErrors>,
    write: impl FnOnce(I) -> Fut,
) -> AppResult<Result<T, FieldErrors>>
where
    Fut: std::future::Future<Output = AppResult<T>>,
{
    let input = match checked {
        Ok(input) => input,
        Err(refused) => return Ok(Err(refused)),
    };
    match write(input).await {
        Ok(value) => Ok(Ok(value)),
        Err(AppError::Validation(refused)) => Ok(Err(refused)),
        Err(other) => Err(other),
    }
}

/// An audit change of a record on a page.
pub fn change(
    action: &'static str,
    entity_type: &'static str,
    entity_id: &str,
    page_id: Option<&PageId>,
    changes: Value,
) -> Change {
    Change {
        action,
        entity_type,
        entity_id: Some(entity_id.to_owned()),
        page_id: page_id.cloned(),
        changes,
    }
}

/// The fields of a submitted form as a JSON object, without the CSRF token, the submit
/// buttons and any field named in `secret` (passwords).
pub fn form_changes(form: &Submitted, secret: &[&str]) -> Value {
    let mut fields = Map::new();
    for (key, value) in &form.0 {
        if key == csrf::FIELD
            || key == "preview"
            || key == "action"
            || secret.contains(&key.as_str())
        {
            continue;
        }
        fields
            .entry(key.clone())
            .or_insert_with(|| Value::from(value.clone()));
    }
    Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_changes_leave_out_the_token_and_secrets() {
        let form = Submitted(vec![
            ("csrf_token".into(), "t".into()),
            ("email".into(), "a@example.com".into()),
            ("password".into(), "hunter2".into()),
        ]);
        let changes = form_changes(&form, &["password"]);
        assert_eq!(changes, serde_json::json!({"email": "a@example.com"}));
    }
}
