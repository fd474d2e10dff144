//! The records of a page that the console manages through one form each (components, groups,
//! incident templates): the empty form, create, the filled form, update and delete are written
//! once here. A [`Record`] says what differs: how it is loaded, read from the form, written,
//! and what its form shows besides the typed values.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use serde_json::{Value, json};

use super::fields::{messages, values};
use super::form::{FormTarget, Submitted};
use super::write::{audited, change, form_changes, submit};
use super::{ConsoleFrame, render_form, see_other};
use crate::db::DbConn;
use crate::db::models::pages::StatusPage;
use crate::domain::PageId;
use crate::error::{AppResult, FieldErrors};
use crate::http::auth::{Authenticated, Permission};
use crate::state::AppState;

/// The audit entity type `$kind` and its actions: `[$kind, create, update, delete]`.
macro_rules! audit {
    ($kind:literal) => {
        [
            $kind,
            concat!($kind, ".create"),
            concat!($kind, ".update"),
            concat!($kind, ".delete"),
        ]
    };
}
pub(super) use audit;

/// A kind of record on a page, managed under `/admin/pages/{slug}/{SEGMENT}`.
pub trait Record: 'static {
    /// What the form lists besides the page (its groups, its components).
    type Lists: Send + 'static;
    /// The stored record.
    type Row: Send + 'static;
    /// What creating one takes.
    type New: Send + 'static;
    /// What updating one takes.
    type Patch: Send + 'static;
    /// Its id, as its path names it.
    type Id: serde::de::DeserializeOwned + AsRef<str> + Send + 'static;

    /// Who may manage these records.
    const PERMISSION: Permission;
    /// The path segment below the page: `(the records', the list a write goes back to)`.
    const PATHS: (&'static str, &'static str);
    /// The fields of the form, each shown with its typed value and its message.
    const FIELDS: &'static [&'static str];
    /// How one is headed (`Group`), and how a new one is (`a component group`).
    const NOUNS: (&'static str, &'static str);
    /// The audit entity type, then the actions of create, update and delete.
    const AUDIT: [&'static str; 4];
    /// The form's template.
    const TEMPLATE: &'static str;

    /// The page of `slug` and what its form lists.
    fn context(c: &mut DbConn, slug: &str) -> AppResult<(StatusPage, Self::Lists)>;
    /// The record `id` of `page` (404 for one of another page).
    fn row(c: &mut DbConn, page: &StatusPage, id: &Self::Id) -> AppResult<Self::Row>;
    /// The record's id and name.
    fn names(row: &Self::Row) -> (&str, &str);
    /// The form filled from the stored record.
    fn stored(row: &Self::Row) -> Submitted;
    /// What the form shows besides the typed values and messages.
    fn extra(lists: &Self::Lists, form: &Submitted, refused: Option<&FieldErrors>) -> Value;
    /// The input of a create, or the fields that could not be read.
    fn new_input(form: &Submitted) -> Result<Self::New, FieldErrors>;
    /// The input of an update, or the fields that could not be read.
    fn patch_input(form: &Submitted) -> Result<Self::Patch, FieldErrors>;
    /// Creates the record on the page `page_id`; its id.
    fn create(c: &mut DbConn, page_id: &PageId, input: &Self::New) -> AppResult<String>;
    /// Updates the record `id` of the page `page_id`.
    fn update(
        c: &mut DbConn,
        page_id: &PageId,
        id: &Self::Id,
        input: &Self::Patch,
    ) -> AppResult<()>;
    /// Deletes the record `id` of the page `page_id`.
    fn delete(c: &mut DbConn, page_id: &PageId, id: &Self::Id) -> AppResult<()>;
}

/// Registers the form routes of `R` ("new" before "{id}").
pub fn routes<R: Record>(cfg: &mut web::ServiceConfig) {
    let base = format!("/admin/pages/{{slug}}/{}", R::PATHS.0);
    cfg.route(&format!("{base}/new"), web::get().to(new_form::<R>))
        .route(&format!("{base}/new"), web::post().to(create::<R>))
        .route(&format!("{base}/{{id}}"), web::get().to(edit_form::<R>))
        .route(&format!("{base}/{{id}}"), web::post().to(update::<R>))
        .route(
            &format!("{base}/{{id}}/delete"),
            web::post().to(delete::<R>),
        );
}

/// The page of a record's form and what the form lists.
type Context<R> = (StatusPage, <R as Record>::Lists);

#[derive(Serialize)]
struct RecordForm {
    frame: ConsoleFrame,
    #[serde(flatten)]
    target: FormTarget,
    back: String,
    values: Value,
    errors: Value,
    #[serde(flatten)]
    extra: Value,
}

/// Where a write goes back to (also the form's way back).
fn list<R: Record>(page: &StatusPage) -> String {
    format!("/admin/pages/{}/{}", page.slug, R::PATHS.1)
}

/// The form's context on the page `slug`, for those who may manage `R` (403 for others).
async fn context<R: Record>(
    state: &AppState,
    auth: &Authenticated,
    slug: String,
) -> AppResult<Context<R>> {
    auth.require(R::PERMISSION)?;
    state.db.run(move |c| R::context(c, &slug)).await
}

/// The form's context and the record `id` on the page `slug`, for those who may manage `R`
/// (403 for others).
async fn load<R: Record>(
    state: &AppState,
    auth: &Authenticated,
    (slug, id): (String, R::Id),
) -> AppResult<(Context<R>, R::Row, R::Id)> {
    auth.require(R::PERMISSION)?;
    state
        .db
        .run(move |c| {
            let context = R::context(c, &slug)?;
            let row = R::row(c, &context.0, &id)?;
            Ok((context, row, id))
        })
        .await
}

fn show<R: Record>(
    state: &AppState,
    auth: &Authenticated,
    context: &Context<R>,
    editing: Option<&R::Row>,
    form: &Submitted,
    refused: Option<&FieldErrors>,
) -> AppResult<HttpResponse> {
    let page = &context.0;
    let (noun, new_noun) = R::NOUNS;
    let target = FormTarget::new(
        &format!("/admin/pages/{}/{}", page.slug, R::PATHS.0),
        editing
            .map(|row| R::names(row))
            .map(|(id, name)| (id, format!("{noun} {name}"))),
        format!("Add {new_noun} to {}", page.name),
    );
    let view = RecordForm {
        frame: ConsoleFrame::new(state, auth, target.heading.clone()),
        back: list::<R>(page),
        target,
        values: values(form, R::FIELDS),
        errors: messages(refused, R::FIELDS),
        extra: R::extra(&context.1, form, refused),
    };
    render_form(state, refused, R::TEMPLATE, &view)
}

/// The empty form.
#[tracing::instrument(skip_all, fields(record = R::AUDIT[0]))]
pub async fn new_form<R: Record>(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> AppResult<HttpResponse> {
    let context = context::<R>(&state, &auth, slug.into_inner()).await?;
    show::<R>(&state, &auth, &context, None, &Submitted::default(), None)
}

/// Creates the record and goes back to the list (303), or the form again (422).
#[tracing::instrument(skip_all, fields(record = R::AUDIT[0], user = %auth.user_id))]
pub async fn create<R: Record>(
    auth: Authenticated,
    state: web::Data<AppState>,
    slug: web::Path<String>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let context = context::<R>(&state, &auth, slug.into_inner()).await?;
    let checked = (R::new_input(&form), 1);
    save::<R, _>(
        &state,
        &auth,
        (&context, None),
        &form,
        checked,
        |c, page_id, input| R::create(c, page_id, &input),
    )
    .await
}

/// Saves the form with `write` (given the page's id, it answers the record's) and its audit
/// row of the action `R::AUDIT[verb]`: back to the list (303), or the form again (422).
async fn save<R: Record, I: Send + 'static>(
    state: &AppState,
    auth: &Authenticated,
    (context, editing): (&Context<R>, Option<&R::Row>),
    form: &Submitted,
    (checked, verb): (Result<I, FieldErrors>, usize),
    write: impl FnOnce(&mut DbConn, &PageId, I) -> AppResult<String> + Send + 'static,
) -> AppResult<HttpResponse> {
    let page = &context.0;
    let saved = submit(checked, |input| {
        let (page_id, fields) = (page.id.clone(), form_changes(form, &[]));
        audited(state, auth, R::PERMISSION, move |c| {
            let id = write(c, &page_id, input)?;
            let audit = change(R::AUDIT[verb], R::AUDIT[0], &id, Some(&page_id), fields);
            Ok(((), audit))
        })
    })
    .await?;
    match saved {
        Ok(()) => Ok(see_other(&list::<R>(page))),
        Err(refused) => show::<R>(state, auth, context, editing, form, Some(&refused)),
    }
}

/// The record's form, filled.
#[tracing::instrument(skip_all, fields(record = R::AUDIT[0]))]
pub async fn edit_form<R: Record>(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, R::Id)>,
) -> AppResult<HttpResponse> {
    let (context, row, _) = load::<R>(&state, &auth, path.into_inner()).await?;
    let form = R::stored(&row);
    show::<R>(&state, &auth, &context, Some(&row), &form, None)
}

/// Saves the record and goes back to the list (303), or the form again (422).
#[tracing::instrument(skip_all, fields(record = R::AUDIT[0], user = %auth.user_id))]
pub async fn update<R: Record>(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, R::Id)>,
    form: Submitted,
) -> AppResult<HttpResponse> {
    let (context, row, id) = load::<R>(&state, &auth, path.into_inner()).await?;
    let (editing, checked) = ((&context, Some(&row)), (R::patch_input(&form), 2));
    save::<R, _>(
        &state,
        &auth,
        editing,
        &form,
        checked,
        move |c, page_id, input| {
            R::update(c, page_id, &id, &input)?;
            Ok(id.as_ref().to_owned())
        },
    )
    .await
}

/// Deletes the record and goes back to the list (303).
#[tracing::instrument(skip_all, fields(record = R::AUDIT[0], user = %auth.user_id))]
pub async fn delete<R: Record>(
    auth: Authenticated,
    state: web::Data<AppState>,
    path: web::Path<(String, R::Id)>,
) -> AppResult<HttpResponse> {
    let (context, row, id) = load::<R>(&state, &auth, path.into_inner()).await?;
    let page = &context.0;
    let page_id = page.id.clone();
    let fields = json!({ "name": R::names(&row).1 });
    audited(&state, &auth, R::PERMISSION, move |c| {
        R::delete(c, &page_id, &id)?;
        let audit = change(
            R::AUDIT[3],
            R::AUDIT[0],
            id.as_ref(),
            Some(&page_id),
            fields,
        );
        Ok(((), audit))
    })
    .await?;
    Ok(see_other(&list::<R>(page)))
}
