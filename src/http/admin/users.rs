//! `/admin/users` (owners): every account with its role; adding one (a generated password is
//! shown once), changing a role, removing an account (its sessions and tokens end at once).
//! The last owner can neither be demoted nor removed.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{Choice, messages, options, values};
use super::form::Submitted;
use super::view::TimeView;
use super::write::{audited, change, form_changes};
use super::{ConsoleFrame, render_form, see_other};
use crate::db::models::users::User;
use crate::domain::{EmailAddress, Role, check_password};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::services::users;
use crate::state::AppState;

const FIELDS: &[&str] = &["email", "role", "password"];
const LIST: &str = "/admin/users";

/// Registers the user routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(LIST, web::get().to(list_users))
        .route(LIST, web::post().to(add_user))
        .route("/admin/users/{id}/role", web::post().to(change_role))
        .route("/admin/users/{id}/delete", web::post().to(remove_user));
}

#[derive(Serialize)]
struct Row {
    email: String,
    role: String,
    is_me: bool,
    since: TimeView,
    role_action: String,
    delete_action: String,
    roles: Vec<Choice>,
}

#[derive(Serialize)]
struct UsersPage {
    frame: ConsoleFrame,
    rows: Vec<Row>,
    roles: Vec<Choice>,
    values: Value,
    errors: Value,
    /// The account just added and its generated password, shown this once.
    created: Option<Created>,
}

#[derive(Serialize)]
struct Created {
    email: String,
    password: Option<String>,
}

fn role_choices(selected: &str) -> Vec<Choice> {
    let all = Role::ALL
        .iter()
        .map(|r| (r.as_str().to_owned(), r.label().to_owned()));
    options(all, selected)
}

fn show(
    state: &AppState,
    auth: &Authenticated,
    all: Vec<User>,
    form: &Submitted,
    refused: Option<&FieldErrors>,
    created: Option<Created>,
) -> AppResult<HttpResponse> {
    let rows = all
        .into_iter()
        .map(|u| Row {
            is_me: u.id == auth.user_id,
            since: TimeView::new(u.created_at, chrono_tz::Tz::UTC),
            role_action: format!("{LIST}/{}/role", u.id),
            delete_action: format!("{LIST}/{}/delete", u.id),
            roles: role_choices(u.role.as_str()),
            role: u.role.as_str().to_owned(),
            email: u.email,
        })
        .collect();
    let chosen = match form.get("role") {
        "" => "responder",
        r => r,
    };
    let mut typed = values(form, FIELDS);
    typed["password"] = Value::from("");
    let view = UsersPage {
        frame: ConsoleFrame::new(state, auth, "Users"),
        rows,
        roles: role_choices(chosen),
        values: typed,
        errors: messages(refused, FIELDS),
        created,
    };
    render_form(state, refused, "admin/users", &view)
}

async fn all_users(state: &AppState) -> AppResult<Vec<User>> {
    state.db.run(users::list_users).await
}

/// The accounts (owners).
#[tracing::instrument(skip_all)]
pub async fn list_users(
    auth: Authenticated,
    state: web::Data<AppState>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let all = all_users(&state).await?;
    show(&state, &auth, all, &Submitted::default(), None, None)
}

/// The new account's email, role and password (typed, or generated when left empty).
fn new_account(form: &Submitted) -> Result<(EmailAddress, Role, String, bool), FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut complain = |field: &str, message: String| {
        errors.entry(field.to_owned()).or_default().push(message);
    };
    let email = EmailAddress::parse(form.get("email"))
        .map_err(|e| complain("email", e.to_string()))
        .ok();
    let role = form
        .get("role")
        .parse::<Role>()
        .map_err(|_| complain("role", "is not a role".to_owned()))
        .ok();
    let typed = form.get("password");
    let (password, generated) = match typed {
        "" => (users::generate_password(), true),
        p => (p.to_owned(), false),
    };
    if let Err(e) = check_password(&password) {
        complain("password", e.to_string());
    }
    match (email, role) {
        (Some(email), Some(role)) if errors.is_empty() => Ok((email, role, password, generated)),
        _ => Err(errors),
    }
}

/// Adds the account and shows it with its generated password once (200), or the form (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn add_user(
    auth: Authenticated,
    state: web::Data<AppState>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let refused = match new_account(&form) {
        Ok((email, role, password, generated)) => {
            let fields = form_changes(&form, &["password"]);
            let added = audited(&state, &auth, Permission::Admin, move |c| {
                let user = users::create_user(c, &email, role, &password).map_err(|e| match e {
                    AppError::Conflict(m) => AppError::field("email", m),
                    other => other,
                })?;
                let audit = change("user.create", "user", &user.id, None, fields);
                Ok(((user, password), audit))
            })
            .await;
            match added {
                Ok((user, password)) => {
                    let created = Created {
                        email: user.email,
                        password: generated.then_some(password),
                    };
                    let all = all_users(&state).await?;
                    let empty = Submitted::default();
                    return show(&state, &auth, all, &empty, None, Some(created));
                }
                Err(AppError::Validation(fields)) => fields,
                Err(other) => return Err(other),
            }
        }
        Err(fields) => fields,
    };
    let all = all_users(&state).await?;
    show(&state, &auth, all, &form, Some(&refused), None)
}

/// Changes a role and goes back to the list (303); refusing to demote the last owner (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn change_role(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let id = id.into_inner();
    let role: Role = match form.get("role").parse() {
        Ok(role) => role,
        Err(_) => return refuse(&state, &auth, AppError::field("role", "is not a role")).await,
    };
    let changed = audited(&state, &auth, Permission::Admin, move |c| {
        let user = users::change_role(c, &id, role)?;
        let fields = json!({"email": user.email, "role": role.as_str()});
        Ok(((), change("user.update", "user", &user.id, None, fields)))
    })
    .await;
    match changed {
        Ok(()) => Ok(see_other(LIST)),
        Err(e @ AppError::Validation(_)) => refuse(&state, &auth, e).await,
        Err(other) => Err(other),
    }
}

/// Removes an account and goes back to the list (303); refusing the last owner (422).
#[tracing::instrument(skip_all, fields(user = %auth.user_id))]
pub async fn remove_user(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> AppResult<HttpResponse> {
    auth.require(Permission::Admin)?;
    let id = id.into_inner();
    let removed = audited(&state, &auth, Permission::Admin, move |c| {
        let user = users::remove_user(c, &id)?;
        let fields = json!({"email": user.email, "role": user.role});
        Ok(((), change("user.delete", "user", &user.id, None, fields)))
    })
    .await;
    match removed {
        Ok(()) => Ok(see_other(LIST)),
        Err(e @ AppError::Validation(_)) => refuse(&state, &auth, e).await,
        Err(other) => Err(other),
    }
}

/// The list again (422) with the message of a refused row action above it.
async fn refuse(state: &AppState, auth: &Authenticated, e: AppError) -> AppResult<HttpResponse> {
    let AppError::Validation(fields) = e else {
        return Err(e);
    };
    // Row actions have no field of the add form: their messages go above the list.
    let fields: FieldErrors = fields
        .into_iter()
        .map(|(k, v)| (format!("account {k}"), v))
        .collect();
    let all = all_users(state).await?;
    show(state, auth, all, &Submitted::default(), Some(&fields), None)
}
